"""Gear train: a workshop drawing describes a train of gears, some meshing edge to edge and some fixed on a
shared axle, listed out of order; work out how many turns the last gear makes, and in which direction, while
the first gear turns a given number of times clockwise."""
import random
import re
from fractions import Fraction

NAMES = "ABCDEFGHJKLMNPQRSTUVWXYZ"
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")

# difficulty -> (gears, fraction of links that are shared axles)
LEVELS = {"easy": (4, 0.5), "medium": (6, 0.35), "hard": (8, 0.4)}


class GearTrainEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.names = []
        self.teeth = []
        self.links = []
        self.turns_in = 1
        self._answer = (Fraction(0), "clockwise")
        self.turn = 0
        self.done = False

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, axle_share = LEVELS[self.difficulty]
        for _ in range(200):
            self.names = rng.sample(NAMES, n)
            self.teeth = [rng.choice([8, 10, 12, 15, 16, 18, 20, 24, 25, 30, 32, 36, 40, 45, 48, 60]) for _ in range(n)]
            # link i joins gear i and gear i+1: 'mesh' (teeth touch) or 'axle' (same shaft); never two axles in a row
            self.links = []
            for i in range(n - 1):
                prev_axle = bool(self.links) and self.links[-1] == "axle"
                self.links.append("axle" if (not prev_axle and rng.random() < axle_share) else "mesh")
            self.turns_in = rng.choice([1, 2, 3, 4, 5, 6, 10, 12])
            ratio = Fraction(self.turns_in)
            sign = 1
            for i, kind in enumerate(self.links):
                if kind == "mesh":
                    ratio = ratio * self.teeth[i] / self.teeth[i + 1]
                    sign = -sign
            direction = "clockwise" if sign > 0 else "anticlockwise"
            # interesting: not simply first/last teeth, not an integer copied from the text
            naive = Fraction(self.turns_in) * self.teeth[0] / self.teeth[-1]
            self._answer = (ratio, direction)
            # an axle makes the first/last teeth shortcut wrong; keep the answer readable
            if "axle" in self.links and ratio != naive and ratio != self.turns_in and ratio.denominator <= 12 \
                    and ratio <= 500:
                break
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        facts = []
        for i, kind in enumerate(self.links):
            a, b = self.names[i], self.names[i + 1]
            if self.rng.random() < 0.5:
                a, b = b, a
            if kind == "mesh":
                facts.append(f"gear {a} meshes with gear {b}")
            else:
                facts.append(f"gears {a} and {b} are fixed on the same axle")
        order = list(range(len(facts)))
        self.rng.shuffle(order)
        teeth = [f"{self.names[i]}: {t} teeth" for i, t in enumerate(self.teeth)]
        self.rng.shuffle(teeth)
        return ("GEAR TRAIN\n"
                f"Gears and their teeth: {'; '.join(teeth)}.\n"
                "Connections (listed in no particular order): " + "; ".join(facts[i] for i in order) + ".\n"
                "Gears that mesh turn in opposite directions, and the number of turns times the number of teeth is "
                "the same for both; gears on one axle turn together (same turns, same direction). The train is a "
                "single chain: each gear is connected to at most two others.\n"
                f"Gear {self.names[0]} turns {self.turns_in} time(s) clockwise. How many turns does gear "
                f"{self.names[-1]} make, and in which direction?\n"
                "Answer as \\boxed{<turns> <clockwise|anticlockwise>}, turns as a whole number or a reduced fraction "
                f"p/q, e.g. \\boxed{{5/2 anticlockwise}}. You have {self.max_turns} attempt(s).")

    def _parse(self, text):
        m = re.fullmatch(r"\s*(\d{1,6})(?:\s*/\s*(\d{1,6}))?\s*(?:turns?)?\s*,?\s*(anti-?clockwise|counter-?clockwise|clockwise)\s*",
                         text.lower())
        if m is None:
            return None
        den = int(m.group(2)) if m.group(2) else 1
        if den == 0:
            return None
        direction = "clockwise" if m.group(3) == "clockwise" else "anticlockwise"
        return Fraction(int(m.group(1)), den), direction

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        got = self._parse(m.group(1)) if m else None
        if got is None:
            msg = "Could not read an answer: write \\boxed{<turns> <clockwise|anticlockwise>}, e.g. \\boxed{3/2 clockwise}."
        elif got == self._answer:
            self.done = True
            return "Correct: that is how the last gear turns. You win!", 1.0, True, False, {}
        elif got[0] == self._answer[0]:
            msg = "The number of turns is right but the direction is wrong."
        elif got[1] == self._answer[1]:
            msg = "The direction is right but the number of turns is wrong."
        else:
            msg = "Both the number of turns and the direction are wrong."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        ratio, direction = self._answer
        turns = str(ratio.numerator) if ratio.denominator == 1 else f"{ratio.numerator}/{ratio.denominator}"
        return f"{turns} {direction}"

    def hint(self):
        meshes = sum(1 for k in self.links if k == "mesh")
        axles = len(self.links) - meshes
        return (f"First put the gears in chain order, starting from {self.names[0]}. This train has {meshes} meshing "
                f"contact(s) and {axles} shared axle(s): only meshing contacts flip the direction and scale the turns "
                "(multiply by driver teeth / driven teeth); an axle passes the turns on unchanged. The last gear's "
                "turns are NOT simply first teeth / last teeth here.")
