"""String Rule Probe: a hidden rule over strings of a, b and c (a pattern, a count, a shape, or a combination of two) accepts some strings and rejects others; test strings of your choice within a budget, then classify a batch of held-out strings in one shot as a bit string."""
import itertools
import random
import re

import numpy as np

ALPHA = "abc"


def _atoms():
    atoms = []
    for n in (2, 3):
        for t in itertools.product(ALPHA, repeat=n):
            atoms.append(("contains", "".join(t)))
    for x in ALPHA:
        atoms += [("starts", x), ("ends", x), ("even", x), ("odd", x), ("atleast2", x), ("lacks", x)]
    for x in ALPHA:
        for y in ALPHA:
            if x != y:
                atoms.append(("more", x + y))
    atoms += [("lenmult", "2"), ("lenmult", "3"), ("oddlen", ""), ("noequalnb", ""), ("palindrome", ""),
              ("sameends", ""), ("sorted", "")]
    return atoms


ATOMS = _atoms()
#: Truth rows of the atoms for strings seen before in this process (the short probe strings repeat in
#: every episode): evaluating the atoms is the expensive part of planning tests.
_ROWS = {}


def _row(s):
    """Truth values of every atom on s, in ATOMS order."""
    row = _ROWS.get(s)
    if row is None:
        row = [_eval_atom(a, s) for a in ATOMS]
        if len(_ROWS) < 50000:
            _ROWS[s] = row
    return row


def _eval_atom(atom, s):
    kind, p = atom
    if kind == "contains":
        return p in s
    if kind == "starts":
        return s[:1] == p
    if kind == "ends":
        return s[-1:] == p
    if kind == "even":
        return s.count(p) % 2 == 0
    if kind == "odd":
        return s.count(p) % 2 == 1
    if kind == "atleast2":
        return s.count(p) >= 2
    if kind == "lacks":
        return p not in s
    if kind == "more":
        return s.count(p[0]) > s.count(p[1])
    if kind == "lenmult":
        return len(s) % int(p) == 0
    if kind == "oddlen":
        return len(s) % 2 == 1
    if kind == "noequalnb":
        return all(s[i] != s[i + 1] for i in range(len(s) - 1))
    if kind == "palindrome":
        return s == s[::-1]
    if kind == "sameends":
        return len(s) > 0 and s[0] == s[-1]
    return list(s) == sorted(s)


def _atom_text(atom):
    kind, p = atom
    return {
        "contains": f"contains the substring '{p}'",
        "starts": f"starts with '{p}'",
        "ends": f"ends with '{p}'",
        "even": f"has an even number of '{p}'",
        "odd": f"has an odd number of '{p}'",
        "atleast2": f"has at least two '{p}'",
        "lacks": f"has no '{p}' at all",
        "more": f"has more '{p[:1]}' than '{p[1:]}'",
        "lenmult": f"has a length divisible by {p}",
        "oddlen": "has an odd length",
        "noequalnb": "never has two equal letters side by side",
        "palindrome": "reads the same backwards",
        "sameends": "starts and ends with the same letter",
        "sorted": "has its letters in alphabetical order",
    }[kind]


CATEGORY = {
    "contains": "a substring", "starts": "the first letter", "ends": "the last letter", "even": "the parity of a letter count",
    "odd": "the parity of a letter count", "atleast2": "a letter count", "lacks": "a missing letter",
    "more": "comparing two letter counts", "lenmult": "the length", "oddlen": "the length",
    "noequalnb": "neighbouring letters", "palindrome": "symmetry", "sameends": "the two end letters",
    "sorted": "letter order",
}


