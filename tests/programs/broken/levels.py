# Breaks the LEVELS check: 'hard' shows the fewest options, so picking among the options
# shown is easier on hard than on easy (the levels are ordered backwards).
import random
import re

OPTIONS = {"easy": 16, "medium": 10, "hard": 2}


class OddSumPickEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.count = OPTIONS[difficulty]
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        numbers = rng.sample(range(100, 1000), self.count)
        sums = [sum(map(int, str(n))) for n in numbers]
        best = max(range(self.count), key=lambda i: (sums[i], numbers[i]))
        self._answer = numbers[best]
        self.turns = 0
        return (f"Which number has the largest digit sum (ties: the larger number)? {numbers}. "
                f"Answer with \\boxed{{number}}."), {}

    def solution(self):
        return str(self._answer)

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*(\d{1,6})\s*\}", action)
        if m and int(m.group(1)) == self._answer:
            return "Correct.", 1.0, True, False, {}
        return "Wrong.", 0.0, True, False, {}
