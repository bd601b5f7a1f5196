"""Bundled games with mechanics no other bundled game has must need the reasoning they name.

Two kinds of host-side agents play them through ``gym.make`` (so the programs run in the sandbox, like any
agent's episode), each seeing only the observations:

* a *reader-solver* that parses the screen and solves the puzzle with an independent implementation (exact
  geometry, GF(2) elimination, brute force): it must win every episode, which shows the public evidence
  determines the one accepted answer (single-answer games);
* the obvious no-reasoning *heuristics* (press what is lit, one number at a time, bounding boxes,
  greedy bidding or picking...): each must win under HEURISTIC_LIMIT of the
  episodes at every level, the threshold the validator's shortcut zoo uses.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from math import gcd

import gymnasium as gym
import pytest
from testkit import transcript_win_rate

import spade_gym  # noqa: F401  (registers the bundled suite)

LEVELS = ("easy", "medium", "hard")
SEEDS = range(300, 308)
HEURISTIC_LIMIT = 0.5
MAX_STEPS = 40


def boxed(text: str) -> str:
    return "\\boxed{" + text + "}"


def play(env_id: str, level: str, agent, seeds=SEEDS) -> float:
    """Share of `seeds` that `agent` (a function of the observations so far) wins at `level`."""
    return transcript_win_rate(env_id, level, agent, seeds, MAX_STEPS)


def grid(obs: str) -> list[list[str]]:
    """The rows of a drawn grid: lines that start with a row number followed by one token per column (a header
    of column numbers is skipped)."""
    rows = []
    for line in obs.splitlines():
        tokens = line.split()
        if re.fullmatch(r"\s+\d+(\s+\S+)+", line) and tokens != [str(i + 1) for i in range(len(tokens))]:
            rows.append(tokens[1:])
    return rows


def cell_name(r: int, c: int) -> str:
    return f"{'ABCDEFGHIJK'[c]}{r + 1}"


# ---------------------------------------------------------------------------------------- LanternToggleGrid
def lantern_parse(obs):
    board = grid(obs)
    lines = obs.splitlines()
    start = next(i for i, line in enumerate(lines) if "centred on the pressed one" in line) + 1
    pattern = []
    while not lines[start].strip().startswith("("):
        pattern.append(lines[start].split())
        start += 1
    wrap = "wraps around" in lines[start]
    span = len(pattern) // 2
    offsets = [(r - span, c - span) for r, row in enumerate(pattern) for c, x in enumerate(row) if x in "xX"]
    return board, offsets, wrap


def lantern_flips(board, offsets, wrap, r, c):
    rows, cols = len(board), len(board[0])
    out = set()
    for dr, dc in offsets:
        rr, cc = r + dr, c + dc
        if wrap:
            rr, cc = rr % rows, cc % cols
        if 0 <= rr < rows and 0 <= cc < cols:
            out ^= {(rr, cc)}
    return out


def lantern_solver(transcript):
    """Gaussian elimination over GF(2) on the press matrix read off the screen."""
    board, offsets, wrap = lantern_parse(transcript[0])
    cells = [(r, c) for r in range(len(board)) for c in range(len(board[0]))]
    index = {cell: i for i, cell in enumerate(cells)}
    n = len(cells)
    # row i: which presses flip light i, augmented with whether light i is lit
    rows = [0] * n
    for j, (r, c) in enumerate(cells):
        for cell in lantern_flips(board, offsets, wrap, r, c):
            rows[index[cell]] |= 1 << j
    rows = [row | (int(board[r][c] == "#") << n) for row, (r, c) in zip(rows, cells)]
    rank = 0
    for bit in range(n):
        pivot = next(i for i in range(rank, n) if rows[i] >> bit & 1)  # the screen promises one answer
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(n):
            if i != rank and rows[i] >> bit & 1:
                rows[i] ^= rows[rank]
        rank += 1
    return boxed(" ".join(cell_name(*cells[j]) for j in range(n) if rows[j] >> n & 1))


def lantern_press_lit(transcript):
    board = grid(transcript[0])
    lit = [cell_name(r, c) for r, row in enumerate(board) for c, x in enumerate(row) if x == "#"]
    return boxed(" ".join(lit))


def lantern_chase(transcript):
    """Chase the lights down the rows: press under every lantern still lit, one row at a time."""
    board, offsets, wrap = lantern_parse(transcript[0])
    lit = {(r, c) for r, row in enumerate(board) for c, x in enumerate(row) if x == "#"}
    presses = []
    for r in range(len(board) - 1):
        for c in range(len(board[0])):
            if (r, c) in lit:
                presses.append(cell_name(r + 1, c))
                lit ^= lantern_flips(board, offsets, wrap, r + 1, c)
    return boxed(" ".join(presses) or "A1")


# ---------------------------------------------------------------------------------------- MinefieldSafeCells
def mine_constraints(obs):
    board = grid(obs)
    rows, cols = len(board), len(board[0])
    cons = []
    for r in range(rows):
        for c in range(cols):
            if board[r][c].isdigit():
                near = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                        if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols and board[r + dr][c + dc] == "#"]
                if near:
                    cons.append((near, int(board[r][c])))
    return cons


def mine_solver(transcript):
    """A covered square is certainly safe when no layout fitting every number puts a mine there: one layout
    search per frontier square with a mine forced on it."""
    cons = mine_constraints(transcript[0])
    frontier = sorted({cell for cells, _ in cons for cell in cells})

    def fits(assign):
        for cells, k in cons:
            mines = sum(assign.get(x, 0) for x in cells)
            open_ = sum(1 for x in cells if x not in assign)
            if not mines <= k <= mines + open_:
                return False
        return True

    def layout(assign, rest):
        if not fits(assign):
            return False
        if not rest:
            return True
        for v in (0, 1):
            assign[rest[0]] = v
            if layout(assign, rest[1:]):
                return True
            del assign[rest[0]]
        return False

    safe = [cell for cell in frontier if not layout({cell: 1}, [x for x in frontier if x != cell])]
    return boxed(" ".join(cell_name(*cell) for cell in safe))


def mine_one_number(transcript):
    """Only what single numbers say: a number already met clears its other squares, a number equal to its
    covered squares marks them all."""
    cons = mine_constraints(transcript[0])
    mine, safe = set(), set()
    changed = True
    while changed:
        changed = False
        for cells, k in cons:
            left = [x for x in cells if x not in mine and x not in safe]
            known = sum(1 for x in cells if x in mine)
            if left and known == k:
                safe.update(left)
                changed = True
            elif left and known + len(left) == k:
                mine.update(left)
                changed = True
    return boxed(" ".join(cell_name(*cell) for cell in sorted(safe)) or "A1")


# ---------------------------------------------------------------------------------------- WatchtowerSightlines
def sight_parse(obs):
    board = grid(obs)
    walls = {(r, c) for r, row in enumerate(board) for c, x in enumerate(row) if x == "#"}
    watch = next((r, c) for r, row in enumerate(board) for c, x in enumerate(row) if x == "W")
    marks = {x: (r, c) for r, row in enumerate(board) for c, x in enumerate(row) if re.fullmatch(r"[a-z]", x)}
    return walls, watch, marks


def sight_exact(walls, watch, target):
    """Exact test with fractions: does the segment between the two centres enter a wall square's inside?"""
    (y0, x0), (y1, x1) = [(Fraction(2 * r + 1, 2), Fraction(2 * c + 1, 2)) for r, c in (watch, target)]
    for wr, wc in walls:
        lo, hi = Fraction(0), Fraction(1)
        inside = True
        for p, d, a, b in ((y0, y1 - y0, wr, wr + 1), (x0, x1 - x0, wc, wc + 1)):
            if d == 0:
                inside &= a < p < b
                continue
            t1, t2 = sorted(((a - p) / d, (b - p) / d))
            lo, hi = max(lo, t1), min(hi, t2)
        if inside and lo < hi:
            return False
    return True


