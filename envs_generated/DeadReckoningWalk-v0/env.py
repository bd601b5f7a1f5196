"""Dead-reckoning walk: in fog on an open field you can only turn (left, right, around) or walk forward some
steps. Your facing is told once, at the start; waypoints are announced one at a time by their compass offset
from the START, never from where you stand, and feedback never says where you are or which way you face. Hidden
hedges stop a walk early ("a hedge stops you after 1 step"). Reach every waypoint, in order, within the stated
number of commands."""
import random
import re
from collections import deque

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
DIRS = [(0, 1), (1, 0), (0, -1), (-1, 0)]  # north, east, south, west: turning right adds one
COMPASS = ["north", "east", "south", "west"]
MARKS = ["well", "oak", "cairn", "gate", "shrine", "stump", "bell post", "haystack", "pond", "totem"]
# difficulty -> (waypoints, hedges, largest offset per axis from the start, max_turns)
LEVELS = {"easy": (2, 0, 3, 14), "medium": (3, 1, 4, 24), "hard": (4, 2, 5, 34)}


class DeadReckoningWalkEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        cap = LEVELS[self.difficulty][3]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns >= cap else cap
        self.rng = random.Random()
        self.done = False

    def _walk(self, x, y, h, n):
        dx, dy = DIRS[h]
        for k in range(n):
            if (x + dx, y + dy) in self.hedges:
                return x, y, k
            x, y = x + dx, y + dy
        return x, y, n

    def _plan(self, start, goal, reach):
        """Fewest commands from start (x, y, heading) to stand on goal, knowing the hedges (breadth-first)."""
        prev = {start: None}
        queue = deque([start])
        while queue:
            s = queue.popleft()
            if (s[0], s[1]) == goal:
                path = []
                while prev[s] is not None:
                    s, a = prev[s]
                    path.append(a)
                return path[::-1]
            x, y, h = s
            moves = [((x, y, (h + 3) % 4), "left"), ((x, y, (h + 1) % 4), "right"), ((x, y, (h + 2) % 4), "around")]
            for n in range(1, 2 * reach + 3):
                nx, ny, k = self._walk(x, y, h, n)
                if k < n or max(abs(nx), abs(ny)) > reach + 2:
                    break
                moves.append(((nx, ny, h), f"forward {n}"))
            for t, a in moves:
                if t not in prev:
                    prev[t] = (s, a)
                    queue.append(t)
        return None

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        legs, nh, reach, cap = LEVELS[self.difficulty]
        for _ in range(300):
            self.heading0 = rng.randrange(4)
            pts = []
            while len(pts) < legs:
                p = (rng.randint(-reach, reach), rng.randint(-reach, reach))
                last = pts[-1] if pts else (0, 0)
                # every leg needs both a turn and a walk along each axis, so no leg is one straight line
                if p != (0, 0) and p not in pts and p[0] != last[0] and p[1] != last[1]:
                    pts.append(p)
            self.points = pts
            # hedges sit on a cell of some leg's straight-line routes, so they get in the way of a careless plan
            self.hedges = set()
            for _ in range(nh):
                i = rng.randrange(legs)
                a = pts[i - 1] if i else (0, 0)
                b = pts[i]
                c = rng.choice([(b[0], a[1]), (a[0], b[1])])
                cells = [(x, c[1]) for x in range(min(a[0], b[0]), max(a[0], b[0]) + 1)] + [
                    (c[0], y) for y in range(min(a[1], b[1]), max(a[1], b[1]) + 1)]
                cells = [q for q in cells if q not in pts and q != (0, 0)]
                if cells:
                    self.hedges.add(rng.choice(cells))
            state, total, ok = (0, 0, self.heading0), 0, True
            for p in pts:
                path = self._plan(state, p, reach)
                if path is None:
                    ok = False
                    break
                for a in path:
                    state = self._apply(state, a)[0]
                total += len(path)
            self.budget = total + legs + 3 * len(self.hedges)
            if ok and self.budget <= cap:
                break
        self.state = (0, 0, self.heading0)
        self.leg = 0
        self.used = 0
        self.done = False
        self.names = rng.sample(MARKS, legs)
        return ("DEAD-RECKONING WALK\n"
                f"Fog hides everything. You stand at the START facing {COMPASS[self.heading0]}. Commands: "
                "\\boxed{left}, \\boxed{right}, \\boxed{around} (turn in place) and \\boxed{forward N} (walk N "
                "steps straight ahead). Nobody will tell you your position or your facing again: keep track of "
                "them yourself. Hidden hedges may stop a walk early. Waypoints are given by their offset from the "
                f"START. Reach all {legs} waypoints in order (stop exactly on each) within {self.budget} commands.\n"
                + self._next()), {}

    def _next(self):
        x, y = self.points[self.leg]
        ew = f"{abs(x)} step{'s' if abs(x) != 1 else ''} {'east' if x > 0 else 'west'}"
        ns = f"{abs(y)} step{'s' if abs(y) != 1 else ''} {'north' if y > 0 else 'south'}"
        parts = [ew, ns] if self.rng.random() < 0.5 else [ns, ew]
        return f"Next waypoint: the {self.names[self.leg]}, {parts[0]} and {parts[1]} of the START."

    def _apply(self, state, act):
        x, y, h = state
        if act == "left":
            return (x, y, (h + 3) % 4), "You turn left."
        if act == "right":
            return (x, y, (h + 1) % 4), "You turn right."
        if act == "around":
            return (x, y, (h + 2) % 4), "You turn around."
        n = int(act.split()[1])
        nx, ny, k = self._walk(x, y, h, n)
        if k < n:
            return (nx, ny, h), f"A hedge stops you after {k} step{'s' if k != 1 else ''}."
        return (nx, ny, h), f"You walk {n} step{'s' if n != 1 else ''}."

    def step(self, action):
        if self.done:
            return "The walk is over.", 0.0, True, False, {}
        boxes = BOX_RE.findall(str(action)[:5000])
        text = " ".join(boxes[0].strip().lower().split()) if len(boxes) == 1 else ""
        if not re.fullmatch(r"left|right|around|forward [1-9]\d?", text):
            self.done = True
            return "That is not one command. You are lost in the fog: the game is over.", 0.0, True, False, {}
        self.used += 1
        self.state, msg = self._apply(self.state, text)
        if (self.state[0], self.state[1]) == self.points[self.leg] and text.startswith("forward"):
            msg += f" You have reached the {self.names[self.leg]}."
            self.leg += 1
            if self.leg == len(self.points):
                self.done = True
                return msg + " Every waypoint reached: you win!", 1.0, True, False, {}
            msg += "\n" + self._next()
        if self.used >= self.budget:
            self.done = True
            return msg + " You are out of commands: the game is over.", 0.0, True, False, {}
        return msg + f" Commands left: {self.budget - self.used}.", 0.0, False, False, {}

    def solution(self):
        reach = LEVELS[self.difficulty][2]
        path = self._plan(self.state, self.points[min(self.leg, len(self.points) - 1)], reach + 4)
        return path[0] if path else "forward 1"

    def hint(self):
        # no command word may appear here: a hint that spells a command hands a script its next move
        return (f"Keep a running position (east, north) and facing, starting from {COMPASS[self.heading0]}; a "
                "clockwise turn goes north, east, south, west. For each waypoint subtract your position from its "
                "offset, face along one axis and walk that distance, then do the other axis. When a hedge stops "
                "you, note how far you got and go round it by covering the other axis first. "
                f"{len(self.hedges)} hedge(s) hide on the field.")
