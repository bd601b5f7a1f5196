"""Minefield safe cells: part of a minesweeper field has been uncovered; every uncovered square shows how
many mines lie among its (up to) eight neighbours. The total number of mines is not told. Name exactly the
covered squares that are certainly safe, i.e. hold no mine in every mine layout that fits all the numbers;
squares that only one layout out of several leaves empty do not count."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
COLS = "ABCDEFGHIJK"
# difficulty -> (rows, cols, mines, extra squares uncovered beyond the opening, least certain-safe squares,
# whether comparing numbers two at a time must also fall short)
LEVELS = {"easy": (6, 7, 9, 2, 2, False), "medium": (8, 8, 14, 3, 3, False), "hard": (9, 10, 20, 4, 3, True)}


class MinefieldSafeCellsEnv:
    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rows, self.cols, self.n_mines, self.extra, self.min_safe, self.deep = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, 2)
        self.attempts = 2
        self.rng = random.Random()
        self.mines = set()
        self.shown = {}
        self.safe = []
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ mechanics
    def _near(self, cell):
        r, c = cell
        return [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < self.rows and 0 <= c + dc < self.cols]

    def _count(self, cell):
        return sum(1 for n in self._near(cell) if n in self.mines)

    def _constraints(self, shown):
        cons = []
        for cell, k in shown.items():
            covered = [n for n in self._near(cell) if n not in shown]
            if covered:
                cons.append((covered, k))
        return cons

    @staticmethod
    def _layout(frontier, cons, fixed):
        """Backtracking: a mine layout of the frontier meeting every count with `fixed` forced, or None.
        Each count keeps running tallies (mines placed, squares still open) so a check is O(1)."""
        by_cell = {}
        for i, (cells, _) in enumerate(cons):
            for cell in cells:
                by_cell.setdefault(cell, []).append(i)
        need = [k for _, k in cons]
        open_left = [len(cells) for cells, _ in cons]
        value = {}

        def put(cell, v):
            good = True
            for i in by_cell.get(cell, ()):
                open_left[i] -= 1
                need[i] -= v
                if need[i] < 0 or need[i] > open_left[i]:
                    good = False
            value[cell] = v
            return good

        def take(cell):
            v = value.pop(cell)
            for i in by_cell.get(cell, ()):
                open_left[i] += 1
                need[i] += v

        for cell, v in fixed.items():
            if not put(cell, v):
                return None
        order = [c for c in frontier if c not in value]

        def go(pos):
            if pos == len(order):
                return True
            cell = order[pos]
            for v in (0, 1):
                if put(cell, v) and go(pos + 1):
                    return True
                take(cell)
            return False

        return dict(value) if go(0) else None

    def _certain(self, shown):
        cons = self._constraints(shown)
        frontier = []
        for cells, _ in cons:
            for cell in cells:
                if cell not in frontier:
                    frontier.append(cell)
        # a square seen holding a mine in any fitting layout is not certain; each search either proves a
        # square safe or finds a layout that clears several squares at once
        can_mine = set()
        safe = []
        for cell in frontier:
            if cell in can_mine:
                continue
            layout = self._layout(frontier, cons, {cell: 1})
            if layout is None:
                safe.append(cell)
            else:
                can_mine.update(x for x, v in layout.items() if v == 1)
        return sorted(safe)

    def _simple(self, shown):
        """What one-number-at-a-time reasoning finds (a count already met, or all covered squares mines)."""
        cons = self._constraints(shown)
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
        return sorted(safe)

    def _pairwise(self, shown):
        """One-number rules plus comparing two numbers whose covered squares nest (the subset rule)."""
        cons = [(set(cells), k) for cells, k in self._constraints(shown)]
        mine, safe = set(), set()
        changed = True
        while changed:
            changed = False
            reduced = [(cells - mine - safe, k - len(cells & mine)) for cells, k in cons]
            for cells, k in reduced:
                if cells and k == 0:
                    safe |= cells
                    changed = True
                elif cells and k == len(cells):
                    mine |= cells
                    changed = True
            if changed:
                continue
            for a, ka in reduced:
                for b, kb in reduced:
                    if a and a < b:
                        rest = b - a
                        if kb == ka:
                            safe |= rest
                            changed = True
                        elif kb - ka == len(rest):
                            mine |= rest
                            changed = True
        return sorted(safe)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        cells = [(r, c) for r in range(self.rows) for c in range(self.cols)]
        best = fallback = None
        for _ in range(60):
            self.mines = set(self.rng.sample(cells, self.n_mines))
            zeros = [x for x in cells if x not in self.mines and self._count(x) == 0]
            if not zeros:
                continue
            # the opening: flood from one empty square, as a first click would
            start = self.rng.choice(zeros)
            shown, stack = {}, [start]
            while stack:
                cell = stack.pop()
                if cell in shown:
                    continue
                shown[cell] = self._count(cell)
                if shown[cell] == 0:
                    stack.extend(n for n in self._near(cell) if n not in shown)
            if len(shown) > len(cells) * 0.6:
                continue
            # a few more squares uncovered next to the opening, as later lucky clicks would
            edge = sorted({n for x in shown for n in self._near(x) if n not in shown and n not in self.mines})
            for x in self.rng.sample(edge, min(self.extra, len(edge))):
                shown[x] = self._count(x)
            safe = self._certain(shown)
            if len(safe) < self.min_safe or len(safe) > 12:
                continue
            fallback = (set(self.mines), shown, safe)
            # one-number-at-a-time reasoning must fall short: the answer needs numbers combined
            if self._simple(shown) == safe or (self.deep and self._pairwise(shown) == safe):
                continue
            best = (set(self.mines), shown, safe)
            break
        if best is None:  # rare: a board that one-number reasoning also solves
            best = fallback
        self.mines, self.shown, self.safe = best
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = "Name the certainly safe squares."
        return self._render(), {}

    # ------------------------------------------------------------------ text
    def _name(self, cell):
        return f"{COLS[cell[1]]}{cell[0] + 1}"

    def _render(self):
        head = "     " + " ".join(COLS[c] for c in range(self.cols))
        rows = []
        for r in range(self.rows):
            rows.append(f"  {r + 1:>2} " + " ".join(str(self.shown[(r, c)]) if (r, c) in self.shown else "#"
                                                    for c in range(self.cols)))
        return ("MINEFIELD SAFE CELLS\n" + head + "\n" + "\n".join(rows) + "\n"
                "'#' is a covered square; a digit is an uncovered square (never a mine) showing how many of its "
                "up-to-eight neighbours (diagonals included) hold a mine. The total number of mines is not told.\n"
                "Name EXACTLY the covered squares that are certainly safe - empty in every mine layout that fits all "
                "the numbers - e.g. \\boxed{B3 C4 F1} (any order).\n"
                f"Answers left: {self.attempts - self.used}. Last: {self.last}")

    def _parse(self, text):
        cells = []
        for tok in re.findall(r"[A-Za-z]+\d+|[^\s,;]", text):
            m = re.fullmatch(r"([A-Ka-k])(\d{1,2})", tok)
            if not m:
                return None
            r, c = int(m.group(2)) - 1, COLS.index(m.group(1).upper())
            if not (0 <= r < self.rows and 0 <= c < self.cols):
                return None
            cells.append((r, c))
        return sorted(set(cells))

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        cells = self._parse(m.group(1)) if m else None
        if not cells:
            self.last = "Could not read a list of squares (this costs an answer): write e.g. \\boxed{B3 C4 F1}."
        elif cells == self.safe:
            self.done = True
            self.last = "Exactly the certain squares. You win!"
            return self._render(), 1.0, True, False, {}
        else:
            wrong = len([x for x in cells if x not in self.safe])
            missed = len([x for x in self.safe if x not in cells])
            self.last = (f"Not right: {wrong} of the squares you named are not certainly safe, and you missed "
                         f"{missed} certainly safe square(s).")
        self.used += 1
        if self.used >= self.attempts or self.turn >= self.max_turns:
            self.done = True
            self.last += " No answers left: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        return " ".join(self._name(c) for c in self.safe)

    def hint(self):
        return (f"There are {len(self.safe)} certainly safe squares. Single numbers are not enough here: compare two "
                "numbers whose covered neighbours overlap (if one number's covered squares are a subset of "
                "another's, the difference in counts must sit in the squares only the larger one sees), and only "
                "name a square when assuming a mine there contradicts some number.")
