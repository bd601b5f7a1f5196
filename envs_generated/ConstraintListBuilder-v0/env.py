"""Constraint list builder: construct a list of positive integers that meets every stated arithmetic
constraint (its sum, a product or difference of two positions, how many entries are prime or even, the median,
the spread...). Many lists may work; the checker tests a submitted list against each constraint and names the
ones it breaks. A few attempts are allowed."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
PLACES = ["first", "second", "third", "fourth", "fifth", "sixth"]
# difficulty -> (length, largest value, constraints, attempts)
LEVELS = {"easy": (3, 12, 3, 3), "medium": (4, 20, 4, 3), "hard": (5, 30, 6, 3)}


def is_prime(n):
    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))


class ConstraintListBuilderEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        tries = LEVELS[self.difficulty][3]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns >= tries else tries
        self.rng = random.Random()
        self.done = False

    def _check(self, c, xs):
        kind, a = c[0], c[1:]
        s = sorted(xs)
        if kind == "sum":
            return sum(xs) == a[0]
        if kind == "prod":
            return xs[a[0]] * xs[a[1]] == a[2]
        if kind == "diff":
            return xs[a[0]] - xs[a[1]] == a[2]
        if kind == "primes":
            return sum(1 for x in xs if is_prime(x)) == a[0]
        if kind == "evens":
            return sum(1 for x in xs if x % 2 == 0) == a[0]
        if kind == "spread":
            return s[-1] - s[0] == a[0]
        if kind == "median":
            return s[len(s) // 2] == a[0]
        if kind == "squares":
            return sum(x * x for x in xs) == a[0]
        if kind == "distinct":
            return len(set(xs)) == len(xs)
        return xs[a[0]] % xs[a[1]] == 0  # "divides"

    def _say(self, c):
        kind, a = c[0], c[1:]
        if kind == "sum":
            return f"the entries add up to {a[0]}"
        if kind == "prod":
            return f"the {PLACES[a[0]]} entry times the {PLACES[a[1]]} entry is {a[2]}"
        if kind == "diff":
            return f"the {PLACES[a[0]]} entry is {a[2]} more than the {PLACES[a[1]]} entry"
        if kind == "primes":
            return f"exactly {a[0]} of the entries {'is' if a[0] == 1 else 'are'} prime"
        if kind == "evens":
            return f"exactly {a[0]} of the entries {'is' if a[0] == 1 else 'are'} even"
        if kind == "spread":
            return f"the largest entry is {a[0]} more than the smallest"
        if kind == "median":
            return f"sorted, the middle entry is {a[0]}" if self.n % 2 else (
                f"sorted, the entry just above the middle (number {self.n // 2 + 1} from the smallest) is {a[0]}")
        if kind == "squares":
            return f"the squares of the entries add up to {a[0]}"
        if kind == "distinct":
            return "no two entries are equal"
        return f"the {PLACES[a[0]]} entry is a multiple of the {PLACES[a[1]]} entry"

    def _make(self, t):
        rng = self.rng
        n = len(t)
        i, j = rng.sample(range(n), 2)
        kind = rng.choice(["prod", "diff", "primes", "evens", "spread", "median", "squares", "divides"])
        if kind == "prod":
            return ("prod", i, j, t[i] * t[j])
        if kind == "diff":
            i, j = (i, j) if t[i] > t[j] else (j, i)
            return ("diff", i, j, t[i] - t[j]) if t[i] != t[j] else ("prod", i, j, t[i] * t[j])
        if kind == "primes":
            return ("primes", sum(1 for x in t if is_prime(x)))
        if kind == "evens":
            return ("evens", sum(1 for x in t if x % 2 == 0))
        if kind == "spread":
            return ("spread", max(t) - min(t))
        if kind == "median":
            return ("median", sorted(t)[n // 2])
        if kind == "squares":
            return ("squares", sum(x * x for x in t))
        if t[i] % t[j] == 0 and t[j] > 1:
            return ("divides", i, j)
        return ("spread", max(t) - min(t))

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, top, k, tries = LEVELS[self.difficulty]
        self.n = n
        for _ in range(200):
            t = [rng.randint(1, top) for _ in range(n)]
            cons = [("sum", sum(t))]
            for _ in range(40):
                c = self._make(t)
                if c not in cons and c[0] not in [d[0] for d in cons if d[0] in ("primes", "evens", "spread",
                                                                                  "median", "squares")]:
                    cons.append(c)
                if len(cons) == k:
                    break
            # the constraints must not be met by the screen's own numbers or by an all-equal list
            flat = [sum(t) // n] * n
            if len(cons) == k and not all(self._check(c, flat) for c in cons):
                break
        self.target = t
        self.cons = cons[1:]
        rng.shuffle(self.cons)
        self.cons = [cons[0]] + self.cons if rng.random() < 0.5 else self.cons + [cons[0]]
        self.left = tries
        self.done = False
        lines = [f"{i + 1}. {self._say(c)[0].upper()}{self._say(c)[1:]}." for i, c in enumerate(self.cons)]
        return ("CONSTRAINT LIST BUILDER\n"
                f"Build a list of {n} whole numbers, each from 1 to {top}, in order (first to last), that meets "
                "every constraint:\n" + "\n".join(lines) + "\n"
                f"Any list that meets them all wins. Answer with the {n} numbers, e.g. "
                f"\\boxed{{{', '.join(['?'] * n)}}}. You have {tries} attempts; after each the checker names the "
                "constraints your list breaks."), {}

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        n, top = LEVELS[self.difficulty][:2]
        boxes = BOX_RE.findall(str(action)[:5000])
        parts = [p.strip() for p in boxes[0].split(",")] if len(boxes) == 1 else []
        xs = [int(p) for p in parts if re.fullmatch(r"\d{1,3}", p)]
        self.left -= 1
        if len(xs) != n or len(parts) != n or not all(1 <= x <= top for x in xs):
            msg = f"Not a list of {n} numbers from 1 to {top}."
        else:
            broken = [i + 1 for i, c in enumerate(self.cons) if not self._check(c, xs)]
            if not broken:
                self.done = True
                return "Every constraint holds: you win!", 1.0, True, False, {}
            msg = "Broken constraint" + ("s " if len(broken) > 1 else " ") + ", ".join(map(str, broken)) + "."
        if self.left <= 0:
            self.done = True
            return msg + " No attempts left: you lose.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.left}.", 0.0, False, False, {}

    def solution(self):
        return ", ".join(map(str, self.target))

    def hint(self):
        tight = [i + 1 for i, c in enumerate(self.cons) if c[0] in ("prod", "diff", "divides", "squares")]
        where = f"constraints {', '.join(map(str, tight))}" if tight else "the counting constraints"
        return (f"Start from {where}: they pin down few values, so list the pairs or values they allow first. Then "
                "fill the remaining places to reach the sum, and check every constraint (primes: 2, 3, 5, 7, 11, "
                "13...; 1 is not prime) before you answer. After feedback change only what the broken constraints "
                "involve.")
