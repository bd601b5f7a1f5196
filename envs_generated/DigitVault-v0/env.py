"""Digit Vault: crack a hidden code of distinct digits, Bulls-and-Cows style. Each guess is scored with how many digits sit in the right place (exact) and how many are in the code but elsewhere (misplaced); an intercepted clue gets you started, and the vault must open within the turn limit."""
import itertools
import random
import re


def _score(guess, code):
    exact = sum(1 for a, b in zip(guess, code) if a == b)
    common = len(set(guess) & set(code))
    return exact, common - exact


class DigitVaultEnv:
    # difficulty -> (code length, number of usable digits, intercepted clues)
    LEVELS = {"easy": (4, 8, 1), "medium": (4, 10, 1), "hard": (5, 10, 1)}

    def __init__(self, max_turns=10, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.length, self.n_digits, self.n_clues = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.digits = []
        self.clues = []
        self.history = []
        self.turn = 0
        self.done = False
        self.last = ""
        self._code = ""
        self._scan = None
        self._pick = None

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        pool = list("0123456789")
        self.digits = sorted(self.rng.sample(pool, self.n_digits))
        self._code = "".join(self.rng.sample(self.digits, self.length))
        self.clues = []
        while len(self.clues) < self.n_clues:
            guess = "".join(self.rng.sample(self.digits, self.length))
            if guess == self._code or any(g == guess for g, _, _ in self.clues):
                continue
            ex, mis = _score(guess, self._code)
            if ex + mis == 0 and self.rng.random() < 0.7:
                continue  # prefer clues that say something positive
            self.clues.append((guess, ex, mis))
        self.history = []
        self.turn = 0
        self.done = False
        self.last = "The vault is locked. Make your first guess."
        self._scan = None
        self._pick = None
        return self._render(), {}

    def _digit_text(self):
        if len(self.digits) == 10:
            return "0-9"
        return "{" + ", ".join(self.digits) + "}"

    def _render(self):
        lines = [
            f"DIGIT VAULT | Turn {self.turn}/{self.max_turns} | Code: {self.length} different digits from "
            f"{self._digit_text()} | Guesses left: {self.max_turns - self.turn}",
            "Scoring: 'exact' = right digit in the right place; 'misplaced' = digit in the code but in another place.",
            "Intercepted clue(s) from an earlier attempt:",
        ]
        for g, ex, mis in self.clues:
            lines.append(f"  {g} -> {ex} exact, {mis} misplaced")
        lines.append("Your guesses so far:" if self.history else "Your guesses so far: none")
        for i, (g, ex, mis) in enumerate(self.history, 1):
            lines.append(f"  {i}. {g} -> {ex} exact, {mis} misplaced")
        lines.append(f"Last result: {self.last}")
        lines.append(
            f"Commands: guess CODE (a string of {self.length} different allowed digits), sent as "
            f"\\boxed{{guess CODE}} or just the digits inside \\boxed{{}}. A guess with {self.length} exact opens the vault."
        )
        return "\n".join(lines)

    def _parse(self, action):
        text = str(action)
        m = re.search(r"\\boxed\{([^{}]*)\}", text)
        if m is None:
            return None, "No command found. Put your guess in \\boxed{}, e.g. the word guess followed by the digits."
        body = m.group(1).strip().lower()
        body = re.sub(r"^(guess|try|code)\b", "", body).strip()
        body = re.sub(r"[\s,\-]", "", body)
        if not body:
            return None, f"Empty guess: send {self.length} different digits."
        if len(body) > 40:
            return None, "That guess is far too long."
        if not body.isdigit() or not body.isascii():
            return None, f"A guess may contain only digits from {self._digit_text()}."
        if len(body) != self.length:
            return None, f"Your guess has {len(body)} digits; the code has exactly {self.length}."
        bad = sorted(set(c for c in body if c not in self.digits))
        if bad:
            return None, f"Digit(s) {', '.join(bad)} cannot occur: the code uses only {self._digit_text()}."
        if len(set(body)) != len(body):
            return None, "The code's digits are all different; your guess repeats a digit."
        return body, ""

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        guess, err = self._parse(action)
        if guess is None:
            self.last = f"Invalid (turn used): {err}"
            if out:
                self.done = True
                self.last += " Out of turns: the vault stays locked."
            return self._render(), 0.0, out, False, {}
        repeat = any(g == guess for g, _, _ in self.history)
        ex, mis = _score(guess, self._code)
        self.history.append((guess, ex, mis))
        if ex == self.length:
            self.done = True
            self.last = f"{guess} -> {ex} exact. The vault opens. You win!"
            return self._render(), 1.0, True, False, {}
        self.last = f"{guess} -> {ex} exact, {mis} misplaced."
        if repeat:
            self.last += " (You had already tried this code: nothing new learned.)"
        if out:
            self.done = True
            self.last += " Out of turns: the vault stays locked."
        return self._render(), 0.0, out, False, {}

    # ------------------------------------------------------------------ privileged
    def _consistent(self, code):
        for g, ex, mis in self.clues:
            if _score(g, code) != (ex, mis):
                return False
        for g, ex, mis in self.history:
            if _score(g, code) != (ex, mis):
                return False
        return True

    def solution(self):
        """The first code, in increasing order, that agrees with every score seen so far.

        Scores only accumulate, so a code ruled out once stays ruled out: the scan resumes
        where the previous answer was found instead of starting over.
        """
        if self._scan is None:
            self._scan = itertools.permutations(self.digits, self.length)
            self._pick = None
        while self._pick is None or not self._consistent(self._pick):
            nxt = next(self._scan, None)
            if nxt is None:
                return self._code
            self._pick = "".join(nxt)
        return self._pick

    def hint(self):
        absent = [d for d in self.digits if d not in self._code]
        present = sorted(self._code)
        r = random.Random(self._code + "h")
        a = r.choice(absent)
        p = r.choice(present)
        return (f"Digit {a} is not in the code, while digit {p} is (position unknown). "
                "exact + misplaced counts how many of the guessed digits are in the code at all: first pin down WHICH "
                "digits are used, then their places. Only ever guess a code that agrees with every score so far "
                "(including the intercepted clue); a guess that reuses most digits of a scored guess but moves one "
                "tells you exactly what that move changed.")
