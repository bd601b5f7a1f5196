"""Tender shortlist: bids are scored on several criteria and the buyer's value of a bid is the weighted sum
of its scores, but the weights (whole numbers 1-5) are announced one criterion per turn. After each
announcement, name every bid that can no longer win: some other bid beats it whatever the unannounced weights
turn out to be. When all weights are known, name the winning bid."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
CRITERIA = ["price", "quality", "delivery", "support", "warranty", "safety", "service"]
VENDORS = ["Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum", "Hazel", "Juniper", "Larch", "Maple"]
WMIN, WMAX = 1, 5
# difficulty -> (bids, criteria)
LEVELS = {"easy": (5, 3), "medium": (6, 4), "hard": (7, 5)}


class TenderShortlistEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, self.m = LEVELS[self.difficulty]
        self.max_turns = self.m
        self.rng = random.Random()
        self.bids, self.crit, self.scores, self.weights = [], [], [], []
        self.stages = []
        self.winner = ""
        self.stage = 0
        self.done = False

    def _out(self, known):
        """Bids beaten for every completion: the worst case for challenger j over bid i puts the lowest weight
        where j is ahead and the highest where j is behind."""
        out = set()
        w = self.weights
        for i in range(self.n):
            si = self.scores[i]
            for j in range(self.n):
                if i == j:
                    continue
                sj = self.scores[j]
                margin = sum(w[c] * (sj[c] - si[c]) for c in range(known))
                margin += sum(WMIN * (sj[c] - si[c]) if sj[c] >= si[c] else WMAX * (sj[c] - si[c])
                              for c in range(known, self.m))
                if margin > 0:
                    out.add(self.bids[i])
                    break
        return out

    def _row(self, rng, total):
        row = [1] * self.m
        while sum(row) < total:
            c = rng.randrange(self.m)
            if row[c] < 9:
                row[c] += 1
        return row

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, m = self.n, self.m
        for _ in range(2000):
            self.bids = sorted(rng.sample(VENDORS, n))
            self.crit = rng.sample(CRITERIA, m)
            # bids with near-equal score totals rarely dominate one another before any weight is known
            self.scores = [self._row(rng, 5 * m + rng.randint(-2, 2)) for _ in range(n)]
            self.weights = [rng.randint(WMIN, WMAX) for _ in range(m)]
            # cheap rejections first: nobody may be out before any weight is known, and every announcement
            # must knock out someone new while the last one still leaves a real choice
            if self._out(0):
                continue
            stages = []
            for t in range(1, m + 1):
                stages.append(self._out(t))
                if not stages[-1] or (t > 1 and not stages[-2] < stages[-1]):
                    break
            if len(stages) < m or len(stages[m - 2]) > n - 2:
                continue
            values = sorted((sum(w * s for w, s in zip(self.weights, row)), b)
                            for row, b in zip(self.scores, self.bids))
            if values[-1][0] > values[-2][0]:
                self.stages = stages
                self.winner = values[-1][1]
                break
        self.stage = 0
        self.done = False
        head = "bid      " + " ".join(f"{c:>9}" for c in self.crit)
        rows = "\n".join(f"{b:<9}" + " ".join(f"{s:>9}" for s in row) for b, row in zip(self.bids, self.scores))
        intro = ("TENDER SHORTLIST\n"
                 f"{n} bids, scored 1-9 on {m} criteria (higher is better):\n{head}\n{rows}\n"
                 "A bid's value = sum over criteria of weight x score. Every weight is a whole number from "
                 f"{WMIN} to {WMAX}; one weight is announced per turn, in the column order above.\n"
                 "A bid is OUT once some other single bid has a strictly higher value for EVERY possible choice of "
                 "the weights not yet announced. Each turn name all bids that are out so far, e.g. "
                 "\\boxed{Alder, Elm} (or \\boxed{none}); once every weight is known, name the winning bid alone. "
                 "A wrong answer ends the tender.\n")
        return intro + self._announce(), {}

    def _announce(self):
        t = self.stage
        said = "; ".join(f"{self.crit[c]} weight {self.weights[c]}" for c in range(t + 1))
        if t == self.m - 1:
            return f"Announced: {said}. All weights are known: which bid wins?"
        return f"Announced so far: {said}. Which bids are out now?"

    def _parse(self, action):
        found = BOX_RE.findall(str(action)[:5000])
        if len(found) != 1:
            return None
        body = found[0].strip()
        if body.lower() == "none":
            return set()
        parts = [p.strip().lower() for p in body.split(",")]
        names = {b.lower(): b for b in self.bids}
        if not all(p in names for p in parts) or len(set(parts)) != len(parts):
            return None
        return {names[p] for p in parts}

    def step(self, action):
        if self.done:
            return "The tender is over.", 0.0, True, False, {}
        got = self._parse(action)
        last = self.stage == self.m - 1
        want = {self.winner} if last else self.stages[self.stage]
        self.done = True
        if got != want:
            return "Wrong: that is not the right answer now. The tender is cancelled; you lose.", 0.0, True, False, {}
        if last:
            return f"Correct: {self.winner} wins the tender. You win!", 1.0, True, False, {}
        self.done = False
        self.stage += 1
        return "Correct. " + self._announce(), 0.0, False, False, {}

    def solution(self):
        if self.stage == self.m - 1:
            return self.winner
        out = [b for b in self.bids if b in self.stages[self.stage]]
        return ", ".join(out) if out else "none"

    def hint(self):
        return ("Test bids in pairs: for challenger J against bid I, add the announced weights times their score "
                f"differences, then give every unannounced criterion the worst case for J: weight {WMIN} where J "
                f"scores higher, weight {WMAX} where J scores lower. If that total is still above zero, I is out. "
                "A bid once out stays out, so each turn only the bids still in need re-testing, and any bid still in "
                "can serve as challenger, also one that is itself out.")
