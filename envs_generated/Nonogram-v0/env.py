"""Nonogram: a small picture grid is hidden; every row and column is described only by the lengths of its runs
of filled cells, in order. The clues fix exactly one picture: deduce it and write it out row by row."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (rows, cols, fill probability)
LEVELS = {"easy": (4, 4, 0.55), "medium": (5, 5, 0.55), "hard": (6, 6, 0.5)}


def runs(cells):
    out, k = [], 0
    for c in cells:
        if c:
            k += 1
        elif k:
            out.append(k)
            k = 0
    if k:
        out.append(k)
    return out


def patterns(length, clue):
    """Every row of `length` cells whose runs are `clue`."""
    found = []

    def place(i, pos, row):
        if i == len(clue):
            found.append(tuple(row + [0] * (length - len(row))))
            return
        for start in range(pos, length - clue[i] + 1):
            new = row + [0] * (start - len(row)) + [1] * clue[i]
            if len(new) < length:
                new = new + [0]
            place(i + 1, len(new), new)

    place(0, 0, [])
    return [p[:length] for p in found]


class NonogramEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.rows = []
        self.row_clues = []
        self.col_clues = []
        self.turn = 0
        self.done = False

    def _count(self, limit=2):
        """Number of grids (up to `limit`) matching every clue: rows from their patterns, columns checked as
        prefixes while rows are placed."""
        h, w = len(self.row_clues), len(self.col_clues)
        options = [patterns(w, c) for c in self.row_clues]
        col_opts = [set(patterns(h, c)) for c in self.col_clues]
        prefixes = [set(p[:k] for p in opts for k in range(h + 1)) for opts in col_opts]
        found = [0]
        grid = []

        def rec(r):
            if found[0] >= limit:
                return
            if r == h:
                found[0] += 1
                return
            for p in options[r]:
                grid.append(p)
                if all(tuple(g[c] for g in grid) in prefixes[c] for c in range(w)):
                    rec(r + 1)
                grid.pop()

        rec(0)
        return found[0]

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        h, w, p = LEVELS[self.difficulty]
        for _ in range(300):
            self.rows = [tuple(1 if self.rng.random() < p else 0 for _ in range(w)) for _ in range(h)]
            self.row_clues = [runs(r) for r in self.rows]
            self.col_clues = [runs([r[c] for r in self.rows]) for c in range(w)]
            filled = sum(map(sum, self.rows))
            if 0.3 * h * w <= filled <= 0.75 * h * w and self._count() == 1:
                break
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        h, w = len(self.rows), len(self.rows[0])
        rc = [f"  row {i + 1}: {' '.join(map(str, c)) or '0'}" for i, c in enumerate(self.row_clues)]
        cc = [f"  column {i + 1}: {' '.join(map(str, c)) or '0'}" for i, c in enumerate(self.col_clues)]
        return ("NONOGRAM\n"
                f"A {h} x {w} grid hides a picture of filled (#) and empty (.) cells. Each clue lists, in order, the "
                "lengths of the blocks of consecutive filled cells in that line (rows read left to right, columns "
                "top to bottom); '0' means the line is empty. Blocks are separated by at least one empty cell.\n"
                "Row clues:\n" + "\n".join(rc) + "\nColumn clues:\n" + "\n".join(cc) + "\n"
                f"Exactly one picture fits. Write it row by row with # and ., rows separated by '/', e.g. "
                f"\\boxed{{{'/'.join(['#' + '.' * (w - 1)] * h)}}}. You have {self.max_turns} attempt(s).")

    def _parse(self, text):
        rows = [re.sub(r"\s+", "", r) for r in re.split(r"[/|,;\n]", text) if r.strip()]
        grid = []
        for r in rows:
            if not re.fullmatch(r"[#.xXoO01]+", r):
                return None
            grid.append(tuple(1 if ch in "#xX1" else 0 for ch in r))
        return grid

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        grid = self._parse(m.group(1)) if m else None
        h, w = len(self.rows), len(self.rows[0])
        if grid is None or len(grid) != h or any(len(r) != w for r in grid):
            msg = f"Could not read a {h} x {w} grid: write {h} rows of {w} characters (# or .) separated by '/'."
        elif grid == [tuple(r) for r in self.rows]:
            self.done = True
            return "Correct: that is the picture. You win!", 1.0, True, False, {}
        else:
            bad_rows = [str(i + 1) for i, r in enumerate(grid) if runs(r) != self.row_clues[i]]
            bad_cols = [str(c + 1) for c in range(w) if runs([r[c] for r in grid]) != self.col_clues[c]]
            msg = ("Not the picture: rows " + (", ".join(bad_rows) or "none") + " and columns " +
                   (", ".join(bad_cols) or "none") + " break their clues.")
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return "/".join("".join("#" if c else "." for c in r) for r in self.rows)

    def hint(self):
        w = len(self.rows[0])
        # the line whose clue leaves the least freedom is the place to start
        slack = [(w - (sum(c) + len(c) - 1) if c else w, i) for i, c in enumerate(self.row_clues)]
        s, i = min(slack)
        return (f"Start with row {i + 1}: its blocks leave only {s} cell(s) of play, so the cells every placement "
                "fills are certain. Alternate between rows and columns, marking cells that are certainly filled or "
                "certainly empty, until the picture is forced.")
