"""A museum curator shows you, once, the floor plan of a dark palace and which curios lie in which room; then
the lights go out, and before every request porters swap the whole contents of two rooms or carry everything from
one room into another (news given once, never naming a curio), so you must keep each curio's current room in mind to
walk there in the dark, feeling only the doors, and fetch it or answer the curator's quiz."""
import random
import re

ROOM_NAMES = [
    "Library", "Pantry", "Chapel", "Armory", "Gallery", "Conservatory", "Study", "Cellar", "Attic",
    "Ballroom", "Kitchen", "Nursery", "Observatory", "Scullery", "Solar", "Vestry", "Workshop", "Larder",
    "Buttery", "Orangery", "Parlour", "Smithy", "Chancery", "Boudoir",
]
MATERIALS = ["silver", "brass", "iron", "jade", "ivory", "copper", "crystal", "ebony", "amber", "pewter"]
THINGS = ["key", "bell", "goblet", "mask", "compass", "lantern", "dagger", "mirror", "ring", "clock", "quill", "flute"]
DIRS = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
DIR_ORDER = ["north", "south", "east", "west"]

LEVELS = {
    # rows, cols, extra doors, curios, fetches, quiz questions, strikes that end the game, longest optimal run,
    # porter moves before each request
    "easy": (2, 3, 1, 8, 2, 1, 2, 11, 1),
    "medium": (3, 3, 2, 12, 3, 2, 2, 17, 1),
    "hard": (3, 4, 2, 16, 4, 2, 2, 22, 2),
}


