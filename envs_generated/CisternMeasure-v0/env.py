"""Cistern measuring: three vessels of odd, generated sizes, some with handling restrictions, must leave an
exact amount of water in one named vessel before a tight budget of pours runs out."""

import random
import re
from collections import deque

NAMES = ("A", "B", "C")
ROLES = ("flask", "pitcher", "cask")


class CisternMeasureEnv:
    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        cfg = {
            "easy": {"cap": (3, 9), "dist": (5, 7), "slack": 2, "rules": 0},
            "medium": {"cap": (4, 13), "dist": (7, 9), "slack": 1, "rules": 1},
            "hard": {"cap": (5, 17), "dist": (8, 11), "slack": 0, "rules": 2},
        }[self.difficulty]
        self.cfg = cfg
        self.rng = random.Random()
        self.caps = (1, 1, 1)
        self.state = (0, 0, 0)
        self.start = (0, 0, 0)
        self.target = 0
        self.target_jug = 0
        self.no_fill = set()
        self.no_empty = set()
        self.budget = 0
        self.moves = 0
        self.turn = 0
        self.done = False
        self.last = ""
        self._plan_len = 0
        self._cache = {}

    # ------------------------------------------------------------------ mechanics
    def _moves_from(self, s):
        out = []
        caps = self.caps
        for i in range(3):
            if i not in self.no_fill and s[i] < caps[i]:
                t = list(s)
                t[i] = caps[i]
                out.append(("fill " + NAMES[i], tuple(t)))
        for i in range(3):
            if i not in self.no_empty and s[i] > 0:
                t = list(s)
                t[i] = 0
                out.append(("empty " + NAMES[i], tuple(t)))
        for i in range(3):
            for j in range(3):
                if i != j and s[i] > 0 and s[j] < caps[j]:
                    amount = min(s[i], caps[j] - s[j])
                    t = list(s)
                    t[i] -= amount
                    t[j] += amount
                    out.append(("pour " + NAMES[i] + " " + NAMES[j], tuple(t)))
        return out

    def _is_goal(self, s):
        return s[self.target_jug] == self.target

    def _bfs(self, start):
        """Shortest plan from start: (length, first action) or (None, None)."""
        if self._is_goal(start):
            return 0, None
        seen = {start: None}
        queue = deque([start])
        while queue:
            s = queue.popleft()
            for name, t in self._moves_from(s):
                if t in seen:
                    continue
                seen[t] = (s, name)
                if self._is_goal(t):
                    length = 1
                    first = name
                    cur = s
                    while seen[cur] is not None:
                        cur, first = seen[cur][0], seen[cur][1]
                        length += 1
                    return length, first
                queue.append(t)
        return None, None

    def _all_distances(self, start):
        dist = {start: 0}
        queue = deque([start])
        while queue:
            s = queue.popleft()
            for _, t in self._moves_from(s):
                if t not in dist:
                    dist[t] = dist[s] + 1
                    queue.append(t)
        return dist

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        lo, hi = self.cfg["cap"]
        dmin, dmax = self.cfg["dist"]
        for _ in range(400):
            caps = sorted(self.rng.sample(range(lo, hi + 1), 3))
            self.caps = tuple(caps)
            self.no_fill, self.no_empty = set(), set()
            rules = self.cfg["rules"]
            if rules >= 1:
                self.no_fill.add(2)  # the cask is too heavy to carry to the spring
            if rules >= 2:
                self.no_empty.add(self.rng.randrange(2))  # a sealed vessel cannot be dumped
            start = [0, 0, 0]
            if self.rng.random() < 0.6:
                k = self.rng.randrange(3)
                start[k] = self.rng.randint(1, caps[k] - 1)
            start = tuple(start)
            dist = self._all_distances(start)
            options = []
            for jug in range(3):
                best = {}
                for s, d in dist.items():
                    v = s[jug]
                    if v not in best or d < best[v]:
                        best[v] = d
                for v, d in best.items():
                    if dmin <= d <= dmax and v > 0 and v not in caps and v != start[jug]:
                        options.append((jug, v, d))
            if not options:
                continue
            want = self.rng.choice(sorted({o[2] for o in options}))
            jug, v, d = self.rng.choice(sorted(o for o in options if o[2] == want))
            self.start = start
            self.state = start
            self.target_jug = jug
            self.target = v
            self._plan_len = d
            break
        self.budget = self._plan_len + self.cfg["slack"]
        self.moves = 0
        self.turn = 0
        self.done = False
        self._cache = {}
        self.last = "The vessels stand ready by the spring."
        return self._observation(), {}

    def _rules_text(self):
        lines = []
        for i in range(3):
            notes = []
            if i in self.no_fill:
                notes.append("too heavy to carry to the spring: it can only be filled by pouring into it")
            if i in self.no_empty:
                notes.append("sealed spout: it cannot be emptied on the ground, only poured into another vessel")
            extra = ("; " + "; ".join(notes)) if notes else ""
            lines.append(f"  {NAMES[i]} ({ROLES[i]}): capacity {self.caps[i]} L, holds {self.state[i]} L{extra}")
        return "\n".join(lines)

    def _observation(self):
        left = self.budget - self.moves
        return (
            f"Turn {self.turn}/{self.max_turns} | Moves used: {self.moves}/{self.budget} | Moves left: {left}\n"
            f"Goal: leave exactly {self.target} L in vessel {NAMES[self.target_jug]} "
            f"({ROLES[self.target_jug]}) within the move budget.\n"
            f"Vessels:\n{self._rules_text()}\n"
            f"Last: {self.last}\n"
            "Commands (one per turn): fill X (from the spring, to the brim), empty X (onto the ground), "
            "pour X Y (from X into Y until X is empty or Y is full), where X and Y are A, B or C.\n"
            "Reply with one command inside \\boxed{}, e.g. \\boxed{pour X Y} with your vessels."
        )

    def _parse(self, action):
        text = str(action)[:4000]
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        if not found:
            return None
        cmd = found[-1].strip().lower()
        cmd = re.sub(r"[^a-z ]", " ", cmd)
        words = cmd.split()
        if not words:
            return ""
        verb = words[0]
        jugs = [w.upper() for w in words[1:] if w in ("a", "b", "c")]
        if verb == "fill" and len(jugs) == 1:
            return "fill " + jugs[0]
        if verb == "empty" and len(jugs) == 1:
            return "empty " + jugs[0]
        if verb == "pour" and len(jugs) == 2:
            return "pour " + jugs[0] + " " + jugs[1]
        return ""

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        cmd = self._parse(action)
        if cmd is None:
            self.last = ("No command found. Put exactly one command inside \\boxed{}, e.g. \\boxed{fill X} with a "
                         "vessel letter.")
        elif cmd == "":
            self.last = "Unknown command. Use fill X, empty X or pour X Y with X, Y in A, B, C."
        else:
            legal = dict(self._moves_from(self.state))
            if cmd not in legal:
                self.last = self._why_illegal(cmd) + " Nothing changed and no move was used."
            else:
                before = self.state
                self.state = legal[cmd]
                self.moves += 1
                self.last = f"{cmd}: " + ", ".join(
                    f"{NAMES[i]} {before[i]}->{self.state[i]} L" for i in range(3) if before[i] != self.state[i])
                if self._is_goal(self.state):
                    self.done = True
                    self.last += f". Vessel {NAMES[self.target_jug]} holds exactly {self.target} L: goal reached!"
                    return self._observation(), 1.0, True, False, {}
                if self.moves >= self.budget:
                    self.done = True
                    self.last += (f". The move budget is spent and vessel {NAMES[self.target_jug]} holds "
                                  f"{self.state[self.target_jug]} L, not {self.target} L. You lose.")
                    return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def _why_illegal(self, cmd):
        parts = cmd.split()
        i = NAMES.index(parts[1])
        if parts[0] == "fill":
            if i in self.no_fill:
                return f"Vessel {parts[1]} cannot be carried to the spring."
            return f"Vessel {parts[1]} is already full."
        if parts[0] == "empty":
            if i in self.no_empty:
                return f"Vessel {parts[1]} has a sealed spout and cannot be dumped."
            return f"Vessel {parts[1]} is already empty."
        j = NAMES.index(parts[2])
        if i == j:
            return "A vessel cannot be poured into itself."
        if self.state[i] == 0:
            return f"Vessel {parts[1]} is empty."
        return f"Vessel {parts[2]} is already full."

    def solution(self):
        if self.state not in self._cache:
            self._cache[self.state] = self._bfs(self.state)
        length, first = self._cache[self.state]
        if first is None:
            return "pour A B"
        return first

    def hint(self):
        # Summarise the shortest plan from the start without giving its moves.
        seen = {self.start: None}
        queue = deque([self.start])
        end = None
        while queue and end is None:
            s = queue.popleft()
            for name, t in self._moves_from(s):
                if t not in seen:
                    seen[t] = (s, name)
                    if self._is_goal(t):
                        end = t
                        break
                    queue.append(t)
        plan = []
        cur = end
        while cur is not None and seen[cur] is not None:
            plan.append(seen[cur][1])
            cur = seen[cur][0]
        fills = sorted({p.split()[1] for p in plan if p.startswith("fill")})
        used = sorted({n for p in plan for n in p.split()[1:]})
        unused = [n for n in NAMES if n not in used]
        text = (f"A shortest plan takes {len(plan)} moves (your budget is {self.budget}). "
                f"It fills only vessel(s) {', '.join(fills) if fills else 'none'} from the spring")
        if unused:
            text += f" and never touches vessel {', '.join(unused)}"
        text += (". Think of the target as a sum and difference of capacities (and of any water already present): "
                 "work backwards from the state just before the goal.")
        return text

    def _legal_commands(self):
        return [name for name, _ in self._moves_from(self.state)]
