# Inverted levels: 'hard' hides the number in the smallest range, so its answers are the shortest
# and halving the range on the higher/lower replies finds it most often; 'easy' is the hardest level.
# Every level is sound on its own, and the old check (the zoo's best rate on 8 seeds, two seeds of
# slack and a Fisher test) let it pass.
import random
import re

RANGES = {"easy": 9999, "medium": 2000, "hard": 500}


class HiddenNumberEnv:
    def __init__(self, max_turns=6, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.top = RANGES.get(difficulty, RANGES["medium"])
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.secret = rng.randint(1, self.top)
        self.turns = 0
        return (f"I am thinking of a whole number from 1 to {self.top}. Guess it as \\boxed{{n}}; after each wrong "
                f"guess I say whether it is higher or lower. You have {self.max_turns} guesses."), {}

    def solution(self):
        return str(self.secret)

    def step(self, action):
        self.turns += 1
        match = re.search(r"\\boxed\{\s*(-?\d+)\s*\}", action)
        if not match:
            return "Please answer with a number.", 0.0, self.turns >= self.max_turns, False, {}
        guess = int(match.group(1))
        if guess == self.secret:
            return "That's it!", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Out of guesses.", 0.0, True, False, {}
        return ("Higher." if guess < self.secret else "Lower."), 0.0, False, False, {}
