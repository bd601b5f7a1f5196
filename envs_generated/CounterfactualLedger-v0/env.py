"""Counterfactual ledger: a small structural causal model with linear, step and max/min equations and
one day of observed values; recover the hidden background factors and say what the outcome would have
been had one (or two) variables been set differently."""

import random
import re

WORDS = [
    "Demand", "Price", "Stock", "Wages", "Morale", "Output", "Quality", "Returns", "Ads", "Visits", "Sales",
    "Reviews", "Budget", "Staff", "Errors", "Costs", "Traffic", "Delays", "Orders", "Rain", "Footfall",
    "Tips", "Heat", "Energy", "Yield", "Pests", "Water", "Growth", "Fatigue", "Training",
]


class CounterfactualLedgerEnv:
    LEVELS = {
        "easy": {"k": 5, "n_do": 1, "need_flip": False},
        "medium": {"k": 6, "n_do": 1, "need_flip": True},
        "hard": {"k": 8, "n_do": 2, "need_flip": True},
    }

    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        cfg = self.LEVELS[self.difficulty]
        self.k = cfg["k"]
        self.n_do = cfg["n_do"]
        self.need_flip = cfg["need_flip"]
        self.rng = random.Random()
        self.names = []
        self.eqs = []
        self.obs = []
        self.noise = []
        self.do = {}
        self.target = 0
        self.turn = 0
        self.done = False
        self._answer = 0
        self._mistakes = {}
        self._flips = []

    # ------------------------------------------------------------------ model
    def _f(self, i, vals):
        eq = self.eqs[i]
        kind = eq["kind"]
        if kind == "root":
            return 0
        ps = eq["parents"]
        if kind == "lin":
            return sum(c * vals[p] for c, p in zip(eq["coef"], ps)) + eq["const"]
        if kind == "step":
            base = eq["hi"] if vals[ps[0]] >= eq["t"] else eq["lo"]
            extra = sum(c * vals[p] for c, p in zip(eq["coef"], ps[1:]))
            return base + extra
        if kind == "max":
            return max(vals[p] for p in ps) + eq["const"]
        return min(vals[p] for p in ps) + eq["const"]

    def _run(self, noise, do, freeze_steps=False, factual=None):
        vals = [0] * self.k
        for i in range(self.k):
            if i in do:
                vals[i] = do[i]
                continue
            eq = self.eqs[i]
            if freeze_steps and eq["kind"] == "step":
                # mistake model: keep the step's branch as in the factual world
                ps = eq["parents"]
                base = eq["hi"] if factual[ps[0]] >= eq["t"] else eq["lo"]
                vals[i] = base + sum(c * vals[p] for c, p in zip(eq["coef"], ps[1:])) + noise[i]
            else:
                vals[i] = self._f(i, vals) + noise[i]
        return vals

    def _descendants(self, x):
        out = {x}
        for i in range(x + 1, self.k):
            if any(p in out for p in self.eqs[i].get("parents", [])):
                out.add(i)
        return out

    def _gen_eq(self, i):
        rng = self.rng
        if i == 0 or (i == 1 and rng.random() < 0.5):
            return {"kind": "root", "parents": []}
        pool = list(range(i))
        nparents = min(len(pool), rng.choice([1, 2, 2, 3]))
        ps = rng.sample(pool, nparents)
        ps.sort(key=lambda p: -p)
        coef_choices = [-3, -2, -1, 1, 2, 3]
        r = rng.random()
        if r < 0.45:
            return {"kind": "lin", "parents": ps, "coef": [rng.choice(coef_choices) for _ in ps], "const": rng.randint(-4, 4)}
        if r < 0.8:
            return {"kind": "step", "parents": ps, "t": 0, "hi": rng.randint(5, 15), "lo": rng.randint(-5, 4),
                    "coef": [rng.choice(coef_choices) for _ in ps[1:]]}
        if len(ps) == 1:
            ps = rng.sample(pool, min(2, len(pool)))
        return {"kind": rng.choice(["max", "min"]), "parents": ps, "const": rng.randint(-3, 3)}

    def _try_build(self):
        rng = self.rng
        k = self.k
        self.eqs = [self._gen_eq(i) for i in range(k)]
        self.noise = [rng.randint(0, 9) if self.eqs[i]["kind"] == "root" else rng.randint(-5, 5) for i in range(k)]
        # thresholds: pick them near the factual parent value so interventions can flip them
        vals = [0] * k
        for i in range(k):
            eq = self.eqs[i]
            if eq["kind"] == "step":
                eq["t"] = vals[eq["parents"][0]] + rng.choice([-3, -2, -1, 1, 2, 3])
            vals[i] = self._f(i, vals) + self.noise[i]
        self.obs = vals
        if max(abs(v) for v in vals) > 150:
            return False
        # outcome: the last variable; interventions on ancestors of it with a path of length >= 2
        y = k - 1
        anc = [x for x in range(k - 2) if y in self._descendants(x)]
        if not anc:
            return False
        x = rng.choice(anc)
        do = {x: vals[x] + rng.choice([-6, -5, -4, -3, 3, 4, 5, 6])}
        if self.n_do == 2:
            mids = [m for m in self._descendants(x) if m not in (x, y) and y in self._descendants(m)]
            others = [m for m in range(k - 1) if m != x and m not in mids and y in self._descendants(m)]
            pool = mids or others
            if not pool:
                return False
            m = rng.choice(pool)
            do[m] = vals[m] + rng.choice([-5, -4, -3, 3, 4, 5])
        cf = self._run(self.noise, do)
        answer = cf[y]
        # the step branch must flip somewhere downstream for medium/hard
        flips = [i for i in range(k) if self.eqs[i]["kind"] == "step" and i not in do
                 and (cf[self.eqs[i]["parents"][0]] >= self.eqs[i]["t"]) != (vals[self.eqs[i]["parents"][0]] >= self.eqs[i]["t"])
                 and y in self._descendants(i)]
        if self.need_flip and not flips:
            return False
        mistakes = {
            "factual": vals[y],
            "no_noise": self._run([0] * k, do)[y],
            "frozen_steps": self._run(self.noise, do, freeze_steps=True, factual=vals)[y],
        }
        if self.n_do == 2:
            only_first = {x: do[x]}
            mistakes["first_only"] = self._run(self.noise, only_first)[y]
        if any(v == answer for v in mistakes.values()) or abs(answer) > 150 or answer in (-7, -3, 12):
            return False
        self.do = do
        self.target = y
        self._answer = answer
        self._mistakes = mistakes
        self._flips = flips
        return True

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        ok = False
        for _ in range(500):
            if self._try_build():
                ok = True
                break
        if not ok:  # extremely unlikely; fall back to an easy but valid instance
            self.need_flip = False
            while not self._try_build():
                pass
        self.names = self.rng.sample(WORDS, self.k)
        self.turn = 0
        self.done = False
        return self._render(), {}

    def _term(self, c, name, first):
        if c == 1:
            return ("" if first else " + ") + name
        if c == -1:
            return ("-" if first else " - ") + name
        if c < 0:
            return ("-" if first else " - ") + f"{-c}*{name}"
        return ("" if first else " + ") + f"{c}*{name}"

    def _eq_text(self, i):
        eq = self.eqs[i]
        nm = self.names
        u = f"U_{nm[i]}"
        kind = eq["kind"]
        if kind == "root":
            return f"{nm[i]} = {u}"
        ps = eq["parents"]
        if kind == "lin":
            body = "".join(self._term(c, nm[p], j == 0) for j, (c, p) in enumerate(zip(eq["coef"], ps)))
            const = eq["const"]
            if const:
                body += f" {'+' if const > 0 else '-'} {abs(const)}"
            return f"{nm[i]} = {body} + {u}"
        if kind == "step":
            body = f"({eq['hi']} if {nm[ps[0]]} >= {eq['t']} else {eq['lo']})"
            body += "".join(self._term(c, nm[p], False) for c, p in zip(eq["coef"], ps[1:]))
            return f"{nm[i]} = {body} + {u}"
        fn = "max" if kind == "max" else "min"
        body = f"{fn}(" + ", ".join(nm[p] for p in ps) + ")"
        const = eq["const"]
        if const:
            body += f" {'+' if const > 0 else '-'} {abs(const)}"
        return f"{nm[i]} = {body} + {u}"

    def _do_text(self):
        return " and ".join(f"{self.names[x]} had been set to {v}" for x, v in sorted(self.do.items()))

    def _render(self):
        nm = self.names
        lines = [
            "COUNTERFACTUAL LEDGER",
            "",
            "A small system is described by the structural causal model below. Every variable is an integer. Each",
            "U_* is a hidden background factor (an integer, fixed for the day, independent of everything else); the",
            "equations are listed in causal order and hold exactly.",
            "",
        ]
        lines += ["  " + self._eq_text(i) for i in range(self.k)]
        lines += [
            "",
            "Observed values for one particular day: " + ", ".join(f"{nm[i]}={self.obs[i]}" for i in range(self.k)),
            "",
            f"Question: on that same day (same background factors), what would {nm[self.target]} have been if "
            f"{self._do_text()} by direct intervention (overriding the equation of each set variable), with every other equation left as it is?",
            "",
            f"Answer with a single integer, e.g. \\boxed{{-7}}. You have {self.max_turns} attempts.",
        ]
        return "\n".join(lines)

    def step(self, action):
        try:
            return self._step(action)
        except Exception:
            self.turn += 1
            return "Could not read that answer; reply with one integer inside \\boxed{}.", 0.0, False, self.turn >= self.max_turns, {}

    def _step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new one.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        if m is None:
            return "No answer found. Reply with one integer inside \\boxed{}, e.g. \\boxed{12}.", 0.0, out_of_turns, False, {}
        text = m.group(1).strip().replace(" ", "")
        if not re.fullmatch(r"[+-]?\d{1,6}", text):
            return "The answer must be a single integer such as \\boxed{-3}.", 0.0, out_of_turns, False, {}
        guess = int(text)
        if guess == self._answer:
            self.done = True
            return "Correct! That is the counterfactual value.", 1.0, True, False, {}
        nm = self.names[self.target]
        if guess == self._mistakes["factual"]:
            why = (f"that is the value {nm} actually had. The question is about the altered world: push the "
                   f"intervention through every equation downstream of it.")
        elif guess == self._mistakes["no_noise"]:
            why = ("that value ignores the background factors. Recover each U_* from the observed day first "
                   "(U = observed value minus the rest of its equation) and keep them in the altered world.")
        elif guess == self._mistakes["frozen_steps"]:
            why = ("you kept every step equation on its factual branch. Re-check each threshold with the altered "
                   "inputs: at least one of them switches branch.")
        elif guess == self._mistakes.get("first_only"):
            why = "that applies only the first intervention; both overrides hold at once."
        else:
            why = f"your value is too {'high' if guess > self._answer else 'low'}."
        if out_of_turns:
            self.done = True
            return f"Wrong: {why} No attempts left.", 0.0, True, False, {}
        left = self.max_turns - self.turn
        return f"Wrong: {why} {left} attempt(s) left.", 0.0, False, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        nm = self.names
        desc = sorted(set().union(*[self._descendants(x) for x in self.do]) - set(self.do))
        keep = [nm[i] for i in range(self.k) if i not in desc and i not in self.do]
        text = (f"Abduction, action, prediction. Only the variables downstream of the intervention change: "
                f"{', '.join(nm[i] for i in desc)}. Everything else keeps its observed value "
                f"({', '.join(keep) if keep else 'none'}). Compute U for each changing variable from the observed day, "
                f"then recompute them in causal order with the new inputs.")
        if self._flips:
            text += " Watch the step equation of " + ", ".join(nm[i] for i in self._flips) + ": it switches branch."
        if len(self.do) == 2:
            text += " An overridden variable ignores its own equation, so effects that used to pass through it are cut."
        return text
