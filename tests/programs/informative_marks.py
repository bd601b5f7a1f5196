# A code-breaking game whose only feedback is a count of exact matches: the same opening screen on
# every seed, and the program's data flow carries the secret to the agent only through equality tests
# with its guess, so the evidence is the feedback to legal moves (the informative check plays other
# seeds' winning codes as guesses and sees them sorted differently on different seeds). Informative,
# but with 10 guesses the first code consistent with every count wins ~95% of seeds (7,776 codes), so
# the shortcut check rejects it; with 4 guesses (a test substitutes max_turns) it is accepted.
import random
import re

COLOURS = "ABCDEF"
PEGS = 5


class ExactPegsEnv:
    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.code = [rng.choice(COLOURS) for _ in range(PEGS)]
        self.turns = 0
        return (f"EXACT PEGS. A secret row of {PEGS} pegs, each one of the colours {' '.join(COLOURS)} (colours "
                f"may repeat). After each guess you learn how many pegs of your guess are the right colour in the "
                f"right place, nothing more. You have {self.max_turns} guesses; write one as five letters in a "
                f"box, \\boxed{{your row}}."), {}

    def solution(self):
        return "".join(self.code)

    def step(self, action):
        self.turns += 1
        out_of_turns = self.turns >= self.max_turns
        match = re.search(r"\\boxed\{\s*([A-Fa-f]{5})\s*\}", action)
        if not match:
            return "That is not a row of five letters from A to F.", 0.0, out_of_turns, False, {}
        guess = match.group(1).upper()
        right = 0
        for i in range(PEGS):
            if guess[i] == self.code[i]:
                right += 1
        if right == PEGS:
            return "All pegs right: the row is yours!", 1.0, True, False, {}
        if out_of_turns:
            return f"{right} right. Out of guesses.", 0.0, True, False, {}
        return f"{right} of {PEGS} pegs right.", 0.0, False, False, {}
