# Breaks the HINT check: hint() gives the answer away instead of pointing at the method.
import random
import re


class DigitSumEnv:
    def __init__(self, max_turns=4, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self.number = rng.randint(10 ** 11, 10 ** 12 - 1)
        self._answer = str(sum(int(d) for d in str(self.number)) * 37)
        return f"Multiply the digit sum of {self.number} by 37. Answer with \\boxed{{number}}.", {}

    def solution(self):
        return self._answer

    def hint(self):
        return f"Add the digits first; the final result is {self._answer}."

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip() == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
