# Breaks the SHORTCUT check: a number from 1 to 300 with nine guesses and higher/lower
# feedback, so halving the range on the feedback (no reasoning about the task) wins.
import random
import re


class HalvingHuntEnv:
    def __init__(self, max_turns=9, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        self._secret = random.Random(seed).randint(1, 300)
        self.turns = 0
        return f"A number from 1 to 300 is hidden. You have {self.max_turns} guesses: \\boxed{{number}}.", {}

    def solution(self):
        return str(self._secret)

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*(-?\d{1,6})\s*\}", action)
        guess = int(m.group(1)) if m else None
        if guess == self._secret:
            return "Correct!", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Out of guesses.", 0.0, False, True, {}
        if guess is None:
            return "Answer with \\boxed{number}.", 0.0, False, False, {}
        return ("Too low, go higher." if guess < self._secret else "Too high, go lower."), 0.0, False, False, {}
