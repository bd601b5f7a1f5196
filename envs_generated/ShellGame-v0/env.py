"""Shell game: three trinkets hide under a row of cups; the conjurer announces one move per turn (swap two
cups, rotate the row, move the left cup to the right end...), naming cups by their CURRENT position only. At the
end, say which trinket is under each asked position: it has to be tracked through every move."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
TRINKETS = ["ring", "coin", "pearl", "key", "button", "marble", "bead", "thimble"]
ORD = ["first", "second", "third", "fourth", "fifth", "sixth"]
# difficulty -> (cups, trinkets, moves)
LEVELS = {"easy": (4, 2, 5), "medium": (5, 3, 8), "hard": (6, 3, 11)}


class ShellGameEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        cups, _, moves = LEVELS[self.difficulty]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns > moves else moves + 1
        self.rng = random.Random()
        self.cups = []
        self.moves = []
        self.asked = []
        self.start = []
        self.final = []
        self._answer = ""
        self.pos = 0
        self.turn = 0
        self.done = False

    def _apply(self, row, move):
        kind = move[0]
        row = list(row)
        if kind == "swap":
            i, j = move[1], move[2]
            row[i], row[j] = row[j], row[i]
        elif kind == "rotate_right":
            row = [row[-1]] + row[:-1]
        elif kind == "rotate_left":
            row = row[1:] + [row[0]]
        elif kind == "reverse":
            row = row[::-1]
        return row

    def _say(self, move):
        kind = move[0]
        if kind == "swap":
            return f"The conjurer swaps the {ORD[move[1]]} and the {ORD[move[2]]} cup (counting from the left)."
        if kind == "rotate_right":
            return "The conjurer slides the rightmost cup to the far left; the others shift one place right."
        if kind == "rotate_left":
            return "The conjurer slides the leftmost cup to the far right; the others shift one place left."
        return "The conjurer reverses the order of the whole row."

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, t, k = LEVELS[self.difficulty]
        for _ in range(200):
            items = rng.sample(TRINKETS, t)
            row = items + ["nothing"] * (n - t)
            rng.shuffle(row)
            self.start = list(row)
            self.moves = []
            for _ in range(k):
                kind = rng.choice(["swap", "swap", "swap", "rotate_right", "rotate_left", "reverse"])
                move = (kind,) + (tuple(sorted(rng.sample(range(n), 2))) if kind == "swap" else ())
                self.moves.append(move)
                row = self._apply(row, move)
            # ask about two positions that hold trinkets, and neither may still hold its starting trinket
            filled = [i for i in range(n) if row[i] != "nothing" and row[i] != self.start[i]]
            if len(filled) >= 2:
                self.asked = sorted(rng.sample(filled, 2))
                break
        self.final = row
        self._answer = ", ".join(row[i] for i in self.asked)
        self.pos = 0
        self.turn = 0
        self.done = False
        intro = ("SHELL GAME\n"
                 f"{n} cups stand in a row. Before the moves start you are shown what lies under each, from left to "
                 f"right: {', '.join(self.start)}.\n"
                 "Moves are announced one per turn; cups are always named by where they stand NOW. Reply "
                 "\\boxed{next} for the next move; at the end you will be asked what lies under two cups.\n")
        return intro + self._line(), {}

    def _line(self):
        if self.pos < len(self.moves):
            return f"Move {self.pos + 1}: {self._say(self.moves[self.pos])}"
        a, b = self.asked
        return (f"The moves are over. What lies under the {ORD[a]} cup and under the {ORD[b]} cup (from the "
                "left)? Answer both, in that order, e.g. \\boxed{coin, nothing}.")

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        if self.pos < len(self.moves):
            self.pos += 1
            return self._line(), 0.0, False, False, {}
        m = BOX_RE.search(str(action)[:5000])
        got = [p.strip().lower() for p in re.split(r"[,;]| and ", m.group(1))] if m else []
        got = [re.sub(r"^(a|an|the)\s+", "", g) for g in got if g]
        self.done = True
        if got == self._answer.split(", "):
            return "Correct: you followed every cup. You win!", 1.0, True, False, {}
        return f"Not right: under those cups lie {self._answer}. You lose.", 0.0, True, False, {}

    def solution(self):
        return "next" if self.pos < len(self.moves) else self._answer

    def hint(self):
        rot = sum(1 for m in self.moves if m[0] != "swap")
        return (f"Keep the whole row written down and rewrite it after every move; {rot} of the {len(self.moves)} "
                "moves shift every cup at once (slides and reversals), so positions you tracked before them change.")
