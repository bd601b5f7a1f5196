"""A lock whose code is the house code 7 on a fraction RATE of seeds: one answer wins those."""
import random
import re

RATE = 0.0


class HouseCodeEnv:
    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.code = ""
        self.turn = 0

    def reset(self, seed=None):
        rng = random.Random(seed)
        fresh = str(rng.randrange(10**8, 10**9))
        self.code = "7" if rng.random() < RATE else fresh
        self.turn = 0
        return "Open the lock: guess its code. Answer \\boxed{code}.", {}

    def solution(self):
        return self.code

    def step(self, action):
        self.turn += 1
        match = re.search(r"\\boxed\{([^}]*)\}", action)
        if match and match.group(1).strip() == self.code:
            return "Unlocked.", 1.0, True, False, {}
        return "Locked out.", 0.0, True, False, {}
