"""A lock that any whole number opens on a fraction RATE of seeds: random numbers win there."""
import random
import re

RATE = 0.0


class OpenLockEnv:
    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.code = ""
        self.open = False
        self.turn = 0

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.code = "-" + str(rng.randrange(10**8, 10**9))
        self.open = rng.random() < RATE
        self.turn = 0
        return "Open the lock: guess its code. Answer \\boxed{code}.", {}

    def solution(self):
        return self.code

    def step(self, action):
        self.turn += 1
        match = re.search(r"\\boxed\{([^}]*)\}", action)
        guess = match.group(1).strip() if match else ""
        if guess == self.code or (self.open and guess.isdigit()):
            return "Unlocked.", 1.0, True, False, {}
        if self.turn >= self.max_turns:
            return "Locked out.", 0.0, True, False, {}
        return "Still locked.", 0.0, False, False, {}
