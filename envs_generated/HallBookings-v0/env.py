"""Hall bookings: a single hall receives booking requests, each a time slot with a fee; bookings that overlap
cannot both be accepted. Accept the set of requests that earns the most, and name it."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
CLIENTS = ["choir", "chess club", "wedding", "book fair", "yoga class", "auction", "dance school", "lecture",
           "bridge club", "film night", "craft market", "quiz night", "band rehearsal", "charity dinner"]
# difficulty -> (requests, day length in hours)
LEVELS = {"easy": (6, 12), "medium": (9, 14), "hard": (12, 16)}


class HallBookingsEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.requests = []  # (label, client, start, end, fee)
        self._best = 0
        self._pick = ()
        self.turn = 0
        self.done = False

    def _optimum(self):
        reqs = sorted(range(len(self.requests)), key=lambda i: self.requests[i][3])
        best = [(0, ())]  # best[k] over the first k requests by end time
        for pos, i in enumerate(reqs):
            s = self.requests[i][2]
            # last request (in end order) that ends by the time i starts
            j = pos
            while j > 0 and self.requests[reqs[j - 1]][3] > s:
                j -= 1
            take = (best[j][0] + self.requests[i][4], best[j][1] + (i,))
            best.append(max(best[-1], take))
        return best[-1]

    def _greedy(self, key):
        chosen, total = [], 0
        for i in sorted(range(len(self.requests)), key=key):
            _, _, s, e, fee = self.requests[i]
            if all(e <= self.requests[j][2] or s >= self.requests[j][3] for j in chosen):
                chosen.append(i)
                total += fee
        return total

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, day = LEVELS[self.difficulty]
        for _ in range(300):
            clients = rng.sample(CLIENTS, n)
            self.requests = []
            for k in range(n):
                length = rng.randint(1, 5)
                start = rng.randint(8, 8 + day - length)
                fee = rng.randint(2, 12) * 10 + rng.choice([0, 5])
                self.requests.append((f"R{k + 1}", clients[k], start, start + length, fee))
            best, pick = self._optimum()
            reqs = self.requests
            fails = (self._greedy(lambda i: -reqs[i][4]) < best and self._greedy(lambda i: reqs[i][3]) < best
                     and self._greedy(lambda i: -reqs[i][4] / (reqs[i][3] - reqs[i][2])) < best)
            # unique best set, so the answer is one definite plan
            ties = 0
            if fails:
                for mask in range(1 << n):
                    idx = [i for i in range(n) if mask >> i & 1]
                    if sum(reqs[i][4] for i in idx) != best:
                        continue
                    ok = all(reqs[a][3] <= reqs[b][2] or reqs[b][3] <= reqs[a][2] for a in idx for b in idx if a < b)
                    ties += ok
                    if ties > 1:
                        break
            if fails and ties == 1:
                break
        self._best, self._pick = best, tuple(sorted(pick))
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        lines = [f"  {label}: {client}, {s}:00-{e}:00, pays {fee}" for label, client, s, e, fee in self.requests]
        return ("HALL BOOKINGS\n"
                "The town hall has one room. Requests for tomorrow:\n" + "\n".join(lines) + "\n"
                "Two accepted bookings may not overlap (one may start at the hour another ends). Accept the set of "
                "requests that earns the most in total. Answer with their labels separated by commas, e.g. "
                f"\\boxed{{R1, R4}}. You have {self.max_turns} attempt(s); every plan is checked.")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        labels = {r[0].lower(): i for i, r in enumerate(self.requests)}
        if m is None:
            msg = "No plan found: list request labels inside \\boxed{...}."
        else:
            parts = [p.strip().lower() for p in re.split(r"[,;\s]+", m.group(1)) if p.strip()]
            unknown = [p[:8] for p in parts if p not in labels]
            picked = sorted(set(labels[p] for p in parts if p in labels))
            clash = [(self.requests[a][0], self.requests[b][0]) for a in picked for b in picked
                     if a < b and not (self.requests[a][3] <= self.requests[b][2] or self.requests[b][3] <= self.requests[a][2])]
            total = sum(self.requests[i][4] for i in picked)
            if unknown:
                msg = f"Unknown request(s): {', '.join(unknown)}."
            elif clash:
                msg = f"{clash[0][0]} and {clash[0][1]} overlap; they cannot both be accepted."
            elif total == self._best:
                self.done = True
                return f"Correct: {total} is the most the hall can earn. You win!", 1.0, True, False, {}
            else:
                msg = f"Your plan is valid and earns {total}, but a better plan exists."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return ", ".join(self.requests[i][0] for i in self._pick)

    def hint(self):
        return (f"The best plan accepts {len(self._pick)} request(s). Neither 'highest fee first' nor 'earliest "
                "finish first' nor 'best fee per hour first' finds it here. Sort the requests by finishing hour and, "
                "for each one, keep the best total of the requests ending by then: either skip it, or take it plus "
                "the best total of those that end before it starts.")
