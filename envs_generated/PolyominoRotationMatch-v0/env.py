"""Mental rotation with polyominoes: a target shape is drawn next to several lettered candidates, some turned copies of it, some mirror images, some subtly altered; name exactly the candidates that are pure rotations."""

import random
import re

LEVELS = {
    "easy": {"cells": 5, "count": 6, "near": (0, 0)},
    "medium": {"cells": 7, "count": 8, "near": (1, 3)},
    "hard": {"cells": 8, "count": 10, "near": (2, 4)},
}
LETTERS = "ABCDEFGHIJ"
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def normalize(cells):
    r0 = min(r for r, c in cells)
    c0 = min(c for r, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def rotate(cells, quarter_turns):
    out = list(cells)
    for _ in range(quarter_turns % 4):
        out = [(c, -r) for r, c in out]      # a quarter turn clockwise
    return normalize(out)


def mirror(cells):
    return normalize([(r, -c) for r, c in cells])


def connected(cells):
    cells = set(cells)
    if not cells:
        return False
    start = next(iter(sorted(cells)))
    seen = {start}
    stack = [start]
    while stack:
        r, c = stack.pop()
        for dr, dc in STEPS:
            nxt = (r + dr, c + dc)
            if nxt in cells and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return len(seen) == len(cells)


class PolyominoRotationMatchEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = int(max_turns)
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        cfg = LEVELS[self.difficulty]
        self.n_cells = cfg["cells"]
        self.count = cfg["count"]
        self.n_near = cfg["near"]
        self.rng = random.Random()
        self.target = ()
        self.candidates = []
        self.kinds = []
        self.turn = 0
        self.done = False
        self._answer = ()

    # ------------------------------------------------------------------ generation
    def _random_shape(self):
        while True:
            cells = {(0, 0)}
            while len(cells) < self.n_cells:
                r, c = self.rng.choice(sorted(cells))
                dr, dc = self.rng.choice(STEPS)
                cells.add((r + dr, c + dc))
            shape = normalize(cells)
            images = set(rotate(shape, k) for k in range(4)) | set(rotate(mirror(shape), k) for k in range(4))
            h = max(r for r, c in shape) + 1
            w = max(c for r, c in shape) + 1
            if len(images) == 8 and h <= 5 and w <= 5:
                return shape

    def _near_miss(self, shape, forbidden):
        for _ in range(200):
            cells = list(shape)
            drop = self.rng.choice(cells)
            rest = [x for x in cells if x != drop]
            if not connected(rest):
                continue
            border = sorted(set((r + dr, c + dc) for r, c in rest for dr, dc in STEPS) - set(cells))
            add = self.rng.choice(border)
            new = normalize(rest + [add])
            images = set(rotate(new, k) for k in range(4)) | set(rotate(mirror(new), k) for k in range(4))
            h = max(r for r, c in new) + 1
            w = max(c for r, c in new) + 1
            if not (images & forbidden) and h <= 5 and w <= 5:
                return new
        return None

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        shape = self._random_shape()
        self.target = rotate(shape, self.rng.randrange(4))
        rotations = [rotate(self.target, k) for k in range(4)]
        mirrors = [rotate(mirror(self.target), k) for k in range(4)]
        congruent = set(rotations) | set(mirrors)
        combos = []
        for n_rot in range(2, 5):
            for n_mir in range(2, 5):
                n_near = self.count - n_rot - n_mir
                if self.n_near[0] <= n_near <= self.n_near[1]:
                    combos.append((n_rot, n_mir, n_near))
        n_rot, n_mir, n_near = self.rng.choice(combos)
        picks = [(s, "rotation") for s in self.rng.sample(rotations, n_rot)]
        picks += [(s, "mirror") for s in self.rng.sample(mirrors, n_mir)]
        used = set(congruent)
        for _ in range(n_near):
            base = self.rng.choice(rotations)
            near = self._near_miss(base, used)
            if near is None:
                near = self.rng.choice([m for m in mirrors if m not in [p[0] for p in picks]] or mirrors)
                picks.append((near, "mirror"))
                continue
            used |= set(rotate(near, k) for k in range(4)) | set(rotate(mirror(near), k) for k in range(4))
            picks.append((near, "altered"))
        self.rng.shuffle(picks)
        self.candidates = [p[0] for p in picks]
        self.kinds = [p[1] for p in picks]
        self._answer = tuple(LETTERS[i] for i, kind in enumerate(self.kinds) if kind == "rotation")
        self.turn = 0
        self.done = False
        return self._observation(), {}

    # ------------------------------------------------------------------ rendering
    def _draw(self, shape):
        h = max(r for r, c in shape) + 1
        w = max(c for r, c in shape) + 1
        cells = set(shape)
        return ["".join("#" if (r, c) in cells else "." for c in range(w)) for r in range(h)]

    def _row_of_pictures(self, labels, shapes):
        pictures = [self._draw(s) for s in shapes]
        width = max(5, max(len(p[0]) for p in pictures))
        height = max(len(p) for p in pictures)
        lines = ["   ".join(f"{lab:<{width}}" for lab in labels)]
        for i in range(height):
            parts = []
            for p in pictures:
                text = p[i] if i < len(p) else ""
                parts.append(f"{text:<{width}}")
            lines.append("   ".join(parts).rstrip())
        return "\n".join(lines)

    def _observation(self):
        rows = []
        for start in range(0, len(self.candidates), 4):
            labels = [f"({LETTERS[i]})" for i in range(start, min(start + 4, len(self.candidates)))]
            rows.append(self._row_of_pictures(labels, self.candidates[start:start + 4]))
        extra = (" Some candidates are mirror images, and some differ from the target by a moved square."
                 if self.n_near[1] else " The others are mirror images (flipped over, then possibly turned).")
        return (
            f"Mental rotation: TARGET shape ({self.n_cells} squares, # = filled, . = empty)\n"
            + self._row_of_pictures(["TARGET"], [self.target])
            + "\n\nCandidates:\n" + "\n\n".join(rows) + "\n\n"
            + "Some candidates are the target turned in the plane by 0, 90, 180 or 270 degrees (no flipping)."
            + extra + " Name exactly the candidates that are pure rotations of the target. "
            + f"Put their letters, separated by commas, inside \\boxed{{}}. Attempts: {self.turn}/{self.max_turns}."
        )

    # ------------------------------------------------------------------ play
    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            if out_of_turns:
                self.done = True
            return ("No answer found. Put the letters of the pure rotations, comma-separated, inside \\boxed{}. "
                    f"Attempts used: {self.turn}/{self.max_turns}."), 0.0, out_of_turns, False, {}
        tokens = re.findall(r"[A-Za-z0-9]+", match.group(1))
        valid = set(LETTERS[: len(self.candidates)])
        chosen = set()
        bad = []
        for tok in tokens:
            up = tok.upper()
            if up in valid:
                chosen.add(up)
            elif up not in ("AND", "NONE"):
                bad.append(tok[:12])
        if bad or not chosen:
            if out_of_turns:
                self.done = True
            why = (f"'{bad[0]}' is not a candidate letter" if bad else "no candidate letter was given")
            return (f"Could not read your answer: {why}. Use the letters {', '.join(sorted(valid))} only, "
                    f"comma-separated. Attempts used: {self.turn}/{self.max_turns}."), 0.0, out_of_turns, False, {}
        answer = set(self._answer)
        if chosen == answer:
            self.done = True
            return "Correct: exactly those candidates are pure rotations of the target. You win!", 1.0, True, False, {}
        wrong = len(chosen - answer)
        missed = len(answer - chosen)
        feedback = (f"Not quite. Your selection contains {wrong} candidate(s) that are NOT pure rotations and "
                    f"leaves out {missed} pure rotation(s).")
        if out_of_turns:
            self.done = True
            return feedback + " No attempts left. You lose.", 0.0, True, False, {}
        return feedback + f" Attempts used: {self.turn}/{self.max_turns}.", 0.0, False, False, {}

    def solution(self):
        return ",".join(self._answer)

    def hint(self):
        non = [LETTERS[i] for i, kind in enumerate(self.kinds) if kind != "rotation"]
        named = self.rng_free_pick(non)
        kind = self.kinds[LETTERS.index(named)]
        reason = "is a mirror image" if kind == "mirror" else "has one square in a different place"
        return (f"Exactly {len(self._answer)} of the {len(self.candidates)} candidates are pure rotations. "
                f"For instance candidate {named} {reason}, so it is out. Method: find a distinctive feature of "
                "the target (its longest straight run, a lone bump), turn the candidate until that feature "
                "matches, then check on which side of the run the remaining squares sit; a mirror image puts "
                "them on the opposite side.")

    def rng_free_pick(self, letters):
        # Deterministic per episode: the non-rotation that comes first in the alphabet.
        return sorted(letters)[0]
