"""Black-Box Probe: a hidden integer function f, drawn from an announced list of composed forms (polynomials, parity-split lines, remainder tables, floor steps), can be queried at small inputs a limited number of times; work out its form and parameters, then submit f(k) for a large announced k in one shot."""
import random
import re
from fractions import Fraction

# form name -> (display formula, feature builder)
FORMS = {
    "poly2": "a*x^2 + b*x + c",
    "parity_lin": "a*x + b if x is even, c*x + d if x is odd",
    "periodic_lin": "a*x + t[x mod m]   (t: a table of m integers)",
    "floor_lin": "a*x + b*floor(x/m) + c",
    "parity_quad": "a*x^2 + b*x + c if x is even, a*x^2 + d*x + e if x is odd",
    "periodic_quad": "a*x^2 + b*x + t[x mod m]   (t: a table of m integers)",
    "floor_quad": "a*x^2 + b*x + c*floor(x/m) + d",
}


def _features(form, m, x):
    odd = x % 2
    if form == "poly2":
        return [1, x, x * x]
    if form == "parity_lin":
        return [1, x, odd, x * odd]
    if form == "periodic_lin":
        return [x] + [1 if x % m == r else 0 for r in range(m)]
    if form == "floor_lin":
        return [1, x, x // m]
    if form == "parity_quad":
        return [1, x, x * x, odd, x * odd]
    if form == "periodic_quad":
        return [x * x, x] + [1 if x % m == r else 0 for r in range(m)]
    return [1, x, x * x, x // m]


def _predict(form, m, points, k):
    """(fits, determined, value): does this form fit the points, and does that fix its value at k?"""
    rows = [[Fraction(v) for v in _features(form, m, x)] + [Fraction(y)] for x, y in points]
    width = len(rows[0]) - 1 if rows else 0
    pivots = []
    r = 0
    for col in range(width):
        piv = next((i for i in range(r, len(rows)) if rows[i][col] != 0), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        lead = rows[r][col]
        rows[r] = [v / lead for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][col] != 0:
                f = rows[i][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r])]
        pivots.append((col, r))
        r += 1
    if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in rows):
        return False, False, None
    target = [Fraction(v) for v in _features(form, m, k)]
    value = Fraction(0)
    for col, i in pivots:
        coef = target[col]
        if coef != 0:
            target = [a - coef * b for a, b in zip(target, rows[i][:-1])]
            value += coef * rows[i][-1]
    if any(v != 0 for v in target):
        return True, False, None
    return True, True, value


