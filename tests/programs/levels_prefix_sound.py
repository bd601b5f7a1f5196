# The fake levels' sound twin: the same game, but a level sets how many numbers there are to add,
# so the task itself (and its answer) changes with the level.
import random
import re

COUNTS = {"easy": 4, "medium": 6, "hard": 9}


class RowSumLevelsEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.count = COUNTS.get(difficulty, COUNTS["medium"])
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.values = [rng.randint(10, 99) for _ in range(self.count)]
        self.turns = 0
        return (f"Add up these numbers: {', '.join(map(str, self.values))}. Answer as \\boxed{{sum}}; you have "
                f"{self.max_turns} tries."), {}

    def solution(self):
        return str(sum(self.values))

    def step(self, action):
        self.turns += 1
        match = re.search(r"\\boxed\{\s*(-?\d+)\s*\}", action)
        if match and int(match.group(1)) == sum(self.values):
            return "Correct!", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Wrong, and out of tries.", 0.0, True, False, {}
        return "Wrong, try again.", 0.0, False, False, {}
