"""Warehouse crate pushing: shove the lettered boxes onto the target squares of a small walled floor, one push per turn, without wedging a box where it can never reach a target and within a tight push budget."""

import random
import re
from collections import deque

DIRS = {"up": (-1, 0), "right": (0, 1), "down": (1, 0), "left": (0, -1)}
ORDER = ("up", "right", "down", "left")
ALIASES = {
    "up": "up", "u": "up", "north": "up", "n": "up",
    "down": "down", "d": "down", "south": "down", "s": "down",
    "left": "left", "l": "left", "west": "left", "w": "left",
    "right": "right", "r": "right", "east": "right", "e": "right",
}
LEVELS = {
    "easy": {"h": 7, "w": 7, "boxes": 1, "inner_walls": (2, 4), "lo": 4, "hi": 7, "slack": 4},
    "medium": {"h": 7, "w": 8, "boxes": 2, "inner_walls": (3, 5), "lo": 6, "hi": 9, "slack": 3},
    "hard": {"h": 8, "w": 8, "boxes": 2, "inner_walls": (4, 6), "lo": 9, "hi": 12, "slack": 2},
}
LABELS = "AB"


class CratePushPlannerEnv:
    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.max_turns = int(max_turns)
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.cfg = LEVELS[self.difficulty]
        self.h = self.cfg["h"]
        self.w = self.cfg["w"]
        self.rng = random.Random()
        self.floor = set()
        self.targets = ()
        self.boxes = {}
        self.player = 0
        self.dist = {}
        self.opt = 0
        self.limit = 0
        self.turn = 0
        self.pushes = 0
        self.done = False
        self.last = ""
        self.first_plan = []
        self.comp_cache = {}
        self.floor_sorted = []
        self.nbrs = {}

    # ------------------------------------------------------------------ geometry
    def _step_cell(self, cell, name):
        dr, dc = DIRS[name]
        return cell + dr * self.w + dc

    def _reach(self, start, boxes):
        seen = {start}
        queue = [start]
        w = self.w
        floor = self.floor
        while queue:
            cell = queue.pop()
            for nxt in (cell - w, cell + 1, cell + w, cell - 1):
                if nxt in floor and nxt not in boxes and nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return seen

    def _moves(self, player, boxes):
        """Legal pushes (box cell, direction, new boxes tuple) from a state; boxes is a sorted tuple."""
        reach = self._reach(player, set(boxes))
        out = []
        bset = set(boxes)
        for b in boxes:
            for name in ORDER:
                ahead = self._step_cell(b, name)
                behind = self._step_cell(b, ORDER[(ORDER.index(name) + 2) % 4])
                if behind in reach and ahead in self.floor and ahead not in bset:
                    nb = tuple(sorted([x for x in boxes if x != b] + [ahead]))
                    out.append((b, name, nb))
        return reach, out

    def _key(self, player, boxes):
        comp = self._components(boxes)
        return (comp.get(player, player), boxes)

    def _components(self, boxes):
        """Map every free cell to the smallest cell of its walkable region, for a given box layout (cached)."""
        comp = self.comp_cache.get(boxes)
        if comp is not None:
            return comp
        comp = dict.fromkeys(boxes, -1)
        nbrs = self.nbrs
        for cell in self.floor_sorted:      # ascending, so the first cell met in a region is its smallest
            if cell in comp:
                continue
            comp[cell] = cell
            stack = [cell]
            while stack:
                x = stack.pop()
                for y in nbrs[x]:
                    if y not in comp:
                        comp[y] = cell
                        stack.append(y)
        for b in boxes:
            comp.pop(b)
        self.comp_cache[boxes] = comp
        return comp

    def _solvable_states(self, cap=6000):
        """Every state from which the goal is reachable, with its distance in pushes.

        Searched backwards from the goal with pulls (the exact reverse of a push), so a state
        that is missing from the result is a genuine deadlock.
        """
        self.comp_cache = {}
        self.floor_sorted = sorted(self.floor)
        w = self.w
        self.nbrs = {c: tuple(x for x in (c - w, c + 1, c + w, c - 1) if x in self.floor) for c in self.floor_sorted}
        goal = tuple(sorted(self.targets))
        dist = {}
        queue = deque()
        for rep in sorted(set(self._components(goal).values())):
            dist[(rep, goal)] = 0
            queue.append((rep, goal))
        w = self.w
        floor = self.floor
        while queue:
            key = queue.popleft()
            rep, bxs = key
            comp = self._components(bxs)
            d = dist[key] + 1
            for b in bxs:
                for step in (-w, 1, w, -1):
                    x = b - step            # the player stands here, next to the box ...
                    back = x - step         # ... and steps back here, dragging the box onto x
                    if comp.get(x) == rep and back in comp:
                        nb = tuple(sorted([y for y in bxs if y != b] + [x]))
                        nkey = (self._components(nb)[back], nb)
                        if nkey not in dist:
                            if len(dist) >= cap:
                                return None
                            dist[nkey] = d
                            queue.append(nkey)
        return dist

    # ------------------------------------------------------------------ generation
    def _generate(self):
        cfg = self.cfg
        hi = min(cfg["hi"], max(2, self.max_turns - 1))
        lo = min(cfg["lo"], hi)
        fallback = None
        for attempt in range(60):
            interior = [r * self.w + c for r in range(1, self.h - 1) for c in range(1, self.w - 1)]
            nwalls = self.rng.randint(*cfg["inner_walls"])
            walls = set(self.rng.sample(interior, nwalls))
            floor = set(x for x in interior if x not in walls)
            self.floor = floor
            if len(self._reach(min(floor), set())) != len(floor):
                continue
            self.targets = tuple(sorted(self.rng.sample(sorted(floor), cfg["boxes"])))
            dist = self._solvable_states()
            if dist is None:
                continue
            relaxed = attempt >= 40
            pool = [k for k in sorted(dist) if lo <= dist[k] <= hi or (relaxed and 2 <= dist[k] <= hi)]
            pool = [k for k in pool if not any(b in self.targets for b in k[1])] or pool
            if not pool:
                continue
            wanted = self.rng.choice(sorted(set(dist[k] for k in pool)))
            pool = [k for k in pool if dist[k] == wanted]
            self.rng.shuffle(pool)
            for key in pool[:10]:
                player = self.rng.choice(sorted(self._reach(key[0], set(key[1]))))
                if not self._constant_wins(key[1], player):
                    return floor, self.targets, key[1], player, dist, dist[key]
            if fallback is None and dist:
                usable = [k for k in sorted(dist) if 1 <= dist[k] <= hi]
                if usable:
                    key = max(usable, key=lambda k: dist[k])
                    fallback = (floor, self.targets, key[1], key[0], dist, dist[key])
        return fallback

    def _constant_wins(self, boxes, player):
        """True when repeating one single push command would solve the puzzle (too easy to stumble into)."""
        for i in range(len(boxes)):
            for name in ORDER:
                bx = list(boxes)
                pl = player
                for _ in range(self.h + self.w):
                    b = bx[i]
                    ahead = self._step_cell(b, name)
                    behind = self._step_cell(b, ORDER[(ORDER.index(name) + 2) % 4])
                    occ = set(bx)
                    if ahead not in self.floor or ahead in occ or behind not in self._reach(pl, occ):
                        break
                    bx[i] = ahead
                    pl = b
                    if all(x in self.targets for x in bx):
                        return True
        return False

    # ------------------------------------------------------------------ api
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        result = self._generate()
        if result is None:  # practically unreachable; a small but valid puzzle keeps the contract
            w = self.w
            self.floor = set(r * w + c for r in range(1, self.h - 1) for c in range(1, self.w - 1))
            self.targets = tuple(sorted([2 * w + 3] + ([2 * w + 5] if self.cfg["boxes"] > 1 else [])))
            boxes = tuple(sorted([4 * w + 3] + ([4 * w + 5] if self.cfg["boxes"] > 1 else [])))
            dist = self._solvable_states()
            result = (self.floor, self.targets, boxes, 5 * w + 2, dist, dist.get(self._key(5 * w + 2, boxes), 2))
        floor, targets, boxes, player, dist, d = result
        self.floor = floor
        self.targets = targets
        self.boxes = {LABELS[i]: b for i, b in enumerate(boxes)}
        self.player = player
        self.dist = dist
        self.opt = d
        self.limit = min(self.max_turns, d + self.cfg["slack"])
        self.turn = 0
        self.pushes = 0
        self.done = False
        self.last = "You enter the warehouse."
        self.first_plan = self._plan()
        return self._observation(), {}

    def _box_tuple(self):
        return tuple(sorted(self.boxes.values()))

    def _current_dist(self):
        return self.dist.get(self._key(self.player, self._box_tuple()))

    def _rc(self, cell):
        return f"({cell // self.w}, {cell % self.w})"

    def _render(self):
        lines = ["     " + "".join(f"{c:>2}" for c in range(self.w))]
        where = {b: lab for lab, b in self.boxes.items()}
        for r in range(self.h):
            row = []
            for c in range(self.w):
                cell = r * self.w + c
                if cell in where:
                    ch = where[cell].lower() if cell in self.targets else where[cell]
                elif cell == self.player:
                    ch = "+" if cell in self.targets else "@"
                elif cell in self.targets:
                    ch = "o"
                elif cell in self.floor:
                    ch = "."
                else:
                    ch = "#"
                row.append(f"{ch:>2}")
            lines.append(f"{r:>3}  " + "".join(row))
        return "\n".join(lines)

    def _observation(self):
        on = sum(1 for b in self.boxes.values() if b in self.targets)
        labels = sorted(self.boxes)
        header = (f"Warehouse | Turn {self.turn}/{self.limit} | Pushes made: {self.pushes} | "
                  f"Boxes on targets: {on}/{len(self.boxes)}")
        boxes = ", ".join(f"{lab} at {self._rc(self.boxes[lab])}" for lab in labels)
        targets = ", ".join(self._rc(t) for t in self.targets)
        legend = ("Legend: # wall, . floor, o empty target, @ you (+ when standing on a target), "
                  "capital letter = box, lower-case letter = that box sitting on a target. Coordinates are "
                  "(row, col); row 0 is the top.")
        example = " ".join(f"\\boxed{{{lab} up}}" for lab in labels)
        commands = (f"Commands (one per turn): \\boxed{{<box> <direction>}} with box in {', '.join(labels)} and "
                    f"direction up, down, left or right, e.g. {example}. You walk for free (around walls and "
                    "boxes) to the cell on the far side of that box and push it ONE cell; the cell it moves into "
                    "must be free floor. Boxes cannot be pulled. Any box may end on any target. If a push "
                    "leaves the puzzle unsolvable (for example a box jammed in a corner that is not a target) "
                    "you lose at once; you also lose when the turns run out.")
        return "\n".join([header, "Last: " + self.last, self._render(), "Boxes: " + boxes + " | Targets: " + targets,
                          legend, commands])

    def _finish_turn(self, message, reward=0.0, terminated=False):
        self.last = message
        if not terminated and self.turn >= self.limit:
            terminated = True
            self.last += " No turns left: the shift is over and the boxes are not in place. You lose."
        if terminated:
            self.done = True
        return self._observation(), reward, terminated, False, {}

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return self._finish_turn("No command found. Reply with one command such as \\boxed{A left}.")
        words = re.findall(r"[a-z]+", match.group(1).lower())
        label = None
        direction = None
        for word in words:
            if label is None and len(word) == 1 and word.upper() in self.boxes:
                label = word.upper()
            elif direction is None and word in ALIASES and not (len(word) == 1 and word.upper() in self.boxes):
                direction = ALIASES[word]
        if label is None and len(self.boxes) == 1 and words:
            label = sorted(self.boxes)[0] if direction is not None else None
        if label is None or direction is None:
            names = " or ".join(sorted(self.boxes))
            return self._finish_turn(f"Could not read a box ({names}) and a direction (up/down/left/right) from "
                                     f"'{match.group(1)[:40]}'. The turn is lost.")
        box = self.boxes[label]
        ahead = self._step_cell(box, direction)
        back = ORDER[(ORDER.index(direction) + 2) % 4]
        behind = self._step_cell(box, back)
        occupied = set(self.boxes.values())
        if ahead not in self.floor or ahead in occupied:
            what = "a wall" if ahead not in self.floor else "another box"
            return self._finish_turn(f"{label} {direction}: blocked, the cell {self._rc(ahead)} is {what}. "
                                     "Nothing moved; the turn is lost.")
        if behind not in self.floor or behind in occupied:
            return self._finish_turn(f"{label} {direction}: you would have to stand at {self._rc(behind)}, but that "
                                     "cell is not free floor. Nothing moved; the turn is lost.")
        if behind not in self._reach(self.player, occupied):
            return self._finish_turn(f"{label} {direction}: you cannot walk to {self._rc(behind)}, boxes or walls "
                                     "cut it off from you. Nothing moved; the turn is lost.")
        self.boxes[label] = ahead
        self.player = box
        self.pushes += 1
        msg = f"{label} {direction}: pushed box {label} from {self._rc(box)} to {self._rc(ahead)}."
        if all(b in self.targets for b in self.boxes.values()):
            self.done = True
            self.last = msg + " Every box is on a target. You win!"
            return self._observation(), 1.0, True, False, {}
        if self._current_dist() is None:
            return self._finish_turn(msg + " That push made the puzzle unsolvable: at least one box can no "
                                           "longer reach a free target. You lose.", 0.0, True)
        return self._finish_turn(msg)

    def _plan(self, limit=30):
        """Optimal remaining push sequence from the current state as (label, direction, from_cell) triples."""
        boxes = dict(self.boxes)
        player = self.player
        plan = []
        for _ in range(limit):
            bt = tuple(sorted(boxes.values()))
            cur = self.dist.get(self._key(player, bt))
            if cur is None or cur == 0:
                break
            reach, moves = self._moves(player, bt)
            chosen = None
            by_cell = {b: lab for lab, b in boxes.items()}
            options = []
            for b, name, nb in moves:
                nkey = self._key(b, nb)
                if self.dist.get(nkey) == cur - 1:
                    options.append((by_cell[b], ORDER.index(name), b, name))
            if not options:
                break
            options.sort()
            lab, _, b, name = options[0]
            chosen = (lab, name, b)
            plan.append(chosen)
            boxes[lab] = self._step_cell(b, name)
            player = b
        return plan

    def solution(self):
        plan = self._plan(limit=1)
        if not plan:
            return f"{sorted(self.boxes)[0]} up"
        return f"{plan[0][0]} {plan[0][1]}"

    def hint(self):
        plan = self._plan()
        if not plan:
            return "Every box is already placed."
        final = dict(self.boxes)
        order = []
        for lab, name, b in plan:
            final[lab] = self._step_cell(b, name)
            if lab not in order:
                order.append(lab)
        runs = 1
        for i in range(1, len(plan)):
            if plan[i][0] != plan[i - 1][0] or plan[i][1] != plan[i - 1][1]:
                runs += 1
        if len(self.boxes) == 1:
            lab = order[0]
            corner = None
            for i in range(1, len(plan)):
                if plan[i][1] != plan[i - 1][1]:
                    corner = plan[i][2]
                    break
            extra = (f" The box's route first bends at cell {self._rc(corner)}: get it there, then re-position "
                     "yourself behind it." if corner is not None else " The box travels in one straight line.")
            return (f"An optimal plan needs {len(plan)} pushes, grouped into {runs} straight runs; the box "
                    f"ends on target {self._rc(final[lab])}.{extra}")
        goes = "; ".join(f"box {lab} belongs on {self._rc(final[lab])}" for lab in sorted(final))
        return (f"An optimal plan needs {len(plan)} pushes in {runs} straight runs: {goes}, and it starts by "
                f"moving box {order[0]}. Before every push, check that the cell the box lands on is not a "
                "non-target corner or a wall edge it can never leave.")