class BlackBoxProbeEnv:
    # difficulty -> (query budget, [(form, allowed m values)])
    LEVELS = {
        "easy": (7, [("poly2", [0]), ("parity_lin", [0]), ("periodic_lin", [2, 3])]),
        "medium": (8, [("poly2", [0]), ("parity_lin", [0]), ("periodic_lin", [2, 3, 4]), ("floor_lin", [2, 3, 4]),
                       ("parity_quad", [0])]),
        "hard": (9, [("periodic_quad", [3, 4, 5]), ("floor_quad", [3, 4, 5]), ("parity_quad", [0]),
                     ("periodic_lin", [3, 4, 5, 6])]),
    }
    X_MAX = 60

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.budget, self.forms = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.form = ""
        self.m = 0
        self.params = {}
        self.k = 0
        self.known = {}
        self.queries_left = 0
        self.turn = 0
        self.done = False
        self.last = ""
        self._answer = 0

    # ------------------------------------------------------------------ hidden function
    def _f(self, x):
        p = self.params
        form = self.form
        odd = x % 2
        if form == "poly2":
            return p["a"] * x * x + p["b"] * x + p["c"]
        if form == "parity_lin":
            return p["c"] * x + p["d"] if odd else p["a"] * x + p["b"]
        if form == "periodic_lin":
            return p["a"] * x + p["t"][x % self.m]
        if form == "floor_lin":
            return p["a"] * x + p["b"] * (x // self.m) + p["c"]
        if form == "parity_quad":
            return p["a"] * x * x + (p["d"] * x + p["e"] if odd else p["b"] * x + p["c"])
        if form == "periodic_quad":
            return p["a"] * x * x + p["b"] * x + p["t"][x % self.m]
        return p["a"] * x * x + p["b"] * x + p["c"] * (x // self.m) + p["d"]

    def _draw(self):
        r = self.rng
        form, ms = r.choice(self.forms)
        m = r.choice(ms)
        nz = lambda lo, hi: r.choice([v for v in range(lo, hi + 1) if v != 0])
        if form == "poly2":
            p = {"a": nz(-3, 3), "b": r.randint(-9, 9), "c": r.randint(-20, 20)}
        elif form == "parity_lin":
            a = r.randint(-6, 6)
            p = {"a": a, "b": r.randint(-15, 15), "c": r.choice([v for v in range(-6, 7) if v != a]),
                 "d": r.randint(-15, 15)}
        elif form in ("periodic_lin", "periodic_quad"):
            while True:
                t = [r.randint(-12, 12) for _ in range(m)]
                if len(set(t)) >= 2:
                    break
            p = {"a": nz(-7, 7), "t": t}
            if form == "periodic_quad":
                p = {"a": nz(-3, 3), "b": r.randint(-9, 9), "t": t}
        elif form == "floor_lin":
            p = {"a": r.randint(-5, 5), "b": nz(-9, 9), "c": r.randint(-20, 20)}
        elif form == "parity_quad":
            b = r.randint(-9, 9)
            p = {"a": nz(-3, 3), "b": b, "c": r.randint(-15, 15), "d": r.choice([v for v in range(-9, 10) if v != b]),
                 "e": r.randint(-15, 15)}
        else:
            p = {"a": nz(-3, 3), "b": r.randint(-9, 9), "c": nz(-9, 9), "d": r.randint(-20, 20)}
        return form, m, p

    def _plan(self):
        return list(range(self.budget))

    def _unique(self):
        """Every announced form that fits the planned queries must fix the same value at k."""
        points = [(x, self._f(x)) for x in self._plan()]
        for form, ms in self.forms:
            for m in ms:
                fits, determined, value = _predict(form, m, points, self.k)
                if fits and (not determined or value != self._answer):
                    return False
        return True

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(40):
            self.form, self.m, self.params = self._draw()
            self.k = self.rng.randint(1000, 99999)
            self._answer = self._f(self.k)
            if self._unique():
                break
        self.known = {}
        self.queries_left = self.budget
        self.turn = 0
        self.done = False
        self.last = "Nothing queried yet."
        return self._render(), {}

    def _render(self):
        lines = [
            f"BLACK-BOX PROBE | Turn {self.turn}/{self.max_turns} | Queries left: {self.queries_left} | "
            f"Target: f({self.k})",
            "A hidden function f maps integers to integers. It has exactly one of these forms, with hidden integer "
            "parameters (floor and mod round toward minus infinity):",
        ]
        ms = sorted(set(m for _, mlist in self.forms for m in mlist if m))
        for form, _ in self.forms:
            lines.append(f"  - f(x) = {FORMS[form]}")
        if ms:
            lines.append(f"  where m is one of {ms} when it appears.")
        if self.known:
            lines.append("Known values: " + ", ".join(f"f({x})={self.known[x]}" for x in sorted(self.known)))
        else:
            lines.append("Known values: none")
        lines.append(f"Last result: {self.last}")
        lines.append(
            f"Commands (one per turn): \\boxed{{query X}} reveals f(X) for an integer 0 <= X <= {self.X_MAX} (uses one "
            f"query); \\boxed{{answer V}} submits V as f({self.k}) - one shot, right or wrong the game ends."
        )
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        if m is None:
            self.last = "No command found (turn used). Send \\boxed{query X} or \\boxed{answer V}."
            return self._finish(out)
        body = m.group(1).strip().lower()
        qm = re.fullmatch(r"(?:query|q|f)?\s*\(?\s*([+-]?\d{1,12})\s*\)?", body)
        am = re.fullmatch(r"(?:answer|a|submit)\s*[:=]?\s*([+-]?[\d,]{1,40})", body)
        if am is not None:
            digits = am.group(1).replace(",", "")
            try:
                value = int(digits)
            except ValueError:
                self.last = "The answer must be an integer (turn used)."
                return self._finish(out)
            self.done = True
            if value == self._answer:
                self.last = f"f({self.k}) = {value}. Correct: you cracked the black box!"
                return self._render(), 1.0, True, False, {}
            side = "smaller" if value > self._answer else "larger"
            self.last = f"Wrong: {value} is not f({self.k}); the true value is {side}. Game over."
            return self._render(), 0.0, True, False, {}
        if qm is not None:
            x = int(qm.group(1))
            if x < 0 or x > self.X_MAX:
                self.last = f"Query refused (turn used): X must be between 0 and {self.X_MAX}."
            elif x in self.known:
                self.last = f"f({x}) = {self.known[x]} is already known; no query used, but the turn is gone."
            elif self.queries_left <= 0:
                self.last = "No queries left: submit \\boxed{answer V}."
            else:
                self.queries_left -= 1
                self.known[x] = self._f(x)
                self.last = f"f({x}) = {self.known[x]}"
            return self._finish(out)
        self.last = "Unknown command (turn used). Use query X or answer V."
        return self._finish(out)

    def _finish(self, out):
        if out:
            self.done = True
            self.last += " Out of turns: the black box stays closed."
        return self._render(), 0.0, out, False, {}

    def solution(self):
        """Probe the planned inputs 0, 1, 2, ... while queries remain, then answer."""
        if self.queries_left > 0 and self.turn < self.max_turns - 1:
            for x in self._plan():
                if x not in self.known:
                    return f"query {x}"
        return f"answer {self._answer}"

    def hint(self):
        k = self.k
        if self.form == "poly2":
            text = "f is a plain quadratic: its second differences f(x+2) - 2f(x+1) + f(x) are constant (= 2a)."
        elif self.form == "parity_lin":
            text = (f"f is two different lines, one on even inputs and one on odd inputs; k = {k} is "
                    f"{'odd' if k % 2 else 'even'}, so only that line matters.")
        elif self.form in ("periodic_lin", "periodic_quad"):
            text = (f"f has a remainder table with period m = {self.m}: compare inputs that are {self.m} apart. "
                    f"{k} mod {self.m} = {k % self.m}, so you need the table entry for that residue and the "
                    f"{'quadratic and ' if self.form == 'periodic_quad' else ''}linear part.")
        elif self.form in ("floor_lin", "floor_quad"):
            text = (f"f contains a floor(x/{self.m}) step: f(x+1) - f(x) jumps whenever x+1 is a multiple of "
                    f"{self.m}; fit the smooth part from steps that do not cross a multiple.")
        else:
            text = ("f is a quadratic whose linear term differs between even and odd inputs (same x^2 "
                    "coefficient): fit the even and the odd inputs separately.")
        return text + " Consecutive inputs make the differences easy to read."
