# Breaks the EPISODE_END check: after three wrong guesses the game is over, but step()
# reports it as truncated=True (a turn limit) instead of terminated=True with reward 0.
import random
import re


class ThreeTriesEnv:
    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        self._secret = random.Random(seed).randint(1, 1000)
        self.tries = 0
        return "Guess my number from 1 to 1000; three tries. Answer with \\boxed{number}.", {}

    def solution(self):
        return str(self._secret)

    def step(self, action):
        self.tries += 1
        m = re.search(r"\\boxed\{\s*(-?\d{1,6})\s*\}", action)
        guess = int(m.group(1)) if m else None
        if guess == self._secret:
            return "Correct!", 1.0, True, False, {}
        if self.tries >= 3:
            return "No tries left.", 0.0, False, True, {}
        hint = "higher" if guess is not None and guess < self._secret else "lower"
        return f"Wrong, go {hint}.", 0.0, False, False, {}
