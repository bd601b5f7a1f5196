"""Split a batch of pottery firing jobs between two identical kilns so the whole batch is done as early as
possible, while honouring pairing rules (some pieces must fire in the same kiln, some in different kilns);
the player reports the minimum makespan."""
import random
import re

JOB_NAMES = [
    "amphora", "basin", "bowl", "chalice", "crock", "ewer", "flagon", "goblet", "jug", "ladle", "mug",
    "pitcher", "planter", "platter", "saucer", "teapot", "tile", "tureen", "urn", "vase",
]


class TwinKilnScheduleEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.n_jobs, self.n_same, self.n_apart, self.lo, self.hi = {
            "easy": (6, 1, 1, 15, 70),
            "medium": (9, 2, 2, 12, 75),
            "hard": (12, 3, 3, 10, 80),
        }[self.difficulty]
        self.rng = random.Random()
        self.jobs = []
        self.dur = {}
        self.same = []
        self.apart = []
        self.best = 0
        self._kiln_one = []
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ solver
    def _components(self, same, apart):
        """Blocks of jobs glued by 'same' rules, then 2-coloured components of the 'apart' rules.

        Returns a list of (side0_jobs, side1_jobs) per component, or None if the rules contradict."""
        parent = {j: j for j in self.jobs}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for a, b in same:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
        blocks = {}
        for j in self.jobs:
            blocks.setdefault(find(j), []).append(j)
        nbrs = {r: [] for r in blocks}
        for a, b in apart:
            ra, rb = find(a), find(b)
            if ra == rb:
                return None
            nbrs[ra].append(rb)
            nbrs[rb].append(ra)
        colour = {}
        comps = []
        for r in sorted(blocks):
            if r in colour:
                continue
            colour[r] = 0
            stack = [r]
            sides = ([], [])
            while stack:
                x = stack.pop()
                sides[colour[x]].extend(blocks[x])
                for y in nbrs[x]:
                    if y not in colour:
                        colour[y] = 1 - colour[x]
                        stack.append(y)
                    elif colour[y] == colour[x]:
                        return None
            comps.append((sorted(sides[0]), sorted(sides[1])))
        return comps

    def _solve(self, same, apart):
        comps = self._components(same, apart)
        total = sum(self.dur.values())
        reach = {0: []}  # load of kiln one -> one list of choices reaching it
        for idx, (s0, s1) in enumerate(comps):
            w0 = sum(self.dur[j] for j in s0)
            w1 = sum(self.dur[j] for j in s1)
            nxt = {}
            for load, picks in reach.items():
                for w, side in ((w0, 0), (w1, 1)):
                    key = load + w
                    if key not in nxt:
                        nxt[key] = picks + [side]
            reach = nxt
        best_load = min(reach, key=lambda L: (max(L, total - L), L))
        picks = reach[best_load]
        kiln_one = []
        for (s0, s1), side in zip(comps, picks):
            kiln_one.extend(s0 if side == 0 else s1)
        return max(best_load, total - best_load), sorted(kiln_one)

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        rng = self.rng
        for _ in range(300):
            self.jobs = sorted(rng.sample(JOB_NAMES, self.n_jobs))
            self.dur = {j: rng.randint(self.lo, self.hi) for j in self.jobs}
            hidden = {j: rng.randint(0, 1) for j in self.jobs}
            pairs = [(a, b) for i, a in enumerate(self.jobs) for b in self.jobs[i + 1:]]
            rng.shuffle(pairs)
            same = [p for p in pairs if hidden[p[0]] == hidden[p[1]]][: self.n_same]
            apart = [p for p in pairs if hidden[p[0]] != hidden[p[1]]][: self.n_apart]
            if len(same) < self.n_same or len(apart) < self.n_apart:
                continue
            free_best, _ = self._solve([], [])
            best, kiln_one = self._solve(same, apart)
            if best <= free_best:
                continue  # the rules must actually cost something
            if best < 100 and self.difficulty != "easy":
                continue
            self.same, self.apart = same, apart
            self.best, self._kiln_one = best, kiln_one
            self._free_best = free_best
            break
        else:
            self.same, self.apart = same, apart
            self.best, self._kiln_one = self._solve(same, apart)
            self._free_best = self._solve([], [])[0]
        return self._intro(), {}

    def _intro(self):
        rows = "\n".join(f"  {j:<9} {self.dur[j]:>3} min" for j in self.jobs)
        same = "; ".join(f"{a} and {b}" for a, b in self.same)
        apart = "; ".join(f"{a} and {b}" for a, b in self.apart)
        return (
            "TWIN KILN FIRING PLAN\n"
            "Two identical kilns start at minute 0. Every piece below must be fired once, in exactly one "
            "kiln, for its full firing time; a kiln fires one piece at a time, back to back, with no gaps needed.\n"
            f"{rows}\n"
            f"Rules: these pairs must fire in the SAME kiln (shared glaze batch): {same}.\n"
            f"These pairs must fire in DIFFERENT kilns (they are collected together): {apart}.\n"
            "The batch is finished when the later kiln finishes. What is the earliest possible finishing "
            "minute over all plans that obey the rules? Answer with one integer, e.g. \\boxed{42}. "
            f"You have {self.max_turns} attempts."
        )

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to start a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        found = re.findall(r"\\boxed\{([^{}]*)\}", str(action))
        if not found:
            return self._fail("No answer found. Reply with one integer (minutes) inside \\boxed{...}.", out)
        text = found[-1].strip().lower().replace(" ", "").replace("minutes", "").replace("min", "")
        if not re.fullmatch(r"\d{1,9}", text):
            return self._fail("Your answer must be a single whole number of minutes, e.g. \\boxed{42}.", out)
        guess = int(text)
        if guess == self.best:
            self.done = True
            return f"Correct! Both kilns can be done by minute {guess}, and no valid plan is faster.", 1.0, True, False, {}
        return self._fail(f"Wrong: minute {guess} is not the earliest finish of a plan that obeys every rule.", out)

    def _fail(self, msg, out):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        return str(self.best)

    def hint(self):
        longest = max(self.jobs, key=lambda j: (self.dur[j], j))
        side = self._kiln_one if longest in self._kiln_one else [j for j in self.jobs if j not in self._kiln_one]
        mates = [j for j in side if j != longest]
        mates = sorted(mates, key=lambda j: (-self.dur[j], j))[:2]
        mate_text = " and ".join(mates) if mates else "nothing else"
        tied = sum(1 for j in self.jobs if self.dur[j] == self.dur[longest]) > 1
        label = f"{longest}, one of the longest pieces" if tied else f"the longest piece, {longest}"
        return ("Glue each SAME pair into one block, then note that each DIFFERENT rule fixes a whole chain of "
                "blocks to opposite kilns, so each chain has only two ways to be placed. The rules here prevent "
                "the ideal split that ignoring them would allow. "
                f"In one optimal plan {label}, fires with {mate_text}.")
