"""Plant fault tracing: one component of a processing line is broken and bad signals flow downstream
through strict and redundant junctions; probe component outputs to trace the symptoms back to the
culprit, then repair it before the probe budget runs out."""

import random
import re

NAMES = [
    "Intake", "Filter", "Pump", "Heater", "Boiler", "Mixer", "Valve", "Regulator", "Compressor", "Cooler",
    "Condenser", "Splitter", "Gearbox", "Motor", "Dryer", "Press", "Conveyor", "Labeler", "Sorter", "Scanner",
    "Packer", "Sealer", "Grinder", "Separator", "Doser", "Chiller", "Turbine", "Injector", "Agitator",
    "Extruder", "Cutter", "Washer",
]


class PlantFaultTraceEnv:
    LEVELS = {
        "easy": {"n": 10, "redundant": 0, "min_cands": 8, "slack": 1},
        "medium": {"n": 15, "redundant": 2, "min_cands": 12, "slack": 0},
        "hard": {"n": 20, "redundant": 3, "min_cands": 16, "slack": 0},
    }

    def __init__(self, max_turns=10, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        cfg = self.LEVELS[self.difficulty]
        self.n = cfg["n"]
        self.n_redundant = cfg["redundant"]
        self.min_cands = cfg["min_cands"]
        self.slack = cfg["slack"]
        self.max_turns = int(max_turns) if max_turns else 10
        self.rng = random.Random()
        self.names = []
        self.parents = []
        self.join = []
        self.sinks = []
        self.sig = []
        self.fault = 0
        self.budget = 0
        self.used = 0
        self.turn = 0
        self.done = False
        self.known = {}
        self.log = []
        self.last = ""

    # ------------------------------------------------------------------ model
    def _simulate(self, fault):
        good = []
        for v in range(self.n):
            if v == fault:
                good.append(False)
            elif not self.parents[v]:
                good.append(True)
            elif self.join[v] == "any":
                good.append(any(good[p] for p in self.parents[v]))
            else:
                good.append(all(good[p] for p in self.parents[v]))
        return good

    def _build(self):
        n = self.n
        n_src = 2 if n >= 12 else 1
        n_sink = self.rng.choice([1, 2])
        first_sink = n - n_sink
        self.parents = [[] for _ in range(n)]
        self.join = ["all"] * n
        for v in range(n_src, n):
            k = 1 if self.rng.random() < 0.45 else 2
            top = min(v, first_sink)
            pool = list(range(max(0, top - 3), top))
            self.parents[v] = sorted(self.rng.sample(pool, min(k, len(pool))))
        for v in range(first_sink):
            if any(v in self.parents[w] for w in range(n)):
                continue
            later = [w for w in range(max(v + 1, n_src), n) if len(self.parents[w]) < 3] or [n - 1]
            w = self.rng.choice(later[:4])
            self.parents[w] = sorted(self.parents[w] + [v])
        self.sinks = list(range(first_sink, n))
        doubles = [v for v in range(n) if len(self.parents[v]) >= 2]
        self.rng.shuffle(doubles)
        for v in doubles[: self.n_redundant]:
            self.join[v] = "any"

    def _cands(self):
        return [f for f in range(self.n) if all(self.sig[f][v] == val for v, val in self.known.items())]

    def _best_probe(self, cands):
        best, best_key = None, None
        for v in range(self.n):
            if v in self.known:
                continue
            bad = sum(1 for f in cands if not self.sig[f][v])
            key = (max(bad, len(cands) - bad), v)
            if best_key is None or key < best_key:
                best, best_key = v, key
        return best

    def _depth(self, cands, memo):
        key = tuple(cands)
        if key in memo:
            return memo[key]
        if len(cands) <= 1:
            return 0
        v = self._best_probe(cands)
        bad = [f for f in cands if not self.sig[f][v]]
        good = [f for f in cands if self.sig[f][v]]
        if not bad or not good:
            memo[key] = 99
            return 99
        d = 1 + max(self._depth(bad, memo), self._depth(good, memo))
        memo[key] = d
        return d

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(200):
            self._build()
            if not self.sinks:
                continue
            self.sig = [self._simulate(f) for f in range(self.n)]
            visible = [f for f in range(self.n) if not all(self.sig[f][s] for s in self.sinks)]
            self.rng.shuffle(visible)
            chosen = None
            for f in visible:
                self.known = {s: self.sig[f][s] for s in self.sinks}
                cands = self._cands()
                if len(cands) >= self.min_cands:
                    chosen = f
                    break
            if chosen is not None:
                break
        self.fault = chosen
        self.known = {s: self.sig[chosen][s] for s in self.sinks}
        depth = self._depth(self._cands(), {})
        self.budget = depth + self.slack
        self.names = self.rng.sample(NAMES, self.n)
        self.used = 0
        self.turn = 0
        self.done = False
        self.log = []
        self.last = "The line has stopped with the output readings below. No probes yet."
        return self._render(), {}

    def _describe(self, v):
        ps = self.parents[v]
        if not ps:
            return f"  {self.names[v]:<11} (raw feed)"
        if len(ps) == 1:
            return f"  {self.names[v]:<11} <- {self.names[ps[0]]}"
        if self.join[v] == "any":
            return f"  {self.names[v]:<11} <- " + " OR ".join(self.names[p] for p in ps) + "   (redundant: ANY one good input suffices)"
        return f"  {self.names[v]:<11} <- " + " AND ".join(self.names[p] for p in ps) + "   (strict: needs ALL inputs good)"

    def _render(self):
        lines = [
            f"FAULT TRACE  |  Turn {self.turn}/{self.max_turns}  |  Probes left: {self.budget - self.used}/{self.budget}",
            "",
            f"A processing line of {self.n} components has stopped working properly. Exactly ONE component is broken:",
            "a broken component always emits a BAD signal. A working component emits a GOOD signal when its input",
            "rule is met (strict junction: every input good; redundant junction: at least one input good; single",
            "input: that input good; raw feed: always good), otherwise it passes a BAD signal on.",
            "",
            "Wiring (component <- its inputs):",
        ]
        lines += [self._describe(v) for v in range(self.n)]
        lines += ["", "Output monitors (end of the line): " + ", ".join(
            f"{self.names[s]}={'GOOD' if self.known[s] else 'BAD'}" for s in self.sinks)]
        if self.log:
            lines.append("Probe results: " + ", ".join(self.log))
        lines += [
            "",
            f"Last result: {self.last}",
            "",
            "Commands (one per turn, inside \\boxed{}):",
            "  \\boxed{probe NAME}    measure the output signal of component NAME (uses 1 probe)",
            "  \\boxed{repair NAME}   replace component NAME; ends the game (win only if NAME is the broken one)",
            "Repairing a working component loses. When the probes run out you can only repair.",
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

    def _step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        if m is None:
            self.last = "No command found. Write one command inside \\boxed{...}, e.g. probe followed by a name."
            return self._render(), 0.0, out_of_turns, False, {}
        words = m.group(1).strip()[:100].split()
        if len(words) != 2 or words[0].lower() not in ("probe", "repair", "test", "fix", "replace"):
            self.last = "Unknown command. Use: probe NAME or repair NAME (NAME = one component from the wiring list)."
            return self._render(), 0.0, out_of_turns, False, {}
        verb = words[0].lower()
        v = self._lookup(words[1])
        if v is None:
            self.last = f"There is no component called '{words[1][:30]}'. Use a name from the wiring list."
            return self._render(), 0.0, out_of_turns, False, {}
        if verb in ("repair", "fix", "replace"):
            self.done = True
            if v == self.fault:
                return (f"You replaced {self.names[v]} and the whole line runs clean again. Fault found! You win.",
                        1.0, True, False, {})
            cands = self._cands()
            why = ("it was still a possible culprit, but you had not ruled out the others" if v in cands else
                   "the readings you already had ruled it out")
            return (f"You replaced {self.names[v]}, but the outputs are still bad: it was working ({why}). "
                    f"{len(cands)} component(s) were still consistent with your readings. Game over.", 0.0, True, False, {})
        if v in self.known:
            self.last = f"The output of {self.names[v]} is already known: {'GOOD' if self.known[v] else 'BAD'}. No probe used."
            return self._render(), 0.0, out_of_turns, False, {}
        if self.used >= self.budget:
            self.last = "No probes left: you must repair a component now."
            return self._render(), 0.0, out_of_turns, False, {}
        self.used += 1
        val = self.sig[self.fault][v]
        self.known[v] = val
        self.log.append(f"{self.names[v]}={'GOOD' if val else 'BAD'}")
        self.last = f"Probe {self.used}: the output of {self.names[v]} is {'GOOD' if val else 'BAD'}."
        return self._render(), 0.0, out_of_turns, False, {}

    def solution(self):
        cands = self._cands()
        if len(cands) == 1 or self.used >= self.budget:
            return "repair " + self.names[self.fault]
        v = self._best_probe(cands)
        return "probe " + self.names[v]

    def hint(self):
        cands = self._cands()
        redundant = [self.names[v] for v in range(self.n) if self.join[v] == "any"]
        text = (f"Before probing, list every component whose failure would produce exactly the monitor readings "
                f"you see: {len(cands)} components qualify. A BAD reading at X keeps only suspects whose failure "
                f"reaches X; a GOOD reading at X clears every suspect whose failure would reach X. Probe the "
                f"component that splits the suspect list closest to half-and-half; {self.budget} probes are enough "
                f"only with near-even splits.")
        if redundant:
            text += (" Careful: " + ", ".join(redundant) + " are redundant junctions, so a failure on only one of "
                     "their input branches is masked there and never shows downstream.")
        return text
