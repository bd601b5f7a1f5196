"""Chute towers: a Tower of Hanoi variant whose discs start and end in scrambled, generated stacks and may
only slide along a few one-way chutes between pegs; rebuild the goal stacks within a tight move budget."""

import random
import re
from collections import deque

PEGS = "ABCD"


class ChuteTowersEnv:
    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.cfg = {
            "easy": {"pegs": 3, "discs": 5, "extra": None, "dist": (5, 8), "slack": 2},
            "medium": {"pegs": 4, "discs": 5, "extra": 2, "dist": (7, 9), "slack": 1},
            "hard": {"pegs": 4, "discs": 6, "extra": 1, "dist": (8, 11), "slack": 0},
        }[self.difficulty]
        self.rng = random.Random()
        self.npegs = self.cfg["pegs"]
        self.ndiscs = self.cfg["discs"]
        self.arcs = []
        self.state = ()
        self.goal = ()
        self.dist = {}
        self.budget = 0
        self.moves = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ mechanics
    def _tops(self, s):
        tops = [None] * self.npegs
        for disc in range(self.ndiscs):  # disc 0 is the smallest
            if tops[s[disc]] is None:
                tops[s[disc]] = disc
        return tops

    def _moves(self, s, arcs):
        tops = self._tops(s)
        out = []
        for i, j in arcs:
            d = tops[i]
            if d is not None and (tops[j] is None or d < tops[j]):
                t = list(s)
                t[d] = j
                out.append(((i, j), tuple(t)))
        return out

    def _distances_to(self, goal):
        back = [(j, i) for i, j in self.arcs]
        limit = self.cfg["dist"][1] + self.cfg["slack"]  # farther states can never win within the budget
        dist = {goal: 0}
        queue = deque([goal])
        while queue:
            s = queue.popleft()
            if dist[s] >= limit:
                continue
            for _, t in self._moves(s, back):
                if t not in dist:
                    dist[t] = dist[s] + 1
                    queue.append(t)
        return dist

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n = self.npegs
        dmin, dmax = self.cfg["dist"]
        for _ in range(200):
            if self.cfg["extra"] is None:
                self.arcs = [(i, j) for i in range(n) for j in range(n) if i != j]
            else:
                order = list(range(n))
                self.rng.shuffle(order)
                arcs = [(order[k], order[(k + 1) % n]) for k in range(n)]
                others = [(i, j) for i in range(n) for j in range(n) if i != j and (i, j) not in arcs]
                others.sort()
                arcs += self.rng.sample(others, self.cfg["extra"])
                self.arcs = sorted(arcs)
            goal = tuple(self.rng.randrange(n) for _ in range(self.ndiscs))
            dist = self._distances_to(goal)
            dists = sorted({d for d in dist.values() if dmin <= d <= dmax})
            if not dists:
                continue
            want = self.rng.choice(dists)
            starts = sorted(s for s, d in dist.items() if d == want)
            self.state = self.rng.choice(starts)
            self.goal = goal
            self.dist = dist
            break
        self.budget = self.dist.get(self.state, 0) + self.cfg["slack"]
        self.moves = 0
        self.turn = 0
        self.done = False
        self.last = "The discs wait on their pegs."
        return self._observation(), {}

    def _stacks(self, s):
        lines = []
        for p in range(self.npegs):
            discs = [d + 1 for d in range(self.ndiscs - 1, -1, -1) if s[d] == p]
            lines.append(f"{PEGS[p]}: " + (" ".join(str(d) for d in discs) if discs else "-"))
        return " | ".join(lines)

    def _observation(self):
        chutes = ", ".join(f"{PEGS[i]}->{PEGS[j]}" for i, j in self.arcs)
        return (
            f"Turn {self.turn}/{self.max_turns} | Moves used: {self.moves}/{self.budget} | "
            f"Moves left: {self.budget - self.moves}\n"
            f"Discs 1 (smallest) to {self.ndiscs} (largest); stacks are listed bottom to top.\n"
            f"Now:  {self._stacks(self.state)}\n"
            f"Goal: {self._stacks(self.goal)}\n"
            f"Chutes (the only allowed moves, one way each): {chutes}\n"
            f"Last: {self.last}\n"
            "Rules: a move slides the TOP disc of one peg along a chute onto another peg; a disc may never land on "
            "a smaller disc. Reach the goal stacks exactly before the moves run out.\n"
            "Command: move X Y (top disc of peg X to peg Y). Reply with one command inside \\boxed{}, "
            "e.g. \\boxed{move X Y} with your pegs."
        )

    def _parse(self, action):
        text = str(action)[:4000]
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        if not found:
            return None
        body = found[-1].upper().replace("MOVE", " ").replace("TO", " ")
        pegs = re.findall(r"(?<![A-Z])([A-D])(?![A-Z])", body)
        if len(pegs) != 2:
            return ""
        return PEGS.index(pegs[0]), PEGS.index(pegs[1])

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        move = self._parse(action)
        if move is None:
            self.last = ("No command found. Put one command inside \\boxed{}, e.g. \\boxed{move X Y} with two peg "
                         "letters.")
        elif move == "":
            self.last = "Could not read that: name exactly two pegs (source first, then destination)."
        else:
            i, j = move
            tops = self._tops(self.state)
            if i >= self.npegs or j >= self.npegs:
                self.last = f"There are only pegs {PEGS[:self.npegs]}. Nothing moved."
            elif (i, j) not in self.arcs:
                self.last = f"There is no chute {PEGS[i]}->{PEGS[j]}. Nothing moved."
            elif tops[i] is None:
                self.last = f"Peg {PEGS[i]} is empty. Nothing moved."
            elif tops[j] is not None and tops[j] < tops[i]:
                self.last = (f"Disc {tops[i] + 1} cannot land on the smaller disc {tops[j] + 1}. Nothing moved.")
            else:
                d = tops[i]
                t = list(self.state)
                t[d] = j
                self.state = tuple(t)
                self.moves += 1
                self.last = f"Disc {d + 1} slid from {PEGS[i]} to {PEGS[j]}."
                if self.state == self.goal:
                    self.done = True
                    self.last += " The stacks match the goal: you win!"
                    return self._observation(), 1.0, True, False, {}
                if self.moves >= self.budget:
                    self.done = True
                    self.last += " The move budget is spent before the goal was reached: you lose."
                    return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def _plan(self, s):
        plan = []
        for _ in range(64):
            d = self.dist.get(s)
            if not d:
                break
            for (i, j), t in self._moves(s, self.arcs):
                if self.dist.get(t, 10 ** 6) == d - 1:
                    plan.append(((i, j), self._tops(s)[i]))
                    s = t
                    break
            else:
                break
        return plan

    def solution(self):
        plan = self._plan(self.state)
        if plan:
            (i, j), _ = plan[0]
            return f"move {PEGS[i]} {PEGS[j]}"
        legal = self._moves(self.state, self.arcs)
        if legal:
            i, j = legal[0][0]
            return f"move {PEGS[i]} {PEGS[j]}"
        return "move A B"

    def hint(self):
        plan = self._plan(self.state)
        if not plan:
            return "Compare the current stacks with the goal stacks disc by disc, largest first."
        counts = {}
        for _, d in plan:
            counts[d] = counts.get(d, 0) + 1
        biggest = max(counts)
        still = [str(d + 1) for d in range(self.ndiscs) if d not in counts]
        text = (f"From here a shortest solution takes {len(plan)} moves. The largest disc that has to move is disc "
                f"{biggest + 1}, and it moves {counts[biggest]} time(s) in that solution")
        if still:
            text += f"; disc(s) {', '.join(still)} never move"
        text += (". Settle the big discs first: before a big disc can slide, every smaller disc must be parked on a "
                 "peg that is neither its source nor its destination, and check that the chutes let them get back.")
        return text

    def _legal_commands(self):
        return [f"move {PEGS[i]} {PEGS[j]}" for (i, j), _ in self._moves(self.state, self.arcs)]
