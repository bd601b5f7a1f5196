"""Saffron sale: sell one chest of saffron in each of several markets in turn. A market's daily price is only
revealed day by day, always between its stated floor and ceiling, and the market closes without notice on an
unknown day (an unsold chest then goes at the floor). A sale counts if its price is within the market's stated
factor of that market's best price of the season, judged once the whole season is revealed; every sale must
count, a guarantee you must secure without seeing the future."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# (a, b, k): floor a*a*k, ceiling b*b*k, factor b/a (so the balancing price a*b*k is a whole number)
SCALES = [(1, 2, 10), (1, 3, 5), (1, 2, 12), (2, 5, 3), (1, 3, 6), (2, 5, 4), (2, 7, 2), (1, 2, 15), (3, 8, 1),
          (1, 3, 4)]
# difficulty -> (markets, shortest season, longest season)
LEVELS = {"easy": (4, 4, 6), "medium": (5, 5, 8), "hard": (6, 6, 10)}


class SaffronSaleEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_markets, self.lmin, self.lmax = LEVELS[self.difficulty]
        self.max_turns = self.n_markets * self.lmax
        self.rng = random.Random()
        self.markets = []  # (a, b, floor, ceiling, prices)
        self.results = []  # (sale price, counted?)
        self.cur = 0
        self.day = 0
        self.done = False
        self.note = ""

    def _market(self):
        """One season: its best price is drawn anywhere above the balancing price, and every price before the
        balancing price is first reached lies below best/factor (a sale there does not count): a lower bar sells
        too early, a higher bar may never be reached (the floor does not count either)."""
        rng = self.rng
        a, b, k = rng.choice(SCALES)
        lo, hi, bal = a * a * k, b * b * k, a * b * k
        length = rng.randint(self.lmin, self.lmax)
        first = rng.randint(3, length)  # the day (1-based) the price first reaches the balancing price
        best = rng.randint(bal + 1, hi)
        top = min(bal - 1, -(-best * a // b) - 1)  # highest price that does not count against `best`
        before = [lo]
        for _ in range(first - 2):  # a wandering, mostly rising walk below `top`
            step = rng.choice([-2, -1, 1, 2, 3]) * max(1, (top - lo) // 5)
            before.append(max(lo, min(top, before[-1] + step)))
        if top > lo:
            before[rng.randrange(1, first - 1)] = top
        after = [rng.randint(lo, best) for _ in range(length - first)]
        today = rng.randint(bal, best)
        if today != best:
            if after:
                after[rng.randrange(len(after))] = best
            else:
                today = best
        return (a, b, lo, hi, before + [today] + after)

    @staticmethod
    def _counts(market, rule):
        a, b, lo, hi, prices = market
        for d in range(len(prices)):
            if rule(lo, hi, prices[:d + 1], d):
                return prices[d] * b >= max(prices) * a
        return lo * b >= max(prices) * a

    def _plain_rules(self):
        """Rules that never use the balancing price: fixed bars, rises, drops, jumps, fixed days."""
        rules = [lambda lo, hi, h, d, f=f: h[-1] >= f * hi for f in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)]
        rules += [lambda lo, hi, h, d, f=f: h[-1] >= f * lo for f in (1.5, 2, 2.5, 3)]
        rules += [lambda lo, hi, h, d, f=f: h[-1] >= lo + f * (hi - lo) for f in (0.25, 0.5)]
        rules += [lambda lo, hi, h, d: d > 0 and h[-1] > h[-2], lambda lo, hi, h, d: d > 0 and h[-1] < h[-2],
                  lambda lo, hi, h, d: d > 0 and h[-1] >= 1.3 * max(h[:-1]),
                  lambda lo, hi, h, d: d > 0 and h[-1] >= 1.6 * max(h[:-1]),
                  lambda lo, hi, h, d: d > 1 and h[-1] > h[-2] > h[-3]]
        rules += [lambda lo, hi, h, d, k=k: d == k for k in range(5)]
        return rules

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rules = self._plain_rules()
        for _ in range(300):
            self.markets = [self._market() for _ in range(self.n_markets)]
            # every plain rule must fail somewhere in the episode
            if not any(all(self._counts(mk, r) for mk in self.markets) for r in rules):
                break
        self.results = []
        self.cur = 0
        self.day = 0
        self.done = False
        self.note = ""
        return self._render(), {}

    def _render(self):
        a, b, lo, hi, prices = self.markets[self.cur]
        hist = ", ".join(str(p) for p in prices[:self.day]) or "none yet"
        done = "; ".join(f"market {i + 1}: sold at {p} ({'counts' if ok else 'does NOT count'})"
                         for i, (p, ok) in enumerate(self.results)) or "none yet"
        lines = [
            f"SAFFRON SALE  |  Market {self.cur + 1} of {self.n_markets}  |  Day {self.day + 1}  |  Today's price: "
            f"{prices[self.day]}",
            "",
            f"In this market every day's price is a whole number from {lo} (floor) to {hi} (ceiling); you see only",
            "today's price, never tomorrow's. Each day you either sell your chest at today's price or hold. The",
            f"market closes for good after one of days {self.lmin} to {self.lmax} (you are not told which); a chest "
            f"still unsold then goes at the floor price {lo}.",
            f"Your sale here counts if its price times {b}/{a} is at least the highest price of this market's whole",
            "season (including the days after you sold: they are revealed when you sell). Then the next market",
            "opens, with its own floor, ceiling and factor. You win if every market's sale counts.",
            "",
            f"Earlier prices in this market: {hist}",
            f"Results so far: {done}",
        ]
        if self.note:
            lines += ["", self.note]
        lines += ["", "Command (one per day): \\boxed{sell} or \\boxed{hold}."]
        return "\n".join(lines)

    def _close(self, price):
        a, b, lo, hi, prices = self.markets[self.cur]
        best = max(prices)
        ok = price * b >= best * a
        self.results.append((price, ok))
        self.note = (f"Market {self.cur + 1}'s season was: {', '.join(str(p) for p in prices)} (highest {best}); "
                     f"{price} x {b}/{a} = {price * b / a:g}, so the sale {'counts' if ok else 'does NOT count'}.")
        if not ok:
            self.done = True
            return self.note + " You lose.", 0.0, True, False, {}
        self.cur += 1
        self.day = 0
        if self.cur >= self.n_markets:
            self.done = True
            return self.note + " Every sale counts. You win!", 1.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def step(self, action):
        if self.done:
            return "The markets are closed.", 0.0, True, False, {}
        boxes = BOX_RE.findall(str(action)[:4000])
        word = boxes[0].strip().lower() if len(boxes) == 1 else ""
        prices = self.markets[self.cur][4]
        if word == "sell":
            self.note = f"You sold on day {self.day + 1} for {prices[self.day]}."
            return self._close(prices[self.day])
        self.note = "You held." if word == "hold" else "No clear \\boxed{sell} or \\boxed{hold}: you held."
        self.day += 1
        if self.day >= len(prices):
            self.note += f" The market closed after day {self.day}; your chest went at the floor price."
            return self._close(self.markets[self.cur][2])
        return self._render(), 0.0, False, False, {}

    def solution(self):
        a, b, lo, hi, prices = self.markets[self.cur]
        return "sell" if prices[self.day] * a >= lo * b else "hold"

    def hint(self):
        return ("In every market pick one reservation price before its first day and stick to it. Two things can go "
                "wrong: you sell at your price and the ceiling comes later, or your price never comes and you get "
                "the floor while the season's best stayed just below your price. Choose the price where both worst "
                "cases meet the stated factor exactly: price x factor = ceiling and floor x factor = price, which is "
                "not the midpoint. Past prices say nothing about the future here.")
