"""Hidden Rule Sequence: a prefix of an integer sequence built from a hidden composite rule (interleaved strands, layered differences, cycling operations, two-term recurrences) is shown; name the next term. Wrong answers are told whether they are too high or too low, with a few attempts in all."""
import random
import re


def _interleave(strands, total):
    out = []
    i = 0
    while len(out) < total:
        for s in strands:
            if len(out) < total:
                out.append(s[i])
        i += 1
    return out


def _fam_second_diff(rng, total):
    a = rng.randint(-20, 40)
    d = rng.randint(-6, 12)
    dd = rng.choice([-4, -3, -2, 2, 3, 4, 5])
    out = [a]
    for n in range(total - 1):
        a += d + dd * n
        out.append(a)
    return out


def _arith(rng, n, lo=2, hi=9):
    start = rng.randint(-15, 40)
    step = rng.choice([s for s in range(-hi, hi + 1) if abs(s) >= lo])
    return [start + step * i for i in range(n)], step


def _fam_interleave_arith(rng, total):
    a, p = _arith(rng, total)
    while True:
        b, q = _arith(rng, total)
        if q != p:
            break
    return _interleave([a, b], total)


def _fam_alt_ops(rng, total, mults=(2,), signed=False):
    x = rng.randint(1, 9)
    m = rng.choice(list(mults))
    c = rng.choice([v for v in range(-7 if signed else 1, 10) if v != 0])
    mult_first = rng.random() < 0.5
    out = [x]
    for n in range(total - 1):
        if (n % 2 == 0) == mult_first:
            x = x * m
        else:
            x = x + c
        out.append(x)
    return out


def _fam_period_diffs(rng, total, period):
    while True:
        diffs = [rng.choice([v for v in range(-9, 13) if v != 0]) for _ in range(period)]
        if len(set(diffs)) == period:
            break
    a = rng.randint(-10, 50)
    out = [a]
    for n in range(total - 1):
        a += diffs[n % period]
        out.append(a)
    return out


def _fam_geo_diffs(rng, total):
    d = rng.choice([1, 2, 3, -1, -2])
    r = 2
    a = rng.randint(-10, 30)
    c = rng.choice([0, 0, 1, -1, 2, 3])
    out = [a]
    for n in range(total - 1):
        a += d * (r ** n) + c
        out.append(a)
    return out


def _fam_fib_offset(rng, total):
    a, b = rng.randint(-3, 6), rng.randint(1, 8)
    c = rng.choice([-3, -2, -1, 1, 2, 3, 4])
    out = [a, b]
    while len(out) < total:
        out.append(out[-1] + out[-2] + c)
    return out


def _fam_interleave_arith_geo(rng, total):
    n = (total + 1) // 2 + 1
    a, _ = _arith(rng, n, 3, 11)
    g0 = rng.choice([1, 2, 3, 5, -1, -3])
    r = rng.choice([2, 2, 3, -2])
    if r == 3:
        g0 = rng.choice([1, 2, -1])
    g = [g0 * r ** i for i in range(n)]
    strands = [a, g] if rng.random() < 0.5 else [g, a]
    return _interleave(strands, total)


def _fam_triple_interleave(rng, total):
    strands = []
    steps = set()
    while len(strands) < 3:
        s, p = _arith(rng, total, 1, 9)
        if p not in steps:
            steps.add(p)
            strands.append(s)
    return _interleave(strands, total)


def _fam_alt_ops3(rng, total):
    a = rng.randint(1, 9)
    m = rng.choice([2, 3, -2])
    b = rng.randint(2, 12)
    x = rng.randint(1, 8)
    ops = [("add", a), ("mul", m), ("sub", b)]
    shift = rng.randrange(3)
    ops = ops[shift:] + ops[:shift]
    out = [x]
    for n in range(total - 1):
        kind, v = ops[n % 3]
        x = x + v if kind == "add" else (x * v if kind == "mul" else x - v)
        out.append(x)
    return out


