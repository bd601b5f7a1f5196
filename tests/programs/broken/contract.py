# Breaks the CONTRACT check: step() assumes every action contains \boxed{...} and calls
# .group() on a failed match, so free text (or an empty answer) raises AttributeError.
import random
import re


class ModularInverseEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self.modulus = rng.choice([101, 103, 107, 109, 113, 127, 131, 137])
        self.value = rng.randint(2, self.modulus - 1)
        self._answer = str(pow(self.value, -1, self.modulus))
        return (f"Find x with {self.value} * x = 1 (mod {self.modulus}), 0 < x < {self.modulus}. "
                f"Answer with \\boxed{{x}}."), {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        guess = re.search(r"\\boxed\{([^}]*)\}", action).group(1).strip()
        if guess == self._answer:
            return "Correct!", 1.0, True, False, {}
        return f"{guess} is wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
