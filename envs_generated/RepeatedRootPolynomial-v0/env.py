"""A polynomial with only integer roots, some of them repeated, is shown in expanded form; the player must report a quantity built from its DISTINCT roots (sum of squares, sum of cubes or product).
Trains root finding with the rational-root test and synthetic division, and not trusting multiplicity-blind Vieta shortcuts."""

import random
import re


def _boxed(text):
    """Content of the last \\boxed{...} (balanced braces), or None."""
    if not isinstance(text, str):
        text = str(text)
    i = text.rfind("\\boxed{")
    if i < 0:
        return None
    start = i + 7
    depth = 0
    for j in range(start, len(text)):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return text[start:j]
            depth -= 1
    return None


def _expand(lead, roots):
    """Coefficients (highest degree first) of lead * prod (x - r)."""
    coeffs = [lead]
    for r in roots:
        nxt = coeffs + [0]
        for i in range(1, len(nxt)):
            nxt[i] -= r * coeffs[i - 1]
        coeffs = nxt
    return coeffs


def _poly_text(coeffs):
    deg = len(coeffs) - 1
    out = []
    for i, c in enumerate(coeffs):
        p = deg - i
        if c == 0:
            continue
        sign = "-" if c < 0 else "+"
        a = abs(c)
        if p == 0:
            body = str(a)
        else:
            coef = "" if a == 1 else str(a)
            body = coef + ("x" if p == 1 else f"x^{p}")
        if not out:
            out.append(("-" if c < 0 else "") + body)
        else:
            out.append(f"{sign} {body}")
    return " ".join(out)


QUANTITIES = {
    "squares": "the sum of the SQUARES of its distinct real roots",
    "cubes": "the sum of the CUBES of its distinct real roots",
    "product": "the product of its distinct real roots",
}


class RepeatedRootPolynomialEnv:
    LEVELS = {
        # multiplicity patterns, root range, leading coefficients, asked quantities
        "easy": {"patterns": [(2, 1), (1, 1, 1)], "range": 9, "leads": [1], "quantities": ["cubes", "squares"]},
        "medium": {"patterns": [(2, 1, 1), (2, 2), (3, 1)], "range": 10, "leads": [1, 1, 2, 3, -1],
                   "quantities": ["cubes", "product", "squares"]},
        "hard": {"patterns": [(2, 1, 1, 1), (3, 1, 1), (2, 2, 1), (2, 2, 1, 1), (3, 2, 1)], "range": 12,
                 "leads": [1, 2, 3, -2, -1], "quantities": ["cubes", "product", "squares"]},
    }

    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.cfg = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.turn = 0
        self.done = False
        self.roots = {}
        self.lead = 1
        self.coeffs = []
        self.quantity = "squares"
        self._answer = 0
        self._with_mult = 0

    def _value(self, kind, weighted):
        items = []
        for r, m in self.roots.items():
            items.extend([r] * (m if weighted else 1))
        if kind == "squares":
            return sum(r * r for r in items)
        if kind == "cubes":
            return sum(r ** 3 for r in items)
        p = 1
        for r in items:
            p *= r
        return p

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        cfg = self.cfg
        # the product of the distinct roots is only asked when some root repeats (otherwise it is
        # just the constant term over the leading coefficient); every medium/hard pattern repeats one
        self.quantity = self.rng.choice(cfg["quantities"])
        while True:
            pattern = list(self.rng.choice(cfg["patterns"]))
            self.rng.shuffle(pattern)
            R = cfg["range"]
            rs = self.rng.sample([r for r in range(-R, R + 1)], len(pattern))
            self.roots = dict(zip(rs, pattern))
            self.lead = self.rng.choice(cfg["leads"])
            if self.roots.get(0, 0) > 1 or (self.quantity == "product" and 0 in self.roots):
                continue
            ans = self._value(self.quantity, False)
            if abs(ans) <= 100:
                continue
            if max(pattern) > 1 and self._value(self.quantity, True) == ans:
                continue  # the repeated roots must matter
            all_roots = []
            for r in sorted(self.roots):
                all_roots.extend([r] * self.roots[r])
            self.coeffs = _expand(self.lead, all_roots)
            if max(abs(c) for c in self.coeffs) > 10 ** 7:
                continue
            self._answer = ans
            self._with_mult = self._value(self.quantity, True)
            obs = self._render()
            nums = set(re.findall(r"\d+", obs + " " + self.hint()))
            if str(abs(ans)) in nums:
                continue
            return obs, {}

    def _render(self):
        deg = len(self.coeffs) - 1
        return (f"Consider the degree-{deg} polynomial\n"
                f"  P(x) = {_poly_text(self.coeffs)}\n"
                f"All roots of P are integers, and some of them may be repeated. Count every root only ONCE "
                f"(distinct roots). Compute {QUANTITIES[self.quantity]}.\n"
                f"Answer with a single integer as \\boxed{{integer}}. You have {self.max_turns} attempt(s); a wrong "
                f"attempt is only answered with 'wrong'.")

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() for a new polynomial.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        content = _boxed(action)
        if content is None:
            return self._wrong("No answer found: write the integer inside \\boxed{...}.", out)
        raw = content.replace(",", "").replace("$", "").replace(" ", "").strip()
        if not re.fullmatch(r"[+-]?\d{1,40}", raw):
            return self._wrong(f"'{content[:40]}' is not an integer.", out)
        val = int(raw)
        if val == self._answer:
            self.done = True
            return "Correct!", 1.0, True, False, {}
        msg = "Wrong."
        if val == self._with_mult:
            msg += " That value counts a repeated root more than once."
        return self._wrong(msg, out)

    def _wrong(self, msg, out):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        rep = sorted((r for r, m in self.roots.items() if m > 1), key=lambda r: (-self.roots[r], abs(r)))
        parts = [f"Divide out the leading coefficient {self.lead} first; every integer root then divides the "
                 f"constant term (a root 0 shows up as a missing constant term)."]
        if rep:
            r = rep[0]
            factor = f"(x - {r})" if r > 0 else (f"(x + {-r})" if r < 0 else "x")
            parts.append(f"x = {r} is a root of multiplicity {self.roots[r]}, so {factor}^{self.roots[r]} "
                         f"divides P; divide it out by synthetic division and factor what is left.")
        else:
            parts.append("Test small divisors of the constant term with synthetic division, then factor the "
                         "quotient.")
        parts.append(f"P has {len(self.roots)} distinct roots; Vieta's formulas count repeated roots with "
                     f"multiplicity, so do not apply them to P directly.")
        return " ".join(parts)

    def close(self):
        pass
