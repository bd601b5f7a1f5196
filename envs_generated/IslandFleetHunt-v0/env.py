"""Battleship among islands: a hidden fleet of straight ships lies on a grid dotted with islands; fire one shot per turn, read hit / miss / sunk, and sink every ship before the shells run out."""

import random
import re

LEVELS = {
    "easy": {"size": 7, "islands": 3, "fleet": (3, 3)},
    "medium": {"size": 8, "islands": 4, "fleet": (4, 3)},
    "hard": {"size": 9, "islands": 5, "fleet": (4, 3, 3)},
}
COLS = "ABCDEFGHIJ"
ORTHO = ((0, -1), (0, 1), (-1, 0), (1, 0))       # west, east, north, south: the order shots probe a hit


class IslandFleetHuntEnv:
    def __init__(self, max_turns=45, difficulty="medium", **kwargs):
        self.max_turns = int(max_turns)
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        cfg = LEVELS[self.difficulty]
        self.size = cfg["size"]
        self.n_islands = cfg["islands"]
        self.fleet = tuple(cfg["fleet"])
        self.rng = random.Random()
        self.place_cache = {}
        self.islands = set()
        self.ships = []
        self.shots = {}
        self.sunk = []
        self.sunk_cells = set()
        self.mod = min(self.fleet)
        self.residue = 0
        self.budget = 0
        self.lattice_count = 0
        self.shots_fired = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ geometry
    def _inside(self, r, c):
        return 0 <= r < self.size and 0 <= c < self.size

    def _name(self, cell):
        return f"{COLS[cell[1]]}{cell[0] + 1}"

    def _placements(self, length, cell=None):
        """All straight placements of a ship of this length (optionally only those covering ``cell``); cached."""
        table = self.place_cache.get(length)
        if table is None:
            every = []
            n = self.size
            for horizontal in (True, False):
                for r in range(n):
                    for c in range(n):
                        cells = tuple((r, c + i) if horizontal else (r + i, c) for i in range(length))
                        if all(self._inside(*x) for x in cells):
                            every.append(cells)
            by_cell = {}
            for cells in every:
                for x in cells:
                    by_cell.setdefault(x, []).append(cells)
            table = (every, by_cell)
            self.place_cache[length] = table
        if cell is None:
            return table[0]
        return table[1].get(cell, [])

    def _halo(self, cells):
        out = set()
        for r, c in cells:
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if self._inside(r + dr, c + dc):
                        out.add((r + dr, c + dc))
        return out

    def _excluded(self):
        """Cells that certainly hold no unsunk ship: islands, misses and the ring around every sunk ship."""
        ex = set(self.islands)
        ex |= set(x for x, v in self.shots.items() if v == "miss")
        for ship in self.sunk:
            ex |= self._halo(ship)
        return ex

    def _remaining(self):
        left = list(self.fleet)
        for ship in self.sunk:
            left.remove(len(ship))
        return left

    def _fits(self, cell, excluded, lengths, allow=()):
        """Can some remaining ship lie over ``cell`` given what is known? Hit cells are allowed only in ``allow``."""
        allow = set(allow)
        for length in sorted(set(lengths)):
            for cells in self._placements(length, cell):
                ok = True
                for x in cells:
                    if x in excluded or (x in self.shots and x not in allow):
                        ok = False
                        break
                if ok and allow <= set(cells):
                    return True
        return False

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n = self.size
        cells = [(r, c) for r in range(n) for c in range(n)]
        for _ in range(500):
            self.islands = set(self.rng.sample(cells, self.n_islands))
            ships = []
            blocked = set(self.islands)
            near = set()
            ok = True
            for length in self.fleet:
                options = [p for p in self._placements(length)
                           if not any(x in blocked or x in near for x in p)]
                if not options:
                    ok = False
                    break
                ship = list(self.rng.choice(options))
                ships.append(ship)
                blocked |= set(ship)
                near |= self._halo(ship)
            if ok:
                break
        self.ships = ships
        self.shots = {}
        self.sunk = []
        self.sunk_cells = set()
        self.shots_fired = 0
        self.turn = 0
        self.done = False
        # The hunting lattice: every straight ship of length >= mod covers a cell with (row + col) % mod == k.
        best = None
        for k in range(self.mod):
            count = sum(1 for (r, c) in cells if (r + c) % self.mod == k and (r, c) not in self.islands
                        and self._fits((r, c), self.islands, self.fleet))
            if best is None or count < best[0]:
                best = (count, k)
        self.lattice_count, self.residue = best
        # A proven bound for the search solution() plays: every lattice cell at most once, then at most
        # (length - 1) hits and 3 misses to finish each ship it finds.
        self.budget = min(self.max_turns, self.lattice_count + sum(length + 2 for length in self.fleet))
        self.last = "The fleet is hidden. Open fire when ready."
        return self._observation(), {}

    def _render(self):
        n = self.size
        lines = ["     " + " ".join(COLS[c] for c in range(n))]
        for r in range(n):
            row = []
            for c in range(n):
                cell = (r, c)
                if cell in self.islands:
                    ch = "#"
                elif cell in self.sunk_cells:
                    ch = "S"
                elif self.shots.get(cell) == "hit":
                    ch = "X"
                elif self.shots.get(cell) == "miss":
                    ch = "o"
                else:
                    ch = "."
                row.append(ch)
            lines.append(f"{r + 1:>3}  " + " ".join(row))
        return "\n".join(lines)

    def _observation(self):
        afloat = self._remaining()
        head = (f"Island fleet hunt | Turn {self.turn}/{self.max_turns} | Shots left {self.budget - self.shots_fired}"
                f"/{self.budget} | Ships afloat (lengths): {', '.join(str(x) for x in sorted(afloat, reverse=True))}")
        rules = (f"Hidden fleet: ships of lengths {', '.join(str(x) for x in self.fleet)}, each a straight horizontal "
                 "or vertical line of cells. Ships never cover islands and never touch each other, not even "
                 "diagonally. A hit tells you only that the cell holds a ship; 'sunk' comes when every cell of "
                 "that ship has been hit, and names its length.")
        legend = "Legend: . unknown water, # island, o miss, X hit, S cell of a sunk ship."
        commands = (f"Fire one shot per turn as \\boxed{{column row}}, e.g. \\boxed{{C4}} (columns A-{COLS[self.size - 1]}, "
                    f"rows 1-{self.size}). Firing at a cell you already shot wastes a shell. Sink every ship "
                    "before your shells run out.")
        return "\n".join([head, "Last: " + self.last, self._render(), legend, rules, commands])

    def _parse(self, text):
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return None
        body = match.group(1).strip().upper()
        m = re.fullmatch(r"([A-Z])\s*[-,]?\s*(\d{1,2})", body) or re.fullmatch(r"(\d{1,2})\s*[-,]?\s*([A-Z])", body)
        if m is None:
            return None
        a, b = m.group(1), m.group(2)
        letter, number = (a, b) if a.isalpha() else (b, a)
        col = COLS.find(letter)
        row = int(number) - 1
        if col < 0 or not self._inside(row, col):
            return None
        return (row, col)

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        cell = self._parse(text)
        if cell is None:
            self.last = (f"No valid target read (no shell used). Fire with \\boxed{{C4}}: a column A-"
                         f"{COLS[self.size - 1]} and a row 1-{self.size}.")
            return self._after(0.0, False)
        name = self._name(cell)
        if cell in self.islands:
            self.last = f"{name} is an island; nothing to shoot there (no shell used)."
            return self._after(0.0, False)
        self.shots_fired += 1
        if cell in self.shots:
            self.last = f"{name} was already shot ({self.shots[cell]}). A shell wasted."
        else:
            ship = None
            for s in self.ships:
                if cell in s:
                    ship = s
            if ship is None:
                self.shots[cell] = "miss"
                self.last = f"{name}: miss."
            else:
                self.shots[cell] = "hit"
                if all(self.shots.get(x) == "hit" for x in ship):
                    self.sunk.append(list(ship))
                    self.sunk_cells |= set(ship)
                    self.last = f"{name}: HIT - and sunk! You sank the ship of length {len(ship)}."
                else:
                    self.last = f"{name}: HIT!"
        if len(self.sunk) == len(self.ships):
            self.done = True
            self.last += " The whole fleet is sunk. You win!"
            return self._observation(), 1.0, True, False, {}
        if self.shots_fired >= self.budget:
            self.done = True
            self.last += " That was your last shell; ships are still afloat. You lose."
            return self._observation(), 0.0, True, False, {}
        return self._after(0.0, False)

    def _after(self, reward, terminated):
        out_of_turns = not terminated and self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), reward, terminated or out_of_turns, False, {}  # out of attempts is a loss, not a cut-off

    # ------------------------------------------------------------------ the search solution() plays
    def _next_shot(self):
        excluded = self._excluded()
        lengths = self._remaining()
        cluster = sorted(x for x, v in self.shots.items() if v == "hit" and x not in self.sunk_cells)
        if cluster:
            if len(cluster) == 1:
                h = cluster[0]
                for dr, dc in ORTHO:
                    cell = (h[0] + dr, h[1] + dc)
                    if (self._inside(*cell) and cell not in self.shots and cell not in excluded
                            and self._fits(cell, excluded, lengths, allow=(h,))):
                        return cell
            else:
                horizontal = cluster[0][0] == cluster[-1][0]
                dr, dc = (0, 1) if horizontal else (1, 0)
                first, last = cluster[0], cluster[-1]
                for cell in ((first[0] - dr, first[1] - dc), (last[0] + dr, last[1] + dc)):
                    if self._inside(*cell) and cell not in self.shots and cell not in excluded:
                        return cell
        for r in range(self.size):
            for c in range(self.size):
                cell = (r, c)
                if ((r + c) % self.mod == self.residue and cell not in self.shots and cell not in excluded
                        and self._fits(cell, excluded, lengths)):
                    return cell
        for r in range(self.size):
            for c in range(self.size):
                if (r, c) not in self.shots and (r, c) not in self.islands:
                    return (r, c)
        return (0, 0)

    def solution(self):
        return self._name(self._next_shot())

    def hint(self):
        m = self.mod
        return (f"Number the columns A=1, B=2, ... Every ship is at least {m} long, so each one covers a cell "
                f"whose row number plus column number leaves remainder {(self.residue + 2) % m} when divided "
                f"by {m}; only {self.lattice_count} such cells can hold a ship here. Sweep those first. After a "
                "hit, probe its four neighbours until a second hit fixes the direction, then extend along that "
                "line in both directions until the ship sinks; after a sinking, every cell touching that ship "
                "is empty water.")
