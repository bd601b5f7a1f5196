"""Lattice paths: a city grid has some blocked crossings; count the shortest routes (only east and north moves)
from the south-west corner to the north-east corner that avoid every blocked crossing and pass through a
required checkpoint."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (width, height, blocked crossings, checkpoint required)
LEVELS = {"easy": (4, 3, 2, False), "medium": (6, 5, 4, False), "hard": (8, 6, 6, True)}


class LatticePathsEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.w = 4
        self.h = 3
        self.blocked = set()
        self.check = None
        self._answer = 0
        self.turn = 0
        self.done = False

    def _count(self, start, end, blocked):
        (x0, y0), (x1, y1) = start, end
        ways = {}
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                if (x, y) in blocked:
                    ways[(x, y)] = 0
                elif (x, y) == start:
                    ways[(x, y)] = 1
                else:
                    ways[(x, y)] = ways.get((x - 1, y), 0) + ways.get((x, y - 1), 0)
        return ways[end]

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        self.w, self.h, nb, need_check = LEVELS[self.difficulty]
        corners = {(0, 0), (self.w, self.h)}
        for _ in range(200):
            cells = [(x, y) for x in range(self.w + 1) for y in range(self.h + 1) if (x, y) not in corners]
            self.blocked = set(rng.sample(cells, nb))
            self.check = rng.choice([c for c in cells if c not in self.blocked]) if need_check else None
            if self.check:
                total = self._count((0, 0), self.check, self.blocked) * self._count(self.check, (self.w, self.h),
                                                                                    self.blocked)
            else:
                total = self._count((0, 0), (self.w, self.h), self.blocked)
            free = self._count((0, 0), (self.w, self.h), set())
            if total > 1 and total != free:
                break
        self._answer = total
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        rows = []
        for y in range(self.h, -1, -1):
            cells = []
            for x in range(self.w + 1):
                c = (x, y)
                cells.append("S" if c == (0, 0) else "E" if c == (self.w, self.h) else "X" if c in self.blocked
                             else "C" if c == self.check else "+")
            rows.append("  " + " - ".join(cells))
            if y:
                rows.append("  " + "   ".join("|" for _ in range(self.w + 1)))
        check = (" The route must pass through the checkpoint C." if self.check else "")
        return ("LATTICE PATHS\n"
                "Streets run east-west and north-south; '+' is a crossing, X a blocked crossing (no route may pass "
                "through it), S the start (south-west corner) and E the end (north-east corner). North is up.\n"
                + "\n".join(rows) + "\n"
                f"How many different routes lead from S to E moving only east or north one block at a time, never "
                f"through a blocked crossing?{check}\n"
                f"Answer with the number, e.g. \\boxed{{42}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        raw = re.sub(r"[,\s]", "", m.group(1)) if m else ""
        if re.fullmatch(r"\d{1,9}", raw) and int(raw) == self._answer:
            self.done = True
            return "Correct: that is the number of routes. You win!", 1.0, True, False, {}
        msg = "No number found inside \\boxed{...}." if not m else "That is not the number of routes."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        return ("Write a number at every crossing: the routes reaching it equal the routes reaching the crossing to "
                "its west plus the one to its south, and a blocked crossing gets 0. Fill the grid row by row from S"
                + (", and multiply the count from S to C by the count from C to E." if self.check else "."))
