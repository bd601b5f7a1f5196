"""Orchard claims: you and a rival grower take turns claiming plots of a walled orchard, each plot worth its
yield. The rival answers every claim by an announced rule tied to YOUR last claim (the best free plot next to
it, else the best free plot anywhere). Order your claims so the rival's answers cost you least and reach the
yield target."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
COLS = "ABCDE"
# difficulty -> (rows, columns, walls, target slack below the best total)
LEVELS = {"easy": (3, 3, 0, 0), "medium": (3, 4, 1, 0), "hard": (4, 4, 3, 0)}


class OrchardClaimsEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rows, self.cols, self.n_walls, self.slack = LEVELS[self.difficulty]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns > 0 else 12
        self.rng = random.Random()
        self.value = {}
        self.owner = {}
        self.cells = []
        self.target = 0
        self.turn = 0
        self.done = False
        self.last = ""
        self._memo = {}

    def _name(self, c):
        return f"{COLS[c[1]]}{c[0] + 1}"

    def _nbrs(self, c):
        r, k = c
        out = [(r + dr, k + dk) for dr, dk in ((-1, 0), (0, -1), (0, 1), (1, 0))]
        return [x for x in out if x in self.value]

    def _rival(self, mine, free):
        """The announced rule: the most valuable free plot next to your last claim (reading order on ties),
        else the most valuable free plot anywhere (reading order on ties)."""
        near = [c for c in self._nbrs(mine) if c in free]
        pool = near if near else sorted(free)
        return max(pool, key=lambda c: (self.value[c], -c[0], -c[1])) if pool else None

    def _best(self, free):
        """Largest yield you can still collect from the free plots (you move first), and the claim reaching it."""
        key = frozenset(free)
        if key in self._memo:
            return self._memo[key]
        best = (0, None)
        for c in sorted(free):
            rest = set(free)
            rest.discard(c)
            r = self._rival(c, rest)
            if r is not None:
                rest.discard(r)
            total = self.value[c] + self._best(rest)[0]
            if total > best[0]:
                best = (total, c)
        self._memo[key] = best
        return best

    def _score(self, free, pick):
        """Your total when `pick(free)` chooses every claim (for the check that simple rules fall short)."""
        free = set(free)
        total = 0
        while free:
            c = pick(free)
            free.discard(c)
            total += self.value[c]
            r = self._rival(c, free)
            if r is not None:
                free.discard(r)
        return total

    def _greedy(self, free):
        return max(free, key=lambda c: (self.value[c], -c[0], -c[1]))

    def _net(self, free):
        def gain(c):
            rest = set(free)
            rest.discard(c)
            r = self._rival(c, rest)
            return self.value[c] - (self.value[r] if r is not None else 0)
        return max(sorted(free), key=gain)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        grid = [(r, k) for r in range(self.rows) for k in range(self.cols)]
        for _ in range(300):
            walls = set(rng.sample(grid, self.n_walls))
            self.cells = [c for c in grid if c not in walls]
            self.value = {c: rng.randint(1, 9) for c in self.cells}
            self._memo = {}
            best = self._best(set(self.cells))[0]
            simple = max(self._score(self.cells, self._greedy), self._score(self.cells, self._net))
            if best - self.slack > simple:
                break
        self.target = best - self.slack
        self.owner = {}
        self.turn = 0
        self.done = False
        self.last = "No plot is claimed yet."
        return self._render(), {}

    def _free(self):
        return set(c for c in self.cells if c not in self.owner)

    def _mine(self):
        return sum(self.value[c] for c, o in self.owner.items() if o == "you")

    def _render(self):
        header = "      " + "".join(f"{COLS[k]:^7}" for k in range(self.cols))
        lines = [f"ORCHARD CLAIMS  |  Turn {self.turn}  |  Your yield: {self._mine()}  |  Target: {self.target}", "",
                 "Plots (yield; [you], (rival), ## = wall):", header]
        for r in range(self.rows):
            row = f"  {r + 1:<4}"
            for k in range(self.cols):
                c = (r, k)
                if c not in self.value:
                    cell = "##"
                elif self.owner.get(c) == "you":
                    cell = f"[{self.value[c]}]"
                elif self.owner.get(c) == "rival":
                    cell = f"({self.value[c]})"
                else:
                    cell = f"{self.value[c]}"
                row += f"{cell:^7}"
            lines.append(row)
        lines += [
            "",
            "Rules: you claim one free plot per turn; right after, the rival claims one too, by a fixed rule: the",
            "most valuable free plot sharing a side with the plot you just claimed (walls are not plots); if none",
            "of its neighbours is free, the most valuable free plot anywhere. Ties go to the plot first in reading",
            "order (row 1 before row 2, column A before B). Play until every plot is claimed; you win if your",
            f"total yield is at least {self.target}.",
            "",
            f"Last: {self.last}",
            "",
            "Command (one per turn): \\boxed{PLOT}, e.g. \\boxed{B2}.",
        ]
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The season is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.findall(str(action)[:4000])
        word = m[0].strip().upper() if len(m) == 1 else ""
        free = self._free()
        pick = next((c for c in free if self._name(c) == word), None)
        if pick is None:
            self.last = "That is not one free plot (write exactly one, like \\boxed{B2}); the turn was lost."
            if self.turn >= self.max_turns:
                self.done = True
                return self._render() + "\n\nOut of turns. You lose.", 0.0, True, False, {}
            return self._render(), 0.0, False, False, {}
        self.owner[pick] = "you"
        free.discard(pick)
        rival = self._rival(pick, free)
        self.last = f"You claimed {self._name(pick)} ({self.value[pick]})."
        if rival is not None:
            self.owner[rival] = "rival"
            free.discard(rival)
            self.last += f" The rival claimed {self._name(rival)} ({self.value[rival]})."
        if not free:
            self.done = True
            mine = self._mine()
            if mine >= self.target:
                return self._render() + f"\n\nAll plots are claimed: your yield {mine} meets the target. You win!", \
                    1.0, True, False, {}
            return self._render() + f"\n\nAll plots are claimed: your yield {mine} is below {self.target}. You lose.", \
                0.0, True, False, {}
        if self.turn >= self.max_turns:
            self.done = True
            return self._render() + "\n\nOut of turns. You lose.", 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        free = self._free()
        c = self._best(free)[1]
        return self._name(c if c is not None else sorted(free)[0])

    def hint(self):
        return ("Every claim hands the rival a plot: the best free neighbour of the plot you take. So a plot's real "
                "worth is its yield minus what it gives away now and later. Take rich plots whose neighbours are "
                "poor or already claimed, and save a rich plot until the plots around it are gone, so the rival's "
                "answer falls elsewhere; think a few claims ahead, greedy grabbing falls short of the target.")