def sight_solver(transcript):
    walls, watch, marks = sight_parse(transcript[0])
    return boxed(" ".join(k for k, cell in sorted(marks.items()) if sight_exact(walls, watch, cell)))


def sight_bounding_box(transcript):
    """Seen unless some wall stands inside the rectangle spanned by the watchman and the marker."""
    walls, (r0, c0), marks = sight_parse(transcript[0])
    seen = [k for k, (r, c) in sorted(marks.items())
            if not any(min(r, r0) <= wr <= max(r, r0) and min(c, c0) <= wc <= max(c, c0) for wr, wc in walls)]
    return boxed(" ".join(seen) or "a")


def sight_stepping(transcript):
    """Step along the line two points per square and look at the square under each point."""
    walls, (r0, c0), marks = sight_parse(transcript[0])
    seen = []
    for k, (r, c) in sorted(marks.items()):
        n = 2 * max(abs(r - r0), abs(c - c0))
        points = [(round(r0 + (r - r0) * i / n), round(c0 + (c - c0) * i / n)) for i in range(1, n)]
        if not any(p in walls for p in points):
            seen.append(k)
    return boxed(" ".join(seen) or "a")


# ---------------------------------------------------------------------------------------- AlchemyEquationBalance
def alchemy_matrix(obs):
    equation = next(line.strip() for line in obs.splitlines() if "->" in line)
    left, right = (side.split(" + ") for side in equation.split(" -> "))
    formulas = [dict((e, int(n or 1)) for e, n in re.findall(r"([A-Z][a-z]?)(\d*)", f)) for f in left + right]
    elements = sorted({e for f in formulas for e in f})
    sign = [1] * len(left) + [-1] * len(right)
    return [[f.get(e, 0) * s for f, s in zip(formulas, sign)] for e in elements]


