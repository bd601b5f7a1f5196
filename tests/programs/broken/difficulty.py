# Breaks the DIFFICULTY check: the size table has no "hard" entry, so
# difficulty="hard" raises KeyError while loading (the default level works).
import random
import re

SIZES = {"easy": 4, "medium": 6}


class SortedListEnv:
    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.size = SIZES[difficulty]
        self.turn_count = 0
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        values = [rng.randint(10, 99) for _ in range(self.size)]
        self._answer = ",".join(str(v) for v in sorted(values))
        return f"Sort ascending: {values}. Answer with \\boxed{{a,b,...}}.", {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).replace(" ", "") == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
