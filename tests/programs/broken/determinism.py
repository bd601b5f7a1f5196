# Breaks the DETERMINISM check: __init__ draws an offset from the unseeded global random
# generator, so the same seed poses a different task in every fresh process.
import random
import re


class DriftingProductEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self.offset = random.randint(1, 10 ** 6)
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        a, b = rng.randint(10, 99), rng.randint(10, 99)
        self._answer = str(a * b + self.offset)
        return f"Compute {a} * {b} + {self.offset}. Answer with \\boxed{{number}}.", {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip() == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
