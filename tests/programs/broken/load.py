# Breaks the LOAD check: reset() indexes a 3-element list with seed % 4, so every seed
# with seed % 4 == 3 raises IndexError (an off-by-one in the theme table).
import random
import re

THEMES = ["forest", "desert", "ocean"]


class ThemedSumEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        theme = THEMES[(seed or 0) % 4]
        rng = random.Random(seed)
        self.turn_count = 0
        values = [rng.randint(100, 999) for _ in range(4)]
        self._answer = str(sum(v * (i + 1) for i, v in enumerate(values)))
        return (f"In the {theme}, compute the weighted sum 1*a + 2*b + 3*c + 4*d for "
                f"a, b, c, d = {values}. Answer with \\boxed{{number}}."), {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip() == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
