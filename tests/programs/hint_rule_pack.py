# Hint rule, bad: the hint names the final holding ("The best pack holds the lantern, the rope and
# the compass"), never the labels the moves use ("c"); a script that picks the options whose lines
# share the hint's words wins.
import itertools
import random
import re

ITEMS = ["lantern", "rope", "compass", "blanket", "kettle", "flask", "tarp", "candle", "whistle", "shovel",
         "hammock", "saw"]


class PackTripEnv:
    def __init__(self, max_turns=8, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        while True:
            names = rng.sample(ITEMS, 6)
            weights = [rng.randint(2, 9) for _ in names]
            values = [rng.randint(3, 20) for _ in names]
            capacity = sum(weights) // 2
            packs = [(sum(values[i] for i in s), s) for r in range(1, 7) for s in itertools.combinations(range(6), r)
                     if sum(weights[i] for i in s) <= capacity]
            best = max(v for v, _ in packs)
            optimal = [s for v, s in packs if v == best]
            if len(optimal) == 1 and len(optimal[0]) >= 2:
                break
        self.items = list(zip("abcdef", names, weights, values))
        self.capacity, self.target, self.best = capacity, best, set(optimal[0])
        self.picked = []
        self.turns = 0
        lines = "\n".join(f"  {label}: {name}, {w} kg, worth {v}" for label, name, w, v in self.items)
        return ("PACK FOR THE TRIP\n" + lines + f"\nCapacity {capacity} kg. Pick items one at a time with "
                f"\\boxed{{LETTER}}; you win as soon as your pack is worth {best} (the most it can be). "
                "An item that does not fit ends the trip."), {}

    def solution(self):
        left = [self.items[i][0] for i in sorted(self.best) if self.items[i][0] not in self.picked]
        return left[0] if left else "a"

    def hint(self):
        names = [self.items[i][1] for i in sorted(self.best)]
        return "The best pack holds the " + ", the ".join(names[:-1]) + " and the " + names[-1] + "."

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*([a-f])\s*\}", action.lower())
        if m is None or m.group(1) in self.picked:
            if self.turns >= self.max_turns:
                return "Out of turns.", 0.0, False, True, {}
            return "Name an item not yet packed by its letter.", 0.0, False, False, {}
        self.picked.append(m.group(1))
        chosen = [it for it in self.items if it[0] in self.picked]
        if sum(it[2] for it in chosen) > self.capacity:
            return "It does not fit: the trip is off.", 0.0, True, False, {}
        worth = sum(it[3] for it in chosen)
        if worth >= self.target:
            return f"Packed, worth {worth}.", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Out of turns.", 0.0, False, True, {}
        return f"Packed so far: worth {worth}.", 0.0, False, False, {}
