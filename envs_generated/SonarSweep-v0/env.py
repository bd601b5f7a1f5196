"""Sonar sweep: a wreck lies on one square of a chart; each sonar ping from a square you choose reports the
wreck's distance in moves (up/down/left/right steps, so |dx| + |dy|). Reefs block nothing but no ping can be
sent from a reef. Choose pings that pin the wreck down, then send the divers to the right square in one go."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
COLS = "ABCDEFGHIJKL"
# difficulty -> (size, reefs, pings allowed beyond what a careful planner needs)
LEVELS = {"easy": (6, 4, 1), "medium": (8, 8, 0), "hard": (10, 14, 0)}


class SonarSweepEnv:
    def __init__(self, max_turns=8, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, self.n_reefs, self.slack = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, 8)
        self.rng = random.Random()
        self.reefs = set()
        self.wreck = (0, 0)
        self.pings = []  # (cell, distance)
        self.budget = 0
        self.turn = 0
        self.done = False
        self.last = ""

    @staticmethod
    def _dist(a, b):
        return abs(a[0] - b[0]) + abs(a[1] - b[1])

    def _cells(self):
        return [(r, c) for r in range(self.n) for c in range(self.n)]

    def _candidates(self, pings):
        return [x for x in self._cells() if all(self._dist(p, x) == d for p, d in pings)]

    def _best_ping(self, cands, pings):
        best, score = None, None
        used = set(p for p, _ in pings)
        # the planner pings from the chart's edge (any square is allowed to the player): cheaper to search,
        # and edge pings already separate well
        edge = [p for p in self._cells() if p[0] in (0, self.n - 1) or p[1] in (0, self.n - 1)]
        if all(p in self.reefs or p in used for p in edge):
            edge = self._cells()
        for p in edge:
            if p in self.reefs or p in used:
                continue
            groups = {}
            for x in cands:
                k = self._dist(p, x)
                groups[k] = groups.get(k, 0) + 1
            s = (max(groups.values()), -len(groups))
            if score is None or s < score:
                best, score = p, s
        return best

    def _plan(self, wreck):
        pings = []
        cands = self._cells()
        while len(cands) > 1 and len(pings) < 6:
            p = self._best_ping(cands, pings)
            pings.append((p, self._dist(p, wreck)))
            cands = self._candidates(pings)
        return len(pings)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(50):
            self.reefs = set(self.rng.sample(self._cells(), self.n_reefs))
            self.wreck = self.rng.choice(self._cells())
            need = self._plan(self.wreck)
            if need <= self.max_turns - 2:
                break
        self.budget = need + self.slack
        self.pings = []
        self.turn = 0
        self.done = False
        self.last = "Send your first ping."
        return self._render(), {}

    def _name(self, cell):
        return f"{COLS[cell[1]]}{cell[0] + 1}"

    def _cell(self, text):
        m = re.fullmatch(r"\s*([A-La-l])\s*(\d{1,2})\s*", text)
        if not m:
            return None
        c, r = COLS.index(m.group(1).upper()), int(m.group(2)) - 1
        return (r, c) if 0 <= r < self.n and 0 <= c < self.n else None

    def _render(self):
        rows = []
        pinged = dict(self.pings)
        for r in range(self.n):
            cells = []
            for c in range(self.n):
                cell = (r, c)
                cells.append("#" if cell in self.reefs else str(pinged[cell]) if cell in pinged else ".")
            rows.append(f"  {r + 1:>2} " + " ".join(f"{x:>2}" for x in cells))
        head = "     " + " ".join(f"{COLS[c]:>2}" for c in range(self.n))
        return ("SONAR SWEEP\n" + head + "\n" + "\n".join(rows) + "\n"
                "'#' is a reef (no ping from there), '.' open water, a number is a ping you sent from that square "
                "with the wreck's distance in up/down/left/right steps (|row difference| + |column difference|).\n"
                f"Pings left: {self.budget - len(self.pings)}. Last: {self.last}\n"
                "Send \\boxed{ping C4} to ping from a square, or \\boxed{dive C4} to send the divers (one dive only; "
                "the wreck may lie under a reef).")

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:5000])
        body = m.group(1).strip().lower() if m else ""
        mm = re.fullmatch(r"(ping|dive)\s+(.+)", body)
        cell = self._cell(mm.group(2)) if mm else None
        if mm is None or cell is None:
            self.last = "Could not read a command (turn lost): \\boxed{ping C4} or \\boxed{dive C4}."
        elif mm.group(1) == "dive":
            self.done = True
            if cell == self.wreck:
                self.last = f"The divers find the wreck at {self._name(cell)}. You win!"
                return self._render(), 1.0, True, False, {}
            self.last = f"Nothing at {self._name(cell)}; the wreck was at {self._name(self.wreck)}. You lose."
            return self._render(), 0.0, True, False, {}
        elif cell in self.reefs:
            self.last = f"{self._name(cell)} is a reef: no ping from there (turn lost)."
        elif len(self.pings) >= self.budget:
            self.last = "No pings left: send the divers."
        elif cell in dict(self.pings):
            self.last = f"You already pinged from {self._name(cell)}."
        else:
            d = self._dist(cell, self.wreck)
            self.pings.append((cell, d))
            self.last = f"Ping from {self._name(cell)}: the wreck is {d} step(s) away."
        if self.turn >= self.max_turns:
            self.done = True
            self.last += " Out of turns: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        cands = self._candidates(self.pings)
        if len(cands) <= 1 or len(self.pings) >= self.budget:
            return f"dive {self._name(cands[0] if cands else self.wreck)}"
        return f"ping {self._name(self._best_ping(cands, self.pings))}"

    def hint(self):
        return (f"You have {self.budget} ping(s). Each ping leaves a diamond of squares at that distance; a ping "
                "from a corner or an edge cuts the chart into few candidates, and the next ping should split the "
                "remaining diamond, not repeat its direction. Dive only when one square fits every ping.")