class StringRuleProbeEnv:
    # difficulty -> (rule shapes, tests allowed, batch size, initial examples)
    LEVELS = {
        "easy": (("atom",), 5, 8, 4),
        "medium": (("atom", "not"), 6, 10, 4),
        "hard": (("atom", "and", "or"), 9, 10, 6),
    }

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.shapes, self.test_budget, self.batch_size, self.n_examples = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.rule = ("atom", 0, 0)
        self.examples = []
        self.batch = []
        self.tested = []
        self.tests_left = 0
        self.turn = 0
        self.done = False
        self.last = ""
        self._labels = ""
        self._space = None
        self._pool = []
        self._applied = 0
        self._table = None

    # ------------------------------------------------------------------ rules
    def _hyp_eval(self, h, vec):
        shape, i, j = h
        if shape == "atom":
            return vec[i]
        if shape == "not":
            return not vec[i]
        if shape == "and":
            return vec[i] and vec[j]
        return vec[i] or vec[j]

    def _accepts(self, s):
        vec = {}
        shape, i, j = self.rule
        vec[i] = _eval_atom(ATOMS[i], s)
        if shape in ("and", "or"):
            vec[j] = _eval_atom(ATOMS[j], s)
        return self._hyp_eval(self.rule, vec)

    def _rule_text(self):
        shape, i, j = self.rule
        if shape == "atom":
            return _atom_text(ATOMS[i])
        if shape == "not":
            return "NOT (" + _atom_text(ATOMS[i]) + ")"
        return f"({_atom_text(ATOMS[i])}) {shape.upper()} ({_atom_text(ATOMS[j])})"

    def _rand_string(self, lo=2, hi=9):
        return "".join(self.rng.choice(ALPHA) for _ in range(self.rng.randint(lo, hi)))

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        # Keep only tasks a careful learner can settle: the tests it would choose must leave every rule
        # still consistent with the evidence agreeing on the whole batch before it has to classify.
        for _ in range(40):
            self._generate()
            if self._resolves():
                break
        self.turn = 0
        self.done = False
        self.last = "No strings tested yet."
        return self._render(), {}

    def _generate(self):
        n = len(ATOMS)
        probe = [self._rand_string() for _ in range(60)]
        for _ in range(200):
            shape = self.rng.choice(self.shapes)
            i = self.rng.randrange(n)
            j = self.rng.randrange(n)
            if shape in ("and", "or") and (j == i or ATOMS[i][0] == ATOMS[j][0]):
                continue
            self.rule = (shape, i, j if shape in ("and", "or") else 0)
            rate = sum(1 for s in probe if self._accepts(s)) / len(probe)
            if 0.25 <= rate <= 0.75:
                break
        seen = set()
        acc, rej = [], []
        while len(acc) < 30 or len(rej) < 30:
            s = self._rand_string()
            if s in seen:
                continue
            seen.add(s)
            (acc if self._accepts(s) else rej).append(s)
            if len(seen) > 4000:
                break
        half = self.n_examples // 2
        self.examples = [(s, True) for s in acc[:half]] + [(s, False) for s in rej[:half]]
        self.rng.shuffle(self.examples)
        k = self.rng.randint(self.batch_size // 2 - 2, self.batch_size // 2 + 2)
        k = max(2, min(self.batch_size - 2, k))
        self.batch = acc[half:half + k] + rej[half:half + self.batch_size - k]
        self.rng.shuffle(self.batch)
        self._labels = "".join("1" if self._accepts(s) else "0" for s in self.batch)
        self.tested = []
        self.tests_left = self.test_budget
        self._space = None
        self._pool = []
        self._applied = 0
        self._table = None

    def _resolves(self):
        """Play the learner's tests against the hidden rule; True when the evidence then fixes the batch."""
        settled = False
        for _ in range(self.test_budget + 1):
            if self._labelings_left() <= 1:
                settled = True
                break
            if len(self.tested) >= self.test_budget:
                break
            x = self._best_test()
            self.tested.append((x, self._accepts(x)))
        self.tested = []
        self._space = np.ones(len(self._hk), dtype=bool)
        self._applied = 0
        return settled

    def _labelings_left(self):
        alive = self._version_space()  # builds the table on first use
        live = self._table[alive]
        return len(np.unique(live[:, :len(self.batch)], axis=0)) if len(live) else 0

    # ------------------------------------------------------------------ play
    def _render(self):
        lines = [
            f"STRING RULE PROBE | Turn {self.turn}/{self.max_turns} | Tests left: {self.tests_left} | "
            f"Batch: {len(self.batch)} strings",
            "A hidden rule accepts or rejects strings over the letters a, b, c. It is built from conditions like: "
            "contains a given 2- or 3-letter substring; starts / ends with a given letter; has an even / odd number "
            "of a letter; has at least two of a letter; has none of a letter; has more of one letter than another; "
            "length divisible by 2 or 3; odd length; never two equal letters side by side; reads the same "
            "backwards; starts and ends with the same letter; letters in alphabetical order.",
            "Rule shape: " + {"easy": "exactly one such condition.",
                              "medium": "one such condition, or its negation (NOT).",
                              "hard": "one such condition, or two of them joined by AND or by OR."}[self.difficulty],
            "Known examples: " + ", ".join(f"{s} {'ACCEPT' if ok else 'reject'}" for s, ok in self.examples),
        ]
        if self.tested:
            lines.append("Your tests: " + ", ".join(f"{s} {'ACCEPT' if ok else 'reject'}" for s, ok in self.tested))
        lines.append("Batch to classify: " + " ".join(f"{i + 1}:{s}" for i, s in enumerate(self.batch)))
        lines.append(f"Last result: {self.last}")
        lines.append(
            f"Commands (one per turn): \\boxed{{test STRING}} asks whether the rule accepts STRING (letters a-c, "
            f"1 to 12 long, not a batch string; uses one test); \\boxed{{classify BITS}} submits {len(self.batch)} "
            f"digits, 1 = accept and 0 = reject, in batch order - one shot, the game ends."
        )
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        if m is None:
            self.last = "No command found (turn used). Send \\boxed{test STRING} or \\boxed{classify BITS}."
            return self._finish(out)
        body = m.group(1).strip().lower()
        tm = re.fullmatch(r"test\s*[:=]?\s*'?([a-z]*)'?", body)
        cm = re.fullmatch(r"classify\s*[:=]?\s*([01\s,]*)", body)
        if cm is not None:
            bits = re.sub(r"[\s,]", "", cm.group(1))
            if len(bits) != len(self.batch):
                self.last = f"classify needs exactly {len(self.batch)} digits (0/1); you sent {len(bits)} (turn used)."
                return self._finish(out)
            self.done = True
            wrong = sum(1 for a, b in zip(bits, self._labels) if a != b)
            if wrong == 0:
                self.last = "All strings classified correctly. You found the rule!"
                return self._render(), 1.0, True, False, {}
            self.last = f"{wrong} of {len(self.batch)} strings misclassified. Game over. The rule was: {self._rule_text()}."
            return self._render(), 0.0, True, False, {}
        if tm is not None:
            s = tm.group(1)
            if not s or len(s) > 12 or any(ch not in ALPHA for ch in s):
                self.last = "Test strings use only the letters a, b, c and are 1 to 12 letters long (turn used)."
            elif s in self.batch:
                self.last = f"'{s}' is in the batch; you cannot test batch strings (turn used)."
            elif self.tests_left <= 0:
                self.last = "No tests left: submit \\boxed{classify BITS}."
            else:
                known = [ok for t, ok in self.examples + self.tested if t == s]
                if known:
                    self.last = f"'{s}' is already known ({'ACCEPT' if known[0] else 'reject'}); no test used, turn gone."
                else:
                    ok = self._accepts(s)
                    self.tests_left -= 1
                    self.tested.append((s, ok))
                    self.last = f"'{s}' is {'ACCEPTED' if ok else 'rejected'}."
            return self._finish(out)
        self.last = "Unknown command (turn used). Use test STRING or classify BITS."
        return self._finish(out)

    def _finish(self, out):
        if out:
            self.done = True
            self.last += " Out of turns."
        return self._render(), 0.0, out, False, {}

    # ------------------------------------------------------------------ privileged
    def _hypotheses(self):
        n = len(ATOMS)
        hyps = []
        for shape in self.shapes:
            if shape in ("atom", "not"):
                hyps += [(shape, i, 0) for i in range(n)]
            else:
                hyps += [(shape, i, j) for i in range(n) for j in range(i + 1, n) if ATOMS[i][0] != ATOMS[j][0]]
        return hyps

    def _vec(self, s):
        return _row(s)

    def _values(self, atom_rows):
        """Truth values of every hypothesis given atom truth rows (shape: atoms x strings)."""
        a_i = atom_rows[self._hi]
        a_j = atom_rows[self._hj]
        kind = self._hk[:, None]
        return np.where(kind == 0, a_i, np.where(kind == 1, ~a_i, np.where(kind == 2, a_i & a_j, a_i | a_j)))

    def _version_space(self):
        """Boolean mask of the rules (of the announced class) that agree with every labelled string so far."""
        labelled = self.examples + self.tested
        if self._space is None:
            # candidate tests: every string up to 4 letters, plus near-misses of the batch strings
            pool = set()
            for n in (1, 2, 3, 4):
                for t in itertools.product(ALPHA, repeat=n):
                    pool.add("".join(t))
            for x in self.batch:
                pool.add(x[1:])
                pool.add(x[:-1])
                for i in range(len(x)):
                    for ch in ALPHA:
                        pool.add(x[:i] + ch + x[i + 1:])
            self._pool = sorted(x for x in pool if x and x not in self.batch)
            hyps = self._hypotheses()
            codes = {"atom": 0, "not": 1, "and": 2, "or": 3}
            self._hk = np.array([codes[h[0]] for h in hyps], dtype=np.int8)
            self._hi = np.array([h[1] for h in hyps], dtype=np.int32)
            self._hj = np.array([h[2] for h in hyps], dtype=np.int32)
            cols = self.batch + self._pool
            atoms = np.array([_row(x) for x in cols], dtype=bool).T
            self._table = self._values(atoms)
            self._space = np.ones(len(hyps), dtype=bool)
            self._applied = 0
        while self._applied < len(labelled):
            x, ok = labelled[self._applied]
            vals = self._values(np.array(self._vec(x), dtype=bool)[:, None])[:, 0]
            self._space = self._space & (vals == ok)
            self._applied += 1
        return self._space

    def _best_test(self):
        """The untested string whose worse answer leaves the fewest live rules outside the most common
        batch labeling (None when the live rules already agree on the batch)."""
        alive = self._version_space()
        nb = len(self.batch)
        live = self._table[alive]
        if not len(live):
            return None
        labelings, group = np.unique(live[:, :nb], axis=0, return_inverse=True)
        group = np.asarray(group).reshape(-1)
        if len(labelings) <= 1:
            return None
        onehot = np.zeros((len(live), len(labelings)), dtype=np.int64)
        onehot[np.arange(len(live)), group] = 1
        yes = live[:, nb:].T.astype(np.int64) @ onehot     # per candidate test, per labeling
        no = np.sum(onehot, axis=0)[None, :] - yes
        amb_yes = np.sum(yes, axis=1) - np.max(yes, axis=1)
        amb_no = np.sum(no, axis=1) - np.max(no, axis=1)
        score = np.maximum(amb_yes, amb_no) * 100000 + amb_yes + amb_no
        known = set(t for t, _ in self.examples + self.tested)
        for pos, x in enumerate(self._pool):
            if x in known:
                score[pos] = np.iinfo(np.int64).max
        return self._pool[int(np.argmin(score))]

    def solution(self):
        """Play like a careful learner who does not know the rule: while the rules still possible disagree
        on the batch, test the string whose worse answer leaves the fewest of them outside the most common
        batch labeling; classify only once the evidence fixes every batch label (every task is generated so
        that these tests get there within the budget)."""
        if self.tests_left > 0 and self.turn < self.max_turns - 1:
            best = self._best_test()
            if best is not None:
                return f"test {best}"
        return f"classify {self._labels}"

    def hint(self):
        shape, i, j = self.rule
        first = CATEGORY[ATOMS[i][0]]
        if shape == "atom":
            return (f"The rule is a single condition about {first}. Compare the accepted examples with the rejected "
                    "ones on exactly that feature and spend tests on strings that differ from a known one in that "
                    "feature only.")
        if shape == "not":
            return (f"The rule is a NEGATED condition about {first}: look for what all the REJECTED strings share, "
                    "then accept everything without it.")
        second = CATEGORY[ATOMS[j][0]]
        return (f"The rule joins two conditions with {shape.upper()}: one about {first}, one about {second}. "
                + ("Every accepted string must satisfy both; find a rejected string that satisfies one but not the other."
                   if shape == "and" else
                   "A string needs only one of them; find accepted strings that satisfy each one alone."))
