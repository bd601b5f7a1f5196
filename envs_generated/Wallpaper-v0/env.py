"""Wallpaper period: a wall is papered with one small motif of letters repeated in both directions (each band
of motifs may be slid sideways by a fixed amount); some cells are torn away. Find the motif and its repeat, then
say which letters belong in the asked torn cells."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
ALPHABET = "ABCDEFGHJKMNPRSTUVWXYZ"
# difficulty -> (motif height range, motif width range, band shift allowed, torn fraction, asked cells)
LEVELS = {"easy": ((2, 2), (2, 3), False, 0.2, 2), "medium": ((2, 3), (3, 4), True, 0.3, 3),
          "hard": ((3, 3), (3, 5), True, 0.4, 4)}
ROWS, COLS = 9, 14


class WallpaperEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.full = []
        self.torn = set()
        self.asked = []
        self.turn = 0
        self.done = False

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        (h0, h1), (w0, w1), shifted, frac, k = LEVELS[self.difficulty]
        for _ in range(200):
            h, w = rng.randint(h0, h1), rng.randint(w0, w1)
            letters = rng.sample(ALPHABET, rng.randint(3, min(6, h * w)))
            motif = [[rng.choice(letters) for _ in range(w)] for _ in range(h)]
            shift = rng.randint(1, w - 1) if shifted and rng.random() < 0.7 else 0
            self.full = [[motif[r % h][(c + shift * (r // h)) % w] for c in range(COLS)] for r in range(ROWS)]
            cells = [(r, c) for r in range(ROWS) for c in range(COLS)]
            self.torn = set(rng.sample(cells, int(frac * len(cells))))
            # ask about torn cells whose letters differ (a single repeated guess must not do)
            torn = sorted(self.torn)
            rng.shuffle(torn)
            asked = []
            for cell in torn:
                if len(asked) < k and self.full[cell[0]][cell[1]] not in [self.full[a][b] for a, b in asked]:
                    asked.append(cell)
            if len(asked) == k and len(set(x for row in motif for x in row)) >= 3:
                break
        self.asked = asked
        self.turn = 0
        self.done = False
        return self._task(), {}

    @staticmethod
    def _name(cell):
        return f"r{cell[0] + 1}c{cell[1] + 1}"

    def _task(self):
        rows = []
        for r in range(ROWS):
            rows.append("  " + " ".join("?" if (r, c) in self.torn else self.full[r][c] for c in range(COLS)))
        return ("WALLPAPER PERIOD\n"
                f"The wall, {ROWS} rows by {COLS} columns ('?' = torn away):\n" + "\n".join(rows) + "\n"
                "The paper repeats one rectangular motif across and down; each band of motifs may be slid sideways by "
                "the same amount relative to the band above. Which letters belong at "
                + ", ".join(self._name(c) for c in self.asked) + " (row r, column c, counted from the top left)?\n"
                f"Answer the letters in that order, e.g. \\boxed{{{', '.join(['X'] * len(self.asked))}}}. "
                f"You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        got = re.findall(r"[A-Za-z]", m.group(1)) if m else []
        want = [self.full[r][c] for r, c in self.asked]
        if [g.upper() for g in got] == want:
            self.done = True
            return "Correct: those letters complete the wallpaper. You win!", 1.0, True, False, {}
        msg = "No letters found." if not m else "Not all of those letters are right."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return ", ".join(self.full[r][c] for r, c in self.asked)

    def hint(self):
        return ("Find the horizontal repeat first: the smallest step after which every intact row repeats itself. "
                "Then compare rows that far apart vertically and measure how far the band is slid sideways; every "
                "torn cell equals an intact cell one repeat away.")
