# Guess a whole number from 1 to N, where N (50 to 1,000,000) is drawn by the seed and stated on
# the screen, with higher/lower feedback. With ceil(log2 N) + EXTRA guesses (EXTRA = 1), halving the
# range the screen states wins every episode, while halving the range of other seeds' answers runs
# out of guesses on the seeds with a small N; with EXTRA = -3 no halving can win more than an eighth.
# The tests substitute EXTRA.
import math
import random
import re

EXTRA = 1


class StatedRangeEnv:
    def __init__(self, max_turns=24, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.top = int(10 ** rng.uniform(math.log10(50), 6))
        self.secret = rng.randint(1, self.top)
        self.left = max(1, math.ceil(math.log2(self.top)) + EXTRA)
        return (f"I picked a whole number from 1 to {self.top}. You have {self.left} guesses; "
                "answer with \\boxed{n}."), {}

    def solution(self):
        return str(self.secret)

    def step(self, action):
        self.left -= 1
        m = re.search(r"\\boxed\{\s*(-?\d{1,8})\s*\}", action)
        guess = int(m.group(1)) if m else None
        if guess == self.secret:
            return "Correct!", 1.0, True, False, {}
        if guess is None:
            text = "Answer with \\boxed{n}."
        else:
            text = "Too low, go higher." if guess < self.secret else "Too high, go lower."
        if self.left <= 0:
            return text + " Out of guesses.", 0.0, True, False, {}
        return f"{text} {self.left} guesses left.", 0.0, False, False, {}
