"""Manor renovation schedule: renovation jobs with durations and prerequisites must be shared among a few
craftsmen; write out a schedule (the start day of every job) that finishes the whole renovation in the fewest
days possible."""

import random
import re

JOBS = (
    "survey", "demolition", "scaffolding", "roof beams", "roof tiles", "chimney", "wiring", "plumbing",
    "plastering", "flooring", "windows", "painting", "staircase", "drainage", "gutters", "panelling",
    "tiling", "insulation", "fireplace", "garden wall",
)


class ManorRenovationScheduleEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.cfg = {
            "easy": {"tasks": 6, "workers": (2, 2), "dur": (1, 6), "edges": (0.30, 0.45)},
            "medium": {"tasks": 8, "workers": (2, 3), "dur": (1, 7), "edges": (0.22, 0.35)},
            "hard": {"tasks": 10, "workers": (3, 3), "dur": (1, 8), "edges": (0.18, 0.28)},
        }[self.difficulty]
        self.rng = random.Random()
        self.names = []
        self.dur = []
        self.preds = []
        self.workers = 2
        self.turn = 0
        self.done = False
        self._answer = 0
        self._greedy = 0
        self._bounds = (0, 0)
        self._chain = []
        self._starts = {}

    # ------------------------------------------------------------------ solver
    def _feasible(self, limit, tail, starts=None):
        """Can every job be finished within `limit` days? Depth-first search over completion events,
        choosing which ready jobs start there (idling on purpose is allowed; a left-justified optimal
        schedule only starts jobs at such events), pruned by chain and workload bounds."""
        n = len(self.dur)
        full = (1 << n) - 1
        pmask = [sum(1 << p for p in self.preds[t]) for t in range(n)]
        k = self.workers
        dur = self.dur
        failed = {}
        path = {}  # job -> start day (1-based) along the branch being explored

        def subsets(items, size):
            out = [()]
            for item in items:
                out += [s + (item,) for s in out if len(s) < size]
            return out

        def ok(done, running, left):
            if done == full:
                return True
            key = (done, running)
            if failed.get(key, -1) >= left:
                return False
            busy = 0
            work = 0
            for r, t in running:
                busy |= 1 << t
                work += r
                if r - dur[t] + tail[t] > left:
                    return False
            for t in range(n):
                if not (done >> t & 1) and not (busy >> t & 1):
                    work += dur[t]
                    if tail[t] > left:
                        return False
            if work > k * left:
                return False
            eligible = [t for t in range(n) if not (done >> t & 1) and not (busy >> t & 1)
                        and (pmask[t] & done) == pmask[t]]
            eligible.sort(key=lambda t: -tail[t])
            for chosen in subsets(eligible, k - len(running)):
                now = list(running) + [(dur[t], t) for t in chosen]
                if not now:
                    continue
                for t in chosen:
                    path[t] = limit - left + 1
                step = min(r for r, _ in now)
                new_done = done
                rest = []
                for r, t in now:
                    if r == step:
                        new_done |= 1 << t
                    else:
                        rest.append((r - step, t))
                if ok(new_done, tuple(sorted(rest)), left - step):
                    return True
                for t in chosen:
                    path.pop(t, None)
            failed[key] = left
            return False

        found = ok(0, (), limit)
        if found and starts is not None:
            starts.update(path)
        return found

    def _optimal(self, low, high, tail):
        """Smallest feasible makespan in [low, high] (high is known to be feasible) and a schedule
        (job -> start day) that attains it."""
        for limit in range(low, high + 1):
            starts = {}
            if self._feasible(limit, tail, starts):
                return limit, starts
        return high, {}

    def _tails(self):
        n = len(self.dur)
        succ = [[u for u in range(n) if t in self.preds[u]] for t in range(n)]
        tail = [0] * n
        for t in sorted(range(n), key=lambda x: -x):  # preds always have smaller index
            tail[t] = self.dur[t] + max([tail[u] for u in succ[t]] + [0])
        return tail, succ

    def _list_schedule(self, tail):
        """Non-delay list schedule: whenever a craftsman is free, start the ready job with the longest tail."""
        n = len(self.dur)
        finish = [None] * n
        free_at = [0] * self.workers
        started = set()
        time = 0
        while len(started) < n:
            ready = [t for t in range(n) if t not in started and all(
                finish[p] is not None and finish[p] <= time for p in self.preds[t])]
            ready.sort(key=lambda t: (-tail[t], t))
            for w in range(self.workers):
                if free_at[w] <= time and ready:
                    t = ready.pop(0)
                    started.add(t)
                    finish[t] = time + self.dur[t]
                    free_at[w] = finish[t]
            events = [f for f in finish if f is not None and f > time] + [f for f in free_at if f > time]
            if not events:
                break
            time = min(events)
        return max(finish)

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(200):
            if self._generate():
                break
        self.turn = 0
        self.done = False
        return self._observation(), {}

    def _generate(self):
        rng = self.rng
        cfg = self.cfg
        n = cfg["tasks"]
        self.names = rng.sample(JOBS, n)
        self.workers = rng.randint(*cfg["workers"])
        self.dur = [rng.randint(*cfg["dur"]) for _ in range(n)]
        p = rng.uniform(*cfg["edges"])
        self.preds = [sorted(j for j in range(t) if rng.random() < p) for t in range(n)]
        # drop transitive (redundant) prerequisites so the listing stays short
        reach = [set() for _ in range(n)]
        for t in range(n):
            for q in self.preds[t]:
                reach[t] |= reach[q] | {q}
        for t in range(n):
            self.preds[t] = [q for q in self.preds[t] if not any(q in reach[r] for r in self.preds[t] if r != q)]
        if sum(1 for t in range(n) if self.preds[t]) < n // 2:
            return False
        tail, succ = self._tails()
        crit = max(tail)
        load = -(-sum(self.dur) // self.workers)
        greedy = self._list_schedule(tail)
        if greedy <= max(crit, load):
            return False  # trivial: a simple bound is tight and the obvious schedule attains it
        best, starts = self._optimal(max(crit, load), greedy, tail)
        if len(starts) != n or best >= greedy:
            return False  # the obvious list schedule must not already be optimal
        self._answer = best
        self._starts = starts
        self._greedy = greedy
        self._bounds = (crit, load)
        chain = [max(range(n), key=lambda t: (tail[t], -t))]
        while succ[chain[-1]]:
            chain.append(max(succ[chain[-1]], key=lambda u: (tail[u], -u)))
        self._chain = chain
        return True

    def _label(self, t):
        return f"{chr(65 + t)} ({self.names[t]})"

    def _observation(self):
        lines = []
        for t in range(len(self.dur)):
            req = ", ".join(chr(65 + q) for q in self.preds[t]) if self.preds[t] else "none"
            lines.append(f"  {self._label(t)}: {self.dur[t]} day(s); needs finished first: {req}")
        return (
            f"Attempt {self.turn + 1} of {self.max_turns}.\n"
            f"The manor renovation has {len(self.dur)} jobs and {self.workers} craftsmen.\n"
            + "\n".join(lines) + "\n"
            "Rules: each job is done by one craftsman from start to finish without interruption; a craftsman works "
            "on one job at a time; a job may start only on a day after all of its listed prerequisites are "
            "complete. Craftsmen may stay idle. Days are whole numbers and the first day is day 1.\n"
            "Task: give a schedule that completes every job in the fewest days possible: the start day of every "
            "job, as LETTER:DAY pairs separated by commas, e.g. \\boxed{A:1, B:1, C:4, ...}. A job of d days that "
            "starts on day s occupies days s to s+d-1. Only a valid schedule of the minimum length wins."
        )

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = str(action)[:4000]
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        last = self.turn >= self.max_turns
        if not found:
            msg = "No answer found: reply with the start days inside \\boxed{}, e.g. \\boxed{A:1, B:1, C:4}."
            return self._feedback(msg, last), 0.0, last, False, {}
        starts, err = self._parse(found[-1])
        if err is None:
            err = self._check(starts)
        if err is not None:
            if last:
                self.done = True
            return self._feedback(err, last), 0.0, last, False, {}
        end = max(starts[t] + self.dur[t] - 1 for t in range(len(self.dur)))
        if end == self._answer:
            self.done = True
            return (f"Correct: a valid schedule finishing on day {end}, the shortest possible renovation. You win!",
                    1.0, True, False, {})
        msg = f"Your schedule is valid and finishes on day {end}, but the renovation can be finished sooner."
        if last:
            self.done = True
        return self._feedback(msg, last), 0.0, last, False, {}

    def _parse(self, text):
        pairs = re.findall(r"([A-Za-z])\s*[:=]\s*(?:day\s*)?(\d{1,4})", text)
        n = len(self.dur)
        starts = {}
        for letter, day in pairs:
            t = ord(letter.upper()) - 65
            if not 0 <= t < n:
                return None, f"There is no job {letter.upper()}; the jobs are A to {chr(64 + n)}."
            if t in starts:
                return None, f"Job {letter.upper()} is given two start days."
            starts[t] = int(day)
        missing = [chr(65 + t) for t in range(n) if t not in starts]
        if missing:
            return None, ("Give a start day for every job as LETTER:DAY pairs; missing: " + ", ".join(missing) + ".")
        return starts, None

    def _check(self, starts):
        """Why the schedule breaks a rule (None when it is valid)."""
        n = len(self.dur)
        for t in range(n):
            if starts[t] < 1:
                return f"Job {chr(65 + t)} starts before day 1."
            for p in self.preds[t]:
                if starts[t] < starts[p] + self.dur[p]:
                    return (f"Job {chr(65 + t)} starts on day {starts[t]}, before its prerequisite {chr(65 + p)} is "
                            f"finished (day {starts[p] + self.dur[p] - 1}).")
        end = max(starts[t] + self.dur[t] - 1 for t in range(n))
        for day in range(1, end + 1):
            busy = [chr(65 + t) for t in range(n) if starts[t] <= day < starts[t] + self.dur[t]]
            if len(busy) > self.workers:
                return (f"On day {day} jobs {', '.join(busy)} run at once, but there are only {self.workers} "
                        "craftsmen.")
        return None

    def _feedback(self, msg, last):
        if last:
            self.done = True
            return msg + " No attempts left."
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._observation()

    def solution(self):
        return ", ".join(f"{chr(65 + t)}:{self._starts[t]}" for t in range(len(self.dur)))

    def hint(self):
        crit, load = self._bounds
        chain = " -> ".join(chr(65 + t) for t in self._chain)
        text = (f"Start from two lower bounds: the longest prerequisite chain is {chain} (add up its days), and the "
                "total job-days divided by the number of craftsmen (rounded up). ")
        if self._answer > max(crit, load):
            text += ("Neither bound can be met here: find the stretch where craftsmen must wait because every "
                     "remaining job is still blocked, and count that forced idle time. ")
        if self._greedy > self._answer:
            text += ("The obvious rule (whenever a craftsman is free, start the ready job with the longest remaining "
                     "chain) is NOT optimal here: at some point a craftsman must hold back or take a shorter job so "
                     "that a job that unblocks others starts earlier. ")
        else:
            text += ("Starting, whenever a craftsman is free, the ready job with the longest remaining chain gives "
                     "a good schedule; the real work is proving that no schedule is shorter. ")
        text += f"The shortest renovation takes more than {max(crit, load)} days. Write the schedule out day by day before you answer."
        return text
