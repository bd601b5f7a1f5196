"""Validate a program, register it into your own suite, and gym.make it.

    python examples/validate_and_register.py
"""

import tempfile

import gymnasium as gym

import spade_gym
from spade_gym.registry import Card, Suite, env_name_from_class

PROGRAM = '''
"""Find the hidden number; feedback says higher or lower."""
import random
import re


class HigherLowerEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.top = {"easy": 500, "medium": 5000, "hard": 50000}.get(difficulty, 5000)
        # binary search needs ceil(log2(top + 1)) guesses; allow exactly that
        self.max_turns = max_turns or self.top.bit_length()
        self.turn = 0
        self._answer = 0

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._answer = self.rng.randint(1, self.top)
        self.turn = 0
        self.low, self.high = 1, self.top
        return f"I picked a number from 1 to {self.top}. Guess it: \\\\boxed{{n}}. {self.max_turns} tries.", {}

    def solution(self):
        return str((self.low + self.high) // 2)  # binary search from what feedback revealed

    def hint(self):
        return "Halve the remaining range with every guess."

    def step(self, action):
        self.turn += 1
        match = re.search(r"\\\\boxed\\{\\s*(-?\\d{1,9})\\s*\\}", action)
        out = self.turn >= self.max_turns
        if not match:
            return "Answer with \\\\boxed{n}.", 0.0, False, out, {}
        guess = int(match.group(1))
        if guess == self._answer:
            return "Correct!", 1.0, True, False, {}
        if guess < self._answer:
            self.low = max(self.low, guess + 1)
            return f"Higher than {guess}.", 0.0, False, out, {}
        self.high = min(self.high, guess - 1)
        return f"Lower than {guess}.", 0.0, False, out, {}
'''

report = spade_gym.validate_source(PROGRAM, hint="Halve the remaining range with every guess.")
print(report.summary())
if report.valid:
    suite_dir = tempfile.mkdtemp(prefix="my-suite-")
    card = Card(name=env_name_from_class(report.details["class_name"]), version=0, skill="Logical Deduction",
                description="Binary search with higher/lower feedback.", hint="Halve the remaining range.",
                max_turns=report.details["max_turns"], sha256="0" * 64, multi_turn=report.details["multi_turn"],
                difficulty_levels=report.details["difficulty_levels"], provenance={"designer": "example"},
                validation=report.card_summary())
    entry = Suite(suite_dir).add(PROGRAM, card)
    spade_gym.register_suite(suite_dir)
    env = gym.make(entry.id, difficulty="easy")
    print(entry.id, "->", env.reset(seed=1)[0])
    env.close()
