"""Ferry galley stock: before the crossing, choose how many meals the galley loads. Tonight's demand follows
stated odds over ranges of passengers; every meal sold earns its price, every meal left over is sold off
cheaply at the pier, and every passenger turned away costs a voucher. Name the load with the highest expected
profit."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (demand ranges, with a stock-out voucher, with a bulk discount)
LEVELS = {"easy": (4, False, False), "medium": (5, True, False), "hard": (6, True, True)}


class FerryGalleyStockEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_ranges, self.with_voucher, self.with_bulk = LEVELS[self.difficulty]
        self.max_turns = 1
        self.rng = random.Random()
        self.ranges = []  # (low, high, percent): each whole number from low to high equally likely
        self.price = self.cost = self.salvage = self.voucher = 0
        self.bulk_at = 0
        self.bulk_cost = 0
        self.best = 0
        self.done = False

    def _buy(self, q):
        if self.with_bulk and q > self.bulk_at:
            return self.bulk_at * self.cost + (q - self.bulk_at) * self.bulk_cost
        return q * self.cost

    def _odds(self):
        """Each possible demand with its weight; the weights sum to `scale` (exact integers throughout)."""
        scale = 1
        for lo, hi, _ in self.ranges:
            w = hi - lo + 1
            a, b = scale, w
            while b:
                a, b = b, a % b
            scale = scale * w // a
        odds = []
        for lo, hi, pct in self.ranges:
            share = pct * scale // (hi - lo + 1)
            odds += [(d, share) for d in range(lo, hi + 1)]
        return odds, 100 * scale

    def _values(self):
        """Expected profit of every load from 0 to the largest demand, times the odds' scale."""
        odds, scale = self._odds()
        top = self.ranges[-1][1]
        out = []
        for q in range(top + 1):
            total = 0
            for d, w in odds:
                sold = min(q, d)
                total += w * (self.price * sold + self.salvage * (q - sold) - self.voucher * (d - sold))
            out.append((total - scale * self._buy(q), q))
        return out, scale

    def _draw(self):
        rng = self.rng
        lo = rng.randint(6, 16)
        self.ranges = []
        weights = [rng.randint(1, 9) for _ in range(self.n_ranges)]
        pcts = [w * 100 // sum(weights) for w in weights]
        pcts[rng.randrange(len(pcts))] += 100 - sum(pcts)
        for p in pcts:
            hi = lo + rng.randint(2, 5)
            if p > 0:
                self.ranges.append((lo, hi, p))
            lo = hi + 1
        self.cost = rng.randint(4, 12)
        self.price = self.cost + rng.randint(1, 9)
        self.salvage = rng.randint(0, self.cost - 2)
        self.voucher = rng.randint(1, 6) if self.with_voucher else 0
        if self.with_bulk:
            self.bulk_at = rng.randint(self.ranges[0][1], self.ranges[-1][0])
            self.bulk_cost = rng.randint(max(self.salvage + 1, self.cost - 3), self.cost - 1)
        else:
            self.bulk_at = self.bulk_cost = 0

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(200):
            self._draw()
            values, scale = self._values()
            values.sort(reverse=True)
            (best, q), (runner, _) = values[0], values[1]
            if (best - runner) * 5 < scale:  # unique, by at least 0.2 coins of expected profit
                continue
            # the load must not be a number the screen shows, nor the mean or the median demand
            shown = {self.price, self.cost, self.salvage, self.voucher, self.bulk_at, self.bulk_cost}
            for lo, hi, p in self.ranges:
                shown.update((lo, hi, p))
            odds, _ = self._odds()
            mean = sum(d * w for d, w in odds) / scale
            acc, median = 0, self.ranges[-1][1]
            for d, w in odds:
                acc += w
                if 2 * acc >= scale:
                    median = d
                    break
            if q in shown or abs(q - mean) < 1 or q == median:
                continue
            break
        self.best = q
        self.done = False
        return self._render(), {}

    def _render(self):
        odds = "\n".join(f"  {lo} to {hi} passengers want a meal: {p}%" for lo, hi, p in self.ranges)
        lines = [
            "FERRY GALLEY STOCK",
            "",
            "Tonight's demand for meals (exactly one line comes true, with these odds; within a line every whole",
            "number of passengers from the first to the last is equally likely):",
            odds,
            "",
            f"Each meal costs {self.cost} coins to load and sells for {self.price}. Meals left over are sold at the "
            f"pier for {self.salvage} each.",
        ]
        if self.with_bulk:
            lines.append(f"Bulk deal: every meal beyond the first {self.bulk_at} loaded costs only {self.bulk_cost}.")
        if self.with_voucher:
            lines.append(f"Every passenger who wants a meal and gets none costs a {self.voucher}-coin voucher.")
        lines += [
            "",
            "How many meals should the galley load to make the expected profit as large as possible? You have one",
            "answer: a whole number, e.g. \\boxed{17}.",
        ]
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The ferry has sailed.", 0.0, True, False, {}
        self.done = True
        boxes = BOX_RE.findall(str(action)[:4000])
        text = boxes[0].strip() if len(boxes) == 1 else ""
        q = int(text) if re.fullmatch(r"\d{1,4}", text) else None
        if q == self.best:
            return f"Loading {q} meals gives the highest expected profit. You win!", 1.0, True, False, {}
        got = "That is not one whole number." if q is None else f"Loading {q} meals is not the best load."
        return f"{got} The best load was {self.best}. You lose.", 0.0, True, False, {}

    def solution(self):
        return str(self.best)

    def hint(self):
        text = ("Think about the last meal loaded: it pays off when demand reaches it and is a loss otherwise. "
                "Keep adding meals while P(demand >= that meal) x (price - cost"
                + (" + voucher" if self.with_voucher else "") + ") is at least P(demand < that meal) x (cost - pier "
                "price); inside a line the odds are spread evenly, so the chance falls step by step and the best "
                "load is usually inside a line, not at its ends")
        if self.with_bulk:
            text += "; beyond the bulk threshold use the cheaper cost"
        return text + ". It is neither the most likely demand nor the average."
