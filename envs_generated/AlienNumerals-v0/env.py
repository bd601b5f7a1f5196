"""Alien Numerals: numbers are written in an unknown base with an unknown alphabet of letter-digits (and on hard the digit order itself may be reversed); from example numerals and their decimal values, work out the base and each symbol's digit value, then convert a new numeral to decimal."""
import random
import re

GLYPHS = "BDFGHJKLMNPQRSTVWXZ"


def _digits(value, base):
    if value == 0:
        return [0]
    out = []
    while value > 0:
        out.append(value % base)
        value //= base
    return out[::-1]


class AlienNumeralsEnv:
    # difficulty -> (base range, example numeral lengths, target length, reversed order possible, min examples)
    LEVELS = {
        "easy": ((5, 7), (2, 3), 3, False, 5),
        "medium": ((7, 11), (2, 4), 4, False, 5),
        "hard": ((10, 15), (2, 4), 5, True, 6),
    }

    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.bases, self.lengths, self.target_len, self.may_reverse, self.min_examples = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.base = 10
        self.reverse = False
        self.symbols = []
        self.examples = []
        self.target = ""
        self.turn = 0
        self.done = False
        self.tries = []
        self._answer = 0

    def _write(self, value):
        ds = _digits(value, self.base)
        if self.reverse:
            ds = ds[::-1]
        return "".join(self.symbols[d] for d in ds)

    def _readings(self):
        """Target values under every (base, order, symbol map) that reproduces all examples."""
        values = set()
        orders = (False, True) if self.may_reverse else (False,)
        for base in range(2, 37):
            for rev in orders:
                mapping = {}
                back = {}
                ok = True
                for text, value in self.examples:
                    ds = _digits(value, base)
                    if rev:
                        ds = ds[::-1]
                    if len(ds) != len(text):
                        ok = False
                        break
                    for ch, d in zip(text, ds):
                        if mapping.setdefault(ch, d) != d or back.setdefault(d, ch) != ch:
                            ok = False
                            break
                    if not ok:
                        break
                if not ok:
                    continue
                if any(ch not in mapping for ch in self.target):
                    values.add(None)
                    continue
                ds = [mapping[ch] for ch in self.target]
                if rev:
                    ds = ds[::-1]
                v = 0
                for d in ds:
                    v = v * base + d
                values.add(v)
        return values

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        r = self.rng
        for _ in range(60):
            self.base = r.randint(*self.bases)
            self.reverse = self.may_reverse and r.random() < 0.5
            self.symbols = r.sample(GLYPHS, self.base)
            b = self.base
            lo_t, hi_t = b ** (self.target_len - 1), b ** self.target_len - 1
            self._answer = r.randint(lo_t, hi_t)
            self.target = self._write(self._answer)
            self.examples = []
            used = set([self._answer])
            for _ in range(12):
                n = r.randint(*self.lengths)
                value = r.randint(b ** (n - 1), b ** n - 1)
                if value in used:
                    continue
                used.add(value)
                self.examples.append((self._write(value), value))
                if len(self.examples) >= self.min_examples and self._readings() == {self._answer}:
                    break
            if self._readings() == {self._answer}:
                break
        self.rng.shuffle(self.examples)
        self.turn = 0
        self.done = False
        self.tries = []
        return self._render("Work out the number system and convert the new numeral."), {}

    def _render(self, last):
        order = ("Digits are written most significant first, as usual."
                 if not self.may_reverse else
                 "Careful: this civilisation may write digits least significant first instead (the same way for "
                 "every numeral).")
        width = max(len(t) for t, _ in self.examples)
        lines = [
            f"ALIEN NUMERALS | Attempt {self.turn}/{self.max_turns} | Difficulty: {self.difficulty}",
            "An alien civilisation writes whole numbers positionally in some base, using one letter per digit value "
            "(every letter stands for a different digit; the letters are not in alphabetical order). Numerals have "
            "no leading zeros. " + order,
            "Examples (numeral = decimal value):",
        ]
        for t, v in self.examples:
            lines.append(f"  {t.ljust(width)} = {v}")
        lines.append(f"Convert: {self.target} = ?")
        lines.append("Task: give the decimal value of that numeral as a plain integer inside \\boxed{}.")
        if self.tries:
            lines.append("Your attempts: " + "; ".join(self.tries))
        lines.append(f"Last result: {last}")
        lines.append(f"Attempts left: {self.max_turns - self.turn}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        value = None
        msg = ""
        if m is None:
            msg = "No answer found: write the decimal value inside \\boxed{}."
        else:
            body = re.sub(r"[\s,_]", "", m.group(1))
            if re.fullmatch(r"\+?\d{1,30}", body):
                value = int(body)
            else:
                msg = "Answer with a plain non-negative decimal integer (digits 0-9 only)."
        if value is None:
            self.tries.append("(invalid)")
        elif value == self._answer:
            self.done = True
            self.tries.append(f"{value} correct")
            return self._render(f"{value} is correct: you decoded the number system!"), 1.0, True, False, {}
        else:
            side = "too high" if value > self._answer else "too low"
            self.tries.append(f"{value} {side}")
            msg = f"{value} is {side}. Check your base and your letter values against every example."
        if out:
            self.done = True
            msg += " No attempts left."
        return self._render(msg), 0.0, out, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        r = random.Random(self.target)
        lo = self.base - r.randint(0, 2)
        hi = lo + 2
        present = sorted(set(self.target))
        ch = r.choice(present)
        text = (f"The base is between {lo} and {hi}, and the letter {ch} is the digit {self.symbols.index(ch)}. "
                "Numerals of n letters lie between base^(n-1) and base^n - 1, so the example values bracket the "
                "base; a letter that never sits in the most significant position is a good candidate for 0.")
        if self.may_reverse:
            text += (" Digits are written least significant first here." if self.reverse else
                     " Digits are written most significant first here.")
        if re.search(r"(?<![0-9])" + str(self._answer) + r"(?![0-9])", text):
            text = ("Numerals of n letters lie between base^(n-1) and base^n - 1, so the example values bracket "
                    "the base; a letter that never sits in the most significant position is a good candidate for 0.")
        return text
