"""Walk a bazaar with a small purse of coins and pay for a known shopping list one stall at a time: some
stalls give change (always in the fewest coins), others accept only the exact amount, so which coins you
hand over now decides what you can pay later; the goal is to buy everything handing over as few coins as
possible in total."""
import random
import re

# Every set is "canonical": largest-coin-first change is also the fewest coins.
COIN_SETS = [
    [1, 2, 5, 10],
    [1, 5, 10, 25],
    [1, 3, 9, 27],
    [1, 2, 4, 8],
    [1, 4, 12, 24],
    [1, 2, 5, 20],
    [1, 3, 10, 30],
    [1, 5, 20, 50],
    [1, 2, 6, 12],
    [1, 3, 7, 21],
]
GOODS = [
    "saffron", "figs", "lamp oil", "a brass bell", "rope", "dates", "a clay jar", "indigo", "a copper pot",
    "silk thread", "olives", "a leather strap", "incense", "a wool cap", "honey", "pistachios", "a reed mat",
    "soap", "a tin whistle", "cumin",
]


class BazaarPurseEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.n_buys, self.n_denoms, self.purse_lo, self.purse_hi = {
            "easy": (6, 4, 2, 4),
            "medium": (8, 4, 2, 3),
            "hard": (9, 4, 2, 4),
        }[self.difficulty]
        self.rng = random.Random()
        self.denoms = []
        self.purse = ()
        self.prices = []
        self.exact = []
        self.goods = []
        self.index = 0
        self.coins_used = 0
        self.target = 0
        self.turn = 0
        self.done = False
        self.history = []
        self._memo = {}
        self._change_cache = {}
        self._pay_cache = {}
        self._trap = False
        self._tip = ""

    # ------------------------------------------------------------------ coin mechanics
    def _change(self, amount):
        """The stall's change: greedy largest-first, i.e. the fewest coins for these denominations."""
        hit = self._change_cache.get(amount)
        if hit is not None:
            return hit
        out = [0] * len(self.denoms)
        left = amount
        for j in range(len(self.denoms) - 1, -1, -1):
            out[j], left = divmod(left, self.denoms[j])
        self._change_cache[amount] = out
        return out

    def _payments(self, purse, price, exact):
        """Every legal payment as a count tuple (index = denomination, ascending; the smallest coin is 1).

        Exact stalls: the coins must add up to the price. Change stalls: at least the price, and no
        coin may be unnecessary (dropping the smallest coin handed over must leave less than the price).
        Because the smallest coin is worth 1, the number of 1-coins is forced once the bigger coins are
        chosen, which keeps the enumeration small."""
        denoms = self.denoms
        n = len(denoms)
        res = []
        cnt = [0] * n
        ones = purse[0]

        def rec(i, total, smallest):
            if i == 0:
                if total >= price:
                    # no 1-coins allowed (each would be unnecessary); bigger coins must all be needed
                    if total > 0 and (exact and total == price or not exact and total - smallest < price):
                        cnt[0] = 0
                        res.append(tuple(cnt))
                    return
                need = price - total
                if need <= ones:
                    cnt[0] = need
                    res.append(tuple(cnt))
                    cnt[0] = 0
                return
            d = denoms[i]
            for c in range(purse[i] + 1):
                t = total + c * d
                if exact and t > price:
                    break
                cnt[i] = c
                rec(i - 1, t, d if c else smallest)
                if t >= price:
                    break
            cnt[i] = 0

        rec(n - 1, 0, 0)
        return res

    def _moves(self, purse, price, exact):
        """Cached legal payments with their consequences: (pay, coins handed over, overpay, next purse)."""
        key = (purse, price, exact)
        hit = self._pay_cache.get(key)
        if hit is not None:
            return hit
        denoms = self.denoms
        out = []
        for pay in self._payments(purse, price, exact):
            total = 0
            for c, d in zip(pay, denoms):
                total += c * d
            back = self._change(total - price)
            nxt = tuple(p - a + b for p, a, b in zip(purse, pay, back))
            out.append((pay, sum(pay), total - price, nxt))
        self._pay_cache[key] = out
        return out

    def _apply(self, purse, price, pay):
        total = 0
        for c, d in zip(pay, self.denoms):
            total += c * d
        back = self._change(total - price)
        return tuple(p - a + b for p, a, b in zip(purse, pay, back))

    def _solve(self, purse):
        """DP over (purchase index, purse): fewest coins to finish (None = impossible).

        memo[(i, purse)] = (best total, best payment, [(payment, next purse, total via it)]). Also
        returns the chance that a player choosing uniformly among legal payments stays optimal."""
        memo = {}
        prices, exact, k = self.prices, self.exact, len(self.prices)
        moves = self._moves

        def best(i, pur):
            if i == k:
                return 0
            key = (i, pur)
            hit = memo.get(key)
            if hit is not None:
                return hit[0]
            top, arg, opts = None, None, []
            for pay, ncoins, _, nxt in moves(pur, prices[i], exact[i]):
                v = best(i + 1, nxt)
                total = None if v is None else v + ncoins
                opts.append((pay, nxt, total))
                if total is not None and (top is None or total < top or (total == top and pay > arg)):
                    top, arg = total, pay
            memo[key] = (top, arg, opts)
            return top

        value = best(0, purse)
        chance = {}

        def luck(i, pur):
            if i == k:
                return 1.0
            key = (i, pur)
            if key in chance:
                return chance[key]
            top, _, opts = memo[key]
            if top is None or not opts:
                chance[key] = 0.0
                return 0.0
            p = sum(luck(i + 1, nxt) for _, nxt, tot in opts if tot == top) / len(opts)
            chance[key] = p
            return p

        return value, memo, (luck(0, purse) if value is not None else 0.0)

    def _myopic_choice(self, purse, i):
        """Fewest coins now; then the smallest overpayment; then keep the bigger coins."""
        opts = self._moves(purse, self.prices[i], self.exact[i])
        if not opts:
            return None
        return min(opts, key=lambda m: (m[1], m[2], tuple(reversed(m[0]))))[0]

    def _fewest_only_best(self, purse):
        """Best total if EVERY stall is paid with the fewest coins possible there (None = gets stuck)."""
        memo = {}
        prices, exact, k = self.prices, self.exact, len(self.prices)
        moves = self._moves

        def best(i, pur):
            if i == k:
                return 0
            key = (i, pur)
            if key in memo:
                return memo[key]
            opts = moves(pur, prices[i], exact[i])
            top = None
            if opts:
                fewest = min(m[1] for m in opts)
                for _, ncoins, _, nxt in opts:
                    if ncoins != fewest:
                        continue
                    v = best(i + 1, nxt)
                    if v is not None and (top is None or v + fewest < top):
                        top = v + fewest
            memo[key] = top
            return top

        return best(0, purse)

    def _myopic_total(self, purse):
        total = 0
        for i in range(len(self.prices)):
            pay = self._myopic_choice(purse, i)
            if pay is None:
                return None, i
            purse = self._apply(purse, self.prices[i], pay)
            total += sum(pay)
        return total, -1

    # ------------------------------------------------------------------ generation
    def _draft(self, rng):
        """A shopping list built along a hidden legal walk, so at least one way to pay everything exists.

        The walk sometimes pays a change stall with several small coins although one bigger coin would do,
        and then spends that bigger coin at a later exact-money stall: the pattern that punishes paying
        with the fewest coins every time."""
        self.denoms = list(rng.choice(COIN_SETS)[: self.n_denoms])
        self._change_cache = {}
        self._pay_cache = {}
        denoms = self.denoms
        top = len(denoms) - 2
        purse = tuple(rng.randint(self.purse_lo, self.purse_hi) if j < top else rng.randint(1, 2)
                      for j in range(len(denoms)))
        cur = purse
        prices, exact = [], []
        reserved = []  # big coins the hidden walk saved for a later exact stall
        k = self.n_buys
        for step in range(k):
            coins = sorted(d for d, c in zip(denoms, cur) for _ in range(c))
            if not coins:
                return None
            pick = None
            ex = rng.random() < 0.45
            if reserved and (ex or step == k - 1 or rng.random() < 0.5):
                ex = True
                big = reserved.pop()
                if big in coins:
                    rest = list(coins)
                    rest.remove(big)
                    extra = rng.sample(rest, rng.randint(0, min(1, len(rest))))
                    pick = [big] + extra
            if pick is None and not ex and rng.random() < 0.7:
                bigs = [c for c in coins if c > denoms[0]]
                if bigs:
                    big = rng.choice(bigs)
                    small = [c for c in coins if c < big]
                    if len(small) >= 2:
                        chosen = rng.sample(small, rng.randint(2, min(3, len(small))))
                        total = sum(chosen)
                        low = max(1, total - min(chosen) + 1)
                        high = min(total, big)
                        if low <= high:
                            price = rng.randint(low, high)
                            pay = tuple(chosen.count(d) for d in denoms)
                            prices.append(price)
                            exact.append(False)
                            self.prices, self.exact = prices, exact
                            cur = self._apply(cur, price, pay)
                            reserved.append(big)
                            continue
            if pick is None:
                if ex:
                    pick = rng.sample(coins, rng.randint(1, min(2, len(coins) - 1) if len(coins) > 1 else 1))
                else:
                    pick = rng.sample(coins, rng.randint(1, min(2, len(coins))))
            total = sum(pick)
            price = total if ex else rng.randint(max(1, total - min(pick) + 1), total)
            pay = tuple(pick.count(d) for d in denoms)
            prices.append(price)
            exact.append(ex)
            self.prices, self.exact = prices, exact
            cur = self._apply(cur, price, pay)
        if not any(exact) or all(exact):
            return None
        return purse

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        chosen = None
        self._trap = False
        for attempt in range(80):
            purse = self._draft(rng)
            if purse is None:
                continue
            value, memo, luck = self._solve(purse)
            if value is None:
                continue
            fallback = (list(self.denoms), purse, list(self.prices), list(self.exact), value, memo)
            if chosen is None:
                chosen = fallback
            if luck > 0.04:
                continue  # random legal payments must almost never be optimal
            my, _ = self._myopic_total(purse)
            if my is not None and my <= value:
                continue  # quick reject: one fewest-coins-everywhere walk already reaches the optimum
            greedy = self._fewest_only_best(purse)
            if greedy is not None and greedy <= value:
                continue  # paying with the fewest coins at every stall must never be enough
            chosen = fallback
            self._trap = True
            break
        if chosen is None:  # practically unreachable: a trivially payable list
            self.denoms = [1, 2, 5, 10]
            self._change_cache = {}
            self._pay_cache = {}
            self.prices, self.exact = [3, 4, 10, 2, 6], [False, True, False, True, False]
            purse = (2, 2, 2, 2)
            value, memo, _ = self._solve(purse)
            chosen = (self.denoms, purse, self.prices, self.exact, value, memo)
        self.denoms, self.purse, self.prices, self.exact, self.target, self._memo = chosen
        self._change_cache = {}
        self._pay_cache = {}
        self.start_purse = self.purse
        self.goods = rng.sample(GOODS, len(self.prices))
        self.index = 0
        self.coins_used = 0
        self.turn = 0
        self.done = False
        self.history = []
        self._tip = self._make_tip()
        return self._render("You enter the bazaar. Plan all purchases before paying for the first."), {}

    def _make_tip(self):
        purse = self.start_purse
        trap_step = None
        change_steps = []
        for i in range(len(self.prices)):
            hit = self._memo.get((i, purse))
            if hit is None or hit[1] is None:
                break
            pay = hit[1]
            opts = self._moves(purse, self.prices[i], self.exact[i])
            fewest = min(m[1] for m in opts)
            if trap_step is None and sum(pay) > fewest:
                trap_step = i
            if sum(c * d for c, d in zip(pay, self.denoms)) > self.prices[i]:
                change_steps.append(i)
            purse = self._apply(purse, self.prices[i], pay)
        parts = []
        if trap_step is not None:
            lead = "Paying every stall with the fewest coins cannot reach the target: a" if self._trap else "A"
            parts.append(f"{lead}t purchase "
                         f"#{trap_step + 1} an optimal plan hands over MORE coins than the minimum there, to keep "
                         "the right coins for later.")
        else:
            parts.append("Paying with the fewest coins works stall by stall only if you choose WHICH coins with "
                         "the later exact-money stalls in mind.")
        if change_steps:
            listed = ", ".join(f"#{i + 1}" for i in change_steps)
            parts.append(f"That plan receives change at purchase(s) {listed} and pays exactly everywhere else.")
        else:
            parts.append("That plan never overpays.")
        return " ".join(parts)

    # ------------------------------------------------------------------ text
    def _purse_text(self, purse):
        return ", ".join(f"{c}x{d}" for d, c in sorted(zip(self.denoms, purse), reverse=True))

    def _render(self, result):
        lines = []
        for i, (g, p, ex) in enumerate(zip(self.goods, self.prices, self.exact)):
            mark = "done" if i < self.index else ("NOW" if i == self.index else "later")
            kind = "EXACT money only" if ex else "gives change"
            lines.append(f"  #{i + 1} {g}: {p} ({kind}) [{mark}]")
        coin_list = ", ".join(str(d) for d in self.denoms)
        shown = min(self.index + 1, len(self.prices))
        return (
            f"BAZAAR PURSE | Purchase {shown}/{len(self.prices)} | Turn {self.turn}/{self.max_turns} | "
            f"Coins handed over {self.coins_used} | Target at most {self.target}\n"
            f"Result: {result}\n"
            f"Purse (count x value): {self._purse_text(self.purse)}\n"
            "Shopping list, paid strictly in this order:\n" + "\n".join(lines) + "\n"
            f"Coin values: {coin_list}. At an EXACT stall the coins must add up to the price. At a change stall "
            "they must cover the price with no unnecessary coin (taking away your smallest coin handed over "
            "would leave too little), and the stall returns the difference in the fewest coins possible, "
            "which go into your purse.\n"
            f"Goal: buy everything handing over at most {self.target} coins in total (the fewest possible). "
            "If you can no longer reach that, or can no longer pay, the game ends.\n"
            "Command: pay for the current purchase by listing the coin values you hand over, e.g. "
            f"\\boxed{{{self._example()}}}."
        )

    def _example(self):
        d = self.denoms
        return f"pay {d[-1]}+{d[1]}+{d[1]}" if len(d) > 1 else "pay 1"

    # ------------------------------------------------------------------ play
    def _parse(self, action):
        found = re.findall(r"\\boxed\{([^{}]*)\}", str(action))
        if not found:
            return None, f"No command found: reply like \\boxed{{{self._example()}}} with the coin values you hand over."
        text = found[-1].strip().lower()
        if text.startswith("pay"):
            text = text[3:]
        tokens = [t for t in re.split(r"[+,;\s]+", text) if t]
        if not tokens or len(tokens) > 60:
            return None, f"List the coins you hand over, e.g. \\boxed{{{self._example()}}}."
        counts = [0] * len(self.denoms)
        for tok in tokens:
            m = re.fullmatch(r"(?:(\d{1,2})[x*])?(\d{1,4})", tok)
            if not m:
                return None, f"Could not read '{tok[:12]}' as a coin value."
            times = int(m.group(1)) if m.group(1) else 1
            value = int(m.group(2))
            if value not in self.denoms:
                return None, f"There is no {value} coin; coin values are {', '.join(str(d) for d in self.denoms)}."
            counts[self.denoms.index(value)] += times
        return tuple(counts), ""

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to start a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        pay, err = self._parse(action)
        if pay is None:
            return self._invalid(err, out)
        for c, d, have in zip(pay, self.denoms, self.purse):
            if c > have:
                return self._invalid(f"You hand over {c} coin(s) of {d} but your purse holds only {have}.", out)
        price = self.prices[self.index]
        total = sum(c * d for c, d in zip(pay, self.denoms))
        if sum(pay) == 0:
            return self._invalid("You must hand over at least one coin.", out)
        if self.exact[self.index]:
            if total != price:
                return self._invalid(f"This stall takes EXACT money only: your coins make {total}, the price is "
                                     f"{price}.", out)
        else:
            if total < price:
                return self._invalid(f"Your coins make {total}, short of the price {price}.", out)
            smallest = min(d for c, d in zip(pay, self.denoms) if c)
            if total - smallest >= price:
                return self._invalid(f"Unnecessary coin: without your {smallest} coin the rest ({total - smallest}) "
                                     f"already covers {price}.", out)
        back = self._change(total - price)
        self.purse = tuple(p - a + b for p, a, b in zip(self.purse, pay, back))
        self.coins_used += sum(pay)
        got = [f"{c}x{d}" for d, c in sorted(zip(self.denoms, back), reverse=True) if c]
        result = (f"Paid {price} for {self.goods[self.index]} with {sum(pay)} coin(s)"
                  + (f"; change {total - price} came back as {', '.join(got)}." if got else ", exact."))
        self.index += 1
        if self.index >= len(self.prices):
            self.done = True
            if self.coins_used <= self.target:
                return self._render(result + f" All bought with {self.coins_used} coins: optimal!"), 1.0, True, False, {}
            return self._render(result + f" All bought, but with {self.coins_used} coins; the target was "
                                         f"{self.target}."), 0.0, True, False, {}
        rest = self._rest(self.index, self.purse)
        if rest is None:
            self.done = True
            return self._render(result + " With this purse the remaining purchases can no longer be paid. "
                                         "Game over."), 0.0, True, False, {}
        if self.coins_used + rest > self.target:
            self.done = True
            return self._render(result + f" The target is now out of reach: the best still possible is "
                                         f"{self.coins_used + rest} coins. Game over."), 0.0, True, False, {}
        if out:
            self.done = True
            return self._render(result + " Out of turns."), 0.0, True, False, {}
        return self._render(result), 0.0, False, False, {}

    def _rest(self, i, purse):
        hit = self._memo.get((i, purse))
        if hit is None:  # every legally reachable state is in the memo; stay safe anyway
            value, memo, _ = self._solve_from(i, purse)
            return value
        return hit[0]

    def _solve_from(self, i, purse):
        saved = (self.prices, self.exact)
        self.prices, self.exact = saved[0][i:], saved[1][i:]
        try:
            return self._solve(purse)
        finally:
            self.prices, self.exact = saved

    def _invalid(self, msg, out):
        if out:
            self.done = True
            return self._render(msg + " Out of turns."), 0.0, True, False, {}
        return self._render(msg + " Nothing was paid; try again."), 0.0, False, False, {}

    def solution(self):
        if self.done or self.index >= len(self.prices):
            return "pay 1"
        hit = self._memo.get((self.index, self.purse))
        pay = hit[1] if hit is not None else None
        if pay is None:
            opts = self._payments(self.purse, self.prices[self.index], self.exact[self.index])
            if not opts:
                return "pay 1"
            pay = opts[0]
        coins = []
        for d, c in sorted(zip(self.denoms, pay), reverse=True):
            coins.extend([str(d)] * c)
        return "pay " + "+".join(coins)

    def hint(self):
        return (self._tip + " Work backwards from the last EXACT-money stall: decide which coins it needs, "
                "then which change-giving stall can produce them.")
