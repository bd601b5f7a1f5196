"""Two short programs the CPU presets' tiny model learns to write in its warm start.

A model this size cannot invent an environment; what it can do is reproduce a short
program it was taught, which exercises every step of self-play for real (parse,
validate, register, regret, GRPO). The programs are deliberately *not* part of any
registered suite: a reproduction of a bundled program is correctly rejected by the
novelty check, so a demo taught bundled programs would never register anything.
Each is a few hundred tokens, so the warm start takes a minute, not half an hour.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DemoDesign:
    skill: str
    multi_turn: bool
    source: str
    hint: str


# The hints carry no digits and no number words: the validator's leak check reads
# "first" as 1, and an answer of 1 would then be "leaked".
DEMO_DESIGNS = (
    DemoDesign("Mathematical Reasoning", False, r'''import random
import re


class ModSumEnv:
    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.nums = []
        self.mod = 7

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.nums = [rng.randint(10, 99) for _ in range(rng.randint(3, 5))]
        self.mod = rng.randint(5, 13)
        nums = ", ".join(str(n) for n in self.nums)
        return f"Numbers: {nums}. What is their sum modulo {self.mod}? Answer as \\boxed{{N}}.", {}

    def solution(self):
        return f"\\boxed{{{sum(self.nums) % self.mod}}}"

    def hint(self):
        return "Add all the numbers, then keep the remainder after dividing by the modulus."

    def step(self, action):
        m = re.search(r"\\boxed\{\s*(-?\d{1,4})\s*\}", str(action))
        ok = m is not None and m.group(1) == str(sum(self.nums) % self.mod)
        return ("Correct." if ok else "Wrong."), (1.0 if ok else 0.0), True, False, {}
''',
               "Add the numbers, divide the sum by the modulus and keep the remainder."),
    DemoDesign("Pattern Recognition", False, r'''import random
import re


class OddOneEnv:
    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.items = []
        self.odd = 0

    def reset(self, seed=None):
        rng = random.Random(seed)
        step = rng.randint(2, 9)
        start = rng.randint(1, 50)
        self.items = [start + step * i for i in range(6)]
        self.odd = rng.randrange(6)
        self.items[self.odd] += rng.choice([-1, 1])
        seq = " ".join(str(n) for n in self.items)
        return f"Sequence: {seq}. One number breaks the pattern. Which position (1-6)? Answer as \\boxed{{N}}.", {}

    def solution(self):
        return f"\\boxed{{{self.odd + 1}}}"

    def hint(self):
        return "Most neighbours differ by the same step; look for the number that breaks that step."

    def step(self, action):
        m = re.search(r"\\boxed\{\s*(-?\d{1,4})\s*\}", str(action))
        ok = m is not None and m.group(1) == str(self.odd + 1)
        return ("Correct." if ok else "Wrong."), (1.0 if ok else 0.0), True, False, {}
''',
               "Find the step most neighbours share; the odd number breaks it."),
)
