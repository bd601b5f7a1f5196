"""A number maze on a dial: starting from one value, reach an exact target by applying offered operations (add, subtract, multiply, floor-divide), one per turn, where multiplications and divisions have limited uses and leaving the dial's range jams it.
Trains planning arithmetic chains backwards from a target under resource limits."""

import random
import re
from collections import deque


def _boxed(text):
    """Content of the last \\boxed{...} (balanced braces), or None."""
    if not isinstance(text, str):
        text = str(text)
    i = text.rfind("\\boxed{")
    if i < 0:
        return None
    start = i + 7
    depth = 0
    for j in range(start, len(text)):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return text[start:j]
            depth -= 1
    return None


SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


class DialTargetMazeEnv:
    LEVELS = {
        "easy": {"limit": 199, "start": (2, 20), "depth": (5, 6), "mul": [(2, 3, 3)], "div": [(2, 3, 1)], "a": (3, 9),
                 "c": (2, 9)},
        "medium": {"limit": 999, "start": (2, 30), "depth": (6, 7), "mul": [(2, 4, 2)], "div": [(2, 4, 2)],
                   "a": (4, 13), "c": (3, 11)},
        "hard": {"limit": 999, "start": (2, 40), "depth": (8, 9), "mul": [(2, 3, 2), (4, 7, 1)], "div": [(2, 5, 2)],
                 "a": (5, 17), "c": (4, 13)},
    }

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.cfg = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.ops = []          # list of (kind, amount, max_uses or None)
        self.uses = ()         # remaining uses per op (None = unlimited)
        self.value = 0
        self.start = 0
        self.target = 0
        self.limit = 999
        self.turn = 0
        self.done = False
        self.history = []
        self.last = ""
        self.best_len = 0
        self._plan = []

    # ------------------------------------------------------------------ mechanics
    def _apply(self, value, idx):
        kind, amt, _ = self.ops[idx]
        if kind == "add":
            return value + amt
        if kind == "sub":
            return value - amt
        if kind == "mul":
            return value * amt
        return value // amt

    def _search(self, value, uses, budget, goal=None):
        """Breadth-first search over (value, uses left).

        With a goal: the shortest op sequence from (value, uses) to the goal within budget moves,
        or None. Without: (distance of every value reachable within budget, parent map)."""
        if goal is not None and value == goal:
            return []
        startkey = (value, uses)
        parent = {startkey: None}
        dist_val = {value: 0}
        frontier = [startkey]
        depth = 0
        lim = self.limit
        table = [(i, kind, amt) for i, (kind, amt, _) in enumerate(self.ops)]
        while frontier and depth < budget:
            depth += 1
            nxt = []
            for key in frontier:
                v, us = key
                for i, kind, amt in table:
                    u = us[i]
                    if u == 0:
                        continue
                    if kind == "add":
                        w = v + amt
                    elif kind == "sub":
                        w = v - amt
                    elif kind == "mul":
                        w = v * amt
                    else:
                        w = v // amt
                    if w < 0 or w > lim:
                        continue
                    nk = (w, us if u is None else us[:i] + (u - 1,) + us[i + 1:])
                    if nk in parent:
                        continue
                    parent[nk] = (key, i)
                    if goal is not None and w == goal:
                        return self._trace(parent, nk)
                    if w not in dist_val:
                        dist_val[w] = depth
                    nxt.append(nk)
            frontier = nxt
        return None if goal is not None else (dist_val, parent)

    @staticmethod
    def _trace(parent, key):
        path = []
        while parent[key] is not None:
            key, op = parent[key]
            path.append(op)
        return path[::-1]

    def _op_text(self, i):
        kind, amt, _ = self.ops[i]
        return f"{SYMBOL[kind]}{amt}"

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        cfg = self.cfg
        self.limit = cfg["limit"]
        while True:
            a = self.rng.randint(*cfg["a"])
            c = self.rng.randint(*cfg["c"])
            if a == c:
                continue
            ops = [("add", a, None), ("sub", c, None)]
            used = set()
            for lo, hi, u in cfg["mul"]:
                b = self.rng.randint(lo, hi)
                if b in used:
                    b = b + 1
                used.add(b)
                ops.append(("mul", b, u))
            for lo, hi, u in cfg["div"]:
                ops.append(("div", self.rng.randint(lo, hi), u))
            self.rng.shuffle(ops)
            self.ops = ops
            uses = tuple(u for (_, _, u) in ops)
            start = self.rng.randint(*cfg["start"])
            lo, hi = cfg["depth"]
            dist, parent = self._search(start, uses, hi)
            # targets that pressing one button over and over would hit are too easy
            trivial = set()
            for i in range(len(ops)):
                v = start
                for _ in range(min(self.max_turns, 12) if uses[i] is None else uses[i]):
                    kind, amt, _ = ops[i]
                    v = v + amt if kind == "add" else v - amt if kind == "sub" else v * amt if kind == "mul" \
                        else v // amt
                    if v < 0 or v > self.limit:
                        break
                    trivial.add(v)
            cands = sorted(v for v, d in dist.items()
                           if lo <= d <= hi and v > 20 and v != start and v not in trivial)
            if not cands:
                continue
            self.target = self.rng.choice(cands)
            # the first state with the target value that the search met lies on a shortest route
            goal_key = min((k for k in parent if k[0] == self.target), key=lambda k: len(self._trace(parent, k)))
            plan = self._trace(parent, goal_key)
            self.start = start
            self.value = start
            self.uses = uses
            self.best_len = dist[self.target]
            break
        self.turn = 0
        self.done = False
        self.history = []
        self.last = "The dial is set. Reach the target exactly."
        self._plan = plan
        return self._render(), {}

    def _ops_lines(self):
        out = []
        for i, (kind, amt, mx) in enumerate(self.ops):
            label = {"add": f"add {amt}", "sub": f"subtract {amt}", "mul": f"multiply by {amt}",
                     "div": f"divide by {amt}, rounding down"}[kind]
            left = "unlimited" if mx is None else f"{self.uses[i]} of {mx} uses left"
            out.append(f"  \\boxed{{{self._op_text(i)}}}  {label} ({left})")
        return out

    def _render(self):
        lines = [f"Turn {self.turn}/{self.max_turns} | Value: {self.value} | Target: {self.target} | "
                 f"Dial range: 0..{self.limit}",
                 f"Last: {self.last}"]
        if self.history:
            lines.append("Path so far: " + " ".join([str(self.start)] + self.history))
        lines.append("Operations (each press uses one turn):")
        lines.extend(self._ops_lines())
        lines.append(f"Any result below 0 or above {self.limit} jams the dial and you lose. Land exactly on "
                     f"{self.target} before the turns run out. Send ONE operation per turn, e.g. the text shown "
                     f"inside a box above.")
        return "\n".join(lines)

    def _parse(self, content):
        s = content.strip().lower().replace(" ", "").replace("\u00d7", "*").replace("\u2212", "-")
        s = s.replace("//", "/").replace("\u00f7", "/")
        if s.startswith("x"):
            s = "*" + s[1:]
        m = re.fullmatch(r"([+\-*/])(\d{1,6})", s)
        if not m:
            return None
        for i, (kind, amt, _) in enumerate(self.ops):
            if SYMBOL[kind] == m.group(1) and str(amt) == m.group(2).lstrip("0"):
                return i
        return -1

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        left = self.max_turns - self.turn
        content = _boxed(action)
        if content is None:
            self.last = "No command found (turn wasted). Send one operation inside \\boxed{...}, e.g. \\boxed{" + \
                        self._op_text(0) + "}."
            return self._after_move()
        idx = self._parse(content)
        if idx is None or idx < 0:
            shown = content[:30]
            self.last = (f"'{shown}' is not one of the offered operations (turn wasted). Use exactly one of: "
                         + ", ".join(self._op_text(i) for i in range(len(self.ops))) + ".")
            return self._after_move()
        if self.uses[idx] == 0:
            self.last = f"{self._op_text(idx)} has no uses left (turn wasted)."
            return self._after_move()
        new = self._apply(self.value, idx)
        op = self._op_text(idx)
        if self.uses[idx] is not None:
            self.uses = self.uses[:idx] + (self.uses[idx] - 1,) + self.uses[idx + 1:]
        if new < 0 or new > self.limit:
            self.done = True
            self.history.append(f"[{op}] {new}")
            self.last = f"{op} turned {self.value} into {new}, outside 0..{self.limit}: the dial jams. You lose."
            self.value = new
            return self._render(), 0.0, True, False, {}
        self.history.append(f"[{op}] {new}")
        self.last = f"{op} turned {self.value} into {new}."
        self.value = new
        if new == self.target:
            self.done = True
            self.last += f" Target reached in {self.turn} turns. You win!"
            return self._render(), 1.0, True, False, {}
        if left == 0:
            self.done = True
            self.last += " No turns left."
            return self._render(), 0.0, True, False, {}
        if self._plan and self._plan[0] == idx:
            self._plan = self._plan[1:]  # the rest of a shortest route is a shortest route
        else:
            self._plan = self._search(self.value, self.uses, left, self.target)
        if self._plan is None or len(self._plan) > left:
            self.done = True
            self._plan = []
            self.last += (f" From {new}, with the uses left, {self.target} can no longer be reached in the "
                          f"{left} remaining turn{'s' if left != 1 else ''}. You lose.")
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def _after_move(self):
        left = self.max_turns - self.turn
        if left <= 0:
            self.done = True
            return self._render() + "\nNo turns left.", 0.0, True, False, {}
        # a wasted turn leaves the state unchanged: the current plan stays shortest
        plan = self._plan if len(self._plan) <= left else None
        if plan is None:
            self.done = True
            self._plan = []
            return self._render() + "\nThe target can no longer be reached in the turns left. You lose.", \
                0.0, True, False, {}
        self._plan = plan
        return self._render(), 0.0, False, False, {}

    def solution(self):
        if self._plan:
            return self._op_text(self._plan[0])
        return self._op_text(0)

    def hint(self):
        if self.done or not self._plan:
            return "Work backwards from the target: undo a multiplication only where the value is divisible."
        plan = self._plan
        if len(plan) < 2:
            return f"You are one operation away from {self.target}: check which single operation lands on it."
        mid = self.value
        for i in plan[: len(plan) // 2]:
            mid = self._apply(mid, i)
        kinds = {"mul": 0, "div": 0}
        for i in plan:
            k = self.ops[i][0]
            if k in kinds:
                kinds[k] += 1
        text = (f"A shortest route from {self.value} needs {len(plan)} operations, uses multiplication "
                f"{kinds['mul']} time{'s' if kinds['mul'] != 1 else ''}"
                + (f" and division {kinds['div']} time{'s' if kinds['div'] != 1 else ''}" if any(
                    o[0] == "div" for o in self.ops) else "")
                + f", and passes through {mid} after {len(plan) // 2} of them. Work backwards from "
                  f"{self.target}: undo a multiplication only where the value is divisible, and use the add/"
                  f"subtract pair to fix the remainder.")
        return text

    def close(self):
        pass
