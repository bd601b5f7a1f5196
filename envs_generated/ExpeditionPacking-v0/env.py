"""Pack a weight-limited supply drone for a polar research camp: choose the set of items with the
greatest total usefulness whose total weight fits the drone's limit (a 0/1 knapsack in which
grabbing the best value-per-kg items first is never enough)."""
import random
import re

ITEM_NAMES = [
    "anemometer", "batteries", "binoculars", "blanket", "canteen", "carabiners", "compass",
    "crampons", "drill", "flares", "generator", "goggles", "hammock", "harness", "hatchet",
    "heater", "icepick", "kayak", "ladder", "lantern", "medkit", "periscope", "pickaxe",
    "radio", "rations", "rope", "satphone", "shovel", "sled", "snowshoes", "solarpanel",
    "stove", "tarp", "telescope", "tent", "thermos", "toolkit", "whistle", "winch",
]


class ExpeditionPackingEnv:
    def __init__(self, max_turns=6, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.n_items = {"easy": 7, "medium": 10, "hard": 13}[self.difficulty]
        self.max_weight = {"easy": 12, "medium": 15, "hard": 19}[self.difficulty]
        self.rng = random.Random()
        self.names = []
        self.weights = {}
        self.values = {}
        self.capacity = 0
        self.best_value = 0
        self._best_set = []
        self._unique = True
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ solving
    def _optimum(self, names, weights, values, cap):
        """0/1 knapsack by DP over capacity; returns (best value, one best set sorted)."""
        n = len(names)
        table = [[0] * (cap + 1) for _ in range(n + 1)]
        for i in range(1, n + 1):
            w = weights[names[i - 1]]
            v = values[names[i - 1]]
            prev = table[i - 1]
            row = table[i]
            for c in range(cap + 1):
                best = prev[c]
                if w <= c and prev[c - w] + v > best:
                    best = prev[c - w] + v
                row[c] = best
        chosen = []
        c = cap
        for i in range(n, 0, -1):
            if table[i][c] != table[i - 1][c]:
                chosen.append(names[i - 1])
                c -= weights[names[i - 1]]
        return table[n][cap], sorted(chosen)

    def _count_optimal(self, names, weights, values, cap, best):
        """How many different sets reach the best value (exact-weight DP with counts)."""
        top = [-1] * (cap + 1)
        ways = [0] * (cap + 1)
        top[0], ways[0] = 0, 1
        for x in names:
            w, v = weights[x], values[x]
            for c in range(cap, w - 1, -1):
                if top[c - w] < 0:
                    continue
                cand = top[c - w] + v
                if cand > top[c]:
                    top[c], ways[c] = cand, ways[c - w]
                elif cand == top[c]:
                    ways[c] += ways[c - w]
        return sum(ways[c] for c in range(cap + 1) if top[c] == best)

    def _greedy(self, order, cap):
        total_w = 0
        total_v = 0
        for name in order:
            if total_w + self.weights[name] <= cap:
                total_w += self.weights[name]
                total_v += self.values[name]
        return total_v

    def _by_ratio(self):
        return sorted(self.names, key=lambda x: (-self.values[x] / self.weights[x], x))

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        for _ in range(200):
            names = sorted(self.rng.sample(ITEM_NAMES, self.n_items))
            weights = {x: self.rng.randint(2, self.max_weight) for x in names}
            values = {}
            for x in names:
                # value loosely tied to weight, so ratios are close and greedy is tempting but wrong
                values[x] = max(3, int(weights[x] * self.rng.uniform(1.5, 4.0)) + self.rng.randint(-4, 6))
            total = sum(weights.values())
            cap = int(total * self.rng.uniform(0.38, 0.55))
            self.names, self.weights, self.values, self.capacity = names, weights, values, cap
            best, best_set = self._optimum(names, weights, values, cap)
            if len(best_set) < 2 or len(best_set) > len(names) - 2:
                continue
            ratio_greedy = self._greedy(self._by_ratio(), cap)
            value_greedy = self._greedy(sorted(names, key=lambda x: (-values[x], x)), cap)
            if ratio_greedy >= best:
                continue
            if self.difficulty != "easy" and value_greedy >= best:
                continue
            if self._count_optimal(names, weights, values, cap, best) != 1:
                continue
            self.best_value, self._best_set = best, best_set
            self._unique = True
            break
        else:
            self.best_value, self._best_set = self._optimum(self.names, self.weights, self.values, self.capacity)
            self._unique = False
        return self._intro(), {}

    def _table(self):
        lines = ["  item          weight (kg)   usefulness"]
        for x in self.names:
            lines.append(f"  {x:<13} {self.weights[x]:>6}        {self.values[x]:>6}")
        return "\n".join(lines)

    def _intro(self):
        return (
            "POLAR CAMP SUPPLY DROP\n"
            f"A cargo drone can lift at most {self.capacity} kg. The camp has asked for the items below; "
            "each item can be sent at most once (items cannot be split).\n"
            f"{self._table()}\n"
            "Choose the set of items with the GREATEST total usefulness whose total weight is at most "
            f"{self.capacity} kg. Any optimal set is accepted.\n"
            "Answer with the item names separated by commas, e.g. \\boxed{item, item, item}. "
            f"You have {self.max_turns} attempts."
        )

    def _parse(self, action):
        text = str(action)
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        if not found:
            return None
        raw = found[-1]
        parts = [p.strip().lower() for p in re.split(r"[,;\n]+", raw)]
        return [p for p in parts if p]

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to start a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        picks = self._parse(action)
        if picks is None:
            msg = "No answer found. Reply with the chosen item names inside \\boxed{...}, separated by commas."
            return self._end(msg, out)
        if not picks:
            return self._end("You sent an empty drone. Name at least one item.", out)
        unknown = [p for p in picks if p not in self.weights]
        if unknown:
            shown = ", ".join(u[:20] for u in unknown[:3])
            return self._end(f"Unknown item(s): {shown}. Use names from the list exactly.", out)
        dupes = sorted({p for p in picks if picks.count(p) > 1})
        if dupes:
            return self._end(f"Each item exists once; you listed {', '.join(dupes)} more than once.", out)
        weight = sum(self.weights[p] for p in picks)
        value = sum(self.values[p] for p in picks)
        if weight > self.capacity:
            return self._end(
                f"Too heavy: your set weighs {weight} kg, {weight - self.capacity} kg over the {self.capacity} kg "
                f"limit (usefulness {value}).", out)
        if value >= self.best_value:
            self.done = True
            return (f"Optimal! {len(picks)} items, {weight} kg, total usefulness {value}. The camp is well supplied.",
                    1.0, True, False, {})
        return self._end(
            f"Feasible ({weight} kg, usefulness {value}) but not optimal: another set within {self.capacity} kg "
            "is more useful.", out)

    def _end(self, msg, out):
        left = self.max_turns - self.turn
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {left}.", 0.0, False, False, {}

    def solution(self):
        return ", ".join(self._best_set)

    def hint(self):
        ratio_order = self._by_ratio()
        top = ratio_order[0]
        used = sum(self.weights[x] for x in self._best_set)
        spare = self.capacity - used
        inside = "belongs" if top in self._best_set else "does NOT belong"
        spare_text = "fills the limit exactly" if spare == 0 else f"leaves {spare} kg of the limit unused"
        which = "the unique optimal set" if self._unique else "the optimal set found by DP"
        return (f"{which[0].upper() + which[1:]} has {len(self._best_set)} items and {spare_text}. Packing greedily by "
                f"usefulness per kg falls short here; note that the best-ratio item ({top}) {inside} to "
                f"{which}. Use a table best[c] = most usefulness within c kg, adding one item at a time.")
