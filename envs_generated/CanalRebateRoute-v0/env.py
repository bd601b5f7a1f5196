"""Route a barge through a network of one-way canals between locks, where most canals charge a toll but
some pay a rebate (a negative cost), and report the cheapest possible total cost from the home lock to
the destination lock (shortest path with negative edges but no negative cycles)."""
import heapq
import random
import re

LOCK_NAMES = "ABCDEFGHJKLMNPQRSTUVWXYZ"


class CanalRebateRouteEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        cfg = {
            "easy": (7, 2, 3),
            "medium": (10, 3, 4),
            "hard": (13, 3, 5),
        }[self.difficulty]
        self.n_nodes, self.out_degree, self.min_hops = cfg
        self.rng = random.Random()
        self.nodes = []
        self.edges = {}
        self.adj = {}
        self.start = ""
        self.goal = ""
        self.best = 0
        self._path = []
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ algorithms
    def _bellman_ford(self):
        inf = float("inf")
        dist = {v: inf for v in self.nodes}
        hops = {v: 0 for v in self.nodes}
        prev = {v: None for v in self.nodes}
        dist[self.start] = 0
        edge_list = sorted(self.edges.items())
        for _ in range(len(self.nodes) - 1):
            changed = False
            for (u, v), w in edge_list:
                du = dist[u]
                if du == inf:
                    continue
                cand = du + w
                if cand < dist[v] or (cand == dist[v] and hops[u] + 1 < hops[v]):
                    dist[v], hops[v], prev[v] = cand, hops[u] + 1, u
                    changed = True
            if not changed:
                break
        path = []
        v = self.goal
        guard = 0
        while v is not None and guard <= len(self.nodes):
            path.append(v)
            v = prev[v]
            guard += 1
        path.reverse()
        return dist, path

    def _fewest_hops_cost(self):
        """Cheapest among the routes with the fewest canals (a BFS-minded player's answer)."""
        layer = {self.start: 0}
        for _ in range(len(self.nodes)):
            if self.goal in layer:
                return layer[self.goal]
            nxt = {}
            for (u, v), w in self.edges.items():
                if u in layer:
                    c = layer[u] + w
                    if v not in nxt or c < nxt[v]:
                        nxt[v] = c
            layer = nxt
        return None

    def _naive_dijkstra(self):
        """Dijkstra that settles each lock once: wrong when rebates matter."""
        done = set()
        heap = [(0, self.start)]
        while heap:
            d, u = heapq.heappop(heap)
            if u in done:
                continue
            done.add(u)
            if u == self.goal:
                return d
            for b, w in self.adj.get(u, []):
                if b not in done:
                    heapq.heappush(heap, (d + w, b))
        return None

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        rng = self.rng
        for _ in range(400):
            self.nodes = sorted(rng.sample(LOCK_NAMES, self.n_nodes))
            order = self.nodes[:]
            rng.shuffle(order)  # hidden upstream-to-downstream order; names do not reveal it
            self.start, self.goal = order[0], order[-1]
            height = {v: rng.randint(0, 90) for v in self.nodes}
            height[self.start] = rng.randint(0, 25)
            edges = {}
            for i, u in enumerate(order[:-1]):
                ahead = order[i + 1:i + 4]
                targets = rng.sample(ahead, min(len(ahead), self.out_degree - 1))
                behind = [v for v in order[max(0, i - 3):i]] + [v for v in order[i + 4:i + 6]]
                if behind and rng.random() < 0.8:
                    targets.append(rng.choice(behind))
                elif len(ahead) > len(targets):
                    targets.append(rng.choice([v for v in ahead if v not in targets]))
                for v in targets:
                    base = rng.randint(12, 130)
                    # Johnson-style potentials: every cycle keeps a positive total, some canals go negative
                    edges[(u, v)] = base - height[u] + height[v]
            self.edges = edges
            self.adj = {}
            for (u, v), w in edges.items():
                self.adj.setdefault(u, []).append((v, w))
            dist, path = self._bellman_ford()
            if dist[self.goal] == float("inf") or len(path) - 1 < self.min_hops:
                continue
            rebates_on_path = sum(1 for i in range(len(path) - 1) if edges[(path[i], path[i + 1])] < 0)
            if rebates_on_path == 0:
                continue
            few = self._fewest_hops_cost()
            if few is not None and few <= dist[self.goal]:
                continue
            if self.difficulty != "easy" and self._naive_dijkstra() == dist[self.goal]:
                continue
            if not 2 <= sum(1 for w in edges.values() if w < 0) <= len(edges) // 3:
                continue
            if dist[self.goal] == -3:
                continue  # never equal to the format example
            self.best = dist[self.goal]
            self._path = path
            break
        else:
            dist, path = self._bellman_ford()
            self.best = dist[self.goal] if dist[self.goal] != float("inf") else 0
            self._path = path
        return self._intro(), {}

    def _network(self):
        lines = []
        for u in self.nodes:
            outs = sorted((v, w) for (a, v), w in self.edges.items() if a == u)
            if not outs:
                lines.append(f"  {u}: (no outgoing canals)")
                continue
            lines.append(f"  {u}: " + ", ".join(f"->{v} {w:+d}" for v, w in outs))
        return "\n".join(lines)

    def _intro(self):
        return (
            "CANAL ROUTING WITH REBATES\n"
            f"A barge must travel from lock {self.start} to lock {self.goal} along one-way canals. Each canal "
            "below is written ->TARGET COST; a positive cost is a toll you pay, a negative cost is a rebate "
            "you receive (the network has no loop that pays back more than it costs). The barge may pass "
            "any lock more than once.\n"
            f"{self._network()}\n"
            f"What is the minimum possible total cost (tolls minus rebates) of a trip from {self.start} to "
            f"{self.goal}? Answer with one integer, e.g. \\boxed{{-3}}. "
            f"You have {self.max_turns} attempts."
        )

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to start a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        found = re.findall(r"\\boxed\{([^{}]*)\}", str(action))
        if not found:
            return self._fail("No answer found. Reply with one integer inside \\boxed{...}.", out)
        text = found[-1].strip().replace(" ", "").replace("\u2212", "-")
        if not re.fullmatch(r"[+-]?\d{1,9}", text):
            return self._fail("Your answer must be a single whole number (the total cost), e.g. \\boxed{-3}.", out)
        guess = int(text)
        if guess == self.best:
            self.done = True
            return (f"Correct! {guess} is the cheapest possible trip from {self.start} to {self.goal}.",
                    1.0, True, False, {})
        return self._fail(f"Wrong: {guess} is not the cheapest total cost from {self.start} to {self.goal}.", out)

    def _fail(self, msg, out):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        return str(self.best)

    def hint(self):
        hops = len(self._path) - 1
        rebates = sum(1 for i in range(hops) if self.edges.get((self._path[i], self._path[i + 1]), 0) < 0)
        middle = self._path[1:-1]
        via = self._via_lock(middle)
        text = (f"The cheapest trip uses {hops} canals ({rebates} with a rebate) and passes lock {via}. "
                "Dijkstra that settles each lock once can be fooled by rebates; instead relax every canal "
                "repeatedly (Bellman-Ford) until no distance improves.")
        if str(self.best) in re.findall(r"-?\d+", text):
            text = (f"The cheapest trip passes lock {via} and uses at least one rebate canal. Relax every canal "
                    "repeatedly (Bellman-Ford) until no distance improves; settling locks early is unsafe.")
        return text

    def _via_lock(self, middle):
        # deterministic choice (no RNG draw) so that hint() never changes the episode
        if not middle:
            return self.goal
        return middle[len(middle) // 2]
