"""Cube-net folding: several flat nets of six lettered squares are drawn; fold each one into a cube in your head and name the faces that end up opposite the asked-about faces."""

import random
import re

LEVELS = {
    "easy": {"nets": 2},
    "medium": {"nets": 3},
    "hard": {"nets": 4},
}
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"   # no I or O: they look like lines and rings in a grid
STEPS = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
PAIR = {0: 1, 1: 0, 2: 3, 3: 2, 4: 5, 5: 4}


def roll(cube, direction):
    """Roll a cube one square; ``cube`` maps side name -> face id; returns the new mapping."""
    t, b, n, s, e, w = cube["top"], cube["bottom"], cube["north"], cube["south"], cube["east"], cube["west"]
    if direction == "east":
        return {"top": w, "bottom": e, "north": n, "south": s, "east": t, "west": b}
    if direction == "west":
        return {"top": e, "bottom": w, "north": n, "south": s, "east": b, "west": t}
    if direction == "north":
        return {"top": s, "bottom": n, "north": t, "south": b, "east": e, "west": w}
    return {"top": n, "bottom": s, "north": b, "south": t, "east": e, "west": w}


def fold(cells):
    """Face id (0-5) touching each square when a cube is rolled over the net; None if it is not a cube net."""
    cells = set(cells)
    start = min(cells)
    faces = {start: 0}
    stack = [(start, {"top": 1, "bottom": 0, "north": 2, "south": 3, "east": 4, "west": 5})]
    while stack:
        (r, c), cube = stack.pop()
        for name in ("north", "east", "south", "west"):
            dr, dc = STEPS[name]
            nxt = (r + dr, c + dc)
            if nxt in cells and nxt not in faces:
                rolled = roll(cube, name)
                faces[nxt] = rolled["bottom"]
                stack.append((nxt, rolled))
    if len(faces) != 6 or len(set(faces.values())) != 6:
        return None
    return faces


class CubeNetOppositeFaceEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = int(max_turns)
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_nets = LEVELS[self.difficulty]["nets"]
        self.rng = random.Random()
        self.nets = []
        self.turn = 0
        self.done = False
        self._answer = []

    def _random_net(self):
        while True:
            cells = {(0, 0)}
            while len(cells) < 6:
                r, c = self.rng.choice(sorted(cells))
                dr, dc = self.rng.choice(sorted(STEPS.values()))
                cells.add((r + dr, c + dc))
            r0 = min(r for r, c in cells)
            c0 = min(c for r, c in cells)
            cells = sorted((r - r0, c - c0) for r, c in cells)
            faces = fold(cells)
            if faces is not None:
                return cells, faces

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        letters = self.rng.sample(ALPHABET, 6 * self.n_nets)
        self.nets = []
        self._answer = []
        shapes = set()
        for k in range(self.n_nets):
            for _ in range(50):
                cells, faces = self._random_net()
                if tuple(cells) not in shapes:
                    break
            shapes.add(tuple(cells))
            labels = letters[6 * k: 6 * k + 6]
            label_of = {cell: labels[i] for i, cell in enumerate(cells)}
            by_face = {faces[cell]: label_of[cell] for cell in cells}
            opposite = {label_of[cell]: by_face[PAIR[faces[cell]]] for cell in cells}
            x = self.rng.choice(labels)
            y = self.rng.choice([lab for lab in labels if lab != x and lab != opposite[x]])
            rest = [lab for lab in labels if lab not in (x, y, opposite[x], opposite[y])]
            self.nets.append({"cells": cells, "label": label_of, "opposite": opposite, "ask": (x, y),
                              "spare": tuple(sorted(rest))})
            self._answer += [opposite[x], opposite[y]]
        self.turn = 0
        self.done = False
        return self._observation(), {}

    def _draw(self, net):
        h = max(r for r, c in net["cells"]) + 1
        w = max(c for r, c in net["cells"]) + 1
        lines = []
        for r in range(h):
            lines.append(" ".join(net["label"].get((r, c), ".") for c in range(w)))
        return lines

    def _observation(self):
        parts = ["Cube nets: each drawing below is a flat net of six square faces (letters; '.' is empty "
                 "space). Fold each net along the edges between touching squares into a cube, letters "
                 "outside."]
        questions = []
        n = 0
        for k, net in enumerate(self.nets):
            parts.append(f"\nNet {k + 1}:\n" + "\n".join("  " + line for line in self._draw(net)))
            x, y = net["ask"]
            questions.append(f"  {n + 1}. Net {k + 1}: which face is opposite {x}?")
            questions.append(f"  {n + 2}. Net {k + 1}: which face is opposite {y}?")
            n += 2
        parts.append("\nQuestions:\n" + "\n".join(questions))
        parts.append(f"\nAnswer all {n} questions in order: {n} letters separated by commas inside \\boxed{{}}. "
                     f"Attempts: {self.turn}/{self.max_turns}.")
        return "\n".join(parts)

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        need = len(self._answer)
        if match is None:
            if out_of_turns:
                self.done = True
            return (f"No answer found. Reply with {need} letters separated by commas inside \\boxed{{}}. "
                    f"Attempts used: {self.turn}/{self.max_turns}."), 0.0, out_of_turns, False, {}
        tokens = re.findall(r"[A-Za-z0-9]+", match.group(1))
        letters = [t.upper() for t in tokens]
        if len(letters) != need or any(len(t) != 1 or not t.isalpha() for t in letters):
            if out_of_turns:
                self.done = True
            return (f"Could not read your answer: expected exactly {need} single letters separated by commas, "
                    f"got {len(letters)} item(s). Attempts used: {self.turn}/{self.max_turns}."), 0.0, out_of_turns, \
                False, {}
        problems = []
        for k, net in enumerate(self.nets):
            for j, face in enumerate(net["ask"]):
                given = letters[2 * k + j]
                if given not in net["label"].values():
                    problems.append(f"{given} is not a face of net {k + 1}")
                elif given == face:
                    problems.append(f"a face cannot be opposite itself (question {2 * k + j + 1})")
        right = sum(1 for a, b in zip(letters, self._answer) if a == b)
        if right == need:
            self.done = True
            return "Correct: every opposite face is right. You win!", 1.0, True, False, {}
        feedback = f"{right} of your {need} answers are correct."
        if problems:
            feedback += " Also note: " + "; ".join(problems[:3]) + "."
        if out_of_turns:
            self.done = True
            return feedback + " No attempts left. You lose.", 0.0, True, False, {}
        return feedback + f" Attempts used: {self.turn}/{self.max_turns}.", 0.0, False, False, {}

    def solution(self):
        return ",".join(self._answer)

    def hint(self):
        # one adjacent (never opposite) face per asked face: it rules out one of four candidates,
        # the folding still has to be done
        facts = []
        for k, net in enumerate(self.nets):
            x = net["ask"][0]
            near = sorted(lab for lab in net["label"].values() if lab not in (x, net["opposite"][x]))
            facts.append(f"in net {k + 1}, {random.Random(x + str(k)).choice(near)} is NOT opposite {x}")
        return ("Fold, do not guess: " + "; ".join(facts) + ". Two squares with exactly one square between them "
                "in a straight row or column of the net are opposite; for the rest, roll the cube over the net "
                "square by square, keeping track of which face is on the bottom.")
