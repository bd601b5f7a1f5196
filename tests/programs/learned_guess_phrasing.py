# A whole number from 1 to 1000 and a few guesses; each wrong guess gets feedback in one of several
# phrasings no keyword list reads (STYLE): a log that repeats every earlier verdict ("500->lower,
# 250->higher"), arrows, warmer/colder against the previous guess, a number line, French. With
# ATTEMPTS of 12 (16 for warmer/colder), halving the range on what the feedback means wins every
# episode; with 6 it cannot (2**6 < 1000). The tests substitute STYLE and ATTEMPTS.
import random
import re

STYLE = "log"
ATTEMPTS = 12
LOW, HIGH = 1, 1000


class PhrasedGuessEnv:
    def __init__(self, max_turns=ATTEMPTS, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        self.secret = random.Random(seed).randint(LOW, HIGH)
        self.left = ATTEMPTS
        self.log = []
        self.last = None
        return (f"A secret whole number lies between {LOW} and {HIGH}. You have {ATTEMPTS} guesses. "
                "Answer with \\boxed{n}."), {}

    def solution(self):
        return str(self.secret)

    def _feedback(self, guess):
        up = guess < self.secret
        if STYLE == "log":
            self.log.append(f"{guess}->{'higher' if up else 'lower'}")
            return "Log: " + ", ".join(self.log)
        if STYLE == "arrows":
            return f"{guess} {'↑' if up else '↓'}"
        if STYLE == "warmth":
            if self.last is None:
                return "Noted."
            now, before = abs(guess - self.secret), abs(self.last - self.secret)
            return "Warmer." if now < before else ("Colder." if now > before else "Same.")
        if STYLE == "numberline":
            cells = ["."] * 20
            at = min(19, max(0, (guess - LOW) * 20 // (HIGH - LOW + 1)))
            for i in (range(at + 1, 20) if up else range(0, at)):
                cells[i] = "~"
            cells[at] = "G"
            # the ends are part of the line, so the secret's side shows even next to an end
            return ("~" if not up else "[") + "".join(cells) + ("~" if up else "]")
        return "C'est plus." if up else "C'est moins."

    def step(self, action):
        self.left -= 1
        m = re.search(r"\\boxed\{\s*(-?\d{1,7})\s*\}", action)
        guess = int(m.group(1)) if m else None
        if guess == self.secret:
            return "Found it!", 1.0, True, False, {}
        text = "Answer with \\boxed{n}." if guess is None else self._feedback(guess)
        if guess is not None:
            self.last = guess
        if self.left <= 0:
            return text + " No guesses left.", 0.0, True, False, {}
        return f"{text} ({self.left} left)", 0.0, False, False, {}
