"""Rover with relative controls: drive a robot through a rocky grid to its charging pad using only 'forward n', 'left' and 'right', tracking its heading yourself, on a fuel tank with almost no spare."""

import heapq
import random
import re

HEADINGS = ("north", "east", "south", "west")
DELTA = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
LEVELS = {
    "easy": {"size": 7, "density": 0.22, "cmd": (4, 6), "slack": 4},
    "medium": {"size": 9, "density": 0.26, "cmd": (6, 8), "slack": 2},
    "hard": {"size": 10, "density": 0.28, "cmd": (7, 9), "slack": 1},
}
MAX_FORWARD = 9


class FuelRobotHeadingEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = int(max_turns)
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        cfg = LEVELS[self.difficulty]
        self.size = cfg["size"]
        self.density = cfg["density"]
        self.cmd_range = cfg["cmd"]
        self.slack = cfg["slack"]
        self.rng = random.Random()
        self.rocks = set()
        self.pos = (0, 0)
        self.heading = 0
        self.goal = (0, 0)
        self.fuel = 0
        self.fuel_start = 0
        self.turn = 0
        self.done = False
        self.last = ""
        self.opt = (0, 0)

    # ------------------------------------------------------------------ mechanics
    def _free(self, r, c):
        return 0 <= r < self.size and 0 <= c < self.size and (r, c) not in self.rocks

    def _drive(self, pos, heading, n):
        """Cells actually travelled (the bumper stops the robot in front of a rock or the edge)."""
        dr, dc = DELTA[HEADINGS[heading]]
        r, c = pos
        moved = 0
        for _ in range(n):
            if not self._free(r + dr, c + dc):
                break
            r, c = r + dr, c + dc
            moved += 1
        return (r, c), moved

    def _plan(self, pos, heading):
        """Least fuel, then fewest commands, from (pos, heading) to stopping on the goal: (cost, commands)."""
        start = (pos, heading)
        best = {start: (0, 0)}
        heap = [(0, 0, pos, heading)]
        back = {}
        found = None
        while heap:
            fuel, cmds, p, h = heapq.heappop(heap)
            if best.get((p, h)) != (fuel, cmds):
                continue
            if p == self.goal:
                found = (p, h)
                break
            moves = [("left", p, (h + 3) % 4, 1), ("right", p, (h + 1) % 4, 1)]
            dr, dc = DELTA[HEADINGS[h]]
            r, c = p
            for n in range(1, MAX_FORWARD + 1):
                r, c = r + dr, c + dc
                if not self._free(r, c):
                    break
                moves.append((f"forward {n}", (r, c), h, n))
            for name, np, nh, cost in moves:
                key = (np, nh)
                val = (fuel + cost, cmds + 1)
                if key not in best or val < best[key]:
                    best[key] = val
                    back[key] = ((p, h), name)
                    heapq.heappush(heap, (val[0], val[1], np, nh))
        if found is None:
            return None, []
        path = []
        key = found
        while key != start:
            prev, name = back[key]
            path.append((name, key[0]))
            key = prev
        path.reverse()
        return best[found], path

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        lo, hi = self.cmd_range
        hi = min(hi, max(2, self.max_turns - 3))
        lo = min(lo, hi)
        chosen = None
        fallback = None
        for attempt in range(300):
            n = self.size
            self.rocks = set((r, c) for r in range(n) for c in range(n) if self.rng.random() < self.density)
            free = [(r, c) for r in range(n) for c in range(n) if (r, c) not in self.rocks]
            if len(free) < 2:
                continue
            start, goal = self.rng.sample(free, 2)
            heading = self.rng.randrange(4)
            self.goal = goal
            cost, path = self._plan(start, heading)
            if cost is None:
                continue
            turns = sum(1 for name, _ in path if not name.startswith("forward"))
            if lo <= cost[1] <= hi and turns >= 2:
                chosen = (set(self.rocks), start, heading, goal, cost)
                break
            if cost[1] <= hi and turns >= 1 and (fallback is None or cost[1] > fallback[4][1]):
                fallback = (set(self.rocks), start, heading, goal, cost)
        if chosen is None:
            chosen = fallback
        if chosen is None:  # an open field, practically unreachable
            self.rocks = set()
            chosen = (set(), (0, 0), 0, (self.size - 1, self.size - 1), self._plan((0, 0), 0)[0])
        self.rocks, self.pos, self.heading, self.goal, self.opt = chosen
        self.fuel_start = self.opt[0] + self.slack
        self.fuel = self.fuel_start
        self.turn = 0
        self.done = False
        self.last = "The rover powers up."
        return self._observation(), {}

    def _render(self):
        n = self.size
        lines = ["     " + "".join(f"{c:>2}" for c in range(n))]
        for r in range(n):
            row = []
            for c in range(n):
                if (r, c) == self.pos:
                    ch = "R"
                elif (r, c) == self.goal:
                    ch = "G"
                elif (r, c) in self.rocks:
                    ch = "#"
                else:
                    ch = "."
                row.append(f"{ch:>2}")
            lines.append(f"{r:>3}  " + "".join(row))
        return "\n".join(lines)

    def _observation(self):
        head = (f"Rover | Turn {self.turn}/{self.max_turns} | Fuel {self.fuel}/{self.fuel_start} | "
                f"Position (row {self.pos[0]}, col {self.pos[1]}) | Heading {HEADINGS[self.heading]} | "
                f"Charging pad G at (row {self.goal[0]}, col {self.goal[1]})")
        legend = ("Map: R rover, G charging pad, # rock, . open ground; row 0 is the north edge, col 0 the west "
                  "edge. North = row - 1, east = col + 1.")
        rules = ("Commands (one per turn): \\boxed{forward n} drives n cells (1-9) straight ahead and costs n fuel; "
                 "\\boxed{left} and \\boxed{right} turn the rover 90 degrees on the spot and cost 1 fuel each. "
                 "If a rock or the map edge is in the way, the bumper stops the rover in front of it, but all n "
                 "fuel is still burned. You win when a command ends with the rover standing on G; the rover "
                 "is lost if the fuel runs out first.")
        return "\n".join([head, "Last: " + self.last, legend, self._render(), rules])

    def _parse(self, text):
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return None
        body = match.group(1).strip().lower()
        body = re.sub(r"^turn\s+", "", body)
        if body in ("left", "l", "turn left"):
            return ("left", 0)
        if body in ("right", "r", "turn right"):
            return ("right", 0)
        m = re.fullmatch(r"(?:forward|fwd|f|go|move|drive)\s*(\d{1,2})?\s*(?:cells?|steps?|squares?)?", body)
        if m is None:
            return None
        n = int(m.group(1)) if m.group(1) else 1
        if n < 1 or n > MAX_FORWARD:
            return ("bad", n)
        return ("forward", n)

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        cmd = self._parse(text)
        if cmd is None or cmd[0] == "bad":
            self.last = ("Command not understood (no fuel used). Use \\boxed{forward n} with n from 1 to 9, "
                         "\\boxed{left} or \\boxed{right}.")
            out_of_turns = self.turn >= self.max_turns
            self.done = out_of_turns
            return self._observation(), 0.0, out_of_turns, False, {}
        kind, n = cmd
        if kind == "left":
            self.heading = (self.heading + 3) % 4
            self.fuel -= 1
            self.last = f"left: the rover turns and now faces {HEADINGS[self.heading]} (1 fuel)."
        elif kind == "right":
            self.heading = (self.heading + 1) % 4
            self.fuel -= 1
            self.last = f"right: the rover turns and now faces {HEADINGS[self.heading]} (1 fuel)."
        else:
            start = self.pos
            self.pos, moved = self._drive(self.pos, self.heading, n)
            self.fuel -= n
            if moved < n:
                self.last = (f"forward {n}: BUMP! Something blocked the way after {moved} cell(s); the rover stops "
                             f"at (row {self.pos[0]}, col {self.pos[1]}) and still burns {n} fuel.")
            else:
                self.last = (f"forward {n}: drove from (row {start[0]}, col {start[1]}) to "
                             f"(row {self.pos[0]}, col {self.pos[1]}) ({n} fuel).")
        if self.pos == self.goal:
            self.done = True
            self.last += " The rover docks on the charging pad. You win!"
            return self._observation(), 1.0, True, False, {}
        if self.fuel <= 0:
            self.fuel = 0
            self.done = True
            self.last += " The tank is empty before reaching G. The rover is lost."
            return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def solution(self):
        cost, path = self._plan(self.pos, self.heading)
        if not path:
            return "left"
        return path[0][0]

    def hint(self):
        cost, path = self._plan(self.pos, self.heading)
        if not path:
            return "No route exists."
        turns = sum(1 for name, _ in path if not name.startswith("forward"))
        drives = [cell for name, cell in path if name.startswith("forward")]
        corner = drives[len(drives) // 2 - 1] if len(drives) >= 2 else drives[0]
        return (f"The cheapest route costs {cost[0]} fuel: {turns} quarter-turns plus {cost[0] - turns} cells of "
                f"driving, in {cost[1]} commands; one of its drives ends at (row {corner[0]}, col {corner[1]}). "
                "Before every command, write down the heading you will have after it; a turn the wrong way "
                "costs 2 extra fuel to undo, which this tank cannot afford.")
