"""Sealed-bid lots: an auction house sells a announced sequence of lots, one per turn. You and scripted
rival bidders each hand in a sealed bid; the highest bid wins the lot and pays its own bid (rivals win ties).
Every rival bids by an announced rule that depends on its remaining coins and on the lot, so a rival that
wins a lot has less to bid later. With a fixed purse, win lots worth as many points as the best possible
plan could: which lots to fight for, and which to let a rival overpay for, is the whole game."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
KINDS = ["clock", "vase", "map", "lamp"]
RIVAL_NAMES = ["Ash", "Birch", "Cedar"]
# difficulty -> (lots, rivals, rule kinds drawn from)
LEVELS = {
    "easy": (6, 2, ("steady", "valuer", "sniper")),
    "medium": (7, 2, ("steady", "valuer", "sniper", "collector")),
    "hard": (8, 3, ("steady", "valuer", "sniper", "collector", "halver")),
}


class SealedBidLotsEnv:
    def __init__(self, max_turns=10, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_lots, self.n_rivals, self.rule_kinds = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, self.n_lots + 3)
        self.rng = random.Random()
        self.lots = []  # (kind, points)
        self.rivals = []  # dicts: name, rule, param, coins0
        self.purse0 = 0
        self.target = 0
        self._memo = {}
        self._start()

    def _start(self):
        self.index = 0
        self.purse = self.purse0
        self.coins = [r["coins0"] for r in self.rivals]
        self.owned = [[] for _ in self.rivals]
        self.points = 0
        self.won = []
        self.turn = 0
        self.done = False
        self.log = []

    # ------------------------------------------------------------------ rival rules
    def _bid(self, r, coins, owned, index):
        rule, p = self.rivals[r]["rule"], self.rivals[r]["param"]
        kind, points = self.lots[index]
        left = self.n_lots - index
        if rule == "steady":
            want = coins // left
        elif rule == "valuer":
            want = p * points
        elif rule == "sniper":
            want = coins if points >= p else 0
        elif rule == "collector":
            want = p[1] if kind == p[0] and owned.count(kind) < 2 else 0
        else:  # halver
            want = coins // 2 if points >= p else min(1, coins)
        return max(0, min(coins, want))

    def _round(self, coins, owned, index):
        """Rival bids for lot `index` and the rival that would take it if you stay out (or None)."""
        bids = [self._bid(r, coins[r], owned[r], index) for r in range(len(self.rivals))]
        top = max(bids) if bids else 0
        winner = bids.index(top) if top > 0 else None
        return bids, winner

    def _future(self, index, purse, coins, owned):
        """Most points you can still win from lot `index` on, and whether to win this lot on a best plan."""
        key = (index, purse, coins, tuple(tuple(o) for o in owned))
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        if index >= self.n_lots:
            return (0, False)
        bids, winner = self._round(coins, owned, index)
        # stay out: the top rival (if any) takes the lot and pays
        c2, o2 = list(coins), [list(o) for o in owned]
        if winner is not None:
            c2[winner] -= bids[winner]
            o2[winner].append(self.lots[index][0])
        best = (self._future(index + 1, purse, tuple(c2), o2)[0], False)
        price = (max(bids) if bids else 0) + 1
        if price <= purse:
            take = self.lots[index][1] + self._future(index + 1, purse - price, coins, owned)[0]
            if take > best[0]:
                best = (take, True)
        self._memo[key] = best
        return best

    # ------------------------------------------------------------------ shortcuts the filter rules out
    def _greedy(self, plan=None):
        """Win every affordable lot (or only the lots in `plan`) at the lowest winning price."""
        purse, coins, owned, pts = self.purse0, [r["coins0"] for r in self.rivals], [[] for _ in self.rivals], 0
        for i in range(self.n_lots):
            bids, winner = self._round(coins, owned, i)
            price = (max(bids) if bids else 0) + 1
            if price <= purse and (plan is None or i in plan):
                purse -= price
                pts += self.lots[i][1]
            elif winner is not None:
                coins[winner] -= bids[winner]
                owned[winner].append(self.lots[i][0])
        return pts

    def _leaves(self, index, purse, coins, owned, pts, out):
        """Points at the end of every win/stay-out sequence from lot `index` on (appended to `out`)."""
        if index >= self.n_lots:
            out.append(pts)
            return
        bids, winner = self._round(coins, owned, index)
        price = (max(bids) if bids else 0) + 1
        if price <= purse:
            self._leaves(index + 1, purse - price, coins, owned, pts + self.lots[index][1], out)
        if winner is not None:
            coins, owned = list(coins), [list(o) for o in owned]
            coins[winner] -= bids[winner]
            owned[winner].append(self.lots[index][0])
        self._leaves(index + 1, purse, coins, owned, pts, out)

    def _static_plan(self):
        """Best set of lots if every price stayed what the rivals would bid with their starting coins."""
        coins, owned = [r["coins0"] for r in self.rivals], [[] for _ in self.rivals]
        prices = [(max(self._round(coins, owned, i)[0]) if self.rivals else 0) + 1 for i in range(self.n_lots)]
        best, plan = -1, set()
        for mask in range(1 << self.n_lots):
            chosen = [i for i in range(self.n_lots) if mask >> i & 1]
            if sum(prices[i] for i in chosen) <= self.purse0:
                pts = sum(self.lots[i][1] for i in chosen)
                if pts > best:
                    best, plan = pts, set(chosen)
        return plan

    # ------------------------------------------------------------------ episode
    def _draw(self):
        rng = self.rng
        self.lots = [(rng.choice(KINDS), rng.randint(2, 12)) for _ in range(self.n_lots)]
        kinds = list(self.rule_kinds)
        rng.shuffle(kinds)
        self.rivals = []
        for r in range(self.n_rivals):
            rule = kinds[r % len(kinds)]
            if rule == "valuer":
                param = rng.choice([1, 2])
            elif rule in ("sniper", "halver"):
                param = rng.randint(7, 11)
            elif rule == "collector":
                param = (rng.choice(KINDS), rng.randint(4, 9))
            else:
                param = 0
            self.rivals.append({"name": RIVAL_NAMES[r], "rule": rule, "param": param,
                                "coins0": rng.randint(12, 26)})
        self.purse0 = rng.randint(10, 20)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(80):
            self._draw()
            self._memo = {}
            ends = []
            self._leaves(0, self.purse0, [r["coins0"] for r in self.rivals], [[] for _ in self.rivals], 0, ends)
            self.target = max(ends)
            # few win/stay-out sequences may reach the target, so bidding by luck rarely gets there; and neither
            # "win whatever you can afford" nor a plan priced once at the start may reach it
            if self.target == 0 or ends.count(self.target) > max(2, len(ends) // 32):
                continue
            if self._greedy() < self.target and self._greedy(self._static_plan()) < self.target:
                break
        self._start()
        return self._render("The first lot is up."), {}

    def _rule_text(self, r):
        rv = self.rivals[r]
        rule, p = rv["rule"], rv["param"]
        if rule == "steady":
            return "bids its coins divided by the number of lots still to sell, this one included (rounded down)"
        if rule == "valuer":
            return "bids the lot's points" if p == 1 else "bids twice the lot's points"
        if rule == "sniper":
            return f"bids ALL its coins on any lot worth {p} points or more, and nothing on other lots"
        if rule == "collector":
            return (f"bids {p[1]} on every {p[0]} lot until it owns two {p[0]}s, and nothing on anything else")
        return f"bids half its coins (rounded down) on lots worth {p} points or more, otherwise 1 coin"

    def _render(self, last):
        lots = []
        for i, (kind, pts) in enumerate(self.lots):
            if i < self.index:
                state = f"sold to {self.log[i]}"
            elif i == self.index and not self.done:
                state = "ON THE BLOCK"
            else:
                state = "to come"
            lots.append(f"  lot {i + 1}: {kind}, {pts} points - {state}")
        rivals = [f"  {rv['name']}: {self.coins[r]} coins left, owns "
                  f"{', '.join(self.owned[r]) if self.owned[r] else 'nothing'}; always {self._rule_text(r)} "
                  "(never more than it has)"
                  for r, rv in enumerate(self.rivals)]
        return ("SEALED-BID LOTS\nLots, sold in this order:\n" + "\n".join(lots) + "\n"
                "Rival bidders (their rules never change):\n" + "\n".join(rivals) + "\n"
                f"You: {self.purse} coins left, {self.points} points won. Target: {self.target} points.\n"
                "Each lot: everyone bids at once; the highest bid wins and pays exactly its bid; a tie goes to a "
                "rival (to the one listed first among tied rivals). Losers pay nothing. A lot nobody bids on goes "
                "unsold.\n"
                "Bid on the lot on the block with \\boxed{5} (a whole number of coins, 0 to stay out).\n"
                f"Last: {last}")

    def step(self, action):
        if self.done:
            return "The auction is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        body = m.group(1).strip().lower() if m else ""
        mm = re.fullmatch(r"(?:bid\s*)?(\d{1,6})", body)
        if mm is None:
            last = "No bid read (turn lost, the lot is still on the block): write e.g. \\boxed{5}."
        elif int(mm.group(1)) > self.purse:
            last = f"You only have {self.purse} coins (turn lost, the lot is still on the block)."
        else:
            bid = int(mm.group(1))
            bids, winner = self._round(tuple(self.coins), self.owned, self.index)
            kind, pts = self.lots[self.index]
            shown = ", ".join(f"{self.rivals[r]['name']} {b}" for r, b in enumerate(bids))
            if bid > 0 and bid > max(bids or [0]):
                self.purse -= bid
                self.points += pts
                self.log.append(f"you for {bid}")
                last = f"Bids: you {bid}, {shown}. You win lot {self.index + 1} ({pts} points) for {bid} coins."
            elif winner is not None:
                self.coins[winner] -= bids[winner]
                self.owned[winner].append(kind)
                name = self.rivals[winner]["name"]
                self.log.append(f"{name} for {bids[winner]}")
                last = f"Bids: you {bid}, {shown}. {name} wins lot {self.index + 1} for {bids[winner]} coins."
            else:
                self.log.append("nobody")
                last = f"Bids: you {bid}, {shown}. Lot {self.index + 1} goes unsold."
            self.index += 1
            best = self.points + self._future(self.index, self.purse, tuple(self.coins), self.owned)[0]
            if self.index >= self.n_lots or best < self.target:
                self.done = True
                if self.points >= self.target:
                    return self._render(last + f" Auction over: {self.points} points, target reached. You win!"), \
                        1.0, True, False, {}
                return self._render(last + f" The target is out of reach now (at most {best} points). You lose."), \
                    0.0, True, False, {}
        if self.turn >= self.max_turns:
            self.done = True
            return self._render(last + " Out of turns: you lose."), 0.0, True, False, {}
        return self._render(last), 0.0, False, False, {}

    def solution(self):
        if self.done:
            return "0"
        bids, _ = self._round(tuple(self.coins), self.owned, self.index)
        take = self._future(self.index, self.purse, tuple(self.coins), self.owned)[1]
        return str((max(bids or [0]) + 1) if take else 0)

    def hint(self):
        # follow the best plan from the current lot to the end and name, by kind, the lots it wins
        index, purse, coins, owned, wins = self.index, self.purse, list(self.coins), [list(o) for o in self.owned], []
        while index < self.n_lots:
            bids, winner = self._round(tuple(coins), owned, index)
            if self._future(index, purse, tuple(coins), owned)[1]:
                purse -= max(bids or [0]) + 1
                wins.append(self.lots[index][0])
            elif winner is not None:
                coins[winner] -= bids[winner]
                owned[winner].append(self.lots[index][0])
            index += 1
        plan = ", then ".join(wins) if wins else "nothing more"
        return ("The best plan from here wins these lots, in selling order (by kind): " + plan + ". Before each bid, "
                "work out every rival bid from its rule and its coins at that moment; to win, top the highest rival "
                "bid by the smallest possible margin, and otherwise stay out.")
