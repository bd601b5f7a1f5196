# Breaks the STATIC check: the environment class has no solution() method, so nobody
# (least of all the validator) can prove the game is solvable.
import random
import re


class SecretCodeEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._code = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self._code = "".join(rng.choice("ABCDEF") for _ in range(5))
        return "Guess the 5-letter code over A-F. Answer with \\boxed{CODE}.", {}

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip().upper() == self._code:
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
