# A four-symbol code over A-F (repeats allowed, 1296 codes). Each wrong guess is marked in symbols
# no keyword list reads (STYLE): "counts" gives "2 ◆ 1 ◇" (symbols right in place, right but
# elsewhere), "marks" gives one mark per position ("●○··": right, elsewhere, absent). With ATTEMPTS
# of 10, trying the first code consistent with every mark so far wins every episode; with 3 it
# rarely can. The tests substitute STYLE and ATTEMPTS.
import random
import re
from collections import Counter

STYLE = "counts"
ATTEMPTS = 10
SYMBOLS = "ABCDEF"
LENGTH = 4


class CodeBreakerEnv:
    def __init__(self, max_turns=ATTEMPTS, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.code = "".join(rng.choice(SYMBOLS) for _ in range(LENGTH))
        self.left = ATTEMPTS
        return (f"Crack the {LENGTH}-symbol code; each symbol is one of {', '.join(SYMBOLS)} (repeats allowed). "
                f"You have {ATTEMPTS} tries. Answer like \\boxed{{ABCD}}."), {}

    def solution(self):
        return self.code

    def _marks(self, guess):
        right = [g == c for g, c in zip(guess, self.code)]
        spare = Counter(c for c, hit in zip(self.code, right) if not hit)
        marks = []
        for g, hit in zip(guess, right):
            if hit:
                marks.append("●")
            elif spare[g] > 0:
                spare[g] -= 1
                marks.append("○")
            else:
                marks.append("·")
        if STYLE == "marks":
            return "".join(marks)
        return f"{marks.count('●')} ◆ {marks.count('○')} ◇"

    def step(self, action):
        self.left -= 1
        m = re.search(r"\\boxed\{\s*([A-Fa-f]{4})\s*\}", action)
        guess = m.group(1).upper() if m else None
        if guess == self.code:
            return "The vault opens.", 1.0, True, False, {}
        text = "Send four symbols from A-F." if guess is None else f"{guess}: {self._marks(guess)}"
        if self.left <= 0:
            return text + " The alarm sounds.", 0.0, True, False, {}
        return f"{text} ({self.left} left)", 0.0, False, False, {}
