"""Follow a marked point across the coordinate plane through a chain of shifts, quarter-turns about various centres and mirror reflections, then report exactly where it lands."""

import random
import re

LEVELS = {
    "easy": {"ops": 4, "kinds": ("shift", "rot_origin", "reflect_axis")},
    "medium": {"ops": 6, "kinds": ("shift", "rot_origin", "reflect_axis", "rot_center", "reflect_line")},
    "hard": {"ops": 8, "kinds": ("shift", "rot_origin", "reflect_axis", "rot_center", "reflect_line",
                                 "point_reflect", "rot_center")},
}


def rot(x, y, cx, cy, quarter):
    """Rotate (x, y) about (cx, cy) by quarter * 90 degrees counter-clockwise (x to the right, y up)."""
    dx, dy = x - cx, y - cy
    for _ in range(quarter % 4):
        dx, dy = -dy, dx
    return cx + dx, cy + dy


def fmt(x, y):
    return f"({x}, {y})"


class PlaneTransformTrackerEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = int(max_turns)
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        cfg = LEVELS[self.difficulty]
        self.n_ops = cfg["ops"]
        self.kinds = cfg["kinds"]
        self.rng = random.Random()
        self.start = (0, 0)
        self.ops = []
        self.trace = []
        self.turn = 0
        self.done = False
        self._answer = (0, 0)

    def _turn_words(self, quarter):
        if quarter == 2:
            return self.rng.choice(["a half-turn (180 degrees)", "180 degrees"])
        if quarter == 1:
            return self.rng.choice(["90 degrees counter-clockwise", "a quarter-turn anticlockwise",
                                    "90 degrees anticlockwise"])
        return self.rng.choice(["90 degrees clockwise", "a quarter-turn clockwise", "270 degrees counter-clockwise"])

    def _make_op(self, kind):
        rng = self.rng
        if kind == "shift":
            a = rng.choice([v for v in range(-7, 8) if v != 0])
            b = rng.choice([v for v in range(-7, 8) if v != 0])
            horiz = f"{abs(a)} unit{'s' if abs(a) != 1 else ''} {'right' if a > 0 else 'left'}"
            vert = f"{abs(b)} unit{'s' if abs(b) != 1 else ''} {'up' if b > 0 else 'down'}"
            text = rng.choice([f"Translate it by the vector ({a}, {b}).", f"Slide it {horiz} and {vert}.",
                               f"Slide it {vert} and {horiz}."])
            return text, (lambda x, y, a=a, b=b: (x + a, y + b))
        if kind == "rot_origin":
            q = rng.choice([1, 2, 3])
            return (f"Rotate it {self._turn_words(q)} about the origin.",
                    (lambda x, y, q=q: rot(x, y, 0, 0, q)))
        if kind == "rot_center":
            q = rng.choice([1, 3, 1, 3, 2])
            cx, cy = rng.randint(-5, 5), rng.randint(-5, 5)
            if (cx, cy) == (0, 0):
                cx = 2
            return (f"Rotate it {self._turn_words(q)} about the point {fmt(cx, cy)}.",
                    (lambda x, y, q=q, cx=cx, cy=cy: rot(x, y, cx, cy, q)))
        if kind == "reflect_axis":
            which = rng.choice(["x", "y", "diag", "anti"])
            if which == "x":
                return "Reflect it in the x-axis.", (lambda x, y: (x, -y))
            if which == "y":
                return "Reflect it in the y-axis.", (lambda x, y: (-x, y))
            if which == "diag":
                return "Reflect it in the line y = x.", (lambda x, y: (y, x))
            return "Reflect it in the line y = -x.", (lambda x, y: (-y, -x))
        if kind == "reflect_line":
            k = rng.choice([v for v in range(-5, 6) if v != 0])
            if rng.random() < 0.5:
                return f"Reflect it in the vertical line x = {k}.", (lambda x, y, k=k: (2 * k - x, y))
            return f"Reflect it in the horizontal line y = {k}.", (lambda x, y, k=k: (x, 2 * k - y))
        px, py = rng.randint(-4, 4), rng.randint(-4, 4)
        return (f"Reflect it through the point {fmt(px, py)} (a point reflection: the old and new positions "
                f"have {fmt(px, py)} as their midpoint).", (lambda x, y, px=px, py=py: (2 * px - x, 2 * py - y)))

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(200):
            self.start = (self.rng.randint(-9, 9), self.rng.randint(-9, 9))
            kinds = list(self.kinds)
            chosen = kinds[:]                               # every kind of the level appears at least once
            while len(chosen) < self.n_ops:
                chosen.append(self.rng.choice(kinds))
            chosen = chosen[: self.n_ops]
            self.rng.shuffle(chosen)
            ops = [self._make_op(kind) for kind in chosen]
            x, y = self.start
            trace = [(x, y)]
            for _, fn in ops:
                x, y = fn(x, y)
                trace.append((x, y))
            if max(abs(v) for p in trace for v in p) > 30:
                continue
            if (x, y) == self.start or any(trace[i] == trace[i + 1] for i in range(len(trace) - 1)):
                continue
            break
        self.ops = [text for text, _ in ops]
        self.trace = trace
        self._answer = trace[-1]
        self.turn = 0
        self.done = False
        return self._observation(), {}

    def _observation(self):
        steps = "\n".join(f"  {i + 1}. {text}" for i, text in enumerate(self.ops))
        return (
            "Point tracking on the coordinate plane (x grows to the right, y grows upward; counter-clockwise "
            "means turning from the positive x-axis towards the positive y-axis).\n"
            f"A point starts at {fmt(*self.start)}. Apply these {len(self.ops)} operations in order, each to the "
            f"point's current position:\n{steps}\n"
            "Where does the point end up? Answer with its final coordinates as \\boxed{(x, y)} using integers. "
            f"Attempts: {self.turn}/{self.max_turns}."
        )

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        nums = None
        if match is not None:
            body = match.group(1).replace("\u2212", "-")
            found = re.findall(r"-?\s*\d+(?:\.\d+)?", body)
            if len(found) == 2 and all(len(f) < 12 for f in found):
                vals = [float(f.replace(" ", "")) for f in found]
                if all(v == int(v) for v in vals):
                    nums = (int(vals[0]), int(vals[1]))
        if nums is None:
            if out_of_turns:
                self.done = True
            return ("Could not read two integer coordinates. Answer like \\boxed{(x, y)} with integers. "
                    f"Attempts used: {self.turn}/{self.max_turns}."), 0.0, out_of_turns, False, {}
        if nums == self._answer:
            self.done = True
            return "Correct: that is exactly where the point lands. You win!", 1.0, True, False, {}
        notes = []
        for name, got, want in (("x", nums[0], self._answer[0]), ("y", nums[1], self._answer[1])):
            if got == want:
                notes.append(f"{name} is correct")
            elif got == -want:
                notes.append(f"{name} has the right size but the wrong sign")
            else:
                notes.append(f"{name} is wrong")
        if nums == (self._answer[1], self._answer[0]):
            notes.append("it looks as if x and y were swapped somewhere")
        feedback = "Not quite: " + "; ".join(notes) + "."
        if out_of_turns:
            self.done = True
            return feedback + " No attempts left. You lose.", 0.0, True, False, {}
        return feedback + f" Attempts used: {self.turn}/{self.max_turns}.", 0.0, False, False, {}

    def solution(self):
        return fmt(*self._answer)

    def hint(self):
        final = self._answer
        idx = len(self.trace) // 2
        order = [idx] + [i for i in range(1, len(self.trace) - 1) if i != idx]
        for i in order:
            if 0 < i < len(self.trace) - 1 and self.trace[i] != final:
                x, y = self.trace[i]
                return (f"Checkpoint: after operation {i} the point is at x = {x}, y = {y}. Work each turn about "
                        "a centre (cx, cy) as: subtract the centre, rotate ((x, y) -> (-y, x) counter-clockwise, "
                        "(y, -x) clockwise), then add the centre back.")
        return ("Work each turn about a centre (cx, cy) as: subtract the centre, rotate ((x, y) -> (-y, x) "
                "counter-clockwise, (y, -x) clockwise), then add the centre back.")
