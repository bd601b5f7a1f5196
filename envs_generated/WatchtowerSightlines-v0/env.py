"""Watchtower sightlines: a walled courtyard is drawn as a grid; a watchman stands on one square and lettered
markers stand on others. The watchman sees a marker when the straight line from the centre of his square to
the centre of the marker's square passes through no wall square. Name exactly the markers he can see:
sightlines run at every angle, not only along rows, columns and diagonals."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
LETTERS = "abcdefghijklmn"
# difficulty -> (rows, cols, walls, markers)
LEVELS = {"easy": (7, 7, 9, 8), "medium": (8, 9, 13, 10), "hard": (10, 10, 19, 12)}


def _lt(a, b):
    """a < b for fractions given as (numerator, positive denominator)."""
    return a[0] * b[1] < b[0] * a[1]


def _le(a, b):
    return a[0] * b[1] <= b[0] * a[1]


class WatchtowerSightlinesEnv:
    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rows, self.cols, self.n_walls, self.n_marks = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, 2)
        self.attempts = 2
        self.rng = random.Random()
        self.walls = set()
        self.watch = (0, 0)
        self.marks = {}
        self.answer = ""
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ geometry (exact, in half-cell units)
    @staticmethod
    def _axis(p, d, lo, hi):
        """The parameter interval (as fractions) where p + t*d lies in [lo, hi], or 'all'/'none' when d == 0."""
        if d == 0:
            if lo < p < hi:
                return "all"
            if lo <= p <= hi:
                return "edge"
            return "none"
        a, b = (lo - p, d), (hi - p, d)
        if d < 0:
            a, b = (-(lo - p), -d), (-(hi - p), -d)
            a, b = b, a
        return (a, b)

    def _meets(self, src, dst, wall):
        """'open' if the segment enters the wall square's interior, 'touch' if it only grazes its boundary,
        None if it misses it."""
        p = (2 * src[0] + 1, 2 * src[1] + 1)
        d = (2 * (dst[0] - src[0]), 2 * (dst[1] - src[1]))
        lo = (0, 1)
        hi = (1, 1)
        graze = False
        for axis in (0, 1):
            iv = self._axis(p[axis], d[axis], 2 * wall[axis], 2 * wall[axis] + 2)
            if iv == "none":
                return None
            if iv == "all":
                continue
            if iv == "edge":
                graze = True
                continue
            a, b = iv
            if _lt(lo, a):
                lo = a
            if _lt(b, hi):
                hi = b
        if _lt(hi, lo):
            return None
        if not _lt(lo, hi) or graze:
            return "touch"
        return "open"

    def _sight(self, target):
        """True (seen), False (blocked), or None (a wall is only grazed: ambiguous to the eye, kept out)."""
        r0, r1 = sorted((self.watch[0], target[0]))
        c0, c1 = sorted((self.watch[1], target[1]))
        touched = False
        for wall in self.walls:
            if not (r0 <= wall[0] <= r1 and c0 <= wall[1] <= c1):
                continue
            hit = self._meets(self.watch, target, wall)
            if hit == "open":
                return False
            if hit == "touch":
                touched = True
        return None if touched else True

    # ------------------------------------------------------------------ shortcuts the filter rules out
    def _lazy(self, target):
        """Seen unless a wall stands between them in the same row or column, or anywhere on a diagonal, or
        inside the bounding box otherwise (a common shortcut, exact for none of the general cases)."""
        r0, r1 = sorted((self.watch[0], target[0]))
        c0, c1 = sorted((self.watch[1], target[1]))
        return not any(r0 <= w[0] <= r1 and c0 <= w[1] <= c1 for w in self.walls)

    def _stepped(self, target, per_cell=2, half_up=True):
        """Walk the line in steps (per_cell points per square crossed) and look at the square under each point,
        rounding halves up or to even: the sampling shortcuts, each wrong near wall corners."""
        (r, c), (tr, tc) = self.watch, target
        n = per_cell * max(abs(tr - r), abs(tc - c))
        for k in range(1, n):
            y = r + (tr - r) * k / n
            x = c + (tc - c) * k / n
            cell = (int(y + 0.5), int(x + 0.5)) if half_up else (round(y), round(x))
            if cell in self.walls:
                return False
        return True

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        cells = [(r, c) for r in range(self.rows) for c in range(self.cols)]
        shortcuts = [self._lazy] + [
            (lambda s, pc=pc, hu=hu: self._stepped(s, pc, hu)) for pc in (1, 2, 3, 4) for hu in (True, False)]
        for _ in range(200):
            picks = self.rng.sample(cells, self.n_walls + 1)
            self.walls = set(picks[:self.n_walls])
            self.watch = picks[self.n_walls]
            truth = {}
            for cell in cells:
                if cell not in self.walls and cell != self.watch:
                    seen = self._sight(cell)
                    if seen is not None:  # a grazed wall would be ambiguous to the eye: never a marker there
                        truth[cell] = seen
            if len(truth) < self.n_marks:
                continue
            # every shortcut must misjudge at least one marker: pick, for each, a square it gets wrong
            spots = []
            for shortcut in shortcuts:
                if any(shortcut(s) != truth[s] for s in spots):
                    continue
                fooled = [s for s in truth if s not in spots and shortcut(s) != truth[s]]
                if not fooled:
                    break
                spots.append(self.rng.choice(sorted(fooled)))
            else:
                if len(spots) > self.n_marks:
                    continue
                rest = sorted(s for s in truth if s not in spots)
                spots += self.rng.sample(rest, self.n_marks - len(spots))
                if len(spots) == self.n_marks and 3 <= sum(truth[s] for s in spots) <= self.n_marks - 3:
                    break
        spots.sort()
        self.marks = {LETTERS[i]: s for i, s in enumerate(spots)}
        self.answer = "".join(k for k, s in self.marks.items() if self._sight(s))
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = "Name the markers the watchman can see."
        return self._render(), {}

    # ------------------------------------------------------------------ text
    def _render(self):
        where = {s: k for k, s in self.marks.items()}
        head = "     " + " ".join(f"{c + 1:>2}" for c in range(self.cols))
        rows = []
        for r in range(self.rows):
            cells = []
            for c in range(self.cols):
                cell = (r, c)
                cells.append("#" if cell in self.walls else "W" if cell == self.watch else where.get(cell, "."))
            rows.append(f"  {r + 1:>2} " + " ".join(f"{x:>2}" for x in cells))
        return ("WATCHTOWER SIGHTLINES\n" + head + "\n" + "\n".join(rows) + "\n"
                "'W' is the watchman, '#' a wall square, a letter a marker, '.' open ground. Every square is a unit "
                "square. The watchman sees a marker when the straight segment from the centre of his square to the "
                "centre of the marker's square passes through the inside of no wall square (markers never block). "
                "No segment here merely grazes a wall's corner or edge.\n"
                "Name exactly the markers he can see, e.g. \\boxed{a c f} (any order).\n"
                f"Answers left: {self.attempts - self.used}. Last: {self.last}")

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        body = m.group(1).lower() if m else ""
        letters = re.sub(r"[\s,;]+", "", body)
        valid = bool(letters) and all(ch in self.marks for ch in letters)
        if not valid:
            self.last = "Could not read a set of marker letters (this costs an answer): write e.g. \\boxed{a c f}."
        elif "".join(sorted(set(letters))) == self.answer:
            self.done = True
            self.last = "Exactly the markers in sight. You win!"
            return self._render(), 1.0, True, False, {}
        else:
            chosen = set(letters)
            wrong = sum(1 for k in self.marks if (k in chosen) != (k in self.answer))
            self.last = f"Not right: {wrong} marker(s) judged wrongly."
        self.used += 1
        if self.used >= self.attempts or self.turn >= self.max_turns:
            self.done = True
            self.last += " No answers left: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        return " ".join(self.answer)

    def hint(self):
        return (f"{len(self.answer)} markers are in sight. For each marker, only walls inside the rectangle spanned "
                "by the watchman and the marker can block; for such a wall, check on which side of the line each "
                "of its four corners lies: the line passes through the wall's inside exactly when the corners "
                "are not all on one side (or on it).")
