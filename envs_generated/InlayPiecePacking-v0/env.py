"""Inlay piece packing: a drawn board (some cells blocked) and a set of lettered polyomino pieces that must
cover every open cell exactly once. Each turn places one piece (any rotation or mirror image) by naming the
cells it covers, and the updated board is shown; a piece placed where the rest can no longer fit can be taken
back with an undo, but every action uses one of the few turns, so the placements must be planned."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
COLS = "abcdefgh"
LETTERS = "ABCDEFGH"
# difficulty -> (rows, cols, pieces, piece sizes, spare turns, most tilings allowed)
LEVELS = {
    "easy": (4, 4, 3, (4, 5), 3, 1),
    "medium": (4, 5, 4, (4, 5), 2, 1),
    "hard": (5, 5, 5, (4, 5), 2, 1),
}


def normalise(cells):
    r0 = min(r for r, c in cells)
    c0 = min(c for r, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


ORIENTATIONS = {}  # normalised shape -> its orientations (the few polyomino shapes recur in every draw)


def orientations(cells):
    """All distinct rotations and mirror images of a shape, each normalised to its top-left corner."""
    key = normalise(cells)
    if key not in ORIENTATIONS:
        ORIENTATIONS[key] = _orientations(key)
    return ORIENTATIONS[key]


def _orientations(cells):
    out = []
    shape = list(cells)
    for mirror in range(2):
        for _ in range(4):
            shape = [(c, -r) for r, c in shape]
            form = normalise(shape)
            if form not in out:
                out.append(form)
        shape = [(r, -c) for r, c in shape]
    return out


def canonical(cells):
    return min(orientations(cells))


class InlayPiecePackingEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rows, self.cols, self.n_pieces, self.sizes, self.spare, self.most = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, self.n_pieces + self.spare)
        self.turn_budget = self.n_pieces + self.spare
        self.rng = random.Random()
        self.open = set()
        self.pieces = {}
        self.forms = {}
        self.cover = {}
        self.placed = []
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ geometry (cells as bits of an int)
    def _bit(self, cell):
        return 1 << (cell[0] * self.cols + cell[1])

    def _mask(self, cells):
        m = 0
        for cell in cells:
            m |= self._bit(cell)
        return m

    def _cells(self, mask):
        return [(i // self.cols, i % self.cols) for i in range(self.rows * self.cols) if mask >> i & 1]

    def _placements(self, letter, empty):
        """Every way to put piece `letter` on the cells of mask `empty`, as masks."""
        out = []
        for cell in self._cells(empty):
            for m in self._covering(letter, empty, cell):
                if m not in out:
                    out.append(m)
        return out

    def _covering(self, letter, empty, cell):
        """Placements (masks) of `letter` on the cells of mask `empty` that cover `cell`. The placements inside the
        whole region are worked out once per (piece, cell), when a search first asks, and only filtered after."""
        key = (letter, cell)
        if key not in self.cover:
            found = []
            r, c = cell
            for form in self.forms[letter]:
                for dr, dc in form:
                    cells = [(r - dr + er, c - dc + ec) for er, ec in form]
                    if all(x in self.open for x in cells):
                        m = self._mask(cells)
                        if m not in found:
                            found.append(m)
            self.cover[key] = found
        return [m for m in self.cover[key] if m & empty == m]

    def _low(self, mask):
        i = (mask & -mask).bit_length() - 1
        return (i // self.cols, i % self.cols)

    def _count_tilings(self, empty, left, cap):
        """How many ways the pieces in `left` tile mask `empty` exactly (stops counting at `cap`)."""
        if not empty:
            return 1
        cell = self._low(empty)
        total = 0
        for letter in left:
            for m in self._covering(letter, empty, cell):
                total += self._count_tilings(empty & ~m, [x for x in left if x != letter], cap - total)
                if total >= cap:
                    return total
        return total

    def _first_tiling(self, empty, left):
        if not empty:
            return []
        cell = self._low(empty)
        for letter in left:
            for m in self._covering(letter, empty, cell):
                rest = self._first_tiling(empty & ~m, [x for x in left if x != letter])
                if rest is not None:
                    return [(letter, m)] + rest
        return None

    # ------------------------------------------------------------------ heuristics the task must defeat
    def _greedy_can_win(self, empty, left, rule, budget):
        """Can a no-backtracking greedy of kind `rule` finish, for SOME way of breaking its ties? `budget` is a
        one-element list counting explored states (a task that needs too many is treated as beaten)."""
        budget[0] -= 1
        if budget[0] < 0:
            return True
        if not empty:
            return True
        if rule == "topleft":
            cell = self._low(empty)
            for letter in left:
                options = self._covering(letter, empty, cell)
                if options:
                    return any(self._greedy_can_win(empty & ~o, [x for x in left if x != letter], rule, budget)
                               for o in options)
            return False
        letter = left[0]  # "listed" and "largest" get `left` pre-sorted in their piece order
        options = self._placements(letter, empty)
        if not options:
            return False
        first = min(o & -o for o in options)  # the placement(s) starting at the earliest cell, row by row
        tied = [o for o in options if o & -o == first]
        return any(self._greedy_can_win(empty & ~o, left[1:], rule, budget) for o in tied)

    def _beaten(self):
        letters = list(self.pieces)
        largest = sorted(letters, key=lambda x: -len(self.pieces[x]))
        for rule, order in (("listed", letters), ("largest", largest), ("topleft", letters)):
            if self._greedy_can_win(self._mask(self.open), order, rule, [400]):
                return True
        return False

    # ------------------------------------------------------------------ drawing a task
    def _partition(self):
        """Cut a random region of the board into connected pieces with distinct shapes; None on failure."""
        cells = [(r, c) for r in range(self.rows) for c in range(self.cols)]
        free = set(cells)
        pieces = []
        shapes = set()
        for _ in range(self.n_pieces):
            for _try in range(6):
                size = self.rng.choice(self.sizes)
                # start each piece at a free cell near the top-left, so the pieces pack together
                start = min(free, key=lambda rc: (rc[0] + rc[1] + self.rng.random() * 2.5, rc))
                piece = {start}
                while len(piece) < size:
                    border = sorted({(r + dr, c + dc) for r, c in piece
                                     for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))} & free - piece)
                    if not border:
                        break
                    piece.add(self.rng.choice(border))
                if len(piece) == size and canonical(piece) not in shapes:
                    break
            else:
                return None
            shapes.add(canonical(piece))
            free -= piece
            pieces.append(piece)
        return pieces

    def _draw(self):
        for _ in range(800):
            parts = self._partition()
            if parts is None:
                continue
            order = list(range(len(parts)))
            self.rng.shuffle(order)
            self.pieces = {}
            self.forms = {}
            self.open = set()
            for letter, k in zip(LETTERS, order):
                shape = canonical(parts[k])
                # show each piece in a random orientation, so its drawing does not give its placement away
                self.pieces[letter] = self.rng.choice(orientations(shape))
                self.forms[letter] = orientations(shape)
                self.open |= parts[k]
            self.cover = {}
            left = list(self.pieces)
            if self._count_tilings(self._mask(self.open), left, self.most + 1) > self.most:
                continue
            if self._beaten():
                continue
            return True
        return False

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._draw()
        self.placed = []
        self.turn = 0
        self.done = False
        return self._render("Place your first piece."), {}

    # ------------------------------------------------------------------ text
    def _empty(self):
        used = set()
        for _, cells in self.placed:
            used |= cells
        return frozenset(self.open - used)

    def _board(self):
        owner = {}
        for letter, cells in self.placed:
            for cell in cells:
                owner[cell] = letter
        lines = ["     " + " ".join(COLS[c] for c in range(self.cols))]
        for r in range(self.rows):
            row = []
            for c in range(self.cols):
                if (r, c) not in self.open:
                    row.append("#")
                else:
                    row.append(owner.get((r, c), "."))
            lines.append(f"  {r + 1:>2} " + " ".join(row))
        return "\n".join(lines)

    def _piece_text(self, letter):
        form = self.pieces[letter]
        h = max(r for r, c in form) + 1
        w = max(c for r, c in form) + 1
        rows = ["".join("X" if (r, c) in form else "." for c in range(w)) for r in range(h)]
        return rows

    def _render(self, last):
        left = [x for x in self.pieces if x not in {p for p, _ in self.placed}]
        blocks = [[f"{x} ({len(self.pieces[x])})"] + self._piece_text(x) for x in left]
        height = max([len(b) for b in blocks] or [0])
        width = [max(len(s) for s in b) + 3 for b in blocks]
        shelf = []
        for i in range(height):
            shelf.append("  " + "".join((b[i] if i < len(b) else "").ljust(w) for b, w in zip(blocks, width)).rstrip())
        turns_left = self.turn_budget - self.turn
        return ("INLAY PIECE PACKING\n"
                "Cover every open cell ('.') of the board with the pieces below, each piece used exactly once and no "
                "two pieces overlapping; '#' cells are blocked. A piece may be rotated and mirrored.\n"
                "Actions (one per turn): \\boxed{P: a1 b1 b2 c2} places piece P on exactly those cells (column letter, "
                "row number; they must be open, empty and form that piece's shape); \\boxed{undo} takes back your "
                "most recent piece. Every action, even a rejected one, uses a turn; when the turns left are fewer "
                "than the pieces still to place, the packing has failed.\n"
                "Board:\n" + self._board() + "\n"
                "Pieces still to place (X marks the piece's cells, drawn in one orientation):\n"
                + ("\n".join(shelf) if left else "  (none)") + "\n"
                f"Turns left: {turns_left}.\n"
                f"Last: {last}")

    def _parse(self, body):
        m = re.fullmatch(r"\s*([A-Za-z])\s*[:=]\s*(.*)", body)
        if not m:
            return None, None, "Write a placement as \\boxed{P: a1 b1 b2 c2} or \\boxed{undo}."
        letter = m.group(1).upper()
        if letter not in self.pieces:
            return None, None, f"There is no piece {letter}."
        if letter in {p for p, _ in self.placed}:
            return None, None, f"Piece {letter} is already on the board (undo it first to move it)."
        names = re.findall(r"[A-Za-z]+\d+|\S+", m.group(2).replace(",", " "))
        cells = set()
        for name in names[:40]:
            nm = re.fullmatch(r"([A-Za-z])(\d{1,2})", name)
            if not nm or nm.group(1).lower() not in COLS[:self.cols] or not 1 <= int(nm.group(2)) <= self.rows:
                return None, None, f"'{name[:12]}' is not a cell of the board."
            cells.add((int(nm.group(2)) - 1, COLS.index(nm.group(1).lower())))
        if len(names) != len(cells) or len(cells) != len(self.pieces[letter]):
            return None, None, f"Piece {letter} covers {len(self.pieces[letter])} distinct cells."
        if not cells <= self.open:
            return None, None, "Some of those cells are blocked."
        if not cells <= self._empty():
            return None, None, "Some of those cells are already covered."
        if normalise(cells) not in self.forms[letter]:
            return None, None, f"Those cells do not form the shape of piece {letter}."
        return letter, frozenset(cells), ""

    def step(self, action):
        if self.done:
            return "The packing is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        body = m.group(1).strip() if m else ""
        if body.lower() == "undo":
            if self.placed:
                letter, _ = self.placed.pop()
                last = f"Took piece {letter} back off the board."
            else:
                last = "Nothing to undo (turn used)."
        elif not m:
            last = "No action read (turn used): \\boxed{P: a1 b1 b2 c2} or \\boxed{undo}."
        else:
            letter, cells, why = self._parse(body)
            if letter is None:
                last = "Rejected (turn used): " + why
            else:
                self.placed.append((letter, cells))
                last = f"Placed piece {letter}."
                if not self._empty():
                    self.done = True
                    return self._render(last + " Every open cell is covered: packing complete!"), 1.0, True, False, {}
        turns_left = self.turn_budget - self.turn
        to_place = len(self.pieces) - len(self.placed)
        if turns_left < to_place:
            self.done = True
            return self._render(last + " Too few turns are left to place the remaining pieces: packing failed."), \
                0.0, True, False, {}
        return self._render(last), 0.0, False, False, {}

    def _name(self, cells):
        return " ".join(f"{COLS[c]}{r + 1}" for r, c in sorted(cells))

    def solution(self):
        empty = self._mask(self._empty())
        left = [x for x in self.pieces if x not in {p for p, _ in self.placed}]
        plan = self._first_tiling(empty, left)
        if plan is None:
            return "\\boxed{undo}"
        letter, m = plan[0]
        return "\\boxed{" + letter + ": " + self._name(self._cells(m)) + "}"

    def hint(self):
        plan = self._first_tiling(self._mask(self.open), list(self.pieces))
        corner = min(self.open)
        letter = next(p for p, m in plan if m & self._bit(corner))
        return (f"The open cell {COLS[corner[1]]}{corner[0] + 1} (the top-left one) is covered by piece {letter}. "
                "Work from the most constrained cells (corners, dead-end pockets next to blocked cells) and check "
                "before each placement that every enclosed empty area still has a size the remaining pieces can fill.")
