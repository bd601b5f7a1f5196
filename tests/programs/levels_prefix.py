# Fake levels: the difficulty knob only puts a decorative banner before the screen; the numbers, the
# answer and everything the privileged policy does are the same at every level for the same seed.
# The old difficulty check compared first observations, which differ, and passed it.
import random
import re

BANNERS = {"easy": "~ Gentle warm-up ~", "medium": "== Standard round ==", "hard": "!!! EXPERT CHALLENGE !!!"}


class RowSumEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.banner = BANNERS.get(difficulty, BANNERS["medium"])
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.values = [rng.randint(10, 99) for _ in range(5)]
        self.turns = 0
        return (f"{self.banner}\nAdd up these numbers: {', '.join(map(str, self.values))}. Answer as "
                f"\\boxed{{sum}}; you have {self.max_turns} tries."), {}

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
