"""Alchemy equation balance: an alchemist's reaction lists reagents and products as formulas of elements
(e.g. Fe2S3 or C3H8O); write the smallest whole-number coefficient for each formula so that every element
has as many atoms on the left as on the right. The formulas are generated, so no remembered textbook
equation helps: the coefficients are the one positive integer solution of a small linear system."""
import random
import re
from math import gcd

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
ELEMENTS = ["C", "H", "O", "N", "S", "Fe", "Cl", "Na", "Cu", "P"]
# difficulty -> (reagents, products, elements, largest coefficient)
LEVELS = {"easy": (2, 2, 3, 5), "medium": (2, 3, 4, 6), "hard": (3, 3, 5, 6)}


class AlchemyEquationBalanceEnv:
    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_left, self.n_right, self.n_elems, self.top = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, 2)
        self.attempts = 2
        self.rng = random.Random()
        self.elems = []
        self.formulas = []  # per compound: dict element -> count
        self.coefs = []
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = ""

    @staticmethod
    def _rank(rows):
        """Rank over the rationals by fraction-free elimination of integer rows."""
        rows = [list(r) for r in rows]
        rank, cols = 0, len(rows[0]) if rows else 0
        for c in range(cols):
            pivot = next((i for i in range(rank, len(rows)) if rows[i][c] != 0), None)
            if pivot is None:
                continue
            rows[rank], rows[pivot] = rows[pivot], rows[rank]
            for i in range(len(rows)):
                if i != rank and rows[i][c] != 0:
                    a, b = rows[rank][c], rows[i][c]
                    rows[i] = [a * x - b * y for x, y in zip(rows[i], rows[rank])]
            rank += 1
        return rank

    def _matrix(self):
        m = self.n_left + self.n_right
        return [[self.formulas[j].get(e, 0) * (1 if j < self.n_left else -1) for j in range(m)] for e in self.elems]

    def _balanced(self, coefs):
        return all(sum(row[j] * coefs[j] for j in range(len(coefs))) == 0 for row in self._matrix())

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        m = self.n_left + self.n_right
        for _ in range(3000):
            self.elems = self.rng.sample(ELEMENTS, self.n_elems)
            coefs = [self.rng.randint(1, self.top) for _ in range(m - 1)]
            coefs.append(self.rng.randint(1, 2))  # the leftover formula below divides evenly more often
            g = 0
            for c in coefs:
                g = gcd(g, c)
            if g != 1 or len(set(coefs)) < 2:
                continue
            formulas = []
            for j in range(m - 1):
                k = self.rng.randint(1, min(3, self.n_elems))
                most = 4 if j < self.n_left else 2  # small products leave atoms over for the last one
                formulas.append({e: self.rng.randint(1, most) for e in self.rng.sample(self.elems, k)})
            # the last product takes whatever atoms conservation leaves over
            last, ok = {}, True
            for e in self.elems:
                left = sum(coefs[j] * formulas[j].get(e, 0) for j in range(self.n_left))
                right = sum(coefs[j] * formulas[j].get(e, 0) for j in range(self.n_left, m - 1))
                rest = left - right
                if rest < 0 or rest % coefs[-1]:
                    ok = False
                    break
                if rest:
                    last[e] = rest // coefs[-1]
            if not ok or not last or max(last.values()) > 12:
                continue
            formulas.append(last)
            self.formulas = formulas
            # every element on both sides, no two identical formulas, and exactly one balancing ratio
            if any(all(e not in f for f in formulas[:self.n_left]) for e in self.elems):
                continue
            keys = [tuple(sorted(f.items())) for f in formulas]
            if len(set(keys)) < m:
                continue
            if self._rank(self._matrix()) != m - 1:
                continue
            # show the reagents and the products each in a shuffled order (the leftover formula is not always last)
            left = list(zip(formulas[:self.n_left], coefs[:self.n_left]))
            right = list(zip(formulas[self.n_left:], coefs[self.n_left:]))
            self.rng.shuffle(left)
            self.rng.shuffle(right)
            self.formulas = [f for f, _ in left + right]
            self.coefs = [c for _, c in left + right]
            break
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = "Give the coefficients."
        return self._render(), {}

    def _formula(self, f):
        return "".join(f"{e}{'' if f[e] == 1 else f[e]}" for e in self.elems if e in f)

    def _equation(self):
        left = " + ".join(self._formula(f) for f in self.formulas[:self.n_left])
        right = " + ".join(self._formula(f) for f in self.formulas[self.n_left:])
        return f"{left} -> {right}"

    def _render(self):
        m = self.n_left + self.n_right
        return ("ALCHEMY EQUATION BALANCE\n"
                f"  {self._equation()}\n"
                "Each formula lists elements with their atom counts (no number means one atom; Fe, Cl, Na, Cu are "
                "single elements). Put a whole-number coefficient in front of every formula so that each element "
                "has the same number of atoms on both sides, using the smallest such whole numbers (no common "
                f"factor). Answer with the {m} coefficients in the order the formulas appear, e.g. "
                "\\boxed{2, 1, 3, 2}.\n"
                f"Answers left: {self.attempts - self.used}. Last: {self.last}")

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        body = m.group(1) if m else ""
        nums = re.findall(r"\d{1,6}", body)
        clean = bool(m) and re.fullmatch(r"[\s\d,;]*", body) is not None
        coefs = [int(x) for x in nums] if clean else []
        if len(coefs) != self.n_left + self.n_right or 0 in coefs:
            self.last = (f"Could not read {self.n_left + self.n_right} positive whole numbers (this costs an answer): "
                         "write e.g. \\boxed{2, 1, 3, 2}.")
        elif coefs == self.coefs:
            self.done = True
            self.last = "Balanced, with the smallest coefficients. You win!"
            return self._render(), 1.0, True, False, {}
        elif self._balanced(coefs):
            self.last = "Balanced, but these coefficients share a common factor: not the smallest."
        else:
            off = [e for e, row in zip(self.elems, self._matrix())
                   if sum(row[j] * coefs[j] for j in range(len(coefs))) != 0]
            self.last = f"Not balanced: {len(off)} element(s) have different atom counts on the two sides."
        self.used += 1
        if self.used >= self.attempts or self.turn >= self.max_turns:
            self.done = True
            self.last += " No answers left: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        return ", ".join(str(c) for c in self.coefs)

    def hint(self):
        return (f"The smallest coefficients add up to {sum(self.coefs)}. Write one equation per element (atoms on the "
                "left times their coefficients equal atoms on the right), set the coefficient of the formula with the "
                "most atoms to a letter, express the others through it element by element, and scale to whole numbers.")
