"""Validate a program, register it into your own suite, and gym.make it.

    python examples/validate_and_register.py
"""

import tempfile

import gymnasium as gym

import spade_gym
from spade_gym.registry import Card, Suite, env_name_from_class

PROGRAM = '''
"""Find the hidden number from its remainders (the Chinese remainder theorem)."""
import random
import re


class RemainderRiddleEnv:
    MODULI = {"easy": (7, 11), "medium": (5, 7, 9), "hard": (7, 9, 11, 13)}

    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.moduli = self.MODULI.get(difficulty, self.MODULI["medium"])
        self.max_turns = max_turns
        self.top = 1
        for m in self.moduli:
            self.top *= m
        self.turn = 0
        self._answer = 0

    def reset(self, seed=None):
        rng = random.Random(seed)
        self._answer = rng.randint(1, self.top)
        self.turn = 0
        clues = "; ".join(f"divided by {m} it leaves {self._answer % m}" for m in self.moduli)
        return (f"I picked a number from 1 to {self.top}: {clues}. "
                f"Which number is it? Answer \\\\boxed{{n}}; {self.max_turns} attempt(s)."), {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        return ("Start from the largest divisor: walk through the numbers with its remainder, in steps of that "
                "divisor, and keep the earliest that fits every other remainder.")

    def step(self, action):
        self.turn += 1
        match = re.search(r"\\\\boxed\\{\\s*(-?\\d{1,9})\\s*\\}", action)
        if match and int(match.group(1)) == self._answer:
            return "Correct!", 1.0, True, False, {}
        if self.turn >= self.max_turns:
            return "Out of tries.", 0.0, True, False, {}
        return "Not that one. Try again.", 0.0, False, False, {}
'''

report = spade_gym.validate_source(PROGRAM, hint="Combine the remainders one modulus at a time.")
print(report.summary())
if report.valid:
    suite_dir = tempfile.mkdtemp(prefix="my-suite-")
    card = Card(name=env_name_from_class(report.details["class_name"]), version=0, skill="Mathematical Reasoning",
                description="Recover a number from its remainders.",
                hint="Combine the remainders one modulus at a time.",
                max_turns=report.details["max_turns"], sha256="0" * 64, multi_turn=report.details["multi_turn"],
                difficulty_levels=report.details["difficulty_levels"], provenance={"designer": "example"},
                validation=report.card_summary())
    entry = Suite(suite_dir).add(PROGRAM, card)
    spade_gym.register_suite(suite_dir)
    env = gym.make(entry.id, difficulty="easy")
    print(entry.id, "->", env.reset(seed=1)[0])
    env.close()
