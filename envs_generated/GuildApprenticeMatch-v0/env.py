"""Guild apprentice match: every apprentice ranks every workshop and every workshop ranks every apprentice.
A placement is stable when no apprentice and workshop would both rather be with each other than with whom they
were given. Several stable placements exist; find the stable one that is fairest overall, i.e. whose total of
ranks (each person's rank of their partner, summed over apprentices and workshops) is smallest. Proposal
algorithms run by either side give the two extreme stable placements, not this one."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
APPRENTICES = ["Ada", "Ben", "Cyd", "Dov", "Eli", "Fay", "Gus"]
WORKSHOPS = ["forge", "loom", "kiln", "mill", "press", "still", "tannery"]
# difficulty -> (pairs, preference entries swapped away from the seed structure)
LEVELS = {"easy": (5, 2), "medium": (6, 3), "hard": (7, 4)}


class GuildApprenticeMatchEnv:
    def __init__(self, max_turns=4, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, self.noise = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, 2)
        self.attempts = 2
        self.rng = random.Random()
        self.a_pref = []  # a_pref[i] = workshops in order of preference
        self.w_pref = []
        self.answer = ()
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ matching mechanics
    def _ranks(self):
        n = self.n
        self.a_rank = [[0] * n for _ in range(n)]
        self.w_rank = [[0] * n for _ in range(n)]
        for i in range(n):
            for pos, w in enumerate(self.a_pref[i]):
                self.a_rank[i][w] = pos + 1
            for pos, a in enumerate(self.w_pref[i]):
                self.w_rank[i][a] = pos + 1

    def _blocking(self, match):
        """A pair (apprentice, workshop) who both prefer each other to their partners, or None."""
        owner = [0] * self.n
        for a, w in enumerate(match):
            owner[w] = a
        for a in range(self.n):
            for w in self.a_pref[a]:
                if w == match[a]:
                    break
                if self.w_rank[w][a] < self.w_rank[w][owner[w]]:
                    return (a, w)
        return None

    def _cost(self, match):
        return sum(self.a_rank[a][w] + self.w_rank[w][a] for a, w in enumerate(match))

    def _stable_all(self):
        """Every stable placement, by backtracking with a blocking-pair check on each partial placement."""
        n = self.n
        out = []
        match = [None] * n
        taken = [None] * n

        def ok(a):
            w = match[a]
            # a pair of placed people that blocks can never be repaired later
            for b in range(a):
                v = match[b]
                if self.a_rank[a][v] < self.a_rank[a][w] and self.w_rank[v][a] < self.w_rank[v][b]:
                    return False
                if self.a_rank[b][w] < self.a_rank[b][v] and self.w_rank[w][b] < self.w_rank[w][a]:
                    return False
            return True

        def go(a):
            if a == n:
                out.append(tuple(match))
                return
            for w in range(n):
                if taken[w] is None:
                    match[a], taken[w] = w, a
                    if ok(a):
                        go(a + 1)
                    match[a], taken[w] = None, None

        go(0)
        return out

    def _propose(self, apprentices_propose):
        n = self.n
        props = self.a_pref if apprentices_propose else self.w_pref
        rank = self.w_rank if apprentices_propose else self.a_rank
        nxt = [0] * n
        held = [None] * n
        free = list(range(n))
        while free:
            p = free.pop(0)
            r = props[p][nxt[p]]
            nxt[p] += 1
            if held[r] is None:
                held[r] = p
            elif rank[r][p] < rank[r][held[r]]:
                free.append(held[r])
                held[r] = p
            else:
                free.append(p)
        match = [None] * n
        for r, p in enumerate(held):
            if apprentices_propose:
                match[p] = r
            else:
                match[r] = p
        return tuple(match)

    def _greedy(self):
        """Pair off the lowest rank sum first (ignores stability)."""
        pairs = sorted((self.a_rank[a][w] + self.w_rank[w][a], a, w) for a in range(self.n) for w in range(self.n))
        match, used_a, used_w = [None] * self.n, set(), set()
        for _, a, w in pairs:
            if a not in used_a and w not in used_w:
                match[a] = w
                used_a.add(a)
                used_w.add(w)
        return tuple(match)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n = self.n
        for _ in range(300):
            # cyclic preferences have many stable placements; a few random swaps make each instance different
            sa, sw = self.rng.sample(range(n), n), self.rng.sample(range(n), n)
            self.a_pref = [[sw[(i + k) % n] for k in range(n)] for i in range(n)]
            self.w_pref = [None] * n
            for j in range(n):
                self.w_pref[sw[j]] = [(j + 1 + k) % n for k in range(n)]
            # relabel so apprentice i of the structure is apprentice sa[i]
            a_pref = [None] * n
            for i in range(n):
                a_pref[sa[i]] = self.a_pref[i]
            self.a_pref = a_pref
            self.w_pref = [[sa[a] for a in prefs] for prefs in self.w_pref]
            for _ in range(self.noise):
                lst = self.rng.choice(self.a_pref + self.w_pref)
                i = self.rng.randrange(n - 1)
                lst[i], lst[i + 1] = lst[i + 1], lst[i]
            self._ranks()
            stable = self._stable_all()
            if len(stable) < 3:
                continue
            costs = sorted((self._cost(m), m) for m in stable)
            if costs[0][0] == costs[1][0]:
                continue
            best = costs[0][1]
            if best in (self._propose(True), self._propose(False), self._greedy()):
                continue
            break
        self.answer = best
        self.best_cost = costs[0][0]
        self.used = 0
        self.turn = 0
        self.done = False
        self.last = "Name your placement."
        return self._render(), {}

    # ------------------------------------------------------------------ text
    def _render(self):
        lines = ["GUILD APPRENTICE MATCH", "Apprentices' rankings of the workshops (first = most wanted):"]
        for a in range(self.n):
            lines.append(f"  {APPRENTICES[a]}: " + " > ".join(WORKSHOPS[w] for w in self.a_pref[a]))
        lines.append("Workshops' rankings of the apprentices:")
        for w in range(self.n):
            lines.append(f"  {WORKSHOPS[w]}: " + " > ".join(APPRENTICES[a] for a in self.w_pref[w]))
        lines.append(
            "Place each apprentice at exactly one workshop. A placement is STABLE when no apprentice and workshop "
            "both rank each other above the partners they were given. Among all stable placements, give the one "
            "with the smallest total rank: add, for every apprentice and every workshop, the position (1 = first) "
            "of its partner in its own ranking. Exactly one stable placement has the smallest total.")
        lines.append("Answer like \\boxed{Ada-forge, Ben-kiln, ...} (every apprentice once).")
        lines.append(f"Answers left: {self.attempts - self.used}. Last: {self.last}")
        return "\n".join(lines)

    def _parse(self, text):
        match = [None] * self.n
        for a_name, w_name in re.findall(r"([A-Za-z]+)\s*[-:=>]+\s*([A-Za-z]+)", text):
            a_name, w_name = a_name.capitalize(), w_name.lower()
            if a_name not in APPRENTICES[:self.n] or w_name not in WORKSHOPS[:self.n]:
                return None
            a, w = APPRENTICES.index(a_name), WORKSHOPS.index(w_name)
            if match[a] is not None and match[a] != w:
                return None
            match[a] = w
        if None in match or len(set(match)) != self.n:
            return None
        return tuple(match)

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        match = self._parse(m.group(1)) if m else None
        if match is None:
            self.last = ("Could not read a full placement (this costs an answer): every apprentice once, each at a "
                         "different workshop, e.g. \\boxed{Ada-forge, Ben-kiln, ...}.")
        elif match == self.answer:
            self.done = True
            self.last = "Stable, and the smallest total rank. You win!"
            return self._render(), 1.0, True, False, {}
        else:
            block = self._blocking(match)
            if block is not None:
                self.last = (f"Not stable: {APPRENTICES[block[0]]} and {WORKSHOPS[block[1]]} both prefer each other "
                             "to their partners.")
            else:
                self.last = f"Stable, but its total rank {self._cost(match)} is not the smallest."
        self.used += 1
        if self.used >= self.attempts or self.turn >= self.max_turns:
            self.done = True
            self.last += " No answers left: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        return ", ".join(f"{APPRENTICES[a]}-{WORKSHOPS[w]}" for a, w in enumerate(self.answer))

    def hint(self):
        return (f"The smallest total rank of a stable placement is {self.best_cost}. Find the two extreme stable "
                "placements (apprentices proposing, then workshops proposing); the fairest one lies between them "
                "and can be reached by rotations: cycles of apprentices who each move to their next workshop that "
                "would still keep everything stable.")
