"""Outbreak quarantine: an infection spreads deterministically through a village contact network, close
contacts passing it on after one night and casual contacts after two; quarantine one healthy person each
morning and keep the final number of infected people at or below the limit."""

import random
import re

PEOPLE = [
    "Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena", "Milo", "Nia", "Otto",
    "Pia", "Quin", "Rosa", "Sami", "Tess", "Uma", "Vic", "Wren", "Yara", "Zeno", "Bea", "Cal", "Dora",
]
INF = 10 ** 6


class OutbreakQuarantineEnv:
    LEVELS = {
        "easy": {"n": 12, "sources": 1, "extra": 7, "slack": 1, "beam": 4, "gap": 0},
        "medium": {"n": 16, "sources": 2, "extra": 9, "slack": 0, "beam": 3, "gap": 0},
        "hard": {"n": 20, "sources": 2, "extra": 16, "slack": 0, "beam": 3, "gap": 0},
    }

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        cfg = self.LEVELS[self.difficulty]
        self.n = cfg["n"]
        self.n_sources = cfg["sources"]
        self.n_extra = cfg["extra"]
        self.slack = cfg["slack"]
        self.beam = cfg["beam"]
        self.need_gap = cfg["gap"]
        self.rng = random.Random()
        self.names = []
        self.adj = []
        self.sources = []
        self.quarantined = []
        self.infected_at = {}
        self.night = 0
        self.turn = 0
        self.done = False
        self.threshold = 0
        self.last = ""
        self._plan = []
        self._tcache = {}

    # ------------------------------------------------------------------ model
    def _times(self, blocked):
        """Night on which each person gets infected if `blocked` people never catch it (INF = never)."""
        key = frozenset(blocked)
        if key in self._tcache:
            return self._tcache[key]
        t = self._compute_times(key)
        if len(self._tcache) < 20000:
            self._tcache[key] = t
        return t

    def _compute_times(self, blocked):
        t = [INF] * self.n
        for s in self.sources:
            t[s] = 0
        buckets = {0: list(self.sources)}
        cur = 0
        done = [False] * self.n
        while buckets:
            if cur not in buckets:
                cur += 1
                continue
            for u in buckets.pop(cur):
                if done[u] or t[u] != cur:
                    continue
                done[u] = True
                for v, d in self.adj[u]:
                    if v in blocked:
                        continue
                    nt = cur + d
                    if nt < t[v]:
                        t[v] = nt
                        buckets.setdefault(nt, []).append(v)
            cur += 1
        return t

    def _candidates(self, t, blocked, k):
        return [v for v in range(self.n) if v not in blocked and k <= t[v] < INF]

    def _rollout(self, ql, qs, k):
        """Finish the game greedily (always quarantine whoever the illness reaches first)."""
        ql = list(ql)
        qs = set(qs)
        while True:
            t = self._times(qs)
            cands = self._candidates(t, qs, k)
            if not cands:
                return sum(1 for x in t if x < INF), ql
            v = min(cands, key=lambda c: (t[c], -len(self.adj[c]), c))
            ql.append(v)
            qs.add(v)
            k += 1

    def _plan_from(self, qlist, k):
        """Beam search over quarantine sequences from turn k, scoring each move by a greedy rollout."""
        best = self._rollout(qlist, set(qlist), k)
        beam = [(list(qlist), set(qlist))]
        while beam:
            children = []
            for ql, qs in beam:
                t = self._times(qs)
                cands = [v for v in self._candidates(t, qs, k) if t[v] <= k + 3]
                for v in cands:
                    nq = qs | {v}
                    final, plan = self._rollout(ql + [v], nq, k + 1)
                    if final < best[0]:
                        best = (final, plan)
                    children.append(((final, t[v], v), ql + [v], nq))
            children.sort(key=lambda c: c[0])
            seen = set()
            beam = []
            for key, ql, qs in children:
                sig = frozenset(qs)
                if sig in seen:
                    continue
                seen.add(sig)
                beam.append((ql, qs))
                if len(beam) >= self.beam:
                    break
            k += 1
        return best

    def _build(self):
        rng = self.rng
        n = self.n
        edges = {}
        order = list(range(n))
        rng.shuffle(order)
        for i in range(1, n):
            u = order[i]
            v = order[rng.randrange(max(0, i - 3), i)]
            edges[(min(u, v), max(u, v))] = rng.choice([1, 1, 2, 2, 2, 3, 3])
        tries = 0
        while len(edges) < n - 1 + self.n_extra and tries < 200:
            tries += 1
            u, v = rng.sample(range(n), 2)
            key = (min(u, v), max(u, v))
            if key not in edges:
                edges[key] = rng.choice([1, 1, 2, 2, 2, 3, 3])
        self.adj = [[] for _ in range(n)]
        for (u, v), d in sorted(edges.items()):
            self.adj[u].append((v, d))
            self.adj[v].append((u, d))
        self.sources = sorted(rng.sample(range(n), self.n_sources))
        self._tcache = {}

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(60):
            self._build()
            best = self._plan_from([], 1)
            if best is None:
                continue
            do_nothing = sum(1 for x in self._times(set()) if x < INF)
            naive = self._rollout([], set(), 1)[0]
            if do_nothing - best[0] >= 4 and best[0] >= self.n_sources + 2 and naive > best[0] + self.slack - self.need_gap:
                break
        self.threshold = best[0] + self.slack
        self._plan = list(best[1])
        self.names = self.rng.sample(PEOPLE, self.n)
        self.quarantined = []
        self.infected_at = {s: 0 for s in self.sources}
        self.night = 0
        self.turn = 0
        self.done = False
        self.last = f"Day 1 begins. {len(self.sources)} person(s) fell ill overnight."
        return self._render(), {}

    def _status(self, v):
        if v in self.infected_at:
            return f"INFECTED (night {self.infected_at[v]})"
        if v in self.quarantined:
            return "quarantined"
        return "healthy"

    def _render(self):
        nm = self.names
        lines = [
            f"OUTBREAK  |  Day {self.turn + 1}  |  Turn {self.turn}/{self.max_turns}  |  Infected: "
            f"{len(self.infected_at)}  |  Limit: {self.threshold}  |  Quarantined: {len(self.quarantined)}",
            "",
            "Rules: each contact is labelled with a delay d (1, 2 or 3). Every night each infected person passes",
            "the illness to each contact who is healthy and not quarantined once at least d nights have passed",
            "since the infected person fell ill (ill on night N -> the contact falls ill on night N+d at the latest).",
            "Infected people stay infectious for good and cannot be quarantined. Each morning you quarantine",
            "exactly one healthy person; a quarantined person never catches or passes on the illness.",
            "The outbreak ends when no healthy, unquarantined person can still be reached by the illness.",
            f"You win if, when it ends, at most {self.threshold} people have been infected in total.",
            "",
            "People, status and contacts (name:delay):",
        ]
        for v in range(self.n):
            contacts = ", ".join(f"{nm[u]}:{d}" for u, d in self.adj[v])
            lines.append(f"  {nm[v]:<5} {self._status(v):<22} contacts: {contacts}")
        lines += [
            "",
            f"Last: {self.last}",
            "",
            "Command (one per turn): \\boxed{quarantine NAME}  (NAME = a healthy person from the list)",
        ]
        return "\n".join(lines)

    def _lookup(self, word):
        w = word.strip().lower()
        for i, name in enumerate(self.names):
            if name.lower() == w:
                return i
        return None

    def step(self, action):
        try:
            return self._step(action)
        except Exception:
            self.turn += 1
            return "Could not understand that command.\n" + self._render(), 0.0, False, self.turn >= self.max_turns, {}

    def _night(self):
        self.night += 1
        new = []
        for v in range(self.n):
            if v in self.infected_at or v in self.quarantined:
                continue
            for u, d in self.adj[v]:
                if u in self.infected_at and self.infected_at[u] + d <= self.night:
                    new.append(v)
                    break
        for v in new:
            self.infected_at[v] = self.night
        return new

    def _step(self, action):
        if self.done:
            return "The outbreak is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        if m is None:
            self.last = "No command found. Write \\boxed{quarantine NAME}. The day was lost (the night still passes)."
        else:
            words = m.group(1).strip()[:80].split()
            v = self._lookup(words[-1]) if len(words) == 2 and words[0].lower() in ("quarantine", "q", "isolate") else None
            if v is None:
                self.last = "Unknown command or name; nobody was quarantined today (the night still passes)."
            elif v in self.infected_at:
                self.last = f"{self.names[v]} is already infected and cannot be quarantined; the day was lost."
            elif v in self.quarantined:
                self.last = f"{self.names[v]} is already quarantined; the day was lost."
            else:
                self.quarantined.append(v)
                self.last = f"{self.names[v]} was quarantined."
        new = self._night()
        if new:
            self.last += " Overnight " + ", ".join(self.names[v] for v in new) + " fell ill."
        else:
            self.last += " Nobody fell ill overnight."
        count = len(self.infected_at)
        if count > self.threshold:
            self.done = True
            return (self._render() + f"\n\nThe outbreak has infected {count} people, more than the limit of "
                    f"{self.threshold}. You lose.", 0.0, True, False, {})
        t = self._times(set(self.quarantined))
        if not self._candidates(t, set(self.quarantined), self.night + 1):
            self.done = True
            return (self._render() + f"\n\nThe outbreak is contained with {count} infected (limit "
                    f"{self.threshold}). You win!", 1.0, True, False, {})
        return self._render(), 0.0, out_of_turns, False, {}

    def solution(self):
        k = self.turn + 1
        qs = list(self.quarantined)
        valid = self._candidates(self._times(set(qs)), set(qs), k)
        if qs == self._plan[: len(qs)] and len(self._plan) > len(qs) and self._plan[len(qs)] in valid:
            return "quarantine " + self.names[self._plan[len(qs)]]
        best = self._plan_from(qs, k)
        if best is not None and len(best[1]) > len(qs):
            self._plan = best[1]
            return "quarantine " + self.names[best[1][len(qs)]]
        return "quarantine " + self.names[valid[0] if valid else 0]

    def hint(self):
        qs = set(self.quarantined)
        t = self._times(qs)
        k = self.turn + 1
        urgent = [self.names[v] for v in self._candidates(t, qs, k) if t[v] == k]
        text = ("For every healthy person compute the night the illness would reach them (shortest path from the "
                "sick, adding each contact's delay). A quarantine only helps if it happens before that night and you "
                "get one per day, so do not simply block whoever is reached next: pick a ring of people that cuts the "
                "sick off from the largest group and whose deadlines you can meet one per day, and never spend a day "
                "on someone the illness will reach anyway through another path.")
        text += f" The limit is reachable with {len(self._plan)} quarantines in total."
        if len(urgent) > 1:
            text += " Tonight the illness reaches " + ", ".join(urgent) + ": you can save at most one of them."
        return text
