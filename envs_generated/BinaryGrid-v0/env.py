"""Binary grid: fill a square grid with 0s and 1s so that every row and column holds as many 0s as 1s, no three
equal digits stand next to each other in a row or column, and no two rows (and no two columns) are the same.
Some cells are given; the rules fix the rest."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (size, fraction of cells given)
LEVELS = {"easy": (4, 0.35), "medium": (6, 0.36), "hard": (6, 0.28)}


def line_ok(line, n, full):
    """Partial line check (None = empty)."""
    for i in range(len(line) - 2):
        a, b, c = line[i], line[i + 1], line[i + 2]
        if a is not None and a == b == c:
            return False
    if line.count(0) > n // 2 or line.count(1) > n // 2:
        return False
    return True


class BinaryGridEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.n = 4
        self.solution_grid = []
        self.given = []
        self._valid = []
        self._found = []
        self.turn = 0
        self.done = False

    def _rows(self):
        """Every valid full line: half zeros, no three equal in a row."""
        n = self.n
        out = []
        for code in range(1 << n):
            line = [code >> (n - 1 - i) & 1 for i in range(n)]
            if line.count(0) == n // 2 and line_ok(line, n, True):
                out.append(line)
        return out

    def _solve(self, grid, limit=2):
        """Count completions of `grid` (None = empty), up to `limit`; returns (count, first solution).
        Rows are chosen from the valid lines that agree with the givens; columns are checked as they grow."""
        n = self.n
        valid = self._valid
        options = [[line for line in valid if all(v is None or v == line[c] for c, v in enumerate(row))]
                   for row in grid]
        found = []
        chosen = []

        def rec(r):
            if len(found) >= limit:
                return
            if r == n:
                cols = [[chosen[i][c] for i in range(n)] for c in range(n)]
                if len(set(tuple(col) for col in cols)) == n:
                    found.append([list(x) for x in chosen])
                return
            for line in options[r]:
                if line in chosen:
                    continue
                chosen.append(line)
                if all(line_ok([chosen[i][c] for i in range(r + 1)], n, False) for c in range(n)):
                    rec(r + 1)
                chosen.pop()

        rec(0)
        self._found = found
        return len(found), (found[0] if found else None)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        self.n, frac = LEVELS[self.difficulty]
        n = self.n
        self._valid = self._rows()
        empty = [[None] * n for _ in range(n)]
        for _ in range(50):
            # a random valid full grid: the valid lines in random order, first completion wins
            saved = self._valid
            self._valid = list(saved)
            rng.shuffle(self._valid)
            count, full = self._solve(empty, 1)
            self._valid = saved
            if not count:
                continue
            # start from a random set of givens and add, where two completions still differ, the true digit
            # there, until the completion is unique (few solver calls, each with many givens: cheap)
            cells = [(r, c) for r in range(n) for c in range(n)]
            keep = int(round(frac * n * n))
            given = [[None] * n for _ in range(n)]
            for r, c in rng.sample(cells, keep):
                given[r][c] = full[r][c]
            for _ in range(n * n):
                count, _ = self._solve(given, 2)
                if count <= 1:
                    break
                a_sol, b_sol = self._found[0], self._found[1]
                diff = [(r, c) for r, c in cells if a_sol[r][c] != b_sol[r][c]]
                r, c = rng.choice(diff)
                given[r][c] = full[r][c]
            self.solution_grid, self.given = full, given
            break
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        rows = ["  " + " ".join("." if v is None else str(v) for v in row) for row in self.given]
        n = self.n
        return ("BINARY GRID\n" + "\n".join(rows) + "\n"
                f"Fill every '.' with 0 or 1 so that: each row and each column has {n // 2} zeros and {n // 2} ones; "
                "no three equal digits are next to each other in a row or a column; no two rows are identical and no "
                "two columns are identical. Exactly one filling works.\n"
                "Answer with the full grid, rows separated by '/', e.g. "
                f"\\boxed{{{'/'.join(['01' * (n // 2)] * n)}}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        rows = [re.sub(r"[^01]", "", r) for r in re.split(r"[/|;\n]", m.group(1))] if m else []
        rows = [r for r in rows if r]
        want = ["".join(map(str, row)) for row in self.solution_grid]
        if rows == want:
            self.done = True
            return "Correct: the grid is complete. You win!", 1.0, True, False, {}
        if not m or len(rows) != self.n or any(len(r) != self.n for r in rows):
            msg = f"Could not read a {self.n} x {self.n} grid of 0s and 1s, rows separated by '/'."
        else:
            wrong = sum(1 for a, b in zip("".join(rows), "".join(want)) if a != b)
            msg = f"{wrong} cell(s) are wrong."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return "/".join("".join(map(str, row)) for row in self.solution_grid)

    def hint(self):
        return ("Two equal digits side by side force the opposite digit on both ends (00 -> 1001), and a gap between "
                "two equal digits takes the opposite (0.0 -> 010). Once a line has all of one digit, fill the rest with "
                "the other. Use 'no identical lines' only at the end, when two lines differ in just two open cells.")
