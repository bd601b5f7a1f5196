"""Key vault delve: walk a small dungeon whose corridors are barred by coloured doors, picking up
single-use keys on the way, and reach the exit before your lantern's moves run out."""

import random
import re
from collections import deque

ROOM_NAMES = (
    "atrium", "armory", "barracks", "chapel", "crypt", "forge", "gallery", "kitchen", "library", "larder",
    "ossuary", "pantry", "shrine", "solar", "vault", "cistern", "cellar", "kennel", "garden", "belfry",
)
COLOURS = ("red", "blue", "green", "amber")


class KeyVaultDelveEnv:
    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.cfg = {
            "easy": {"rooms": 8, "extra": 1, "doors": 3, "colours": 2, "keys": 3, "dist": (5, 8), "slack": 1},
            "medium": {"rooms": 11, "extra": 2, "doors": 4, "colours": 3, "keys": 4, "dist": (7, 10), "slack": 1},
            "hard": {"rooms": 13, "extra": 3, "doors": 5, "colours": 3, "keys": 5, "dist": (8, 11), "slack": 0},
        }[self.difficulty]
        self.rng = random.Random()
        self.names = []
        self.adj = {}
        self.edges = []  # (a, b, door_index or -1)
        self.door_colour = []
        self.key_room = []  # per key: room
        self.key_colour = []
        self.start = 0
        self.exit = 0
        self.room = 0
        self.picked = 0
        self.opened = 0
        self.budget = 0
        self.moves = 0
        self.turn = 0
        self.done = False
        self.last = ""
        self._plan = []
        self._plan_states = []

    # ------------------------------------------------------------------ mechanics
    def _held(self, picked, opened):
        held = {}
        for k, c in enumerate(self.key_colour):
            if picked >> k & 1:
                held[c] = held.get(c, 0) + 1
        for d, c in enumerate(self.door_colour):
            if opened >> d & 1:
                held[c] = held.get(c, 0) - 1
        return held

    def _pick(self, room, picked):
        for k, r in enumerate(self.key_room):
            if r == room:
                picked |= 1 << k
        return picked

    def _succ(self, state):
        room, picked, opened = state
        held = None
        out = []
        for nb, door in self.adj[room]:
            new_opened = opened
            if door >= 0 and not (opened >> door & 1):
                if held is None:
                    held = self._held(picked, opened)
                if held.get(self.door_colour[door], 0) <= 0:
                    continue
                new_opened = opened | (1 << door)
            out.append((nb, (nb, self._pick(nb, picked), new_opened)))
        return out

    def _bfs(self, state, limit=40):
        """Shortest list of rooms to walk from state to the exit (or None)."""
        if state[0] == self.exit:
            return []
        parent = {state: None}
        queue = deque([state])
        while queue:
            s = queue.popleft()
            for nb, t in self._succ(s):
                if t in parent:
                    continue
                parent[t] = (s, nb)
                if nb == self.exit:
                    path = []
                    cur = t
                    while parent[cur] is not None:
                        path.append((parent[cur][1], cur))
                        cur = parent[cur][0]
                    path.reverse()
                    return path
                queue.append(t)
        return None

    def _plain_distance(self, a, b):
        dist = {a: 0}
        queue = deque([a])
        while queue:
            x = queue.popleft()
            for nb, _ in self.adj[x]:
                if nb not in dist:
                    dist[nb] = dist[x] + 1
                    queue.append(nb)
        return dist.get(b, 99), dist

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        cfg = self.cfg
        dmin, dmax = cfg["dist"]
        for _ in range(2000):
            if self._generate(cfg, dmin, dmax):
                break
        self.room = self.start
        self.picked = self._pick(self.start, 0)
        self.opened = 0
        self.budget = len(self._plan) + cfg["slack"]
        self.moves = 0
        self.turn = 0
        self.done = False
        self.last = f"You enter the dungeon in the {self.names[self.start]}."
        return self._observation(), {}

    def _generate(self, cfg, dmin, dmax):
        rng = self.rng
        n = cfg["rooms"]
        self.names = rng.sample(ROOM_NAMES, n)
        pairs = set()
        for i in range(1, n):
            pairs.add((rng.randrange(i), i))
        while len(pairs) < n - 1 + cfg["extra"]:
            a, b = sorted(rng.sample(range(n), 2))
            pairs.add((a, b))
        pairs = sorted(pairs)
        colours = list(COLOURS[:cfg["colours"]])
        door_edges = rng.sample(range(len(pairs)), cfg["doors"])
        self.door_colour = []
        self.edges = []
        for e, (a, b) in enumerate(pairs):
            door = -1
            if e in door_edges:
                door = len(self.door_colour)
                self.door_colour.append(rng.choice(colours))
            self.edges.append((a, b, door))
        self.adj = {r: [] for r in range(n)}
        for a, b, door in self.edges:
            self.adj[a].append((b, door))
            self.adj[b].append((a, door))
        for r in self.adj:
            self.adj[r].sort(key=lambda x: self.names[x[0]])
        self.start = rng.randrange(n)
        _, plain = self._plain_distance(self.start, self.start)
        far = sorted(r for r, d in plain.items() if d >= 3)
        if not far:
            return False
        self.exit = rng.choice(far)
        rooms = [r for r in range(n) if r != self.exit and r != self.start]
        self.key_room = rng.sample(rooms, cfg["keys"])
        used = sorted(set(self.door_colour))
        self.key_colour = [used[k % len(used)] if k < len(used) else rng.choice(used) for k in range(cfg["keys"])]
        rng.shuffle(self.key_colour)
        start_state = (self.start, self._pick(self.start, 0), 0)
        path = self._bfs(start_state)
        if path is None or not (dmin <= len(path) <= dmax):
            return False
        if len(path) < plain[self.exit] + 2:
            return False  # the keys must force a real detour
        doors_used = bin(path[-1][1][2]).count("1")
        if doors_used < 2:
            return False
        self._plan = [p[0] for p in path]
        self._plan_states = [start_state] + [p[1] for p in path]
        return True

    def _observation(self):
        lines = []
        for a, b, door in self.edges:
            tag = ""
            if door >= 0:
                state = "open" if self.opened >> door & 1 else "locked"
                tag = f" [{self.door_colour[door]} door, {state}]"
            lines.append(f"  {self.names[a]} -- {self.names[b]}{tag}")
        keys = [f"{self.key_colour[k]} key in the {self.names[r]}" for k, r in enumerate(self.key_room)
                if not (self.picked >> k & 1)]
        held = self._held(self.picked, self.opened)
        held_text = ", ".join(f"{v} {c}" for c, v in sorted(held.items()) if v > 0) or "none"
        exits = ", ".join(self.names[nb] for nb, _ in self.adj[self.room])
        return (
            f"Turn {self.turn}/{self.max_turns} | Moves used: {self.moves}/{self.budget} | Room: "
            f"{self.names[self.room]} | Keys held: {held_text}\n"
            f"Goal: reach the {self.names[self.exit]} (the way out) within {self.budget} moves.\n"
            "Corridors (both directions):\n" + "\n".join(lines) + "\n"
            f"Keys still lying around: {', '.join(keys) if keys else 'none'}\n"
            f"Last: {self.last}\n"
            "Rules: entering a room picks up every key in it. Walking through a locked door uses up one key of "
            "its colour and leaves the door open for good; without such a key the door stays shut. Each walk "
            "along a corridor costs one move.\n"
            f"Command: go ROOM (a room next to you: {exits}). Reply with one command inside \\boxed{{}}, "
            "e.g. \\boxed{go ROOM} with a room name."
        )

    def _parse(self, action):
        text = str(action)[:4000]
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        if not found:
            return None
        words = re.findall(r"[a-z]+", found[-1].lower())
        rooms = [self.names.index(w) for w in words if w in self.names]
        if len(rooms) != 1:
            return -1
        return rooms[0]

    def step(self, action):
        if self.done:
            return "The delve is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        target = self._parse(action)
        if target is None:
            self.last = "No command found. Put one command inside \\boxed{}, e.g. \\boxed{go ROOM} with a room name."
        elif target < 0:
            self.last = "Name exactly one room of this dungeon (see the corridor list)."
        else:
            door = None
            for nb, d in self.adj[self.room]:
                if nb == target:
                    door = d
                    break
            name = self.names[target]
            if door is None:
                self.last = f"No corridor leads from the {self.names[self.room]} to the {name}. You stay put."
            else:
                held = self._held(self.picked, self.opened)
                if door >= 0 and not (self.opened >> door & 1) and held.get(self.door_colour[door], 0) <= 0:
                    self.last = (f"The {self.door_colour[door]} door to the {name} is locked and you hold no "
                                 f"{self.door_colour[door]} key. You stay put.")
                else:
                    note = ""
                    if door >= 0 and not (self.opened >> door & 1):
                        self.opened |= 1 << door
                        note = f" You unlock the {self.door_colour[door]} door (the key is used up)."
                    before = self.picked
                    self.room = target
                    self.picked = self._pick(target, self.picked)
                    self.moves += 1
                    found_keys = [self.key_colour[k] for k in range(len(self.key_room))
                                  if (self.picked >> k & 1) and not (before >> k & 1)]
                    self.last = f"You walk to the {name}.{note}"
                    if found_keys:
                        self.last += " You pick up: " + ", ".join(c + " key" for c in found_keys) + "."
                    if self.room == self.exit:
                        self.done = True
                        self.last += " Daylight! You escaped the dungeon: you win!"
                        return self._observation(), 1.0, True, False, {}
                    if self.moves >= self.budget:
                        self.done = True
                        self.last += " Your lantern dies before you reach the exit: you lose."
                        return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def solution(self):
        state = (self.room, self.picked, self.opened)
        path = None
        if self.moves < len(self._plan) and self._plan_states[self.moves] == state:
            nxt = self._plan[self.moves]
        else:
            path = self._bfs(state)
            nxt = path[0][0] if path else self.adj[self.room][0][0]
        return "go " + self.names[nxt]

    def hint(self):
        state = (self.room, self.picked, self.opened)
        path = self._bfs(state)
        if not path:
            return "Count keys against doors: a key spent on a useless door is gone for good."
        final = path[-1][1]
        door_cols = sorted(self.door_colour[d] for d in range(len(self.door_colour))
                           if (final[2] >> d & 1) and not (self.opened >> d & 1))
        new_keys = bin(final[1] & ~self.picked).count("1")
        return (f"A shortest escape from here takes {len(path)} moves. It opens {len(door_cols)} door(s) "
                f"({', '.join(door_cols)}) and collects {new_keys} more key(s) on the way. Keys are single-use: "
                "work backwards from the exit to see which doors you really must pass, and never spend a key on a "
                "door that only offers a shortcut you do not need.")

    def _legal_commands(self):
        return ["go " + self.names[nb] for nb, _ in self.adj[self.room]]
