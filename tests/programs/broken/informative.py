# Breaks the INFORMATIVE check: every seed shows the same screen and every wrong answer gets
# the same "Wrong.", but the hidden answer differs: the agent can only guess.
import random
import re


class BlindVaultEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        self._code = random.Random(seed).randint(1000, 9999)
        self.turns = 0
        return "The vault has a four-digit code. Enter it as \\boxed{code}.", {}

    def solution(self):
        return str(self._code)

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*(\d{1,6})\s*\}", action)
        if m and int(m.group(1)) == self._code:
            return "Open!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turns >= self.max_turns, {}
