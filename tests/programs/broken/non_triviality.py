# Breaks the NON_TRIVIALITY check: a yes/no question with three attempts, and the
# observation shows both answers boxed, so copying one from the screen wins most games.
import random
import re


class PrimeQuestionEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = "no"
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self.number = rng.randint(1000, 9999)
        is_prime = all(self.number % d for d in range(2, int(self.number ** 0.5) + 1))
        self._answer = "yes" if is_prime else "no"
        return f"Is {self.number} prime? Answer \\boxed{{yes}} or \\boxed{{no}}.", {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip().lower() == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
