"""Instance RNGs (random.Random, numpy Generator), generators, string sets (hash order), ABC, NamedTuple."""
import abc
import random
from typing import NamedTuple

import numpy as np


class Clue(NamedTuple):
    word: str
    score: int


class Game(abc.ABC):
    @abc.abstractmethod
    def solution(self) -> str:
        ...


def clue_stream(words, rng):
    for w in words:
        yield Clue(w, rng.randint(1, 9))


class WordSetEnv(Game):
    WORDS = ["amber", "basil", "cedar", "delta", "ember", "fable", "grove", "haven", "ivory", "jolly",
             "karma", "lemon", "maple", "noble", "ocean", "pearl", "quilt", "raven", "sable", "tulip"]

    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self.reset()

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.nrng = np.random.default_rng(seed)
        self.turn_count = 0
        chosen = set(self.rng.sample(self.WORDS, 8))
        order = list(chosen)  # set-of-str iteration order: depends on the hash seed
        clues = list(clue_stream(order, self.rng))
        noise = self.nrng.integers(0, 100, size=3).tolist()
        best = max(clues, key=lambda c: (c.score, c.word))
        self._answer = best.word
        shown = ", ".join(f"{c.word}:{c.score}" for c in clues)
        return f"Which word has the top score (ties: later alphabetically)? {shown} noise={noise}. \\boxed{{word}}", {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        if f"\\boxed{{{self._answer}}}" in action:
            return "Yes!", 1.0, True, False, {}
        # Out of attempts: the game is over and lost (terminated, reward 0).
        return "No.", 0.0, self.turn_count >= self.max_turns, False, {}
