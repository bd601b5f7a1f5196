"""Rolling die: a standard die (opposite faces add up to 7) starts on a board with a known top, north and east
face, then tips over its edges along a path of moves; say which faces are on top and facing north at the end."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (moves, blocked turns: moves given as 'turn left/right then roll')
LEVELS = {"easy": (4, False), "medium": (7, False), "hard": (10, True)}
NAMES = {"N": "north", "S": "south", "E": "east", "W": "west"}
LEFT = {"N": "W", "W": "S", "S": "E", "E": "N"}
RIGHT = {v: k for k, v in LEFT.items()}


def roll(die, d):
    top, north, east = die
    bottom, south, west = 7 - top, 7 - north, 7 - east
    if d == "N":
        return (south, top, east)
    if d == "S":
        return (north, bottom, east)
    if d == "E":
        return (west, north, top)
    return (east, north, bottom)


class DieRollEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.start = (1, 2, 3)
        self.path = []
        self.text_moves = []
        self._answer = (1, 2)
        self._relative = False
        self.turn = 0
        self.done = False

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        k, relative = LEVELS[self.difficulty]
        for _ in range(100):
            top = rng.randint(1, 6)
            north = rng.choice([x for x in range(1, 7) if x not in (top, 7 - top)])
            # east follows from the right-handed layout of a standard die: 1-2-3 counterclockwise about the corner
            east = self._east(top, north)
            self.start = (top, north, east)
            heading = rng.choice("NESW")
            self.path, self.text_moves = [], []
            for _ in range(k):
                if relative:
                    turn = rng.choice(["straight", "left", "right"])
                    heading = {"straight": heading, "left": LEFT[heading], "right": RIGHT[heading]}[turn]
                    self.text_moves.append(f"{turn} then roll" if turn != "straight" else "roll straight on")
                else:
                    heading = rng.choice("NESW")
                    self.text_moves.append(f"roll {NAMES[heading]}")
                self.path.append(heading)
            die = self.start
            for d in self.path:
                die = roll(die, d)
            if (die[0], die[1]) != (top, north):
                break
        self._answer = (die[0], die[1])
        self._relative = relative
        self.turn = 0
        self.done = False
        return self._task(), {}

    @staticmethod
    def _east(top, north):
        """The east face of a standard die with this top and north face: every orientation is reached from
        1-top/2-north/3-east by rolls and spins."""
        die = (1, 2, 3)
        for seq in ["", "N", "S", "E", "W", "NN", "EE", "NE", "NW", "SE", "SW", "EN", "ES", "WN", "WS", "NNE",
                    "NNW", "EEN", "EES", "NEN", "NES", "SEN", "SES", "ENE", "ENN", "WNW", "WNN"]:
            d = die
            for c in seq:
                d = roll(d, c)
            for _ in range(4):
                if d[0] == top and d[1] == north:
                    return d[2]
                # spin about the vertical axis: north -> east
                d = (d[0], 7 - d[2], d[1])
        return [x for x in range(1, 7) if x not in (top, 7 - top, north, 7 - north)][0]

    def _task(self):
        top, north, east = self.start
        if self._relative:
            moves = ("The die first faces its path heading " + NAMES[self._heading0()] + ". Each move may turn the "
                     "heading left or right (as seen from above) before the die tips one square forward:\n")
        else:
            moves = "The die tips over one edge per move, in these directions:\n"
        return ("ROLLING DIE\n"
                f"A standard die (opposite faces add up to 7) lies on a board with {top} on top, {north} facing "
                f"north and {east} facing east.\n" + moves +
                "\n".join(f"  {i + 1}. {t}" for i, t in enumerate(self.text_moves)) + "\n"
                "Rolling north tips the die over its north edge: the top face turns to face north and the south face "
                "comes up. Which number is on top at the end, and which faces north?\n"
                f"Answer as \\boxed{{top, north}}, e.g. \\boxed{{5, 3}}. You have {self.max_turns} attempt(s).")

    def _heading0(self):
        # the heading before the first relative move
        first = self.path[0]
        t = self.text_moves[0]
        if t.startswith("left"):
            return RIGHT[first]
        if t.startswith("right"):
            return LEFT[first]
        return first

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        nums = [int(x) for x in re.findall(r"\d", m.group(1))] if m else []
        if nums[:2] == list(self._answer) and len(nums) == 2:
            self.done = True
            return "Correct: that is how the die ends up. You win!", 1.0, True, False, {}
        msg = "No answer found: write \\boxed{top, north}." if not m else "Not right."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return f"{self._answer[0]}, {self._answer[1]}"

    def hint(self):
        return (f"Track all three visible faces (top, north, east) after every move; the hidden ones are 7 minus "
                f"them. The die rolls {sum(1 for d in self.path if d in 'NS')} time(s) north or south and "
                f"{sum(1 for d in self.path if d in 'EW')} time(s) east or west in all.")
