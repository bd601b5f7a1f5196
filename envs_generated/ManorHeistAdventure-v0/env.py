"""Text-adventure heist: a prose briefing describes a house (which room lies where, what lies in it, which
passages are locked, boarded, dark or dial-coded); read it, then move, take, use and read your way to the
treasure with a verb-object parser before the turns run out."""

import random
import re
from collections import deque

ROOMS = ["entrance hall", "library", "kitchen", "pantry", "chapel", "gallery", "conservatory", "armoury",
         "study", "scullery", "music room", "map room", "billiard room", "laundry", "nursery", "smoking room"]
GOAL_ROOMS = ["strongroom", "treasury", "reliquary", "vault"]
TREASURES = [("idol", "the jade idol"), ("chalice", "the silver chalice"), ("tiara", "the pearl tiara"),
             ("codex", "the gilded codex"), ("astrolabe", "the golden astrolabe"), ("orb", "the amber orb")]
METALS = ["brass", "iron", "copper", "bronze", "silver", "pewter", "steel", "bone"]
# emblem id, how a key's bow shows it, how a lock's carving shows it (deliberately different words)
EMBLEMS = [("serpent", "a coiled snake", "a carved serpent"),
           ("stag", "a stag's head", "an antlered deer"),
           ("hound", "a running hound", "a hunting dog"),
           ("tower", "a tiny castle tower", "a turret"),
           ("moon", "a crescent moon", "a sickle-shaped moon"),
           ("owl", "a perched owl", "a night bird with huge eyes"),
           ("anchor", "a ship's anchor", "an anchor and chain"),
           ("rose", "a rose in bloom", "a climbing rose"),
           ("bell", "a little bell", "a ringing bell"),
           ("crown", "a tiny crown", "a king's crown")]
DIRS = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
OPP = {"north": "south", "south": "north", "east": "west", "west": "east"}
DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
# difficulty -> (rooms, locks, decoy keys, shortest plan range)
LEVELS = {"easy": (5, 1, 1, (5, 7)), "medium": (7, 2, 2, (7, 9)), "hard": (10, 3, 3, (10, 11))}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
ARTICLES = {"the", "a", "an", "my", "some"}


def number_words(n):
    """Cardinal number in words, 100..999."""
    h, rest = divmod(n, 100)
    text = DIGIT_WORDS[h] + " hundred"
    if rest == 0:
        return text
    if rest < 10:
        part = DIGIT_WORDS[rest]
    elif rest < 20:
        part = TEENS[rest - 10]
    else:
        t, u = divmod(rest, 10)
        part = TENS[t] + ("-" + DIGIT_WORDS[u] if u else "")
    return text + " and " + part


class ManorHeistAdventureEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.names = []
        self.pos = {}
        self.adj = {}
        self.locks = []
        self.items = {}
        self.room = 0
        self.goal = 0
        self.treasure = ("idol", "the jade idol")
        self.inv = set()
        self.opened = set()
        self.lit = False
        self.knows_code = False
        self.wrong_codes = 0
        self.code = "000"
        self.letter_text = ""
        self.briefing = ""
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ world generation
    def _grow(self, n):
        rng = self.rng
        cells = {(0, 0): 0}
        pos = {0: (0, 0)}
        adj = {0: {}}
        while len(pos) < n:
            r = rng.choice(list(pos))
            d = rng.choice(list(DIRS))
            x, y = pos[r]
            c = (x + DIRS[d][0], y + DIRS[d][1])
            if c in cells or len(adj[r]) >= 3:
                continue
            k = len(pos)
            cells[c] = k
            pos[k] = c
            adj[k] = {OPP[d]: r}
            adj[r][d] = k
        return pos, adj

    def _dist(self, start, blocked):
        seen = {start: None}
        q = deque([start])
        while q:
            u = q.popleft()
            for v in self.adj[u].values():
                if v not in seen and frozenset((u, v)) not in blocked:
                    seen[v] = u
                    q.append(v)
        return seen

    def _generate(self):
        rng = self.rng
        n, nlocks, ndecoys, (lo, hi) = LEVELS[self.difficulty]
        for _ in range(400):
            self.pos, self.adj = self._grow(n)
            far = self._dist(0, set())
            depth = {}
            for r in far:
                d, u = 0, r
                while far[u] is not None:
                    u = far[u]
                    d += 1
                depth[r] = d
            maxd = max(depth.values())
            if maxd < nlocks:
                continue
            self.goal = rng.choice([r for r in depth if depth[r] >= maxd - 1 and depth[r] >= nlocks])
            path = [self.goal]
            while far[path[-1]] is not None:
                path.append(far[path[-1]])
            path.reverse()
            edges = [(path[i], path[i + 1]) for i in range(len(path) - 1)]
            chosen = sorted(rng.sample(range(len(edges)), nlocks))
            kinds = rng.sample(["key", "key", "code", "dark", "board"], nlocks)
            emblems = rng.sample(EMBLEMS, nlocks + ndecoys)
            metals = rng.sample(METALS, nlocks + ndecoys)
            self.locks = []
            self.items = {}
            blocked = {frozenset(edges[i]) for i in chosen}
            ek = 0
            for li, ei in enumerate(chosen):
                a, b = edges[ei]
                region = [r for r in self._dist(0, blocked) if r != self.goal]
                kind = kinds[li]
                lock = {"a": a, "b": b, "kind": kind, "id": li}
                on_path = [r for r in region if r in path]
                home = rng.choice(on_path if nlocks >= 3 and rng.random() < 0.6 else region)
                if kind == "key":
                    name = metals[ek] + " key"
                    lock["emblem"] = emblems[ek]
                    lock["item"] = name
                    self.items[name] = {"room": home, "kind": "key", "emblem": emblems[ek], "metal": metals[ek]}
                    ek += 1
                elif kind == "dark":
                    lock["item"] = "lantern"
                    self.items["lantern"] = {"room": home, "kind": "lantern"}
                elif kind == "board":
                    lock["item"] = "crowbar"
                    self.items["crowbar"] = {"room": home, "kind": "crowbar"}
                else:
                    lock["item"] = "letter"
                    self.items["letter"] = {"room": home, "kind": "letter"}
                self.locks.append(lock)
                blocked.discard(frozenset((a, b)))
            for j in range(ndecoys):
                e = emblems[ek + j]
                m = metals[ek + j]
                self.items[m + " key"] = {"room": rng.randrange(n), "kind": "key", "emblem": e, "metal": m}
            self.items["list"] = {"room": rng.randrange(n), "kind": "list"}
            key, label = self.treasure
            self.items[key] = {"room": self.goal, "kind": "treasure"}
            self.code = str(rng.randint(101, 998))
            while len(set(self.code)) < 3 or "0" in self.code:
                self.code = str(rng.randint(101, 998))
            self.room, self.inv, self.opened, self.lit, self.knows_code = 0, set(), set(), False, False
            plan = self._plan()
            if plan is not None and lo <= len(plan) <= hi:
                return
        raise RuntimeError("generation failed")

    # ------------------------------------------------------------------ prose
    def _letter(self):
        rng = self.rng
        d = [DIGIT_WORDS[int(c)] for c in self.code]
        style = rng.randrange(3)
        if style == 0:
            parts = [("the first dial", d[0]), ("the middle dial", d[1]), ("the last dial", d[2])]
            rng.shuffle(parts)
            body = (f"I set {parts[0][0]} to {parts[0][1]}, {parts[1][0]} to {parts[1][1]} "
                    f"and {parts[2][0]} to {parts[2][1]}.")
        elif style == 1:
            body = f"Read the dials from right to left and they say {d[2]}, {d[1]}, {d[0]}."
        else:
            body = f"The dials, read as one number, spell {number_words(int(self.code))}."
        decoy = rng.randint(2, 9)
        return (f"'Mind the gate, Edwin. {body} Do not tell the {decoy} footmen.' "
                f"-- the steward")

    def _shopping(self):
        a, b, c = (str(self.rng.randint(2, 24)) for _ in range(3))
        return f"A shopping list: {a} eggs, {b} candles, {c} yards of ribbon."

    def _lock_between(self, u, v):
        for lk in self.locks:
            if {lk["a"], lk["b"]} == {u, v}:
                return lk
        return None

    def _lock_phrase(self, lk):
        if lk["kind"] == "key":
            return f"a locked oak door with {lk['emblem'][2]} worked around its keyhole"
        if lk["kind"] == "dark":
            return "a stairway that plunges into pitch darkness"
        if lk["kind"] == "board":
            return "a doorway nailed shut with heavy planks"
        return "an iron gate held by a lock of three numbered dials"

    def _item_phrase(self, name):
        it = self.items[name]
        if it["kind"] == "key":
            return f"a {name} whose bow is shaped like {it['emblem'][1]}"
        if it["kind"] == "lantern":
            return "an oil lantern (unlit)" if not (self.lit and name in self.inv) else "an oil lantern"
        if it["kind"] == "crowbar":
            return "a rusty crowbar"
        if it["kind"] == "letter":
            return "a folded letter sealed with green wax"
        if it["kind"] == "list":
            return "a crumpled shopping list"
        return self.treasure[1]

    def _compose_briefing(self):
        rng = self.rng
        nm = self.names
        lines = []
        edges = []
        for u in self.adj:
            for d, v in self.adj[u].items():
                if u < v:
                    edges.append((u, d, v))
        rng.shuffle(edges)
        for u, d, v in edges:
            if rng.random() < 0.5:
                u, d, v = v, OPP[d], u
            form = rng.randrange(3)
            if form == 0:
                lines.append(f"The {nm[v]} lies {d} of the {nm[u]}.")
            elif form == 1:
                lines.append(f"{d.capitalize()} of the {nm[u]} is the {nm[v]}.")
            else:
                lines.append(f"From the {nm[u]} a passage runs {d} to the {nm[v]}.")
        for lk in self.locks:
            a, b = nm[lk["a"]], nm[lk["b"]]
            if lk["kind"] == "key":
                lines.append(f"The way between the {a} and the {b} is a locked oak door with {lk['emblem'][2]} "
                             f"worked around its keyhole.")
            elif lk["kind"] == "dark":
                lines.append(f"The stairs linking the {a} and the {b} are pitch dark; nobody walks them "
                             f"without a light.")
            elif lk["kind"] == "board":
                lines.append(f"The doorway between the {a} and the {b} has been nailed shut with planks.")
            else:
                lines.append(f"An iron gate with three numbered dials bars the way between the {a} and the {b}.")
        names = list(self.items)
        rng.shuffle(names)
        for name in names:
            it = self.items[name]
            where = nm[it["room"]]
            if it["kind"] == "treasure":
                lines.append(f"{self.treasure[1].capitalize()} waits in the {where}.")
            elif it["kind"] == "key":
                lines.append(f"In the {where} you will find {self._item_phrase(name)}.")
            elif it["kind"] == "letter":
                lines.append(f"The steward left a sealed letter in the {where}.")
            elif it["kind"] == "list":
                lines.append(f"Someone dropped a shopping list in the {where}.")
            else:
                lines.append(f"There is {self._item_phrase(name).replace(' (unlit)', '')} in the {where}.")
        return " ".join(lines)

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n = LEVELS[self.difficulty][0]
        rooms = self.rng.sample(ROOMS[1:], n - 2)
        self.names = ["entrance hall"] + rooms + [self.rng.choice(GOAL_ROOMS)]
        self.treasure = self.rng.choice(TREASURES)
        self._generate()
        # room index n-1 holds the goal name: swap it to wherever the goal room is
        if self.goal != n - 1:
            self.names[self.goal], self.names[n - 1] = self.names[n - 1], self.names[self.goal]
        self.letter_text = self._letter()
        self.briefing = self._compose_briefing()
        self.room, self.inv, self.opened = 0, set(), set()
        self.lit, self.knows_code, self.wrong_codes = False, False, 0
        self.turn, self.done = 0, False
        self.last = "You slip in through the front door."
        return self._obs(), {}

    def _describe(self):
        nm = self.names
        parts = [f"You are in the {nm[self.room]}."]
        exits = []
        for d in ("north", "east", "south", "west"):
            if d in self.adj[self.room]:
                v = self.adj[self.room][d]
                lk = self._lock_between(self.room, v)
                if lk is not None and lk["kind"] == "dark":
                    shown = "your lantern lights it" if self.lit else "pitch dark"
                    exits.append(f"to the {d}, a stairway to the {nm[v]} ({shown})")
                elif lk is not None and lk["id"] not in self.opened:
                    exits.append(f"to the {d}, {self._lock_phrase(lk)}")
                else:
                    exits.append(f"to the {d}, the {nm[v]}")
        parts.append("Exits: " + "; ".join(exits) + ".")
        here = [self._item_phrase(k) for k, it in self.items.items() if it["room"] == self.room and k not in self.inv]
        parts.append("You see: " + (", ".join(here) if here else "nothing you could carry") + ".")
        return " ".join(parts)

    def _obs(self):
        carrying = ", ".join(sorted(k + (" (lit)" if k == "lantern" and self.lit else "") for k in self.inv))
        head = (f"Turn {self.turn}/{self.max_turns} | Room: {self.names[self.room]} | "
                f"Carrying: {carrying or 'nothing'} | Wrong dial codes: {self.wrong_codes}/2")
        goal = f"Goal: take {self.treasure[1]} (it is in the {self.names[self.goal]})."
        cmds = ("Commands (one per turn): \\boxed{go <north|south|east|west>}, \\boxed{take <item>}, "
                "\\boxed{use <item>} (keys, crowbar and lantern work on what is in the current room), "
                "\\boxed{read <item>}, \\boxed{enter <three digits>} (dial gate in this room), \\boxed{look}. "
                "Walking a dark stairway without a lit lantern is fatal; a second wrong dial code raises the alarm.")
        return "\n".join([head, "Last: " + self.last, self._describe(), goal,
                          "Your contact's briefing: " + self.briefing, cmds])

    def _find(self, arg, pool):
        words = [w for w in re.findall(r"[a-z]+", arg) if w not in ARTICLES]
        if not words:
            return None, "Name an item."
        text = " ".join(words)
        exact = [k for k in pool if k == text]
        if exact:
            return exact[0], ""
        cands = [k for k in pool if set(words) <= set(k.split())]
        if len(cands) == 1:
            return cands[0], ""
        if len(cands) > 1:
            return None, "Which one? Say e.g. the metal of the key."
        return None, f"There is no '{text[:40]}' within reach."

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        if m is None:
            self.last = "No command found: write one command as \\boxed{verb object}, e.g. a move or take."
            return self._end(0.0, False, out)
        cmd = re.sub(r"\s+", " ", m.group(1).strip().lower())
        reward, term = self._apply(cmd)
        return self._end(reward, term, out and not term)

    def _end(self, reward, term, out_of_time):
        # running out of time loses the game: it is over (terminated), not cut short
        if term or out_of_time:
            self.done = True
            if out_of_time:
                self.last += " You have run out of time: the household wakes up."
        return self._obs(), reward, term or out_of_time, False, {}

    def _apply(self, cmd):
        verb, _, arg = cmd.partition(" ")
        nm = self.names
        here = [k for k, it in self.items.items() if it["room"] == self.room and k not in self.inv]
        if verb in ("go", "walk", "move", "n", "s", "e", "w", "north", "south", "east", "west"):
            d = {"n": "north", "s": "south", "e": "east", "w": "west"}.get(verb, verb)
            if verb in ("go", "walk", "move"):
                d = arg.strip()
                d = {"n": "north", "s": "south", "e": "east", "w": "west"}.get(d, d)
            if d not in DIRS:
                self.last = "Go where? Use north, south, east or west."
                return 0.0, False
            if d not in self.adj[self.room]:
                self.last = f"There is no way {d} from the {nm[self.room]}."
                return 0.0, False
            v = self.adj[self.room][d]
            lk = self._lock_between(self.room, v)
            if lk is not None and lk["kind"] == "dark":
                if not self.lit:
                    self.last = ("You step onto the dark stairway, miss a step and tumble to the bottom with a crash. "
                                 "The household is awake: you are caught. You lose.")
                    self.done = True
                    return 0.0, True
            elif lk is not None and lk["id"] not in self.opened:
                self.last = f"The way {d} is blocked by {self._lock_phrase(lk)}."
                return 0.0, False
            self.room = v
            self.last = f"You go {d} to the {nm[v]}."
            return 0.0, False
        if verb in ("take", "get", "grab", "pick"):
            arg = arg[3:] if arg.startswith("up ") else arg
            name, err = self._find(arg, here)
            if name is None:
                self.last = err
                return 0.0, False
            self.inv.add(name)
            if self.items[name]["kind"] == "treasure":
                self.last = f"You lift {self.treasure[1]} and vanish into the night. You win!"
                self.done = True
                return 1.0, True
            self.last = f"You take the {name}."
            return 0.0, False
        if verb == "read":
            readable = [k for k in here + sorted(self.inv) if self.items[k]["kind"] in ("letter", "list")]
            name, err = self._find(arg, readable)
            if name is None:
                self.last = err if readable else "There is nothing here to read."
                return 0.0, False
            if self.items[name]["kind"] == "letter":
                self.knows_code = True
                self.last = "You break the seal and read: " + self.letter_text
            else:
                self.last = "You read it: " + self._shopping()
            return 0.0, False
        if verb == "use":
            name, err = self._find(re.sub(r" (on|with|at) .*$", "", arg), sorted(self.inv))
            if name is None:
                self.last = err if self.inv else "You are not carrying anything."
                return 0.0, False
            kind = self.items[name]["kind"]
            near = [lk for lk in self.locks if self.room in (lk["a"], lk["b"]) and lk["id"] not in self.opened]
            if kind == "lantern":
                if self.lit:
                    self.last = "The lantern is already burning."
                else:
                    self.lit = True
                    self.last = "You light the lantern; it casts a steady glow."
                return 0.0, False
            if kind == "key":
                doors = [lk for lk in near if lk["kind"] == "key"]
                if not doors:
                    self.last = f"There is no locked door here for the {name}."
                    return 0.0, False
                for lk in doors:
                    if lk["item"] == name:
                        self.opened.add(lk["id"])
                        other = lk["b"] if lk["a"] == self.room else lk["a"]
                        self.last = f"The {name} turns with a click: the door to the {nm[other]} swings open."
                        return 0.0, False
                self.last = f"The {name} slides into the lock but will not turn."
                return 0.0, False
            if kind == "crowbar":
                boards = [lk for lk in near if lk["kind"] == "board"]
                if not boards:
                    self.last = "There is nothing nailed shut here."
                    return 0.0, False
                self.opened.add(boards[0]["id"])
                self.last = "You lever the planks off the doorway. The way is open."
                return 0.0, False
            self.last = f"Using the {name} does nothing useful here."
            return 0.0, False
        if verb in ("enter", "dial", "type", "set"):
            gates = [lk for lk in self.locks if self.room in (lk["a"], lk["b"]) and lk["kind"] == "code"
                     and lk["id"] not in self.opened]
            if not gates:
                self.last = "There is no dial lock here."
                return 0.0, False
            digits = "".join(re.findall(r"[0-9]", arg))
            if len(digits) != 3:
                self.last = "The dial lock needs exactly three digits, e.g. enter followed by three digits."
                return 0.0, False
            if digits == self.code:
                self.opened.add(gates[0]["id"])
                self.last = "The dials click into place and the iron gate swings open."
                return 0.0, False
            self.wrong_codes += 1
            right = sum(a == b for a, b in zip(digits, self.code))
            if self.wrong_codes >= 2:
                self.last = f"Wrong again ({right} of 3 dials were right). An alarm bell clangs: you are caught. You lose."
                self.done = True
                return 0.0, True
            self.last = (f"The gate stays shut: {right} of the 3 dials are right. A warning bell trembles; one more "
                         f"wrong code will raise the alarm.")
            return 0.0, False
        if verb in ("look", "l", "examine", "inventory", "i"):
            self.last = "You look around carefully."
            return 0.0, False
        self.last = f"Unknown command '{cmd[:30]}'. Use go, take, use, read, enter or look."
        return 0.0, False

    # ------------------------------------------------------------------ planning
    def _plan(self):
        """Shortest command sequence from the current state to taking the treasure (None if impossible)."""
        useful = [lk["item"] for lk in self.locks if lk["kind"] in ("key", "dark", "board")]
        idx = {name: i for i, name in enumerate(useful)}
        letter = self.items.get("letter")
        inv0 = 0
        for name in self.inv:
            if name in idx:
                inv0 |= 1 << idx[name]
        op0 = 0
        for i in self.opened:
            op0 |= 1 << i
        start = (self.room, inv0, op0, self.lit, self.knows_code)
        prev = {start: None}
        q = deque([start])
        while q:
            st = q.popleft()
            room, inv, op, lit, known = st
            succ = []
            for d, v in self.adj[room].items():
                lk = self._lock_between(room, v)
                if lk is not None:
                    if lk["kind"] == "dark" and not lit:
                        continue
                    if lk["kind"] != "dark" and not (op >> lk["id"]) & 1:
                        continue
                succ.append(("go " + d, (v, inv, op, lit, known)))
            for name, i in idx.items():
                if not (inv >> i) & 1 and self.items[name]["room"] == room:
                    succ.append(("take " + name, (room, inv | (1 << i), op, lit, known)))
            if self.goal == room:
                succ.append(("take " + self.treasure[0], "WIN"))
            if letter is not None and not known and ("letter" in self.inv or letter["room"] == room):
                succ.append(("read letter", (room, inv, op, lit, True)))
            for lk in self.locks:
                if room not in (lk["a"], lk["b"]) or (op >> lk["id"]) & 1:
                    continue
                if lk["kind"] == "code" and known:
                    succ.append(("enter " + self.code, (room, inv, op | (1 << lk["id"]), lit, known)))
                if lk["kind"] in ("key", "board") and (inv >> idx[lk["item"]]) & 1:
                    succ.append(("use " + lk["item"], (room, inv, op | (1 << lk["id"]), lit, known)))
            if "lantern" in idx and (inv >> idx["lantern"]) & 1 and not lit:
                succ.append(("use lantern", (room, inv, op, True, known)))
            for act, nxt in succ:
                if nxt == "WIN":
                    path = [act]
                    while prev[st] is not None:
                        act0, st = prev[st]
                        path.append(act0)
                    return path[::-1]
                if nxt not in prev:
                    prev[nxt] = (act, st)
                    q.append(nxt)
        return None

    def solution(self):
        if self.done:
            return "look"
        plan = self._plan()
        return plan[0] if plan else "look"

    def hint(self):
        nm = self.names
        notes = []
        for lk in self.locks:
            a, b = nm[lk["a"]], nm[lk["b"]]
            where = nm[self.items[lk["item"]]["room"]] if lk["item"] in self.items else "?"
            if lk["kind"] == "key":
                notes.append(f"the door between the {a} and the {b} shows the {lk['emblem'][0]} emblem, so only the "
                             f"{lk['item']} (in the {where}) fits it; the other keys are decoys")
            elif lk["kind"] == "dark":
                notes.append(f"light the lantern (it lies in the {where}) before the stairs between the {a} and the {b}")
            elif lk["kind"] == "board":
                notes.append(f"the crowbar in the {where} opens the boarded doorway between the {a} and the {b}")
            else:
                notes.append(f"the letter in the {where} holds the code of the gate between the {a} and the {b}; "
                             f"the shopping list's numbers are irrelevant")
        # the hint decodes one obstacle (two on easy), never the whole route
        keep = 2 if self.difficulty == "easy" else 1
        text = ("Draw the map from the briefing first. Key fact: " + "; ".join(notes[:keep]) + ". Work out the "
                "other obstacles the same way, from the briefing's descriptions of each item.")
        sol = self.solution()
        if re.search(r"(?<![0-9a-z])" + re.escape(sol) + r"(?![0-9a-z])", text.lower()):
            text = "Draw the map from the briefing first, then fetch each opener before walking to its obstacle."
        return text