class MemoryPalaceFetchEnv:
    def __init__(self, max_turns=24, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        (self.rows, self.cols, self.extra, self.n_objects, self.n_requests, self.n_quiz,
         self.max_strikes, self.walk_cap, self.n_moves) = LEVELS[self.difficulty]
        self.moves = []
        self.where = {}
        self.news_shown = -1
        self.rng = random.Random()
        self.names = {}
        self.doors = {}
        self.location = {}
        self.requests = []
        self.tasks = []
        self.task_index = 0
        self.pos = (0, 0)
        self.start = (0, 0)
        self.turn = 0
        self.strikes = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ generation
    def _cells(self):
        return [(r, c) for r in range(self.rows) for c in range(self.cols)]

    def _neighbours(self, cell):
        out = []
        for d in DIR_ORDER:
            dr, dc = DIRS[d]
            nxt = (cell[0] + dr, cell[1] + dc)
            if 0 <= nxt[0] < self.rows and 0 <= nxt[1] < self.cols:
                out.append((d, nxt))
        return out

    def _build_doors(self):
        cells = self._cells()
        doors = {cell: {} for cell in cells}
        seen = {cells[self.rng.randrange(len(cells))]}
        frontier = []
        for cell in seen:
            frontier += [(cell, d, n) for d, n in self._neighbours(cell)]
        while len(seen) < len(cells):
            cand = [f for f in frontier if f[2] not in seen]
            cell, d, nxt = cand[self.rng.randrange(len(cand))]
            doors[cell][d] = nxt
            doors[nxt][self._opposite(d)] = cell
            seen.add(nxt)
            frontier += [(nxt, d2, n2) for d2, n2 in self._neighbours(nxt)]
        missing = [(cell, d, n) for cell in cells for d, n in self._neighbours(cell)
                   if d in ("south", "east") and d not in doors[cell]]
        self.rng.shuffle(missing)
        for cell, d, nxt in missing[: self.extra]:
            doors[cell][d] = nxt
            doors[nxt][self._opposite(d)] = cell
        return doors

    @staticmethod
    def _opposite(d):
        return {"north": "south", "south": "north", "east": "west", "west": "east"}[d]

    def _bfs(self, src):
        """Distance and first step from src to every room (ties broken in DIR_ORDER)."""
        dist = {src: 0}
        first = {src: None}
        queue = [src]
        i = 0
        while i < len(queue):
            cur = queue[i]
            i += 1
            for d in DIR_ORDER:
                if d in self.doors[cur]:
                    nxt = self.doors[cur][d]
                    if nxt not in dist:
                        dist[nxt] = dist[cur] + 1
                        first[nxt] = d if cur == src else first[cur]
                        queue.append(nxt)
        return dist, first

    def _make_objects(self):
        # Few materials and few kinds, so most curios share a word with another curio.
        mats = self.rng.sample(MATERIALS, 4 if self.n_objects <= 8 else 5)
        kinds = self.rng.sample(THINGS, 4 if self.n_objects <= 12 else 5)
        combos = [m + " " + k for m in mats for k in kinds]
        self.rng.shuffle(combos)
        return combos[: self.n_objects]

    def _porter_move(self, where):
        """One move of whole room contents (applied to `where`); prefers rooms that hold curios."""
        cells = self._cells()
        full = sorted({c for c in where.values()})
        a = full[self.rng.randrange(len(full))] if full else cells[0]
        b = self.rng.choice([c for c in cells if c != a])
        if self.rng.random() < 0.7:
            for obj, c in where.items():
                where[obj] = b if c == a else a if c == b else c
            return ("swap", a, b)
        for obj, c in where.items():
            if c == a:
                where[obj] = b
        return ("carry", a, b)

    @staticmethod
    def _one_hop(room, moves):
        """A reader who follows only the last porter move naming the plan room, once."""
        for kind, a, b in reversed(moves):
            if room in (a, b):
                return b if room == a else (a if kind == "swap" else b)
        return room

    def _generate(self):
        tasks, moves = [], []
        for _ in range(400):
            self.doors = self._build_doors()
            cells = self._cells()
            picked = self.rng.sample(ROOM_NAMES, len(cells))
            self.names = {cell: picked[i] for i, cell in enumerate(cells)}
            objects = self._make_objects()
            self.location = {obj: cells[self.rng.randrange(len(cells))] for obj in objects}
            self.start = cells[self.rng.randrange(len(cells))]
            kinds = []
            for i in range(self.n_requests):
                kinds.append("fetch")
                if i < self.n_quiz:
                    kinds.append("quiz")
            where = dict(self.location)
            history, tasks, moves = [], [], []
            here, total, fooled, ok = self.start, 0, 0, True
            for kind in kinds:
                step_moves = [self._porter_move(where) for _ in range(self.n_moves)]
                history += step_moves
                moves.append(step_moves)
                pool = [o for o in where if (kind == "quiz" or where[o] != here)]
                # prefer a curio whose room a reader of the plan (or of one move) gets wrong
                tricky = [o for o in pool if where[o] != self.location[o]
                          and where[o] != self._one_hop(self.location[o], history)]
                choice = tricky or pool
                if not choice:
                    ok = False
                    break
                obj = choice[self.rng.randrange(len(choice))]
                fooled += obj in tricky
                tasks.append((kind, obj))
                if kind == "fetch":
                    dist, _ = self._bfs(here)
                    total += dist[where[obj]] + 1
                    here = where.pop(obj)
                else:
                    total += 1
            if not ok or fooled < 2:
                continue
            if total > min(self.walk_cap, self.max_turns - 2) or total < 3 * self.n_requests:
                continue
            break
        self.tasks, self.moves = tasks, moves
        self.requests = [o for kind, o in tasks if kind == "fetch"]

    # ------------------------------------------------------------------ text
    def _plan_text(self):
        lines = []
        for cell in self._cells():
            doors = ", ".join(f"{d} to the {self.names[self.doors[cell][d]]}" for d in DIR_ORDER if d in self.doors[cell])
            here = sorted(o for o, c in self.location.items() if c == cell)
            items = ", ".join("the " + o for o in here) if here else "nothing"
            lines.append(f"- {self.names[cell]}: doors {doors}. Holds: {items}.")
        return "\n".join(lines)

    def _status(self):
        cell = self.pos
        doors = ", ".join(f"{d} -> {self.names[self.doors[cell][d]]}" for d in DIR_ORDER if d in self.doors[cell])
        lines = [
            f"Turn {self.turn}/{self.max_turns} | Strikes {self.strikes}/{self.max_strikes} | "
            f"Tasks done {self.task_index}/{len(self.tasks)}",
            f"You stand in the dark {self.names[cell]}. Doors: {doors}.",
        ]
        if not self.done and self.task_index < len(self.tasks):
            if self.news_shown != self.task_index:
                self.news_shown = self.task_index
                lines.append("Porters' news (told once): " + " ".join(self._move_text(m)
                                                                       for m in self.moves[self.task_index]))
            kind, obj = self.tasks[self.task_index]
            if kind == "fetch":
                lines.append(f"Curator's request: bring me the {obj}.")
            else:
                lines.append(f"Curator's quiz: in which room is the {obj} now? (answer with the room name; "
                             f"you need not walk there)")
        lines.append("Commands: \\boxed{go north}, \\boxed{go south}, \\boxed{go east}, \\boxed{go west}, "
                     "\\boxed{take <curio name>} (material and kind), \\boxed{answer <room name>} (quiz only).")
        return "\n".join(lines)

    def _move_text(self, move):
        kind, a, b = move
        if kind == "swap":
            return (f"The porters swapped the whole contents of the {self.names[a]} and the {self.names[b]}.")
        return f"The porters carried everything in the {self.names[a]} into the {self.names[b]}."

    def _apply_moves(self):
        for kind, a, b in self.moves[self.task_index]:
            for obj, c in self.where.items():
                if kind == "swap":
                    self.where[obj] = b if c == a else a if c == b else c
                elif c == a:
                    self.where[obj] = b

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.pos = self.start
        self.task_index = 0
        self.turn = 0
        self.strikes = 0
        self.done = False
        self.where = dict(self.location)
        self.news_shown = -1
        self._apply_moves()
        n_quiz = sum(1 for k, _ in self.tasks if k == "quiz")
        intro = (
            f"MEMORY PALACE. The curator gives you one lit tour of a {self.rows}x{self.cols} palace of "
            f"{self.rows * self.cols} rooms. Study it now: this plan is shown ONLY ONCE.\n"
            f"{self._plan_text()}\n"
            f"Now the lights go out. From here on you only feel the doors of the room you stand in. The curator "
            f"will ask you to fetch {len(self.requests)} curios, one at a time (walk to the room that holds the "
            f"curio and take it), and between deliveries she will quiz you {n_quiz} time(s) on where some other "
            f"curio is now. Before every request the porters move room contents ({self.n_moves} move(s): swapping "
            f"everything in two rooms, or carrying everything from one room into another); their news is told once "
            f"and never names a curio. Taking a curio that is not in your room or not the one requested, or a wrong quiz answer, "
            f"is a strike; {self.max_strikes} strikes and you are dismissed. You have {self.max_turns} turns.\n"
        )
        return intro + self._status(), {}

    def _strike(self, why, out_of_turns):
        self.strikes += 1
        if self.strikes >= self.max_strikes:
            self.done = True
            return f"Strike {self.strikes}: {why}. The curator dismisses you. You lose.", 0.0, True, False, {}
        return self._finish(f"Strike {self.strikes}: {why}.", out_of_turns)

    def _advance(self, msg, out_of_turns):
        self.task_index += 1
        if self.task_index >= len(self.tasks):
            self.done = True
            return msg + " Every task is done - the curator is delighted. You win!", 1.0, True, False, {}
        self._apply_moves()
        return self._finish(msg, out_of_turns)

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            msg = "Format reminder: send one command inside \\boxed{...}, e.g. a move, a take or an answer."
            return self._finish(msg, out_of_turns)
        cmd = " ".join(match.group(1).lower().replace(",", " ").replace(".", " ").split())
        kind, wanted = self.tasks[self.task_index]
        move = re.fullmatch(r"(?:go|move|walk)?\s*(north|south|east|west|n|s|e|w)", cmd)
        take = re.fullmatch(r"(?:take|get|grab|fetch)\s+(?:the\s+)?([a-z]+\s+[a-z]+)", cmd)
        answer = re.fullmatch(r"(?:answer|room)\s+(?:the\s+)?([a-z]+)", cmd)
        if move:
            d = {"n": "north", "s": "south", "e": "east", "w": "west"}.get(move.group(1), move.group(1))
            if d in self.doors[self.pos]:
                self.pos = self.doors[self.pos][d]
                msg = f"You feel your way {d} into the {self.names[self.pos]}."
            else:
                msg = f"You bump into a wall: the {self.names[self.pos]} has no door to the {d}."
            return self._finish(msg, out_of_turns)
        if take:
            obj = take.group(1)
            if kind != "fetch":
                return self._finish("The curator is waiting for your quiz answer first, not a curio.", out_of_turns)
            if obj == wanted and self.where.get(obj) == self.pos:
                del self.where[obj]
                return self._advance(f"You hand over the {obj}. Delivered!", out_of_turns)
            if obj not in self.location:
                why = f"there is no curio called the {obj} anywhere in this palace"
            elif obj != wanted:
                why = f"the curator asked for the {wanted}, not the {obj}"
            else:
                why = f"your hands find no {obj} in the {self.names[self.pos]}"
            return self._strike(why, out_of_turns)
        if answer:
            room = answer.group(1)
            if kind != "quiz":
                return self._finish("There is no quiz question open right now; fetch the requested curio.",
                                    out_of_turns)
            if room == self.names[self.where[wanted]].lower():
                return self._advance("Correct, well remembered!", out_of_turns)
            known = [n.lower() for n in self.names.values()]
            if room not in known:
                return self._strike(f"there is no room called '{room[:30]}' in this palace", out_of_turns)
            return self._strike(f"the {wanted} is not in the {room.capitalize()}", out_of_turns)
        msg = f"Unknown command '{cmd[:40]}'. Use go <direction>, take <material kind> or answer <room>."
        return self._finish(msg, out_of_turns)

    def _finish(self, msg, out_of_turns):
        if out_of_turns:
            self.done = True
            return msg + "\nOut of turns: the tour ends with tasks left undone.", 0.0, True, False, {}
        return "Last action: " + msg + "\n" + self._status(), 0.0, False, False, {}

    def solution(self):
        if not self.tasks:
            return "go north"
        kind, obj = self.tasks[min(self.task_index, len(self.tasks) - 1)]
        if kind == "quiz":
            return "answer " + self.names[self.where[obj]]
        target = self.where[obj]
        if target == self.pos:
            return "take " + obj
        _, first = self._bfs(self.pos)
        return "go " + first[target]

    def hint(self):
        names = ", then ".join("the " + o for o in self.requests)
        return (f"You will be asked to fetch {names}. Keep a table curio -> room from the lit tour and rewrite it "
                f"after every porters' news: a swap exchanges the two rooms' whole contents, a carry empties one room "
                f"into the other, and every curio in those rooms moves with them. Delivered curios leave the table. "
                f"Walk the shortest door path from where you stand; a quiz asks for the curio's current room.")
