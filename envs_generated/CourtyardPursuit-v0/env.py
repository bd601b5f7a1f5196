"""Courtyard pursuit: a pickpocket hides in a maze of courtyards joined by alleys and flees by a fixed,
announced rule (always to the reachable spot farthest from you). Each turn you step along one alley or wait,
then the pickpocket answers; corner it and step onto its courtyard within the turn limit."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
PLACES = ["Abbey", "Bakery", "Cistern", "Dyehouse", "Eastgate", "Forge", "Granary", "Hatter", "Inn", "Jetty",
          "Kiln", "Loom", "Mint", "Nunnery", "Orchard", "Pillory", "Quay", "Rectory", "Smithy", "Tannery"]
# difficulty -> (courtyards, extra alleys, slack turns beyond the fastest capture, range of the fastest capture)
LEVELS = {"easy": (9, 3, 1, 3, 6), "medium": (12, 5, 0, 5, 9), "hard": (15, 7, 0, 8, 14)}
CAP = 24


class CourtyardPursuitEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, self.extra, self.slack, self.min_opt, self.max_opt = LEVELS[self.difficulty]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns > 0 else 40
        self.rng = random.Random()
        self.names = []
        self.adj = []
        self.dist = []
        self.me = 0
        self.thief = 0
        self.limit = 0
        self.turn = 0
        self.done = False
        self.last = ""
        self.log = []

    # ------------------------------------------------------------------ model
    def _all_dist(self):
        n = self.n
        dist = []
        for s in range(n):
            d = [-1] * n
            d[s] = 0
            queue = [s]
            for u in queue:
                for v in self.adj[u]:
                    if d[v] < 0:
                        d[v] = d[u] + 1
                        queue.append(v)
            dist.append(d)
        return dist

    def _flee(self, me, thief):
        """The pickpocket's announced rule: among staying and each neighbouring courtyard (never yours), go where
        the walking distance from you is largest; ties: stay if staying is among the best, else the name first
        in the alphabet."""
        opts = [thief] + sorted((v for v in self.adj[thief] if v != me), key=lambda v: self.names[v])
        best = max(self.dist[me][v] for v in opts)
        return next(v for v in opts if self.dist[me][v] == best)

    def _moves(self, me):
        return sorted(self.adj[me], key=lambda v: self.names[v]) + [me]

    def _plan(self, me, thief):
        """Shortest capture from (me, thief): breadth-first search over both positions (the rule is fixed)."""
        start = (me, thief)
        prev = {start: None}
        queue = [start]
        depth = {start: 0}
        for state in queue:
            if depth[state] >= CAP:
                break
            m, t = state
            for nm in self._moves(m):
                if nm == t:
                    path = [nm]
                    s = state
                    while prev[s] is not None:
                        s, mv = prev[s]
                        path.append(mv)
                    return path[::-1]
                ns = (nm, self._flee(nm, t))
                if ns not in prev:
                    prev[ns] = (state, nm)
                    depth[ns] = depth[state] + 1
                    queue.append(ns)
        return None

    def _chase(self, me, thief, turns):
        """Turns the plain chase (always step onto a shortest path to the pickpocket) needs, or None."""
        for k in range(1, turns + 1):
            nm = min(self.adj[me], key=lambda v: (self.dist[v][thief], self.names[v]))
            if nm == thief:
                return k
            me, thief = nm, self._flee(nm, thief)
        return None

    def _build(self):
        rng = self.rng
        n = self.n
        edges = set()
        order = list(range(n))
        rng.shuffle(order)
        for i in range(1, n):
            u, v = order[i], order[rng.randrange(max(0, i - 3), i)]
            edges.add((min(u, v), max(u, v)))
        tries = 0
        while len(edges) < n - 1 + self.extra and tries < 300:
            tries += 1
            u, v = rng.sample(range(n), 2)
            edges.add((min(u, v), max(u, v)))
        self.adj = [[] for _ in range(n)]
        for u, v in sorted(edges):
            self.adj[u].append(v)
            self.adj[v].append(u)
        self.dist = self._all_dist()

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        self.names = sorted(rng.sample(PLACES, self.n))
        chosen = None
        for _ in range(400):
            self._build()
            me, thief = rng.sample(range(self.n), 2)
            if self.dist[me][thief] < 2:
                continue
            plan = self._plan(me, thief)
            if plan is None or not self.min_opt <= len(plan) <= self.max_opt:
                continue
            limit = len(plan) + self.slack
            # the plain chase and standing still must both fail: the pickpocket has to be herded
            if self._chase(me, thief, limit) is not None:
                continue
            chosen = (me, thief, limit)
            break
        if chosen is None:  # fall back on the last graph with any capture
            while True:
                me, thief = rng.sample(range(self.n), 2)
                plan = self._plan(me, thief)
                if plan:
                    chosen = (me, thief, len(plan) + self.slack)
                    break
                self._build()
        self.me, self.thief, self.limit = chosen
        self.turn = 0
        self.done = False
        self.log = []
        self.last = "The chase begins."
        return self._render(), {}

    def _render(self):
        nm = self.names
        lines = [
            f"COURTYARD PURSUIT  |  Turn {self.turn}/{self.limit}  |  You: {nm[self.me]}  |  Pickpocket: "
            f"{nm[self.thief]}",
            "",
            "Rules: each turn you walk one alley to a neighbouring courtyard or wait where you are. If you step",
            "onto the pickpocket's courtyard you catch it. Otherwise it answers by a fixed rule: it looks at",
            "staying put and at each neighbouring courtyard except yours, and goes to the one farthest from you",
            "(fewest alleys walked); on a tie it stays if staying is among the farthest, else it takes the name",
            "first in the alphabet. It never walks onto you.",
            f"Catch it within {self.limit} turns to win.",
            "",
            "Alleys:",
        ]
        for v in range(self.n):
            lines.append(f"  {nm[v]:<9} - " + ", ".join(sorted(nm[u] for u in self.adj[v])))
        lines += ["", f"Last: {self.last}", "",
                  "Command (one per turn): \\boxed{COURTYARD} to walk there, or \\boxed{wait}."]
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The chase is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.findall(str(action)[:4000])
        word = m[0].strip().lower() if len(m) == 1 else ""
        word = re.sub(r"^(walk to|go to|move to|move)\s+", "", word)
        target = None
        if word in ("wait", "stay"):
            target = self.me
        else:
            for v in self.adj[self.me]:
                if self.names[v].lower() == word:
                    target = v
        if target is None:
            self.last = "That is not a neighbouring courtyard (or not exactly one command); you lost the turn."
            target = self.me
        else:
            self.last = "You wait." if target == self.me else f"You walk to {self.names[target]}."
        if target == self.thief:
            self.me = target
            self.done = True
            return self._render() + "\n\nYou caught the pickpocket. You win!", 1.0, True, False, {}
        self.me = target
        new = self._flee(self.me, self.thief)
        self.last += (" The pickpocket stays in " if new == self.thief else " The pickpocket runs to ") + \
            self.names[new] + "."
        self.thief = new
        if self.turn >= self.limit:
            self.done = True
            return self._render() + "\n\nOut of turns: the pickpocket got away. You lose.", 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        plan = self._plan(self.me, self.thief)
        if not plan:
            return "wait"
        return "wait" if plan[0] == self.me else self.names[plan[0]]

    def hint(self):
        return ("Chasing along the shortest path never works here: the pickpocket always keeps its distance. "
                "Simulate its rule before you move: for each step you could take, work out where it will run, "
                "and steer it into a dead end or a spot where every escape brings it closer to you. Sometimes "
                "waiting or stepping sideways sets up the trap; ties in its rule (stay first, then the alphabet) "
                "are what let you predict it exactly.")