def _fam_cubic(rng, total):
    c3 = rng.choice([1, 1, 2, -1])
    c2 = rng.randint(-6, 6)
    c1 = rng.randint(-9, 9)
    c0 = rng.randint(-20, 20)
    n0 = rng.randint(-3, 2)
    return [c3 * n ** 3 + c2 * n ** 2 + c1 * n + c0 for n in range(n0, n0 + total)]


def _fam_interleave_second(rng, total):
    n = (total + 1) // 2 + 1
    strands = []
    for _ in range(2):
        a = rng.randint(-15, 30)
        d = rng.randint(-5, 9)
        dd = rng.choice([-3, -2, -1, 1, 2, 3, 4])
        s = [a]
        for i in range(n - 1):
            a += d + dd * i
            s.append(a)
        strands.append(s)
    return _interleave(strands, total)


def _fam_lin_rec(rng, total):
    p, q = rng.choice([(1, 2), (2, 1), (3, -1), (1, 3), (2, -3)])
    out = [rng.randint(-3, 5), rng.randint(1, 7)]
    while out[1] == out[0]:
        out[1] = rng.randint(1, 7)
    while len(out) < total:
        out.append(p * out[-1] + q * out[-2])
    return out


def _fam_diffs_interleaved(rng, total):
    c = rng.choice([v for v in range(-9, 10) if v != 0])
    s = rng.randint(-6, 8)
    t = rng.choice([-3, -2, 2, 3, 4, 5])
    a = rng.randint(-10, 40)
    const_first = rng.random() < 0.5
    out = [a]
    k = 0
    for n in range(total - 1):
        if (n % 2 == 0) == const_first:
            a += c
        else:
            a += s + t * k
            k += 1
        out.append(a)
    return out


HINTS = {
    "second_diff": "Take the differences between consecutive terms, then the differences of those differences: "
                   "the second level is constant.",
    "interleave_arith": "Read the terms in odd and in even positions as two separate sequences: each strand moves by "
                        "its own fixed step. Decide which strand the next position belongs to.",
    "alt_ops": "Two operations alternate from term to term: one multiplies by a constant, the other adds a constant. "
               "Work out which of the two produced the last shown term; the next term uses the other one.",
    "period_diffs": "The differences between consecutive terms repeat in a short cycle; find the cycle length and "
                    "where the last difference sits in it.",
    "geo_diffs": "Look at the differences between consecutive terms: after removing a constant offset they double "
                 "each time (a geometric pattern hiding one level down).",
    "fib_offset": "Each term depends on the two terms right before it: compare every term with the sum of its two "
                  "predecessors and look at the gap.",
    "interleave_arith_geo": "Two strands are interleaved (odd and even positions). One strand grows by adding a "
                            "fixed step, the other by multiplying by a fixed ratio.",
    "triple_interleave": "The terms form three interleaved strands (every third term belongs to the same strand), "
                         "each with its own constant step.",
    "alt_ops3": "A cycle of three operations repeats from term to term: an addition, a multiplication and a "
                "subtraction, each by its own constant. Find where in the cycle the last step sits.",
    "cubic": "Take differences three times: the third differences are constant, so extend them back up.",
    "interleave_second": "Two strands are interleaved (odd and even positions); inside each strand the second "
                         "differences are constant.",
    "lin_rec": "Each term is a fixed small integer combination p*a(n-1) + q*a(n-2) of the two terms before it; solve "
               "for p and q from two overlapping windows and verify on the rest.",
    "diffs_interleaved": "Look at the differences: every other difference is the same constant, and the differences "
                         "in between grow by a fixed amount each time.",
}


