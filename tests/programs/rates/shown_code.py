"""A lock whose code the screen shows on a fraction RATE of seeds: the shortcut zoo wins there."""
import random
import re

RATE = 0.0


class ShownCodeEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
        self.code = ""
        self.turn = 0

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.code = str(rng.randrange(10**8, 10**9))
        shown = rng.random() < RATE
        self.turn = 0
        if shown:
            return f"Open the lock. Its code is {self.code}. Answer \\boxed{{code}}.", {}
        return "Open the lock: its code is hidden. Answer \\boxed{code}.", {}

    def solution(self):
        return self.code

    def step(self, action):
        self.turn += 1
        match = re.search(r"\\boxed\{([^}]*)\}", action)
        if match and match.group(1).strip() == self.code:
            return "Unlocked.", 1.0, True, False, {}
        if self.turn >= self.max_turns:
            return "Locked out.", 0.0, True, False, {}
        return "Still locked.", 0.0, False, False, {}
