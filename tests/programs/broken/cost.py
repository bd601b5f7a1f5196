# Breaks the COST check: reset() burns ~120 ms every episode in a brute-force loop: over
# the 50 ms budget per call, under the 250 ms at which validation gives up on a program
# altogether (the loop count leaves room for machines 2x faster or slower).
import random
import re


LOOPS = 550_000


class SlowChecksumEnv:
    def __init__(self, max_turns=4, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        start = rng.randint(1, 10 ** 6)
        total = 0
        for i in range(start, start + LOOPS):
            total = (total + i * i) % 10007
        total = sum(j * j for j in range(start, start + 1000)) % 10007
        self._answer = str(total)
        return (f"Compute the sum of i*i mod 10007 for i from {start} to {start + 799_999}. "
                f"Answer with \\boxed{{number}}."), {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip() == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
