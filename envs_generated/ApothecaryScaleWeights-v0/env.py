"""An apothecary's scale only weighs baskets of exactly K different reagents at once and may be used a limited number of times; the player must deduce the exact weight of an announced mixture of reagents, with one final answer.
Trains linear-algebra reasoning: choosing weighings whose combination yields the target, and solving for it."""

import random
import re
from fractions import Fraction
from itertools import combinations


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


REAGENTS = ["amber", "basalt", "cobalt", "dolomite", "emerald", "flint", "garnet", "hematite", "iolite",
            "jasper", "kyanite", "lapis", "malachite", "nacre", "onyx", "pyrite", "quartz", "ruby", "sulfur",
            "topaz"]


def _reduce(basis, vec):
    """Residual of vec after elimination against an echelon basis [(pivot, vector)]."""
    v = list(vec)
    for p, b in basis:
        if v[p] != 0:
            f = v[p]
            v = [x - f * y for x, y in zip(v, b)]
    return v


def _add(basis, vec):
    """Add vec to the basis if independent; returns True when it was added."""
    r = _reduce(basis, vec)
    for p, x in enumerate(r):
        if x != 0:
            basis.append((p, [Fraction(y) / x for y in r]))
            return True
    return False


class ApothecaryScaleWeightsEnv:
    LEVELS = {
        "easy": {"n": 5, "k": 2, "w": (3, 25), "coef": (1, 4)},
        "medium": {"n": 6, "k": 3, "w": (5, 40), "coef": (0, 5)},
        "hard": {"n": 7, "k": 3, "w": (8, 60), "coef": (0, 5)},
    }

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.cfg = self.LEVELS[self.difficulty]
        self.n = self.cfg["n"]
        self.k = self.cfg["k"]
        self.rng = random.Random()
        self.names = []
        self.codes = []
        self.weights = []
        self.target = []
        self.pair = (0, 1)
        self.limit = self.n - 1
        self.log = []
        self.basis = []
        self.turn = 0
        self.done = False
        self.last = ""
        self._answer = 0
        self._next = ""

    # ------------------------------------------------------------------ helpers
    def _vec(self, items):
        v = [0] * self.n
        for i in items:
            v[i] += 1
        return v

    def _in_span(self, basis, vec):
        return all(x == 0 for x in _reduce(basis, vec))

    def _few_baskets_suffice(self, t):
        """True when one or two legal baskets already determine the mixture (too easy).

        t = x*u + y*v for 0/1 baskets u, v means: t is zero outside u|v, constant (x) on u-v,
        constant (y) on v-u and equal to x+y on u&v."""
        support = {i for i in range(self.n) if t[i]}
        baskets = [set(c) for c in combinations(range(self.n), self.k)]
        for i, u in enumerate(baskets):
            if support == u and len({t[j] for j in u}) == 1:
                return True
            for v in baskets[i + 1:]:
                if not support <= (u | v):
                    continue
                only_u = {t[j] for j in u - v}
                only_v = {t[j] for j in v - u}
                both = {t[j] for j in u & v}
                if len(only_u) > 1 or len(only_v) > 1 or len(both) > 1:
                    continue
                x = only_u.pop() if only_u else None
                y = only_v.pop() if only_v else None
                z = both.pop() if both else None
                if z is None or x is None or y is None or x + y == z:
                    return True
        return False

    def _target_text(self):
        parts = []
        for i in range(self.n):
            c = self.target[i]
            if c:
                parts.append(f"{c} {self.names[i]}")
        return " + ".join(parts)

    def _compute_next(self):
        """Best next command from the current state: answer when the weighings determine the target,
        otherwise a weighing that keeps the target reachable within the weighings left."""
        if self._in_span(self.basis, self.target):
            return f"answer {self._answer}"
        a, b = self.pair
        cands = [c for c in combinations(range(self.n), self.k) if (a in c) == (b in c)]
        fresh = [c for c in cands if not self._in_span(self.basis, self._vec(c))]
        for c in fresh:
            trial = list(self.basis)
            _add(trial, self._vec(c))
            if self._in_span(trial, self.target):
                return "weigh " + " ".join(self.codes[i] for i in c)
        if fresh:
            return "weigh " + " ".join(self.codes[i] for i in fresh[0])
        # only possible after off-plan weighings: any independent basket
        for c in combinations(range(self.n), self.k):
            if not self._in_span(self.basis, self._vec(c)):
                return "weigh " + " ".join(self.codes[i] for i in c)
        return f"answer {self._answer}"

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n, k = self.n, self.k
        idx = sorted(self.rng.sample(range(len(REAGENTS)), n))
        self.names = [REAGENTS[i] for i in idx]
        self.codes = [name[0] for name in self.names]
        while True:
            self.weights = [self.rng.randint(*self.cfg["w"]) for _ in range(n)]
            a, b = sorted(self.rng.sample(range(n), 2))
            t = [0] * n
            t[a] = t[b] = self.rng.randint(1, 3)
            lo, hi = self.cfg["coef"]
            others = [i for i in range(n) if i not in (a, b)]
            for i in others:
                t[i] = self.rng.randint(lo, hi)
            if sum(1 for i in others if t[i] == 0) > 1 or len(set(t[i] for i in others)) == 1:
                continue
            if self._few_baskets_suffice(t):
                continue
            ans = sum(x * w for x, w in zip(t, self.weights))
            if ans <= 100:
                continue
            break
        self.pair = (a, b)
        self.target = t
        self._answer = ans
        self.limit = n - 1
        self.log = []
        self.basis = []
        self.turn = 0
        self.done = False
        self.last = "The scale is ready."
        self._next = self._compute_next()
        return self._render(), {}

    def _render(self):
        left = self.limit - len(self.log)
        lines = [f"Turn {self.turn}/{self.max_turns} | Weighings left: {left} of {self.limit}",
                 f"Last: {self.last}",
                 f"Reagents (code: name): " + ", ".join(f"{c}: {nm}" for c, nm in zip(self.codes, self.names)),
                 f"Every piece of the same reagent weighs the same whole number of grams. The scale only accepts a "
                 f"basket of exactly {self.k} DIFFERENT reagents, one piece of each, and shows their total weight.",
                 f"Goal: the exact weight of the mixture {self._target_text()}.",
                 "Weighings so far:" if self.log else "Weighings so far: none."]
        for i, (items, total) in enumerate(self.log, 1):
            lines.append(f"  {i}. " + " + ".join(self.names[j] for j in items) + f" = {total} g")
        example = " ".join(self.codes[:self.k])
        lines.append(f"Commands: \\boxed{{weigh {example}}} (exactly {self.k} different codes or names; uses one "
                     f"weighing), \\boxed{{answer N}} (your FINAL answer in grams: one try only, a wrong answer "
                     f"loses).")
        return "\n".join(lines)

    def _lookup(self, tok):
        tok = tok.strip().lower()
        for i, (c, nm) in enumerate(zip(self.codes, self.names)):
            if tok == c or tok == nm:
                return i
        return None

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        content = _boxed(action)
        reward, terminated = 0.0, False
        if content is None:
            self.last = "No command found (turn used). Put one command inside \\boxed{...}."
        else:
            cmd = content.strip().lower()
            num = re.fullmatch(r"(?:answer|submit)?\s*:?\s*([+-]?\d{1,30})\s*(?:g|grams)?", cmd)
            if num:
                val = int(num.group(1))
                self.done = True
                terminated = True
                if val == self._answer:
                    reward = 1.0
                    self.last = f"Correct! The mixture weighs {val} g. You win."
                else:
                    self.last = (f"Wrong: the mixture does not weigh {val} g "
                                 f"({'too high' if val > self._answer else 'too low'}). You lose.")
                return self._render(), reward, terminated, False, {}
            m = re.fullmatch(r"weigh\s*:?\s*(.*)", cmd, re.S)
            if m is None:
                self.last = (f"Unknown command '{content[:30]}' (turn used). Use weigh with {self.k} codes, or "
                             f"answer N.")
            else:
                toks = [x for x in re.split(r"[\s,+;]+", m.group(1)) if x]
                items = [self._lookup(x) for x in toks]
                if len(toks) != self.k or any(i is None for i in items):
                    self.last = (f"A basket needs exactly {self.k} reagent codes or names from the list (turn used).")
                elif len(set(items)) != self.k:
                    self.last = f"The {self.k} reagents in a basket must all be different (turn used)."
                else:
                    items = sorted(items)
                    known = [tot for its, tot in self.log if its == items]
                    if known:
                        self.last = (f"You already weighed that basket: {known[0]} g (turn used, no weighing spent).")
                    elif len(self.log) >= self.limit:
                        self.last = "No weighings left: submit your answer."
                    else:
                        total = sum(self.weights[i] for i in items)
                        self.log.append((items, total))
                        _add(self.basis, self._vec(items))
                        self.last = (" + ".join(self.names[i] for i in items) + f" weighs {total} g.")
        if self.turn >= self.max_turns:
            self.done = True
            self.last += " No turns left."
            return self._render(), 0.0, True, False, {}
        self._next = self._compute_next()
        return self._render(), 0.0, False, False, {}

    def solution(self):
        return self._next

    def hint(self):
        a, b = self.pair
        return (f"The mixture contains {self.names[a]} and {self.names[b]} in equal amounts, so you never need "
                f"their separate weights: use only baskets that hold both of them or neither. Such baskets span "
                f"every mixture with equal {self.names[a]} and {self.names[b]} counts, and {self.limit} independent "
                f"ones are enough. Then write the mixture as a combination of your baskets (coefficients may be "
                f"fractions or negative) and add up the readings with the same coefficients.")

    def close(self):
        pass
