# Breaks the SOLVABILITY check: solution() reports the sum but step() expects the sum
# modulo 97 on odd seeds, so answering solution() never wins there.
import random
import re


class ModSumEnv:
    def __init__(self, max_turns=4, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._total = 0
        self._modular = False
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self._modular = (seed or 0) % 2 == 1
        values = [rng.randint(100, 999) for _ in range(5)]
        self._total = sum(values)
        task = "their sum modulo 97" if self._modular else "their sum"
        return f"Numbers: {values}. Give {task}. Answer with \\boxed{{number}}.", {}

    def solution(self):
        return str(self._total)

    def step(self, action):
        self.turn_count += 1
        expected = self._total % 97 if self._modular else self._total
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip() == str(expected):
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
