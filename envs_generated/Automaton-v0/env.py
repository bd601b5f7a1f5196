"""Automaton rows: a row of cells evolves by a hidden local rule (each cell's next state depends only on itself
and its two neighbours; the row wraps around at the ends). Several generations are shown; write the next one."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (row width, generations shown, rules drawn from)
INTERESTING = [18, 22, 26, 30, 45, 54, 57, 60, 62, 73, 75, 86, 89, 90, 101, 102, 105, 110, 124, 126, 129, 135,
               137, 146, 149, 150, 153, 161, 165, 169, 182, 193, 195, 225]
LEVELS = {"easy": (10, 5), "medium": (12, 4), "hard": (14, 3)}


def evolve(row, rule):
    n = len(row)
    return [(rule >> (row[(i - 1) % n] * 4 + row[i] * 2 + row[(i + 1) % n])) & 1 for i in range(n)]


class AutomatonEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.rows = []
        self.rule = 30
        self._answer = ""
        self.turn = 0
        self.done = False

    def _determined(self, rows):
        """Does every neighbourhood the next row needs occur earlier, so the rule is pinned down where it
        matters? Returns the set of neighbourhood codes seen."""
        seen = set()
        for r in rows[:-1]:
            n = len(r)
            for i in range(n):
                seen.add(r[(i - 1) % n] * 4 + r[i] * 2 + r[(i + 1) % n])
        last = rows[-1]
        n = len(last)
        need = set(last[(i - 1) % n] * 4 + last[i] * 2 + last[(i + 1) % n] for i in range(n))
        return need <= seen

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        width, gens = LEVELS[self.difficulty]
        for _ in range(300):
            self.rule = self.rng.choice(INTERESTING)
            row = [self.rng.randint(0, 1) for _ in range(width)]
            rows = [row]
            for _ in range(gens - 1):
                rows.append(evolve(rows[-1], self.rule))
            nxt = evolve(rows[-1], self.rule)
            # answerable from the evidence, and not a copy of the last row or of an earlier one
            if self._determined(rows) and nxt not in rows and 0 < sum(nxt) < width:
                break
        self.rows = rows
        self._answer = "".join("#" if c else "." for c in nxt)
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        lines = [f"  gen {i + 1}: {''.join('#' if c else '.' for c in r)}" for i, r in enumerate(self.rows)]
        return ("AUTOMATON ROWS\n"
                "Each generation is computed from the one above it: a cell's next state depends only on its own "
                "state and those of its left and right neighbours, by one fixed rule; the row wraps around (the "
                "first and last cells are neighbours). '#' is on, '.' is off.\n" + "\n".join(lines) + "\n"
                f"Write generation {len(self.rows) + 1} as a string of # and ., e.g. \\boxed{{{'#.' * (len(self.rows[0]) // 2)}}}. "
                f"You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = re.sub(r"\s+", "", m.group(1)) if m else ""
        if guess == self._answer:
            self.done = True
            return "Correct: that is the next generation. You win!", 1.0, True, False, {}
        if not m:
            msg = "No row found: write it inside \\boxed{...} with # and ."
        elif len(guess) != len(self._answer) or set(guess) - set("#."):
            msg = f"A generation is {len(self._answer)} characters of # and ."
        else:
            wrong = sum(1 for a, b in zip(guess, self._answer) if a != b)
            msg = f"{wrong} cell(s) are wrong."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        code = 5  # the neighbourhood on-off-on
        out = (self.rule >> code) & 1
        return ("Make a table of the eight neighbourhoods (left, self, right) and read each one's result off the "
                "generations you have; every neighbourhood the last row needs appears earlier. For example, "
                f"'#.#' always becomes {'on' if out else 'off'} under this rule.")