def alchemy_solver(transcript):
    """The null space of the atom-count matrix, by exact elimination: one free coefficient, scaled to the
    smallest whole numbers."""
    rows = [[Fraction(x) for x in row] for row in alchemy_matrix(transcript[0])]
    n = len(rows[0])
    pivots, r = [], 0
    for c in range(n):
        p = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        rows[r] = [x / rows[r][c] for x in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                rows[i] = [x - rows[i][c] * y for x, y in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    free = next(c for c in range(n) if c not in pivots)  # the screen promises exactly one balancing ratio
    values = [Fraction(0)] * n
    values[free] = Fraction(1)
    for i, c in enumerate(pivots):
        values[c] = -rows[i][free]
    scale = 1
    for v in values:
        scale = scale * v.denominator // gcd(scale, v.denominator)
    ints = [int(v * scale) for v in values]
    g = 0
    for x in ints:
        g = gcd(g, x)
    return boxed(", ".join(str(abs(x) // g) for x in ints))


def alchemy_all_ones(transcript):
    return boxed(", ".join("1" * len(alchemy_matrix(transcript[0])[0])))


def alchemy_raise_one_at_a_time(transcript):
    """Start from all ones; while some element is off, raise the first coefficient on its short side."""
    matrix = alchemy_matrix(transcript[0])
    coefs = [1] * len(matrix[0])
    for _ in range(60):
        off = next((row for row in matrix if sum(a * c for a, c in zip(row, coefs)) != 0), None)
        if off is None:
            break
        short = sum(a * c for a, c in zip(off, coefs))
        coefs[next(j for j, a in enumerate(off) if (a > 0 if short < 0 else a < 0))] += 1
    g = 0
    for x in coefs:
        g = gcd(g, x)
    return boxed(", ".join(str(x // g) for x in coefs))


# ---------------------------------------------------------------------------------------- multi-turn games
def lots_greedy(transcript):
    """Bid one more than the lot's points whenever the purse allows it (a valuation, not a plan)."""
    obs = transcript[-1]
    m = re.search(r"lot \d+: \w+, (\d+) points - ON THE BLOCK", obs)
    purse = int(re.search(r"You: (\d+) coins left", obs).group(1))
    if not m:
        return boxed("0")
    return boxed(str(min(purse, int(m.group(1)) + 1)))


def lots_all_in_biggest(transcript):
    """Save everything for the lot with the most points, then bid the whole purse on it."""
    obs = transcript[-1]
    lots = [(int(i), int(p), state) for i, p, state in re.findall(r"lot (\d+): \w+, (\d+) points - ([\w ]+)", obs)]
    purse = int(re.search(r"You: (\d+) coins left", obs).group(1))
    open_lots = [lot for lot in lots if lot[2].startswith(("ON THE BLOCK", "to come"))]
    if not open_lots:
        return boxed("0")
    biggest = max(open_lots, key=lambda lot: lot[1])
    return boxed(str(purse if biggest[2].startswith("ON THE BLOCK") else 0))


def relics_free(obs):
    return [(k, kind, int(p)) for k, kind, p in re.findall(r"  (\w): (\w+), (\d+) points - free", obs)]


def relic_most_points(transcript):
    return boxed(max(relics_free(transcript[-1]), key=lambda x: (x[2], -ord(x[0])))[0])


def relic_kind_focus(transcript):
    """The best relic of the kind already held most, else the most points."""
    obs = transcript[-1]
    mine = re.findall(r"  \w: (\w+), \d+ points - yours", obs)
    free = relics_free(obs)
    if mine:
        kind = Counter(mine).most_common(1)[0][0]
        same = [x for x in free if x[1] == kind]
        if same:
            return boxed(max(same, key=lambda x: x[2])[0])
    return relic_most_points(transcript)


SOLVERS = {
    "AlchemyEquationBalance": alchemy_solver,
    "LanternToggleGrid": lantern_solver,
    "MinefieldSafeCells": mine_solver,
    "WatchtowerSightlines": sight_solver,
}
HEURISTICS = {
    "AlchemyEquationBalance": {"all ones": alchemy_all_ones,
                               "raise one coefficient at a time": alchemy_raise_one_at_a_time},
    "LanternToggleGrid": {"press every lit lantern": lantern_press_lit, "chase the lights": lantern_chase},
    "MinefieldSafeCells": {"one number at a time": mine_one_number},
    "WatchtowerSightlines": {"no wall in the bounding box": sight_bounding_box, "step along the line": sight_stepping},
    "SealedBidLots": {"bid points + 1": lots_greedy, "all in on the biggest lot": lots_all_in_biggest},
    "RelicDraft": {"most points": relic_most_points, "stick to one kind": relic_kind_focus},
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_the_screen_determines_the_answer(name, level):
    assert play(f"spade/{name}-v0", level, SOLVERS[name]) == 1.0


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name, heuristic", [(n, h) for n in sorted(HEURISTICS) for h in HEURISTICS[n]])
def test_obvious_heuristics_lose(name, heuristic, level):
    rate = play(f"spade/{name}-v0", level, HEURISTICS[name][heuristic])
    assert rate < HEURISTIC_LIMIT, f"{name} {level}: '{heuristic}' won {rate:.0%}"


@pytest.mark.parametrize("name", sorted(HEURISTICS))
def test_first_screens_differ_between_seeds(name):
    """Seeds are told apart from the first screen, not only by later feedback (the validator's diversity
    check counts distinct first tasks; a rival whose habit shows only in play once gave 7 of 16)."""
    for level in LEVELS:
        env = gym.make(f"spade/{name}-v0", difficulty=level)
        try:
            screens = {env.reset(seed=seed)[0] for seed in range(16)}
        finally:
            env.close()
        assert len(screens) >= 12, (level, len(screens))
