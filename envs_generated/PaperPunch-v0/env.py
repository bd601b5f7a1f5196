"""Paper punch: a square sheet ruled into cells is folded in half several times (left over right, top over
bottom, ...), then a hole is punched through every layer at one cell of the folded packet. Unfold it in your
head and say which cells of the sheet have holes."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
COLS = "ABCDEFGH"
# difficulty -> (sheet size, folds, holes punched)
LEVELS = {"easy": (8, 2, 1), "medium": (8, 3, 1), "hard": (8, 3, 2)}
FOLD_TEXT = {"L": "fold the left half over onto the right half", "R": "fold the right half over onto the left half",
             "T": "fold the top half down onto the bottom half", "B": "fold the bottom half up onto the top half"}


class PaperPunchEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.size = 4
        self.folds = []
        self.punches = []
        self._holes = []
        self.turn = 0
        self.done = False

    def _unfold(self):
        """Fold step by step keeping, for every cell of the current packet, the list of sheet cells under it;
        a punch at a packet cell makes holes in all of them."""
        n = self.size
        w, h = n, n
        stack = {(r, c): [(r, c)] for r in range(n) for c in range(n)}
        for f in self.folds:
            new = {}
            if f in "LR":
                half = w // 2
                for (r, c), cells in stack.items():
                    if f == "L":  # left half flips onto the right half: column c -> w-1-c, then shift
                        nc = (w - 1 - c) - half if c < half else c - half
                    else:
                        nc = c if c < half else w - 1 - c
                    new.setdefault((r, nc), []).extend(cells)
                w = half
            else:
                half = h // 2
                for (r, c), cells in stack.items():
                    if f == "T":
                        nr = (h - 1 - r) - half if r < half else r - half
                    else:
                        nr = r if r < half else h - 1 - r
                    new.setdefault((nr, c), []).extend(cells)
                h = half
            stack = new
        holes = set()
        for p in self.punches:
            holes |= set(stack[p])
        return sorted(holes), (h, w)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, k, p = LEVELS[self.difficulty]
        self.size = n
        for _ in range(100):
            vertical = 0
            horizontal = 0
            self.folds = []
            for _ in range(k):
                can = []
                if n >> (vertical + 1) >= 1:
                    can += ["L", "R"]
                if n >> (horizontal + 1) >= 1:
                    can += ["T", "B"]
                f = rng.choice(can)
                self.folds.append(f)
                if f in "LR":
                    vertical += 1
                else:
                    horizontal += 1
            h, w = n >> horizontal, n >> vertical
            self.punches = rng.sample([(r, c) for r in range(h) for c in range(w)], p)
            self._holes, _ = self._unfold()
            if len(self._holes) == p * 2 ** k:
                break
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _cell(self, rc):
        return f"{COLS[rc[1]]}{rc[0] + 1}"

    def _task(self):
        n = self.size
        h = n >> sum(1 for f in self.folds if f in "TB")
        w = n >> sum(1 for f in self.folds if f in "LR")
        return ("PAPER PUNCH\n"
                f"A square sheet is ruled into {n} x {n} cells: columns A-{COLS[n - 1]} from left to right, rows "
                f"1-{n} from top to bottom (A1 is the top-left cell). Lying flat, it is folded in half, in this "
                "order:\n" + "\n".join(f"  {i + 1}. {FOLD_TEXT[f]}" for i, f in enumerate(self.folds)) + "\n"
                f"The folded packet is {w} cell(s) wide and {h} tall; name its cells the same way (column letter from "
                "A at the packet's left, row number from 1 at its top). A hole is punched through every layer at "
                f"packet cell(s) {', '.join(self._cell(p) for p in self.punches)}.\n"
                "After unfolding, which cells of the sheet have a hole? List them all, separated by commas, in any "
                f"order, e.g. \\boxed{{A1, D3}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        cells = set(re.findall(r"[A-Ha-h]\s*\d", m.group(1))) if m else set()
        got = set(c[0].upper() + c[-1] for c in cells)
        want = set(self._cell(x) for x in self._holes)
        if m and got == want:
            self.done = True
            return "Correct: those are all the holes. You win!", 1.0, True, False, {}
        msg = "No cells found: list them inside \\boxed{...}, e.g. \\boxed{A1, D3}." if not got else \
            f"Not right: {len(got & want)} of your {len(got)} cells have holes, and the sheet has {len(want)} holes."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return ", ".join(self._cell(x) for x in self._holes)

    def hint(self):
        return (f"Every fold doubles the layers, so the sheet ends with {len(self._holes)} holes. Unfold in reverse "
                "order: undoing a fold mirrors every hole across that fold line, keeping the hole where it is as "
                "well.")
