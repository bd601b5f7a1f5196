"""Fog-of-war maze escape: you only ever see the 3x3 block of cells around you, the exit's position is known, and every step burns fuel. Map the cave as you go and reach the exit before the tank runs dry."""

import random
import re
from collections import deque

DIRS = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
ORDER = ("north", "east", "south", "west")
ALIASES = {
    "n": "north", "up": "north", "u": "north", "north": "north",
    "e": "east", "right": "east", "r": "east", "east": "east",
    "s": "south", "down": "south", "d": "south", "south": "south",
    "w": "west", "left": "west", "l": "west", "west": "west",
}
LEVELS = {
    "easy": {"size": 7, "density": 0.30, "lo": 6, "hi": 9, "slack": 8},
    "medium": {"size": 9, "density": 0.33, "lo": 8, "hi": 11, "slack": 6},
    "hard": {"size": 11, "density": 0.35, "lo": 11, "hi": 14, "slack": 5},
}


class FogMazeExitEnv:
    def __init__(self, max_turns=20, difficulty="medium", **kwargs):
        self.max_turns = int(max_turns)
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        cfg = LEVELS[self.difficulty]
        self.size = cfg["size"]
        self.density = cfg["density"]
        self.lo = cfg["lo"]
        self.hi = cfg["hi"]
        self.slack = cfg["slack"]
        self.rng = random.Random()
        self.walls = []
        self.seen = []
        self.pos = (0, 0)
        self.exit = (0, 0)
        self.dist = {}
        self.fuel = 0
        self.fuel_start = 0
        self.turn = 0
        self.done = False
        self.path_len = 0
        self.last = ""

    # ------------------------------------------------------------------ helpers
    def _inside(self, r, c):
        return 0 <= r < self.size and 0 <= c < self.size

    def _open(self, r, c):
        return self._inside(r, c) and not self.walls[r][c]

    def _bfs_from(self, src):
        dist = {src: 0}
        queue = deque([src])
        while queue:
            r, c = queue.popleft()
            for name in ORDER:
                dr, dc = DIRS[name]
                nr, nc = r + dr, c + dc
                if self._open(nr, nc) and (nr, nc) not in dist:
                    dist[(nr, nc)] = dist[(r, c)] + 1
                    queue.append((nr, nc))
        return dist

    def _reveal(self):
        r0, c0 = self.pos
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = r0 + dr, c0 + dc
                if self._inside(r, c):
                    self.seen[r][c] = True

    def _generate(self):
        n = self.size
        limit_hi = min(self.hi, max(2, self.max_turns - 2))
        limit_lo = min(self.lo, limit_hi)
        best = None
        for attempt in range(400):
            walls = [[self.rng.random() < self.density for _ in range(n)] for _ in range(n)]
            self.walls = walls
            cells = [(r, c) for r in range(n) for c in range(n) if not walls[r][c]]
            if len(cells) < 4:
                continue
            ex = self.rng.choice(cells)
            dist = self._bfs_from(ex)
            relaxed = attempt >= 300
            options = []
            for cell, d in dist.items():
                manhattan = abs(cell[0] - ex[0]) + abs(cell[1] - ex[1])
                if limit_lo <= d <= limit_hi and (d >= manhattan + 2 or relaxed):
                    options.append(cell)
            if options:
                start = self.rng.choice(sorted(options))
                return walls, start, ex, dist
            usable = sorted(cell for cell, d in dist.items() if 1 <= d <= limit_hi)
            if usable:
                far = max(usable, key=lambda cell: dist[cell])
                if best is None or dist[far] > best[3][best[1]]:
                    best = (walls, far, ex, dist)
        if best is None:
            walls = [[False] * n for _ in range(n)]
            self.walls = walls
            dist = self._bfs_from((0, 0))
            return walls, (0, 1), (0, 0), dist
        self.walls = best[0]
        return best

    # ------------------------------------------------------------------ api
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        walls, start, ex, dist = self._generate()
        self.walls = walls
        self.pos = start
        self.exit = ex
        self.dist = dist
        self.path_len = dist[start]
        self.fuel_start = min(self.path_len + self.slack, self.max_turns)
        self.fuel = self.fuel_start
        self.turn = 0
        self.done = False
        self.seen = [[False] * self.size for _ in range(self.size)]
        self._reveal()
        self.last = "You wake up in a dark cave. Your lamp lights only the cells right next to you."
        return self._observation(), {}

    def _render(self):
        n = self.size
        lines = ["    " + "".join(f"{c:>3}" for c in range(n))]
        for r in range(n):
            row = []
            for c in range(n):
                if (r, c) == self.pos:
                    ch = "@"
                elif (r, c) == self.exit:
                    ch = "E"
                elif not self.seen[r][c]:
                    ch = "?"
                elif self.walls[r][c]:
                    ch = "#"
                else:
                    ch = "."
                row.append(f"{ch:>3}")
            lines.append(f"{r:>3} " + "".join(row))
        return "\n".join(lines)

    def _observation(self):
        header = (f"Fog maze | Turn {self.turn}/{self.max_turns} | Fuel {self.fuel}/{self.fuel_start} | "
                  f"You at (row {self.pos[0]}, col {self.pos[1]}) | Exit at (row {self.exit[0]}, col {self.exit[1]})")
        legend = ("Map (row 0 is the top, col 0 the left; @ you, E exit, # wall, . open floor, ? not seen yet; "
                  f"everything outside rows/cols 0-{self.size - 1} is solid rock):")
        commands = ("Commands (one per turn): \\boxed{north} (row - 1), \\boxed{south} (row + 1), "
                    "\\boxed{east} (col + 1), \\boxed{west} (col - 1). Every command burns 1 fuel, even when "
                    "a wall blocks it. You see the 8 cells around you after each move. Reach E before the fuel "
                    "runs out.")
        return "\n".join([header, "Last: " + self.last, legend, self._render(), commands])

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        move = None
        if match is not None:
            word = re.sub(r"[^a-z]", "", match.group(1).lower())
            word = word.replace("go", "", 1) if word.startswith("go") and word != "go" else word
            move = ALIASES.get(word)
        if move is None:
            self.last = ("No valid command read (no fuel used). Reply with exactly one of \\boxed{north}, "
                         "\\boxed{south}, \\boxed{east} or \\boxed{west}.")
            out_of_turns = self.turn >= self.max_turns
            if out_of_turns:
                self.done = True
            return self._observation(), 0.0, out_of_turns, False, {}
        self.fuel -= 1
        dr, dc = DIRS[move]
        nr, nc = self.pos[0] + dr, self.pos[1] + dc
        if not self._inside(nr, nc):
            self.last = f"{move}: the cave edge blocks you; you stay at {self.pos} and lose 1 fuel."
        elif self.walls[nr][nc]:
            self.last = f"{move}: a wall at ({nr}, {nc}) blocks you; you stay put and lose 1 fuel."
        else:
            self.pos = (nr, nc)
            self._reveal()
            self.last = f"{move}: you moved to ({nr}, {nc})."
        if self.pos == self.exit:
            self.done = True
            self.last += " You found the exit with fuel to spare. You win!"
            return self._observation(), 1.0, True, False, {}
        if self.fuel <= 0:
            self.done = True
            self.last += " Your fuel is gone: you are stranded in the dark. Game over."
            return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def solution(self):
        here = self.dist.get(self.pos)
        if here is None or here == 0:
            return "north"
        for name in ORDER:
            dr, dc = DIRS[name]
            cell = (self.pos[0] + dr, self.pos[1] + dc)
            if self.dist.get(cell) == here - 1:
                return name
        return "north"

    def hint(self):
        path = [self.pos]
        cur = self.pos
        while self.dist.get(cur, 0) > 0:
            d = self.dist[cur]
            for name in ORDER:
                dr, dc = DIRS[name]
                cell = (cur[0] + dr, cur[1] + dc)
                if self.dist.get(cell) == d - 1:
                    cur = cell
                    break
            path.append(cur)
        length = len(path) - 1
        mid = path[max(1, length // 2)] if length >= 2 else self.exit
        ex = self.exit
        first = path[1] if length >= 1 else self.pos
        before = abs(self.pos[0] - ex[0]) + abs(self.pos[1] - ex[1])
        after = abs(first[0] - ex[0]) + abs(first[1] - ex[1])
        note = ("Its very first step does NOT reduce your straight-line distance to the exit, so the obvious "
                "beeline is a trap." if after >= before else
                "The route still has to swing around walls before the end, so do not trust a pure beeline.")
        return (f"The shortest route from where you stand to the exit is {length} steps long and passes "
                f"through cell (row {mid[0]}, col {mid[1]}) about halfway. {note} Head for that waypoint first.")
