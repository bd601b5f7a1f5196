"""Mirror maze: a square room drawn as a grid holds two-sided diagonal mirrors ('/' and '\\'); a laser beam
enters through a numbered port on the wall and bounces from mirror to mirror; name the port where it leaves."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (grid size, mirrors, fewest bounces)
LEVELS = {"easy": (5, 6, 3), "medium": (7, 12, 5), "hard": (9, 20, 8)}
DIRS = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
# '/' turns a beam moving east to north, north to east, west to south, south to west; '\\' mirrors that
SLASH = {"E": "N", "N": "E", "W": "S", "S": "W"}
BACK = {"E": "S", "S": "E", "W": "N", "N": "W"}


class MirrorLaserEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.n = 5
        self.grid = []
        self.entry = ""
        self._exit = ""
        self._bounces = 0
        self.turn = 0
        self.done = False

    def _ports(self):
        """Port label -> (row, col, direction the beam moves when entering there)."""
        n = self.n
        ports = {}
        for c in range(n):
            ports[f"T{c + 1}"] = (0, c, "S")
            ports[f"B{c + 1}"] = (n - 1, c, "N")
        for r in range(n):
            ports[f"L{r + 1}"] = (r, 0, "E")
            ports[f"R{r + 1}"] = (r, n - 1, "W")
        return ports

    def _trace(self, start):
        r, c, d = self._ports()[start]
        bounces = 0
        for _ in range(4 * self.n * self.n + 8):
            cell = self.grid[r][c]
            if cell == "/":
                d = SLASH[d]
                bounces += 1
            elif cell == "\\":
                d = BACK[d]
                bounces += 1
            dr, dc = DIRS[d]
            nr, nc = r + dr, c + dc
            if not (0 <= nr < self.n and 0 <= nc < self.n):
                side = {"N": "T", "S": "B", "W": "L", "E": "R"}[d]
                index = c + 1 if side in "TB" else r + 1
                return f"{side}{index}", bounces
            r, c = nr, nc
        return None, bounces

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        self.n, k, need = LEVELS[self.difficulty]
        labels = sorted(self._ports())
        for _ in range(300):
            self.grid = [["." for _ in range(self.n)] for _ in range(self.n)]
            cells = rng.sample([(r, c) for r in range(self.n) for c in range(self.n)], k)
            for r, c in cells:
                self.grid[r][c] = rng.choice("/\\")
            self.entry = rng.choice(labels)
            out, bounces = self._trace(self.entry)
            # a long path, and not the port straight across (what a beam without mirrors would do)
            straight = {"T": "B", "B": "T", "L": "R", "R": "L"}[self.entry[0]] + self.entry[1:]
            if out is not None and bounces >= need and out != straight and out != self.entry:
                break
        self._exit, self._bounces = out, bounces
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        n = self.n
        head = "     " + " ".join(str(c + 1) for c in range(n))
        rows = [head, "    " + "T" * 0 + " ".join("v" for _ in range(n))]
        rows = [f"      {' '.join(str(c + 1) for c in range(n))}   (top ports T1..T{n}, bottom ports B1..B{n})"]
        for r in range(n):
            rows.append(f"  L{r + 1:<2} " + " ".join(self.grid[r]) + f"  R{r + 1}")
        return ("MIRROR MAZE\n" + "\n".join(rows) + "\n"
                "'.' is empty floor; '/' and '\\' are two-sided mirrors standing diagonally in their square. A beam "
                "moving east that meets '/' turns north (and north turns east, west turns south, south turns west); "
                "'\\' turns east into south, south into east, west into north and north into west. Ports sit on the "
                "walls: T (top) and B (bottom) by column, L (left) and R (right) by row.\n"
                f"A laser fires into the room through port {self.entry}. Through which port does the beam leave?\n"
                f"Answer with the port label, e.g. \\boxed{{R3}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = re.sub(r"\s+", "", m.group(1)).upper() if m else ""
        if guess == self._exit:
            self.done = True
            return "Correct: the beam leaves there. You win!", 1.0, True, False, {}
        if not guess:
            msg = "No port found: answer like \\boxed{R3}."
        elif guess not in self._ports():
            msg = f"'{guess[:10]}' is not a port of this room."
        else:
            msg = f"The beam does not leave through {guess}."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._exit

    def hint(self):
        r, c, d = self._ports()[self.entry]
        first = None
        for _ in range(self.n):
            if self.grid[r][c] != ".":
                first = (r, c)
                break
            dr, dc = DIRS[d]
            r, c = r + dr, c + dc
            if not (0 <= r < self.n and 0 <= c < self.n):
                break
        where = (f"the first mirror it meets is in row {first[0] + 1}, column {first[1] + 1}"
                 if first else "it meets no mirror on its first straight run")
        return (f"Trace the beam one square at a time and write down its heading after every mirror; {where}, and "
                f"it bounces {self._bounces} times in all before it leaves.")
