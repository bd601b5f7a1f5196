# Breaks the TERMINATION check: a wrong answer never ends the episode (step() forgets to
# return truncated=True once max_turns turns have been played).
import random
import re


class EndlessCipherEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))
        shift = rng.randint(1, 25)
        self._answer = word
        coded = "".join(chr((ord(c) - 97 + shift) % 26 + 97) for c in word)
        return f"Decode the Caesar cipher '{coded}' (shift {shift}). Answer with \\boxed{{word}}.", {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip().lower() == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong, try again.", 0.0, False, False, {}
