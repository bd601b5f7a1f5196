# Breaks the INFO_LEAK check: reset() puts the secret into info, which agents and wrappers
# pass along, so the answer is handed over.
import random
import re


class LeakyLockEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        self._secret = random.Random(seed).randint(1, 5000)
        self.turns = 0
        return "Find the number from 1 to 5000 in six guesses: \\boxed{number}.", {"debug_target": self._secret}

    def solution(self):
        return str(self._secret)

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*(-?\d{1,6})\s*\}", action)
        guess = int(m.group(1)) if m else None
        if guess == self._secret:
            return "Correct!", 1.0, True, False, {}
        direction = "higher" if guess is not None and guess < self._secret else "lower"
        return f"No, go {direction}.", 0.0, False, self.turns >= self.max_turns, {"turn": self.turns}
