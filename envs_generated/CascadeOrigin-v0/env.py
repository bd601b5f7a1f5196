"""Cascade origin: devices trip each other after fixed delays (some triggers are blocked by an earlier
trip) and only some devices are logged; exactly one device tripped on its own, so reason backwards
through the delays to name the device that started the cascade and the minute it did."""

import heapq
import random
import re

DEVICES = [
    "Spark", "Smoke", "Alarm", "Sprinkler", "Flood", "Shutdown", "Reboot", "Backup", "Ping", "Overheat", "Fan",
    "Vent", "Lockdown", "Beacon", "Siren", "Drain", "Relay", "Surge", "Fuse", "Blackout", "Valve", "Pump",
    "Modem", "Latch", "Horn", "Lamp", "Coil", "Heater", "Chime", "Shutter",
]


class CascadeOriginEnv:
    LEVELS = {
        "easy": {"k": 7, "hidden": 3, "inhib": 0, "dmax": 5, "confusers": 2},
        "medium": {"k": 9, "hidden": 4, "inhib": 1, "dmax": 6, "confusers": 3},
        "hard": {"k": 12, "hidden": 5, "inhib": 2, "dmax": 7, "confusers": 3},
    }

    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        cfg = self.LEVELS[self.difficulty]
        self.k = cfg["k"]
        self.n_hidden = cfg["hidden"]
        self.n_inhib = cfg["inhib"]
        self.dmax = cfg["dmax"]
        self.n_confusers = cfg["confusers"]
        self.rng = random.Random()
        self.names = []
        self.rules = []  # (src, dst, delay, inhibitor or -1)
        self._by_src = []
        self.monitored = set()
        self.log = []
        self.root = 0
        self.t0 = 0
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ model
    def _simulate(self, root, t0):
        fired = {}
        queue = [(t0, root)]
        by_src = self._by_src
        while queue:
            t, e = heapq.heappop(queue)
            if e in fired:
                continue
            fired[e] = t
            for dst, d, inh in by_src[e]:
                if dst in fired:
                    continue
                if inh >= 0 and inh in fired and fired[inh] < t:
                    continue
                heapq.heappush(queue, (t + d, dst))
        return fired

    def _mlog(self, fired):
        return sorted((t, e) for e, t in fired.items() if e in self.monitored)

    def _build(self):
        rng = self.rng
        k = self.k
        rules = []
        for i in range(k - 1):
            outs = rng.choice([1, 2, 2])
            targets = rng.sample(range(i + 1, min(k, i + 5)), min(outs, len(range(i + 1, min(k, i + 5)))))
            for j in targets:
                rules.append([i, j, rng.randint(1, self.dmax), -1])
        for j in range(1, k):
            if not any(r[1] == j for r in rules):
                i = rng.randrange(max(0, j - 3), j)
                rules.append([i, j, rng.randint(1, self.dmax), -1])
        self.rules = [tuple(r) for r in rules]
        self._index_rules()
        self.monitored = set(rng.sample(range(k), k - self.n_hidden))

    def _index_rules(self):
        self._by_src = [[(r[1], r[2], r[3]) for r in self.rules if r[0] == e] for e in range(self.k)]

    def _add_inhibitors(self, fired):
        # block some triggers whose cause really tripped, by another device of the same cascade
        rules = [list(r) for r in self.rules]
        for _ in range(self.n_inhib):
            live = [r for r in rules if r[0] in fired and r[3] < 0]
            if not live:
                break
            r = self.rng.choice(live)
            options = sorted(z for z in fired if z not in (r[0], r[1]))
            if options:
                r[3] = self.rng.choice(options)
        self.rules = [tuple(r) for r in rules]
        self._index_rules()

    def _relative_logs(self):
        # the rules are shift-invariant: simulate each possible start once, at minute 0
        return [self._mlog(self._simulate(c, 0)) for c in range(self.k)]

    def _explains(self, log, rel):
        hits = []
        for c in range(self.k):
            r = rel[c]
            if not r or len(r) != len(log):
                continue
            s = log[0][0] - r[0][0]
            if s >= 0 and all(t + s == lt and e == le for (t, e), (lt, le) in zip(r, log)):
                hits.append((c, s))
        return hits

    def _confusers(self, log, rel):
        """Starts that reproduce the earliest log entry but contradict a later one."""
        out = 0
        for c in range(self.k):
            r = rel[c]
            if not r or r[0][1] != log[0][1]:
                continue
            s = log[0][0] - r[0][0]
            if s < 0:
                continue
            if [(t + s, e) for t, e in r] != log:
                out += 1
        return out

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        found = False
        for _ in range(1500):
            self._build()
            hidden = [h for h in range(self.k) if h not in self.monitored]
            root = self.rng.choice(hidden)
            t0 = self.rng.randint(0, 9)
            if self.n_inhib:
                self._add_inhibitors(self._simulate(root, t0))
            fired = self._simulate(root, t0)
            log = self._mlog(fired)
            if len(log) < 3 or log[0][0] == t0:
                continue
            if self.n_inhib and not any(r[3] >= 0 and r[0] in fired and r[3] in fired for r in self.rules):
                continue
            rel = self._relative_logs()
            if self._explains(log, rel) != [(root, t0)]:
                continue
            if self._confusers(log, rel) < self.n_confusers:
                continue
            found = True
            break
        if not found:
            # fall back to the last consistent instance without the extra difficulty filters
            for _ in range(2000):
                self._build()
                hidden = [h for h in range(self.k) if h not in self.monitored]
                root = self.rng.choice(hidden)
                t0 = self.rng.randint(0, 9)
                log = self._mlog(self._simulate(root, t0))
                if log and self._explains(log, self._relative_logs()) == [(root, t0)]:
                    break
        self.root = root
        self.t0 = t0
        self.log = log
        self.names = self.rng.sample(DEVICES, self.k)
        self.turn = 0
        self.done = False
        return self._render(), {}

    def _rule_text(self, r):
        src, dst, d, inh = r
        nm = self.names
        text = f"  when {nm[src]} trips, {nm[dst]} trips {d} minute{'s' if d > 1 else ''} later"
        if inh >= 0:
            text += f", UNLESS {nm[inh]} had already tripped before {nm[src]} did"
        return text

    def _render(self):
        nm = self.names
        order = list(range(len(self.rules)))
        shuffler = random.Random(self.t0 * 1000 + self.root * 7 + len(self.rules))
        shuffler.shuffle(order)
        logged = sorted(nm[e] for e in self.monitored)
        unlogged = sorted(nm[e] for e in range(self.k) if e not in self.monitored)
        lines = [
            "CASCADE ORIGIN",
            "",
            f"A control room has {self.k} devices. Devices trigger each other according to these fixed rules:",
        ]
        lines += [self._rule_text(self.rules[i]) for i in order]
        lines += [
            "",
            "Every device trips at most once: a trigger that arrives after the device has already tripped does nothing.",
            "A trigger always fires exactly its stated number of minutes after its cause (unless it is blocked).",
            "Last night exactly ONE device tripped on its own, at some whole minute >= 0; every other trip followed",
            "from the rules. The cascade has died out completely.",
            "",
            "Logged devices (every trip of these appears below): " + ", ".join(logged),
            "Unlogged devices (their trips are invisible): " + ", ".join(unlogged),
            "",
            "Event log:",
        ]
        lines += [f"  minute {t:>2}: {nm[e]}" for t, e in self.log]
        lines += [
            "",
            "Question: which device tripped on its own, and at what minute?",
            "Answer as \\boxed{DEVICE at MINUTE}, for example \\boxed{Device at 3}. "
            f"You have {self.max_turns} attempts.",
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
            return "Could not read that answer; use \\boxed{DEVICE at MINUTE}.", 0.0, False, self.turn >= self.max_turns, {}

    def _step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new one.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        if m is None:
            return "No answer found. Reply as \\boxed{DEVICE at MINUTE}.", 0.0, out_of_turns, False, {}
        body = m.group(1).strip()[:100]
        mm = re.fullmatch(r"\s*([A-Za-z]+)\s*(?:at|@|,|:)?\s*(?:minute\s*)?(\d{1,4})\s*", body, re.IGNORECASE)
        if mm is None:
            return ("Could not read that. Reply as \\boxed{DEVICE at MINUTE} with a device name from the rules "
                    "and a whole minute.", 0.0, out_of_turns, False, {})
        dev = self._lookup(mm.group(1))
        if dev is None:
            return f"There is no device called '{mm.group(1)[:20]}'.", 0.0, out_of_turns, False, {}
        minute = int(mm.group(2))
        if dev == self.root and minute == self.t0:
            self.done = True
            return "Correct! That spontaneous trip explains the whole log.", 1.0, True, False, {}
        feedback = self._diagnose(dev, minute)
        if out_of_turns:
            self.done = True
            return f"Wrong: {feedback} No attempts left.", 0.0, True, False, {}
        return f"Wrong: {feedback} {self.max_turns - self.turn} attempt(s) left.", 0.0, False, False, {}

    def _diagnose(self, dev, minute):
        nm = self.names
        predicted = self._mlog(self._simulate(dev, minute))
        observed = self.log
        pred_d = {e: t for t, e in predicted}
        obs_d = {e: t for t, e in observed}
        for t, e in observed:
            if e not in pred_d:
                return f"if {nm[dev]} had started at minute {minute}, {nm[e]} would never have tripped, but it is in the log."
            if pred_d[e] != t:
                return (f"if {nm[dev]} had started at minute {minute}, {nm[e]} would have tripped at minute "
                        f"{pred_d[e]}, not at minute {t}.")
        for t, e in predicted:
            if e not in obs_d:
                return f"if {nm[dev]} had started at minute {minute}, the log would also show {nm[e]} at minute {t}."
        return f"{nm[dev]} at minute {minute} reproduces the log, but it is not what happened; look for another start."

    def solution(self):
        return f"{self.names[self.root]} at {self.t0}"

    def hint(self):
        nm = self.names
        first_t, first_e = self.log[0]
        direct = sorted({nm[r[0]] for r in self.rules if r[1] == first_e})
        text = (f"Work backwards from the earliest log entry ({nm[first_e]} at minute {first_t}): it was either the "
                f"spontaneous trip or was triggered by one of {', '.join(direct)}, exactly that rule's delay earlier. "
                "For each candidate start, simulate the whole cascade forwards (first arrival wins, blocked triggers "
                "do nothing) and compare with EVERY log line, including which logged devices must NOT appear. "
                "The starting device is not a logged one.")
        return text
