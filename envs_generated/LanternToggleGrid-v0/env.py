"""Lantern toggle grid: a courtyard of lanterns laid out in a grid, some lit; pressing a lantern's switch
flips that lantern and a fixed pattern of others around it (the pattern is drawn, and it differs from
courtyard to courtyard). Name the set of switches whose presses put every lantern out. Each press is its
own flip, so the puzzle is a system of parity equations; the courtyard is built so exactly one set works."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
COLS = "ABCDEFGH"
# the press patterns: offsets (dr, dc) a press flips, and whether the pattern wraps around the edges
SHAPES = {
    "plus": ([(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)], False),
    "cross": ([(0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)], False),
    "ring": ([(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)], False),
    "tee": ([(0, 0), (0, -1), (0, 1), (1, 0)], False),
    "wrap-plus": ([(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)], True),
    "knight": ([(0, 0), (-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)], False),
}
# difficulty -> (rows, cols, shapes drawn from, presses in the answer (low, high))
LEVELS = {
    "easy": (3, 4, ("plus", "tee", "cross"), (4, 6)),
    "medium": (4, 5, ("plus", "cross", "ring", "tee", "wrap-plus"), (6, 9)),
    "hard": (5, 5, ("cross", "ring", "tee", "wrap-plus", "knight"), (8, 12)),
}


class LanternToggleGridEnv:
    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rows, self.cols, self.shapes, self.press_range = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, 2)
        self.attempts = 2
        self.rng = random.Random()
        self.shape = "plus"
        self.lit = set()
        self.answer = []
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ mechanics
    def _flips(self, cell, shape):
        offsets, wrap = SHAPES[shape]
        out = set()
        for dr, dc in offsets:
            r, c = cell[0] + dr, cell[1] + dc
            if wrap:
                r, c = r % self.rows, c % self.cols
            if 0 <= r < self.rows and 0 <= c < self.cols:
                out ^= {(r, c)}
        return out

    def _cells(self):
        return [(r, c) for r in range(self.rows) for c in range(self.cols)]

    def _full_rank(self, shape):
        """The press matrix is invertible over GF(2) exactly when every lit pattern has one answer."""
        cells = self._cells()
        index = {cell: i for i, cell in enumerate(cells)}
        rows = []
        for cell in cells:
            mask = 0
            for f in self._flips(cell, shape):
                mask |= 1 << index[f]
            rows.append(mask)
        rank = 0
        for bit in range(len(cells)):
            pivot = next((i for i in range(rank, len(rows)) if rows[i] >> bit & 1), None)
            if pivot is None:
                return False
            rows[rank], rows[pivot] = rows[pivot], rows[rank]
            for i in range(len(rows)):
                if i != rank and rows[i] >> bit & 1:
                    rows[i] ^= rows[rank]
            rank += 1
        return True

    def _apply(self, presses):
        lit = set(self.lit)
        for cell in presses:
            lit ^= self._flips(cell, self.shape)
        return lit

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        shapes = [s for s in self.shapes if self._full_rank(s)]
        self.shape = self.rng.choice(shapes)
        lo, hi = self.press_range
        for _ in range(200):
            presses = sorted(self.rng.sample(self._cells(), self.rng.randint(lo, hi)))
            lit = set()
            for cell in presses:
                lit ^= self._flips(cell, self.shape)
            # a board whose lit lanterns are themselves the presses would let "press what is lit" win
            if len(lit) >= 3 and lit != set(presses) and len(lit & set(presses)) < len(presses) - 1:
                break
        self.lit, self.answer = lit, presses
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = "Name your set of switches."
        return self._render(), {}

    # ------------------------------------------------------------------ text
    def _name(self, cell):
        return f"{COLS[cell[1]]}{cell[0] + 1}"

    def _pattern(self):
        offsets, wrap = SHAPES[self.shape]
        span = max(max(abs(dr), abs(dc)) for dr, dc in offsets)
        lines = []
        for dr in range(-span, span + 1):
            row = []
            for dc in range(-span, span + 1):
                if (dr, dc) == (0, 0):
                    row.append("X" if (0, 0) in offsets else "o")
                else:
                    row.append("x" if (dr, dc) in offsets else ".")
            lines.append("    " + " ".join(row))
        centre = ("the pressed lantern itself flips too ('X')" if (0, 0) in offsets
                  else "the pressed lantern itself does NOT flip ('o')")
        edge = ("the pattern wraps around the edges (off the right edge continues at the left, off the bottom at "
                "the top)" if wrap else "parts of the pattern that fall outside the courtyard are simply lost")
        return "\n".join(lines) + f"\n  ({centre}; {edge})"

    def _render(self):
        head = "     " + " ".join(COLS[c] for c in range(self.cols))
        rows = [f"  {r + 1:>2} " + " ".join("#" if (r, c) in self.lit else "." for c in range(self.cols))
                for r in range(self.rows)]
        return ("LANTERN TOGGLE GRID\n" + head + "\n" + "\n".join(rows) + "\n"
                "'#' is a lit lantern, '.' a dark one. Pressing the switch at a lantern flips every lantern "
                "marked 'x' (and 'X') in this pattern, centred on the pressed one:\n" + self._pattern() + "\n"
                "Flipping turns a lit lantern dark and a dark one lit; pressing the same switch twice undoes it. "
                "Name the switches to press so that every lantern ends dark, e.g. \\boxed{A1 C2 D3} "
                f"(any order). Answers left: {self.attempts - self.used}. Last: {self.last}")

    def _parse(self, text):
        tokens = re.findall(r"[A-Za-z]+\d+|\S", text)
        cells = []
        for tok in tokens:
            m = re.fullmatch(r"([A-Ha-h])(\d{1,2})", tok)
            if not m:
                if tok in ",;":
                    continue
                return None
            r, c = int(m.group(2)) - 1, COLS.index(m.group(1).upper())
            if not (0 <= r < self.rows and 0 <= c < self.cols):
                return None
            cells.append((r, c))
        return cells

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        cells = self._parse(m.group(1)) if m else None
        if m is None or cells is None or not cells:
            self.last = ("Could not read a set of switches (this costs an answer): write cells like "
                         "\\boxed{A1 C2 D3}.")
        else:
            left = self._apply(cells)
            if not left:
                self.done = True
                self.last = "Every lantern is dark. You win!"
                return self._render(), 1.0, True, False, {}
            self.last = f"Those presses leave {len(left)} lantern(s) lit."
        self.used += 1
        if self.used >= self.attempts or self.turn >= self.max_turns:
            self.done = True
            self.last += " No answers left: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        return " ".join(self._name(c) for c in sorted(self.answer, key=lambda x: (x[1], x[0])))

    def hint(self):
        return (f"Exactly {len(self.answer)} switches are pressed, each once. Write one parity equation per "
                "lantern (the switches whose pattern covers it must be pressed an odd number of times if it is lit, "
                "an even number if dark) and eliminate over the whole grid: pressing every lit lantern, or chasing the "
                "lights row by row, does not solve these courtyards.")
