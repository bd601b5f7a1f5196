"""Matrix reasoning in words: a 3 x 3 table of pictures, each described as 'count size colour shape', follows
hidden rules along its rows (a value kept through a row, a steady progression, or three values that every row
uses once); the last picture is missing. Pick it from sixteen options that differ only in which of two
plausible values each feature takes, so no feature can be read off the options themselves."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
VALUES = {
    "count": ["1", "2", "3", "4", "5", "6"],
    "size": ["tiny", "small", "medium", "large", "huge"],
    "colour": ["red", "blue", "green", "black", "white", "yellow"],
    "shape": ["circles", "squares", "triangles", "stars", "hexagons", "diamonds"],
}
ORDINAL = ("count", "size")
ORDER = ("count", "size", "colour", "shape")
# difficulty -> (attributes governed by a row rule, largest progression step)
LEVELS = {"easy": (2, 1), "medium": (3, 1), "hard": (4, 2)}
SINGULAR = {"circles": "circle", "squares": "square", "triangles": "triangle", "stars": "star",
            "hexagons": "hexagon", "diamonds": "diamond"}


class MatrixReasoningEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.grid = []
        self.rules = {}
        self.options = []
        self._answer = ""
        self.turn = 0
        self.done = False

    def _attribute(self, name, rule, step):
        """3 x 3 values of one feature under a rule, and a wrong but plausible value for the missing cell."""
        rng = self.rng
        vals = VALUES[name]
        if rule == "fixed":
            v = rng.choice(vals)
            return [[v] * 3 for _ in range(3)], rng.choice([x for x in vals if x != v])
        if rule == "row":
            picks = rng.sample(vals, 3)
            return [[picks[r]] * 3 for r in range(3)], picks[rng.choice([0, 1])]
        if rule == "progression":
            d = rng.choice([s for s in range(-step, step + 1) if s != 0])
            lo, hi = max(0, -2 * d), min(len(vals) - 1, len(vals) - 1 - 2 * d)
            starts = [rng.randint(lo, hi) for _ in range(3)]
            table = [[vals[starts[r] + d * c] for c in range(3)] for r in range(3)]
            wrong = vals[starts[2] + d] if rng.random() < 0.5 else vals[starts[1] + 2 * d]
            if wrong == table[2][2]:
                wrong = rng.choice([x for x in vals if x != table[2][2]])
            return table, wrong
        picks = rng.sample(vals, 3)  # distribution of three: every row holds each value once
        shifts = rng.sample([0, 1, 2], 3)
        table = [[picks[(c + shifts[r]) % 3] for c in range(3)] for r in range(3)]
        wrong = rng.choice([x for x in picks if x != table[2][2]])
        return table, wrong

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        k, step = LEVELS[self.difficulty]
        governed = rng.sample(ORDER, k)
        tables, wrongs = {}, {}
        self.rules = {}
        for name in ORDER:
            if name not in governed:
                rule = "fixed"
            else:
                rule = rng.choice(["row", "progression", "distribution"] if name in ORDINAL else ["row", "distribution"])
            self.rules[name] = rule
            tables[name], wrongs[name] = self._attribute(name, rule, step)
        self.grid = [[tuple(tables[n][r][c] for n in ORDER) for c in range(3)] for r in range(3)]
        answer = self.grid[2][2]
        # sixteen options: every mix of (right value, plausible wrong value) over the four features, so each
        # value shows up in exactly half of the options and counting over the options tells nothing
        opts = []
        for mask in range(16):
            opts.append(tuple(wrongs[n] if mask >> i & 1 else answer[i] for i, n in enumerate(ORDER)))
        rng.shuffle(opts)
        self.options = opts
        self._answer = f"P{opts.index(answer) + 1}"
        self.turn = 0
        self.done = False
        return self._task(), {}

    @staticmethod
    def _text(cell):
        count, size, colour, shape = cell
        if count == "1":
            shape = SINGULAR[shape]
        return f"{count} {size} {colour} {shape}"

    def _task(self):
        rows = []
        for r in range(3):
            cells = [self._text(self.grid[r][c]) if (r, c) != (2, 2) else "?" for c in range(3)]
            rows.append(f"  row {r + 1}: " + " | ".join(cells))
        opts = [f"  P{i + 1}: {self._text(o)}" for i, o in enumerate(self.options)]
        return ("MATRIX REASONING\n"
                "Each picture shows some number of identical shapes; read a picture as 'count size colour shape'. "
                "Every feature follows one rule along the rows: kept the same through each row, changing by a "
                "steady step from left to right (count and size only), or the same three values used once in every "
                "row; a feature may also be the same everywhere.\n" + "\n".join(rows) + "\n"
                "Which picture belongs at the '?'\n" + "\n".join(opts) + "\n"
                f"Answer with the option's label, e.g. \\boxed{{P7}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = re.sub(r"^option\s*", "", m.group(1).strip()).rstrip(".").upper() if m else ""
        if guess == self._answer:
            self.done = True
            return "Correct: that picture completes the table. You win!", 1.0, True, False, {}
        msg = "No option number found." if not m else f"Option {guess[:5]} does not fit."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        named = {"row": "kept the same through each row", "progression": "changes by a steady step along each row",
                 "distribution": "uses the same values in every row, each in its own place", "fixed": "is the same everywhere"}
        name = next(n for n in ORDER if self.rules[n] != "fixed")
        return (f"Take the features separately. For example, the {name} {named[self.rules[name]]}. Decide each "
                "feature of the missing picture from its own rule, then find the option with exactly those values.")