class HiddenRuleSequenceEnv:
    # difficulty -> (terms shown, families)
    LEVELS = {
        "easy": (8, ["second_diff", "interleave_arith", "alt_ops", "period_diffs"]),
        "medium": (9, ["geo_diffs", "fib_offset", "interleave_arith_geo", "period_diffs", "alt_ops",
                       "triple_interleave"]),
        "hard": (11, ["alt_ops3", "cubic", "interleave_second", "lin_rec", "diffs_interleaved"]),
    }

    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.shown, self.families = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.terms = []
        self.family = ""
        self.turn = 0
        self.done = False
        self.tries = []
        self._answer = 0

    def _generate(self):
        total = self.shown + 1
        fam = self.rng.choice(self.families)
        if fam == "second_diff":
            seq = _fam_second_diff(self.rng, total)
        elif fam == "interleave_arith":
            seq = _fam_interleave_arith(self.rng, total)
        elif fam == "alt_ops":
            if self.difficulty == "easy":
                seq = _fam_alt_ops(self.rng, total)
            else:
                seq = _fam_alt_ops(self.rng, total, (2, 3, -2), True)
        elif fam == "period_diffs":
            seq = _fam_period_diffs(self.rng, total, 2 if self.difficulty == "easy" else 3)
        elif fam == "geo_diffs":
            seq = _fam_geo_diffs(self.rng, total)
        elif fam == "fib_offset":
            seq = _fam_fib_offset(self.rng, total)
        elif fam == "interleave_arith_geo":
            seq = _fam_interleave_arith_geo(self.rng, total)
        elif fam == "triple_interleave":
            seq = _fam_triple_interleave(self.rng, total)
        elif fam == "alt_ops3":
            seq = _fam_alt_ops3(self.rng, total)
        elif fam == "cubic":
            seq = _fam_cubic(self.rng, total)
        elif fam == "interleave_second":
            seq = _fam_interleave_second(self.rng, total)
        elif fam == "lin_rec":
            seq = _fam_lin_rec(self.rng, total)
        else:
            fam = "diffs_interleaved"
            seq = _fam_diffs_interleaved(self.rng, total)
        return fam, seq

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(50):
            fam, seq = self._generate()
            # reject degenerate draws: tiny answers, constant stretches, runaway growth
            if abs(seq[-1]) < 10 or max(abs(v) for v in seq) > 10 ** 7:
                continue
            if len(set(seq)) < len(seq) - 2:
                continue
            break
        self.family = fam
        self.terms = seq[:-1]
        self._answer = seq[-1]
        self.turn = 0
        self.done = False
        self.tries = []
        return self._render("Study the terms and submit the next one."), {}

    def _render(self, last):
        shown = ", ".join(str(v) for v in self.terms)
        lines = [
            f"HIDDEN RULE SEQUENCE | Attempt {self.turn}/{self.max_turns} | Difficulty: {self.difficulty}",
            "A hidden rule generated these integers. It may combine several simple patterns: interleaved strands, "
            "differences of differences, cycling operations, or terms built from earlier terms.",
            f"Terms a1..a{len(self.terms)}: {shown}",
            f"Task: give a{len(self.terms) + 1}, the next term, as a single integer inside \\boxed{{}}.",
        ]
        if self.tries:
            lines.append("Your attempts: " + "; ".join(self.tries))
        lines.append(f"Last result: {last}")
        lines.append(f"Attempts left: {self.max_turns - self.turn}. Reply with \\boxed{{N}} where N is your integer.")
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
            msg = "No answer found: write the next term inside \\boxed{}, e.g. a plain integer."
        else:
            body = re.sub(r"[\s,_]", "", m.group(1))
            body = re.sub(r"^a\d+=", "", body.lower())
            if re.fullmatch(r"[+-]?\d{1,30}", body):
                value = int(body)
            else:
                msg = "That is not a plain integer; answer with digits only (a leading minus sign is fine)."
        if value is None:
            self.tries.append("(invalid)")
            if out:
                self.done = True
                msg += " No attempts left."
            return self._render(msg), 0.0, out, False, {}
        if value == self._answer:
            self.done = True
            self.tries.append(f"{value} correct")
            return self._render(f"{value} is correct: you found the rule!"), 1.0, True, False, {}
        direction = "too high" if value > self._answer else "too low"
        self.tries.append(f"{value} {direction}")
        msg = f"{value} is {direction}. Re-examine the rule rather than nudging the number."
        if out:
            self.done = True
            msg += " No attempts left."
        return self._render(msg), 0.0, out, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        text = HINTS.get(self.family, "Look at differences and at odd/even positions separately.")
        if re.search(r"(?<![0-9A-Za-z])" + re.escape(str(self._answer)) + r"(?![0-9A-Za-z])", text):
            text = re.sub(r"\d", "", text)
        return text
