"""Logic-grid puzzle: a row of houses whose residents differ in name and three or four other attributes;
from generated clues with exactly one solution, work out one attribute for every house."""

import random
import re

POOLS = {
    "name": ["Alma", "Boris", "Cora", "Dmitri", "Elif", "Farid", "Greta", "Hugo"],
    "colour": ["red", "green", "blue", "yellow", "white", "orange", "purple"],
    "pet": ["cat", "dog", "parrot", "goldfish", "rabbit", "tortoise", "hamster"],
    "drink": ["tea", "coffee", "milk", "juice", "water", "cocoa", "lemonade"],
    "job": ["baker", "doctor", "pilot", "painter", "farmer", "sailor", "tailor"],
}
PLURAL = {"name": "names", "colour": "house colours", "pet": "pets", "drink": "drinks", "job": "jobs"}
# difficulty -> (houses, attribute categories besides the name)
LEVELS = {"easy": (4, 2), "medium": (5, 3), "hard": (6, 3)}
# clue kind -> weight when drawing random clues
KINDS = [("same", 30), ("notsame", 8), ("adj", 12), ("next", 14), ("leftof", 10), ("gap", 6), ("pos", 5),
         ("notpos", 5), ("end", 4)]
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


def subject(cat, val):
    if cat == "name":
        return val
    if cat == "colour":
        return "the person in the " + val + " house"
    if cat == "pet":
        return "the person who keeps the " + val
    if cat == "drink":
        return "the person who drinks " + val
    return "the " + val


def predicate(cat, val, negate):
    if cat == "name":
        return ("is not " if negate else "is ") + val
    if cat == "colour":
        return ("does not live" if negate else "lives") + " in the " + val + " house"
    if cat == "pet":
        return ("does not keep" if negate else "keeps") + " the " + val
    if cat == "drink":
        return ("does not drink " if negate else "drinks ") + val
    return ("is not" if negate else "is") + " the " + val


def popcount(x):
    return bin(x).count("1")


def low_bit_index(x):
    return (x & -x).bit_length() - 1


class GridSolver:
    """Exhaustive search with bitmask domains: variable c*n+v holds the houses value v of category c may be in."""

    def __init__(self, n, ncat, clues):
        self.n = n
        self.ncat = ncat
        self.full = (1 << n) - 1
        self.clues = clues
        self.binary = [c for c in clues if c[0] not in ("pos", "notpos", "end")]

    def initial(self):
        n, full = self.n, self.full
        dom = [full] * (n * self.ncat)
        for kind, a, b, p in self.clues:
            if kind == "pos":
                dom[a] &= 1 << p
            elif kind == "notpos":
                dom[a] &= full ^ (1 << p)
            elif kind == "end":
                dom[a] &= 1 | (1 << (n - 1))
        return dom

    def propagate(self, dom):
        n, full, ncat = self.n, self.full, self.ncat
        binary = self.binary
        changed = True
        while changed:
            changed = False
            for kind, a, b, p in binary:
                da, db = dom[a], dom[b]
                if kind == "same":
                    na = nb = da & db
                elif kind == "notsame":
                    na, nb = da, db
                    if da & (da - 1) == 0:
                        nb = db & ~da
                    if db & (db - 1) == 0:
                        na = da & ~db
                elif kind == "adj":
                    nb = db & (da << 1)
                    na = da & (nb >> 1)
                elif kind == "next":
                    nb = db & ((da << 1) | (da >> 1)) & full
                    na = da & ((nb << 1) | (nb >> 1))
                elif kind == "gap":
                    nb = db & ((da << 2) | (da >> 2)) & full
                    na = da & ((nb << 2) | (nb >> 2))
                else:  # leftof: a strictly left of b
                    if da == 0 or db == 0:
                        return False
                    nb = db & ~((da & -da) * 2 - 1)
                    if nb == 0:
                        return False
                    na = da & ((1 << (nb.bit_length() - 1)) - 1)
                if na == 0 or nb == 0:
                    return False
                if na != da or nb != db:
                    dom[a], dom[b] = na, nb
                    changed = True
            for base in range(0, ncat * n, n):
                end = base + n
                once = twice = fixed = 0
                for i in range(base, end):
                    d = dom[i]
                    twice |= once & d
                    once |= d
                    if d & (d - 1) == 0:
                        if d & fixed:
                            return False
                        fixed |= d
                if once != full:
                    return False
                hidden = once & ~twice
                for i in range(base, end):
                    d = dom[i]
                    if d & (d - 1) == 0:
                        continue
                    nd = d & ~fixed
                    if nd & hidden:
                        nd &= hidden
                    if nd != d:
                        if nd == 0:
                            return False
                        dom[i] = nd
                        changed = True
        return True

    def count(self, limit=2):
        return self.search(self.initial(), limit)

    def search(self, dom, limit):
        if not self.propagate(dom):
            return 0
        best, best_size = -1, 99
        for i, d in enumerate(dom):
            k = popcount(d)
            if 1 < k < best_size:
                best, best_size = i, k
        if best < 0:
            return 1
        total = 0
        d = dom[best]
        while d and total < limit:
            bit = d & -d
            d ^= bit
            child = list(dom)
            child[best] = bit
            total += self.search(child, limit - total)
        return total


class HouseRowLogicGridEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, extra = LEVELS[self.difficulty]
        self.cats = ["name"] + list(POOLS)[1:1 + extra]
        self.values = {c: POOLS[c][:self.n] for c in self.cats}
        self.pos = [list(range(self.n)) for _ in self.cats]
        self.clues = []
        self.asked = 1
        self.hint_seed = 0
        self.turn = 0
        self.done = False
        self.rng = random.Random()

    # ------------------------------------------------------------------ generation
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, extra = LEVELS[self.difficulty]
        self.n = n
        self.cats = ["name"] + sorted(rng.sample(list(POOLS)[1:], extra), key=list(POOLS).index)
        self.values = {c: sorted(rng.sample(POOLS[c], n), key=POOLS[c].index) for c in self.cats}
        while True:
            self.pos = []
            for _ in self.cats:
                perm = list(range(n))
                rng.shuffle(perm)
                self.pos.append(perm)  # pos[c][v] = house index of value v of category c
            if self.build_clues():
                break
        self.asked = rng.randrange(1, len(self.cats))
        self.hint_seed = rng.randrange(10 ** 9)
        self.turn = 0
        self.done = False
        return self.render(""), {}

    def random_clue(self):
        rng, n, ncat = self.rng, self.n, len(self.cats)
        kind = rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
        if kind in ("pos", "notpos", "end"):
            c, v = rng.randrange(ncat), rng.randrange(n)
            p = self.pos[c][v]
            a = c * n + v
            if kind == "pos":
                return ("pos", a, -1, p)
            if kind == "notpos":
                return ("notpos", a, -1, rng.choice([q for q in range(n) if q != p]))
            return ("end", a, -1, 0) if p in (0, n - 1) else None
        c1, c2 = rng.randrange(ncat), rng.randrange(ncat)
        if kind in ("same", "notsame") and c1 == c2:
            return None
        v1 = rng.randrange(n)
        p1 = self.pos[c1][v1]
        if kind == "same":
            v2 = self.pos[c2].index(p1)
        else:
            v2 = rng.randrange(n)
        p2 = self.pos[c2][v2]
        a, b = c1 * n + v1, c2 * n + v2
        if a == b:
            return None
        if kind == "notsame":
            return ("notsame", a, b, 0) if p1 != p2 else None
        if kind == "same":
            return ("same", a, b, 0)
        if kind == "adj":
            if p2 == p1 + 1:
                return ("adj", a, b, 0)
            if p1 == p2 + 1:
                return ("adj", b, a, 0)
            return None
        if kind == "next":
            return ("next", a, b, 0) if abs(p1 - p2) == 1 else None
        if kind == "gap":
            return ("gap", a, b, 0) if abs(p1 - p2) == 2 else None
        if p1 < p2:
            return ("leftof", a, b, 0) if p2 - p1 >= 2 else None
        if p2 < p1:
            return ("leftof", b, a, 0) if p1 - p2 >= 2 else None
        return None

    def unique(self, clues):
        return GridSolver(self.n, len(self.cats), clues).count(2) == 1

    def build_clues(self):
        n, ncat = self.n, len(self.cats)
        clues = []
        seen = set()
        dom = GridSolver(n, ncat, clues).initial()
        for _ in range(400):
            clue = self.random_clue()
            if clue is None or clue in seen:
                continue
            seen.add(clue)
            solver = GridSolver(n, ncat, clues + [clue])
            trial = solver.initial()
            solver.propagate(trial)
            if trial == dom and self.rng.random() < 0.7:
                continue  # tells plain elimination nothing new: usually skip it
            clues.append(clue)
            dom = trial
            if all(d & (d - 1) == 0 for d in dom):
                break
            if len(clues) >= n + 2 and len(clues) % 3 == 0 and self.unique(clues):
                break
        else:
            return False
        if not self.unique(clues):
            return False
        order = list(range(len(clues)))
        self.rng.shuffle(order)
        keep = list(clues)
        for i in order:
            trial = [c for c in keep if c is not clues[i]]
            if self.unique(trial):
                keep = trial
        self.rng.shuffle(keep)
        self.clues = keep
        return True

    # ------------------------------------------------------------------ text
    def item(self, var):
        c, v = divmod(var, self.n)
        return self.cats[c], self.values[self.cats[c]][v]

    def sentence(self, clue):
        kind, a, b, p = clue
        ca, va = self.item(a)
        sa = subject(ca, va)
        if kind == "pos":
            text = sa + " lives in house " + str(p + 1)
        elif kind == "notpos":
            text = sa + " does not live in house " + str(p + 1)
        elif kind == "end":
            text = sa + " lives in one of the two end houses"
        else:
            cb, vb = self.item(b)
            sb = subject(cb, vb)
            if kind == "same":
                text = sa + " " + predicate(cb, vb, False)
            elif kind == "notsame":
                text = sa + " " + predicate(cb, vb, True)
            elif kind == "adj":
                text = sa + " lives directly to the left of " + sb
            elif kind == "next":
                text = sa + " lives next door to " + sb
            elif kind == "gap":
                text = "exactly one house separates " + sa + " and " + sb
            else:
                text = sa + " lives somewhere to the left of " + sb
        return text[0].upper() + text[1:] + "."

    def render(self, feedback):
        n = self.n
        asked = self.cats[self.asked]
        lines = [
            f"Attempt {self.turn}/{self.max_turns}",
            f"{n} houses stand in a row, numbered 1 to {n} from left to right. In each house lives one person. "
            "Each of the following attributes takes every listed value exactly once (one per house):",
        ]
        for c in self.cats:
            lines.append(f"  {c}: " + ", ".join(self.values[c]))
        lines.append("'Directly to the left' means in the house with the next lower number; 'next door' means in "
                     "an adjacent house; 'somewhere to the left' means in any lower-numbered house.")
        lines.append("Clues (together they allow exactly one arrangement):")
        for i, clue in enumerate(self.clues):
            lines.append(f"  {i + 1}. " + self.sentence(clue))
        lines.append("")
        lines.append(f"Question: what are the {PLURAL[asked]} of houses 1 to {n}, in house order?")
        lines.append(f"Answer with the {n} {asked} values separated by commas, e.g. \\boxed{{{asked} of house 1, "
                     f"{asked} of house 2, ...}}. You have {self.max_turns} attempts.")
        if feedback:
            lines.append("")
            lines.append(feedback)
        return "\n".join(lines)

    # ------------------------------------------------------------------ play
    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        match = BOX_RE.search(text[:20000])
        n = self.n
        asked = self.cats[self.asked]
        vals = [v.lower() for v in self.values[asked]]
        if match is None:
            feedback = f"Format error: give the {n} {asked} values inside \\boxed{{...}}, separated by commas."
            return self.finish(feedback, 0.0, False)
        tokens = [t for t in re.split(r"[,;/\s]+", match.group(1).lower()) if t and t != "and"]
        tokens = [t for t in tokens if t not in ("the", "house", "houses") and not re.fullmatch(r"\d+[:.)=-]?", t)]
        tokens = [t.strip(":.)=-") for t in tokens]
        unknown = [t for t in tokens if t not in vals]
        if unknown:
            feedback = (f"'{unknown[0][:30]}' is not a {asked} in this puzzle; the {PLURAL[asked]} are: "
                        + ", ".join(self.values[asked]) + ".")
            return self.finish(feedback, 0.0, False)
        if len(tokens) != n:
            return self.finish(f"You listed {len(tokens)} values; list exactly {n}, one per house.", 0.0, False)
        if len(set(tokens)) != n:
            return self.finish(f"Each {asked} occurs in exactly one house; your answer repeats a value.", 0.0, False)
        truth = self.answer_list()
        right = sum(1 for t, s in zip(tokens, truth) if t == s.lower())
        if right == n:
            return self.finish("Correct! Every house is right. You win.", 1.0, True)
        return self.finish(f"Not quite: {right} of the {n} houses are right. Re-check the clues.", 0.0, False)

    def finish(self, feedback, reward, terminated):
        out_of_turns = (not terminated) and self.turn >= self.max_turns
        if out_of_turns:
            feedback += " No attempts left; the game is over."
        if terminated or out_of_turns:
            self.done = True
        return self.render(feedback), reward, terminated or out_of_turns, False, {}  # out of attempts is a loss, not a cut-off

    def answer_list(self):
        asked = self.asked
        order = [""] * self.n
        for v, p in enumerate(self.pos[asked]):
            order[p] = self.values[self.cats[asked]][v]
        return order

    def solution(self):
        return ", ".join(self.answer_list())

    def hint(self):
        n = self.n
        stated = {(a, p) for kind, a, b, p in self.clues if kind == "pos"}
        solver = GridSolver(n, len(self.cats), self.clues)
        dom = solver.initial()
        solver.propagate(dom)
        facts = []
        for c in range(len(self.cats)):
            if c == self.asked:
                continue
            for v in range(n):
                var = c * n + v
                p = self.pos[c][v]
                if (var, p) not in stated:
                    facts.append((0 if popcount(dom[var]) == 1 else 1, var, p))
        random.Random(self.hint_seed).shuffle(facts)
        facts.sort(key=lambda f: -f[0])  # facts that plain elimination does not reach first: they are the crux
        chosen = []
        for fact in facts:
            if len(chosen) < 2 and all(fact[2] != other[2] for other in chosen):
                chosen.append(fact)
        parts = []
        for _, var, p in chosen:
            cat, val = self.item(var)
            parts.append(subject(cat, val) + " lives in house " + str(p + 1))
        return ("Work with a grid of houses x values and cross off possibilities clue by clue; position clues "
                "('directly left', 'next door', 'somewhere left') cut down where a value can go, and 'same person' "
                "clues let you carry those restrictions between categories. Two facts worth establishing, as "
                "they unlock the rest: " + "; ".join(parts) + ".")
