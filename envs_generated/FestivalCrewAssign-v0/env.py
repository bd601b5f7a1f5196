"""Staff a music festival: each stage needs exactly one lighting technician, each technician works exactly
one stage, quotes differ per pairing and some technicians are not certified for some stages; report the
minimum total fee of a complete assignment (an assignment problem with forbidden pairs)."""
import random
import re

TECH_NAMES = [
    "Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gus", "Hana", "Ivo", "Jude", "Kira", "Lars", "Mona",
    "Nils", "Otto", "Pia", "Rafe", "Sana", "Tomas", "Vera",
]
STAGE_NAMES = [
    "Meadow", "Harbour", "Forest", "Dome", "Tent", "Pier", "Garden", "Barn", "Tower", "Quarry", "Lagoon",
    "Orchard",
]
BLOCKED = -1


class FestivalCrewAssignEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.n = {"easy": 4, "medium": 6, "hard": 7}[self.difficulty]
        self.rng = random.Random()
        self.techs = []
        self.stages = []
        self.fee = []
        self.best = 0
        self._match = []
        self._unique = True
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ solvers
    def _optimum(self):
        """Bitmask DP over technicians in order: best[mask of stages used]."""
        n = self.n
        inf = 10 ** 9
        best = [inf] * (1 << n)
        choice = [-1] * (1 << n)
        best[0] = 0
        for mask in range(1 << n):
            if best[mask] >= inf:
                continue
            i = bin(mask).count("1")
            if i >= n:
                continue
            for s in range(n):
                if mask & (1 << s) or self.fee[i][s] == BLOCKED:
                    continue
                nm = mask | (1 << s)
                c = best[mask] + self.fee[i][s]
                if c < best[nm]:
                    best[nm] = c
                    choice[nm] = s
        full = (1 << n) - 1
        if best[full] >= inf:
            return None, []
        match = [0] * n
        mask = full
        for i in range(n - 1, -1, -1):
            s = choice[mask]
            match[i] = s
            mask ^= 1 << s
        return best[full], match

    def _count_optimal(self, target):
        n = self.n
        # exact count of assignments reaching the optimum, layer by layer
        layer = {0: {0: 1}}
        for i in range(n):
            nxt = {}
            for mask, costs in layer.items():
                for s in range(n):
                    if mask & (1 << s) or self.fee[i][s] == BLOCKED:
                        continue
                    nm = mask | (1 << s)
                    bucket = nxt.setdefault(nm, {})
                    for c, k in costs.items():
                        cc = c + self.fee[i][s]
                        if cc <= target:
                            bucket[cc] = bucket.get(cc, 0) + k
            layer = nxt
        return layer.get((1 << n) - 1, {}).get(target, 0)

    def _greedy_cheapest_cell(self):
        cells = sorted((self.fee[i][s], i, s) for i in range(self.n) for s in range(self.n)
                       if self.fee[i][s] != BLOCKED)
        used_i, used_s, total = set(), set(), 0
        for c, i, s in cells:
            if i not in used_i and s not in used_s:
                used_i.add(i)
                used_s.add(s)
                total += c
        return total if len(used_i) == self.n else None

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        rng = self.rng
        n = self.n
        for _ in range(300):
            self.techs = sorted(rng.sample(TECH_NAMES, n))
            self.stages = sorted(rng.sample(STAGE_NAMES, n))
            skill = [rng.randint(0, 25) for _ in range(n)]
            size = [rng.randint(10, 45) for _ in range(n)]
            fee = [[size[s] + skill[i] + rng.randint(0, 30) for s in range(n)] for i in range(n)]
            blocked = rng.sample([(i, s) for i in range(n) for s in range(n)], n - 1 + (n // 3))
            for i, s in blocked:
                fee[i][s] = BLOCKED
            self.fee = fee
            best, match = self._optimum()
            if best is None or best == 42:
                continue
            rowmin = sum(min(c for c in row if c != BLOCKED) for row in fee)
            if rowmin >= best:
                continue  # the obvious lower bound must not be the answer
            greedy = self._greedy_cheapest_cell()
            if greedy is not None and greedy <= best:
                continue  # grabbing the cheapest quotes first must fail
            if self._count_optimal(best) != 1:
                continue
            self.best, self._match = best, match
            self._unique = True
            break
        else:
            self._unique = False
            self.best, self._match = self._optimum()
            if self.best is None:
                self.fee = [[10 + i + s for s in range(n)] for i in range(n)]
                self.best, self._match = self._optimum()
        return self._intro(), {}

    def _table(self):
        head = "          " + "".join(f"{s:>9}" for s in self.stages)
        lines = [head]
        for i, t in enumerate(self.techs):
            cells = "".join(f"{'--' if c == BLOCKED else c:>9}" for c in self.fee[i])
            lines.append(f"{t:<10}{cells}")
        return "\n".join(lines)

    def _intro(self):
        return (
            "FESTIVAL LIGHTING CREW\n"
            f"{self.n} stages each need exactly one lighting technician, and each of the {self.n} technicians "
            "can run exactly one stage. Fee quotes in coins (-- means the technician is not certified for "
            "that stage and cannot be placed there):\n"
            f"{self._table()}\n"
            "What is the minimum total fee of a complete, valid assignment? Answer with one integer, "
            f"e.g. \\boxed{{42}}. You have {self.max_turns} attempts."
        )

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to start a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        found = re.findall(r"\\boxed\{([^{}]*)\}", str(action))
        if not found:
            return self._fail("No answer found. Reply with one integer (coins) inside \\boxed{...}.", out)
        text = found[-1].strip().lower().replace(" ", "").replace("coins", "")
        if not re.fullmatch(r"\d{1,9}", text):
            return self._fail("Your answer must be a single whole number of coins, e.g. \\boxed{42}.", out)
        guess = int(text)
        if guess == self.best:
            self.done = True
            return f"Correct! {guess} coins is the cheapest valid crew assignment.", 1.0, True, False, {}
        return self._fail(f"Wrong: {guess} coins is not the cheapest valid assignment.", out)

    def _fail(self, msg, out):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        return str(self.best)

    def hint(self):
        pairs = [(self.techs[i], self.stages[s], self.fee[i][s]) for i, s in enumerate(self._match)]
        # reveal the pairings a greedy player is least likely to find: the most expensive ones used
        pairs = sorted(pairs, key=lambda p: (-p[2], p[0]))
        shown = pairs[:1] if self.n <= 4 else pairs[:2]
        text = " and ".join(f"{t} on {s}" for t, s, _ in shown)
        return ("Taking the cheapest quotes first fails here, and the sum of each technician's cheapest quote "
                f"is only a lower bound. The {'unique' if self._unique else 'DP'} optimal assignment puts {text}; fix "
                f"{'that' if len(shown) == 1 else 'those'}, then try the remaining technicians on the remaining "
                "stages (subtracting each row's minimum first makes the trade-offs easier to see).")
