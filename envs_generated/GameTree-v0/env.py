"""Game tree: a short two-player game is written out as a tree of choices with the final scores; you move first
and want the score high, the rival then moves and wants it low, and so on. Say which first move to make and what
score it guarantees against perfect play."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (depth, branching)
LEVELS = {"easy": (2, 3), "medium": (3, 3), "hard": (4, 2)}


class GameTreeEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.tree = None
        self._move = ""
        self._value = 0
        self.turn = 0
        self.done = False

    def _build(self, depth, b):
        if depth == 0:
            return self.rng.randint(-9, 20)
        return [self._build(depth - 1, b) for _ in range(b)]

    def _value_of(self, node, maximise):
        if isinstance(node, int):
            return node
        vals = [self._value_of(c, not maximise) for c in node]
        return max(vals) if maximise else min(vals)

    @staticmethod
    def _leaves(node):
        if isinstance(node, int):
            return [node]
        out = []
        for c in node:
            out += GameTreeEnv._leaves(c)
        return out

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        depth, b = LEVELS[self.difficulty]
        for _ in range(300):
            self.tree = self._build(depth, b)
            vals = [self._value_of(c, False) for c in self.tree]
            best = max(vals)
            if vals.count(best) != 1:
                continue
            k = vals.index(best)
            # the branch holding the biggest score, and the branch with the best average, must both be wrong
            by_max = max(range(b), key=lambda i: (max(self._leaves(self.tree[i])), -i))
            by_avg = max(range(b), key=lambda i: (sum(self._leaves(self.tree[i])) / len(self._leaves(self.tree[i])), -i))
            if by_max != k and by_avg != k:
                break
        self._move = "ABCD"[k]
        self._value = best
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _lines(self, node, path, depth):
        lines = []
        for i, c in enumerate(node):
            name = path + "ABCD"[i] if depth == 0 else path + "abcd"[i] if depth % 2 == 1 else path + "ABCD"[i]
            who = "you" if depth % 2 == 0 else "rival"
            if isinstance(c, int):
                lines.append(f"{'  ' * (depth + 1)}{name} ({who}): final score {c}")
            else:
                lines.append(f"{'  ' * (depth + 1)}{name} ({who}):")
                lines += self._lines(c, name + ".", depth + 1)
        return lines

    def _task(self):
        return ("GAME TREE\n"
                "You and a rival alternate choices, you first; capital letters are your choices, small letters the "
                "rival's. After the last choice the final score is fixed. You want it as HIGH as possible, the rival "
                "as LOW as possible, and both play perfectly.\n" + "\n".join(self._lines(self.tree, "", 0)) + "\n"
                "Which first move should you make, and what final score does it guarantee? Answer as "
                f"\\boxed{{MOVE SCORE}}, e.g. \\boxed{{B 4}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        got = re.fullmatch(r"\s*([A-Da-d])\s*[,:]?\s*(-?\d{1,3})\s*", m.group(1)) if m else None
        if got and got.group(1).upper() == self._move and int(got.group(2)) == self._value:
            self.done = True
            return "Correct: that move guarantees that score. You win!", 1.0, True, False, {}
        msg = "Could not read \\boxed{MOVE SCORE}." if not got else "Not right."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return f"{self._move} {self._value}"

    def hint(self):
        return ("Evaluate from the bottom up: at the rival's choices keep the SMALLEST score below, at yours the "
                "LARGEST. The branch holding the biggest final score is not the right first move here, and neither is "
                "the branch with the best average.")
