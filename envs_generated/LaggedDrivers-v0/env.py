"""Lagged drivers: several on/off signals were logged over time. Some switch at random (they are driven from
outside); each of the others copies or inverts one other signal with a fixed delay of one or two ticks. From the
log, name which signal drives which, with the delay and whether it inverts."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
SIGNALS = ["pump", "valve", "fan", "heater", "alarm", "light", "gate", "motor"]
# difficulty -> (signals, driven signals, log length)
LEVELS = {"easy": (3, 1, 12), "medium": (4, 2, 14), "hard": (5, 3, 16)}


class LaggedDriversEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.names = []
        self.log = []
        self.links = {}  # driven index -> (driver index, delay, invert)
        self.turn = 0
        self.done = False

    def _explains(self, series, i, j, lag, inv):
        return all(series[i][t] == (series[j][t - lag] ^ inv) for t in range(2, len(series[i])))

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, k, length = LEVELS[self.difficulty]
        for _ in range(300):
            self.names = rng.sample(SIGNALS, n)
            order = list(range(n))
            rng.shuffle(order)
            free = order[: n - k]
            driven = order[n - k:]
            links = {}
            for pos, d in enumerate(driven):
                parent = rng.choice(free + driven[:pos])
                links[d] = (parent, rng.choice([1, 2]), rng.choice([0, 1]))
            series = [[0] * length for _ in range(n)]
            for t in range(length):
                for i in free:
                    series[i][t] = rng.randint(0, 1)
                for d in driven:
                    p, lag, inv = links[d]
                    series[d][t] = (series[p][t - lag] ^ inv) if t >= lag else rng.randint(0, 1)
            # identifiable: each driven signal is explained by exactly one (driver, delay, inversion) from tick 3 on,
            # and no outside-driven signal is explained by anything
            ok = True
            for i in range(n):
                fits = [(j, lag, inv) for j in range(n) if j != i for lag in (1, 2) for inv in (0, 1)
                        if self._explains(series, i, j, lag, inv)]
                if (i in links and fits != [links[i]]) or (i not in links and fits):
                    ok = False
                    break
            if ok:
                break
        self.links = links
        self.log = series
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        width = max(len(x) for x in self.names)
        lines = [f"  {name:<{width}} " + " ".join(str(v) for v in self.log[i]) for i, name in enumerate(self.names)]
        return ("LAGGED DRIVERS\n"
                f"On/off log (1 = on), ticks 1 to {len(self.log[0])} from left to right:\n" + "\n".join(lines) + "\n"
                "Each signal either switches at random (driven from outside), or is driven by exactly one other "
                "signal: from tick 3 on it always equals that signal's value 1 or 2 ticks earlier, or always its "
                "opposite. Name every driven signal with its driver, delay and whether it inverts, separated by "
                "semicolons, e.g. \\boxed{fan <- pump 2 same; alarm <- fan 1 inverted}. "
                f"You have {self.max_turns} attempt(s).")

    def _parse(self, text):
        found = {}
        for part in re.split(r"[;\n]", text):
            m = re.fullmatch(r"\s*([a-z]+)\s*(?:<-|<|from|by)\s*([a-z]+)\s*,?\s*(\d)\s*(?:ticks?)?\s*,?\s*(same|inverted|invert|opposite)\s*",
                             part.strip().lower())
            if not part.strip():
                continue
            if m is None or m.group(1) not in self.names or m.group(2) not in self.names:
                return None
            found[self.names.index(m.group(1))] = (self.names.index(m.group(2)), int(m.group(3)),
                                                   0 if m.group(4) == "same" else 1)
        return found

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        got = self._parse(m.group(1)) if m else None
        if got == self.links:
            self.done = True
            return "Correct: those are exactly the driving links. You win!", 1.0, True, False, {}
        msg = "Could not read the links: write 'driven <- driver DELAY same|inverted' separated by ';'." \
            if got is None else "Not exactly the driving links."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        parts = []
        for d in sorted(self.links):
            p, lag, inv = self.links[d]
            parts.append(f"{self.names[d]} <- {self.names[p]} {lag} {'inverted' if inv else 'same'}")
        return "; ".join(parts)

    def hint(self):
        return (f"{len(self.links)} of the {len(self.names)} signals are driven. For each pair of signals, shift one "
                "row right by 1 and by 2 ticks and compare it with the other from tick 3 on: a perfect match, or a "
                "perfect mismatch (inverted), is a link; random signals match nothing.")
