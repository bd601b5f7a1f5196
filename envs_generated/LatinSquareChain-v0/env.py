"""Latin-square completion: a partly filled n x n grid (every row and column holds 1..n once) with a unique
completion; deduce the values of a few marked empty cells that only follow after a chain of eliminations."""

import random
import re

# difficulty -> (grid size, marked cells, fewest deduction rounds the deepest marked cell must need)
LEVELS = {"easy": (4, 3, 2), "medium": (5, 3, 3), "hard": (6, 3, 4)}
LABELS = "ABC"
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


def random_square(n, rng):
    grid = [[0] * n for _ in range(n)]

    def fill(i):
        if i == n * n:
            return True
        r, c = divmod(i, n)
        used = {grid[r][k] for k in range(c)} | {grid[k][c] for k in range(r)}
        vals = [v for v in range(1, n + 1) if v not in used]
        rng.shuffle(vals)
        for v in vals:
            grid[r][c] = v
            if fill(i + 1):
                return True
        grid[r][c] = 0
        return False

    fill(0)
    return grid


def candidates(grid, n, r, c):
    used = set(grid[r]) | {grid[k][c] for k in range(n)}
    return [v for v in range(1, n + 1) if v not in used]


def forced_cells(grid, n):
    """All empty cells that a single elimination step fixes now: {(r, c): value}."""
    full = (1 << (n + 1)) - 2
    rows = [0] * n
    cols = [0] * n
    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            if v:
                rows[r] |= 1 << v
                cols[c] |= 1 << v
    cand = {}
    found = {}
    for r in range(n):
        for c in range(n):
            if grid[r][c] == 0:
                m = full & ~(rows[r] | cols[c])
                cand[(r, c)] = m
                if m and m & (m - 1) == 0:
                    found[(r, c)] = m.bit_length() - 1
    for r in range(n):
        once = twice = 0
        for c in range(n):
            m = cand.get((r, c), 0)
            twice |= once & m
            once |= m
        single = once & ~twice
        if single:
            for c in range(n):
                m = cand.get((r, c), 0) & single
                if m:
                    found[(r, c)] = m.bit_length() - 1
    for c in range(n):
        once = twice = 0
        for r in range(n):
            m = cand.get((r, c), 0)
            twice |= once & m
            once |= m
        single = once & ~twice
        if single:
            for r in range(n):
                m = cand.get((r, c), 0) & single
                if m:
                    found[(r, c)] = m.bit_length() - 1
    return found


def deduction_rounds(puzzle, n):
    """Round in which simple elimination (naked and hidden singles) fixes each empty cell; None if it stalls."""
    grid = [row[:] for row in puzzle]
    rounds = {}
    k = 0
    while any(0 in row for row in grid):
        k += 1
        found = forced_cells(grid, n)
        if not found:
            return None
        for (r, c), v in found.items():
            grid[r][c] = v
            rounds[(r, c)] = k
    return rounds


def count_solutions(puzzle, n, limit=2):
    """Plain exhaustive search (most constrained cell first), stopping at `limit` solutions."""
    grid = [row[:] for row in puzzle]

    def search():
        best, best_cand = None, None
        for r in range(n):
            for c in range(n):
                if grid[r][c] == 0:
                    cand = candidates(grid, n, r, c)
                    if not cand:
                        return 0
                    if best is None or len(cand) < len(best_cand):
                        best, best_cand = (r, c), cand
        if best is None:
            return 1
        total = 0
        r, c = best
        for v in best_cand:
            grid[r][c] = v
            total += search()
            grid[r][c] = 0
            if total >= limit:
                break
        return total

    return search()


class LatinSquareChainEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n = LEVELS[self.difficulty][0]
        self.square = [[0] * self.n for _ in range(self.n)]
        self.puzzle = [[0] * self.n for _ in range(self.n)]
        self.targets = []
        self.rounds = {}
        self.turn = 0
        self.done = False
        self.rng = random.Random()

    # ------------------------------------------------------------------ generation
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n, k, depth = LEVELS[self.difficulty]
        self.n = n
        while not self.generate(n, k, depth):
            pass
        self.turn = 0
        self.done = False
        return self.render(""), {}

    def generate(self, n, k, depth):
        rng = self.rng
        square = random_square(n, rng)
        puzzle = [row[:] for row in square]
        cells = [(r, c) for r in range(n) for c in range(n)]
        rng.shuffle(cells)
        for r, c in cells:
            keep = puzzle[r][c]
            puzzle[r][c] = 0
            if deduction_rounds(puzzle, n) is None:
                puzzle[r][c] = keep
        rounds = deduction_rounds(puzzle, n)
        if rounds is None or max(rounds.values()) < depth:
            return False
        if count_solutions(puzzle, n) != 1:
            return False
        deepest = max(rounds.values())
        late = [cell for cell, d in rounds.items() if d >= max(2, deepest - 2)]
        if len(late) < k:
            return False
        rng.shuffle(late)
        late.sort(key=lambda cell: -rounds[cell])
        targets = [late[0]] + rng.sample(late[1:], k - 1)
        targets.sort()
        self.square, self.puzzle, self.rounds, self.targets = square, puzzle, rounds, targets
        return True

    # ------------------------------------------------------------------ text
    def render(self, feedback):
        n = self.n
        marks = {cell: LABELS[i] for i, cell in enumerate(self.targets)}
        lines = [
            f"Attempt {self.turn}/{self.max_turns}",
            f"Complete this {n}x{n} Latin square: every row and every column must contain each of the numbers 1 to "
            f"{n} exactly once. '.' is an empty cell; the letters mark empty cells you are asked about. The "
            "completion is unique.",
            "",
            "      " + " ".join(f"c{c + 1}" for c in range(n)),
        ]
        for r in range(n):
            cells = []
            for c in range(n):
                if (r, c) in marks:
                    cells.append(" " + marks[(r, c)])
                elif self.puzzle[r][c]:
                    cells.append(" " + str(self.puzzle[r][c]))
                else:
                    cells.append(" .")
            lines.append(f"  r{r + 1}  " + " ".join(cells))
        names = [LABELS[i] for i in range(len(self.targets))]
        where = ", ".join(f"{LABELS[i]} = r{r + 1}c{c + 1}" for i, (r, c) in enumerate(self.targets))
        lines += [
            "",
            f"Marked cells: {where}.",
            f"Question: which numbers belong in {', '.join(names[:-1])} and {names[-1]}? Answer with "
            f"{len(names)} numbers in that order, e.g. \\boxed{{" + ", ".join(f"value of {x}" for x in names)
            + f"}}. You have {self.max_turns} attempts.",
        ]
        if feedback:
            lines += ["", feedback]
        return "\n".join(lines)

    # ------------------------------------------------------------------ play
    def finish(self, feedback, reward, terminated):
        out_of_turns = (not terminated) and self.turn >= self.max_turns
        if out_of_turns:
            feedback += " No attempts left; the game is over."
        if terminated or out_of_turns:
            self.done = True
        return self.render(feedback), reward, terminated or out_of_turns, False, {}  # out of attempts is a loss, not a cut-off

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        match = BOX_RE.search(text[:20000])
        k, n = len(self.targets), self.n
        if match is None:
            return self.finish(f"Format error: put {k} numbers inside \\boxed{{...}}, separated by commas.",
                               0.0, False)
        body = re.sub(r"\b[a-c]\s*[=:]", " ", match.group(1).lower())
        tokens = [t for t in re.split(r"[\s,;]+", body) if t]
        if len(tokens) != k or not all(re.fullmatch(r"\d{1,2}", t) for t in tokens):
            return self.finish(f"Give exactly {k} whole numbers between 1 and {n}, separated by commas.", 0.0, False)
        values = [int(t) for t in tokens]
        if any(v < 1 or v > n for v in values):
            return self.finish(f"Every value must be between 1 and {n}.", 0.0, False)
        notes = []
        right = 0
        for i, ((r, c), v) in enumerate(zip(self.targets, values)):
            if v == self.square[r][c]:
                right += 1
                continue
            if v in self.puzzle[r]:
                notes.append(f"{LABELS[i]}={v} clashes with a given number in row {r + 1}")
            elif any(self.puzzle[q][c] == v for q in range(n)):
                notes.append(f"{LABELS[i]}={v} clashes with a given number in column {c + 1}")
        if right == k:
            return self.finish("Correct! All marked cells are right. You win.", 1.0, True)
        text = f"Not quite: {right} of the {k} values are right."
        if notes:
            text += " Also: " + "; ".join(notes) + "."
        return self.finish(text, 0.0, False)

    # ------------------------------------------------------------------ oracle and hint
    def solution(self):
        return ", ".join(str(self.square[r][c]) for r, c in self.targets)

    def hint(self):
        first = sorted(cell for cell, d in self.rounds.items() if d == 1)
        depth = {LABELS[i]: self.rounds[cell] for i, cell in enumerate(self.targets)}
        start = ", ".join(f"r{r + 1}c{c + 1}" for r, c in first[:3])
        steps = "; ".join(f"{x} needs {d} rounds" for x, d in depth.items())
        return ("No guessing is needed: repeatedly fill any cell whose row and column leave only one number, and any "
                "number that has only one possible cell left in some row or column. Cells that are forced right "
                f"away include {start}. Fill everything that becomes forced in each round, not only the marked "
                f"cells ({steps} of such filling), and re-check rows and columns after every new number.")
