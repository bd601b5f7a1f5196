"""Radio tower cover: villages along a valley must each hear at least one radio tower; every candidate site
reaches a listed set of villages and has a building cost. Choose the cheapest set of sites that covers every
village; the answer is the set itself, checked for coverage and cost."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
VILLAGES = ["Ashby", "Brook", "Calder", "Dunmore", "Elmstead", "Fenwick", "Garth", "Holm", "Ivydale", "Jarrow",
            "Kettle", "Lowick", "Marsh", "Netley", "Orford", "Pendle"]
# difficulty -> (villages, sites, villages per site range)
LEVELS = {"easy": (7, 6, (2, 3)), "medium": (10, 9, (2, 4)), "hard": (13, 12, (2, 5))}


class TowerCoverEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.villages = []
        self.sites = []  # (label, cost, frozenset of village indices)
        self._best = ()
        self._cost = 0
        self.turn = 0
        self.done = False

    def _optimum(self):
        n = len(self.sites)
        full = (1 << len(self.villages)) - 1
        masks = [sum(1 << v for v in cover) for _, _, cover in self.sites]
        best, best_set = None, ()
        for pick in range(1, 1 << n):
            cost, mask = 0, 0
            for i in range(n):
                if pick >> i & 1:
                    cost += self.sites[i][1]
                    mask |= masks[i]
            if mask == full and (best is None or cost < best):
                best, best_set = cost, tuple(i for i in range(n) if pick >> i & 1)
        return best, best_set

    def _greedy(self):
        """Cheapest cost per newly covered village, repeatedly (the classic heuristic)."""
        left = set(range(len(self.villages)))
        cost = 0
        while left:
            gain = [(c / len(cov & left), i) for i, (_, c, cov) in enumerate(self.sites) if cov & left]
            if not gain:
                return None
            _, i = min(gain)
            cost += self.sites[i][1]
            left -= self.sites[i][2]
        return cost

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        nv, ns, (lo, hi) = LEVELS[self.difficulty]
        for _ in range(200):
            self.villages = rng.sample(VILLAGES, nv)
            self.sites = []
            for k in range(ns):
                start = rng.randrange(nv)
                width = rng.randint(lo, hi)
                cover = frozenset((start + d) % nv for d in range(width)) if rng.random() < 0.6 else \
                    frozenset(rng.sample(range(nv), width))
                cost = rng.randint(3, 9) + 2 * width
                self.sites.append((f"S{k + 1}", cost, cover))
            best, best_set = self._optimum()
            greedy = self._greedy()
            if best is None or greedy is None or greedy <= best:
                continue  # the greedy rule must fall short
            # the optimum must be unique, so the answer is one definite set
            alt = sum(1 for pick in range(1, 1 << ns)
                      if sum(self.sites[i][1] for i in range(ns) if pick >> i & 1) == best
                      and len(set().union(*[self.sites[i][2] for i in range(ns) if pick >> i & 1])) == nv)
            if alt == 1:
                break
        self._cost, self._best = best, best_set
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        lines = [f"  {label} (cost {cost}): reaches {', '.join(self.villages[v] for v in sorted(cov))}"
                 for label, cost, cov in self.sites]
        return ("RADIO TOWER COVER\n"
                f"Villages: {', '.join(self.villages)}.\n"
                "Candidate tower sites:\n" + "\n".join(lines) + "\n"
                "Build towers so that every village is reached by at least one of them, at the lowest total cost. "
                "Answer with the site labels of your cheapest plan, separated by commas, e.g. \\boxed{S1, S4}. "
                f"You have {self.max_turns} attempt(s); each plan is checked for coverage and cost.")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        labels = {label.lower(): i for i, (label, _, _) in enumerate(self.sites)}
        if m is None:
            msg = "No plan found: list site labels inside \\boxed{...}, e.g. \\boxed{S1, S4}."
        else:
            parts = [p.strip().lower() for p in re.split(r"[,;\s]+", m.group(1)) if p.strip()]
            unknown = [p[:10] for p in parts if p not in labels]
            picked = sorted(set(labels[p] for p in parts if p in labels))
            covered = set()
            for i in picked:
                covered |= self.sites[i][2]
            cost = sum(self.sites[i][1] for i in picked)
            if unknown:
                msg = f"Unknown site(s): {', '.join(unknown)}."
            elif not picked:
                msg = "Your plan builds no tower."
            elif len(covered) < len(self.villages):
                missing = [self.villages[v] for v in range(len(self.villages)) if v not in covered]
                msg = f"Not every village is covered: {', '.join(missing)} hear(s) no tower."
            elif cost == self._cost:
                self.done = True
                return f"Correct: full coverage for {cost}, the lowest possible cost. You win!", 1.0, True, False, {}
            else:
                msg = f"Your plan covers every village for {cost}, but a cheaper plan exists."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return ", ".join(self.sites[i][0] for i in self._best)

    def hint(self):
        # a village that only one or two sites reach forces a choice: name one such village
        counts = [(sum(1 for _, _, cov in self.sites if v in cov), v) for v in range(len(self.villages))]
        rare = min(counts)
        return (f"The cheapest plan uses {len(self._best)} tower(s). Start from the villages "
                f"that few sites reach (only {rare[0]} site(s) reach {self.villages[rare[1]]}), and do not trust "
                "'cheapest per village' picks: here that rule overpays.")
