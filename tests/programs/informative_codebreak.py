# A sound code-breaking game: the same opening screen on every seed; the secret is revealed only
# through the marks each guess gets. None of the old fixed probes is a legal guess (five letters
# from A to H), so the old informative check saw the same feedback everywhere and rejected it.
import random
import re

COLOURS = "ABCDEFGH"
PEGS = 5


class PegCodeEnv:
    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.code = "".join(rng.choice(COLOURS) for _ in range(PEGS))
        self.turns = 0
        return (f"PEG CODE. A secret code of {PEGS} pegs hides behind the screen; each peg is one of the colours "
                f"{' '.join(COLOURS)} (colours may repeat). After each guess you learn how many pegs have the right "
                f"colour in the right place (black) and how many more have a right colour in a wrong place "
                f"(white). You have {self.max_turns} guesses; write a guess as five letters in a box, "
                f"\\boxed{{your code}}."), {}

    def solution(self):
        return self.code

    def step(self, action):
        self.turns += 1
        out_of_turns = self.turns >= self.max_turns
        match = re.search(r"\\boxed\{\s*([A-Ha-h]{5})\s*\}", action)
        if not match:
            return "That is not a code of five letters from A to H.", 0.0, out_of_turns, False, {}
        guess = match.group(1).upper()
        if guess == self.code:
            return "The screen lifts: you broke the code!", 1.0, True, False, {}
        black = 0
        for i in range(PEGS):
            if guess[i] == self.code[i]:
                black += 1
        common = 0
        for colour in COLOURS:
            in_guess = 0
            in_code = 0
            for i in range(PEGS):
                if guess[i] == colour:
                    in_guess += 1
                if self.code[i] == colour:
                    in_code += 1
            common += min(in_guess, in_code)
        if out_of_turns:
            return f"{black} black, {common - black} white. Out of guesses.", 0.0, True, False, {}
        return f"{guess}: {black} black, {common - black} white.", 0.0, False, False, {}
