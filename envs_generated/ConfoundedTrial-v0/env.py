"""Confounded records: an observational table in which a background factor drove both the choice of
treatment and the outcome; adjust for the confounder (and only for it) to find which treatment would
truly work best if given to everyone, and its adjusted success rate."""

import random
import re

DOMAINS = [
    {
        "intro": "A hospital kept records of patients with the same infection.",
        "unit": "patients", "treat": "treatment", "success": "recovered",
        "items": ["Corvalin", "Dextrafen", "Mirolex", "Tavoxil", "Zenapril", "Lumicort", "Fexiral", "Ostrazine"],
        "z": "severity at admission", "levels": ["mild", "moderate", "severe"],
        "why": "Doctors chose the treatment after seeing how severe the case was, and severity itself affects recovery.",
        "m": "fever broke within 48 hours",
        "m_why": "Whether the fever broke within 48 hours was recorded AFTER treatment started; the treatment affects it "
                 "and it affects recovery.",
    },
    {
        "intro": "An agricultural station recorded plots of the same wheat variety.",
        "unit": "plots", "treat": "fertiliser", "success": "gave a good harvest",
        "items": ["GrowMax", "Verdana", "SoilPro", "NitroGold", "Harvestix", "TerraPlus", "Rootwell", "Agrivo"],
        "z": "soil quality", "levels": ["rich", "average", "poor"],
        "why": "Farmers picked the fertiliser depending on the soil quality, and soil quality itself affects the harvest.",
        "m": "seedlings emerged within a week",
        "m_why": "Whether seedlings emerged within a week was observed AFTER fertilising; the fertiliser affects it and "
                 "it affects the harvest.",
    },
    {
        "intro": "A school district recorded students preparing for the same exam.",
        "unit": "students", "treat": "tutoring method", "success": "passed",
        "items": ["Socratic", "Flashcard", "PeerLoop", "Mastery", "Sprint", "Blended", "Workshop", "Coaching"],
        "z": "prior grade band", "levels": ["high", "middle", "low"],
        "why": "Teachers assigned the method depending on each student's prior grades, and prior grades also affect passing.",
        "m": "completed all homework",
        "m_why": "Whether a student completed all homework was recorded AFTER the method was assigned; the method "
                 "affects it and it affects passing.",
    },
]


class ConfoundedTrialEnv:
    LEVELS = {
        "easy": {"n_t": 2, "n_z": 2, "mediator": False},
        "medium": {"n_t": 3, "n_z": 3, "mediator": False},
        "hard": {"n_t": 3, "n_z": 3, "mediator": True},
    }

    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        cfg = self.LEVELS[self.difficulty]
        self.n_t = cfg["n_t"]
        self.n_z = cfg["n_z"]
        self.mediator = cfg["mediator"]
        self.rng = random.Random()
        self.dom = DOMAINS[0]
        self.treats = []
        self.levels = []
        self.cells = {}
        self.turn = 0
        self.done = False
        self._best = 0
        self._rate = 0.0
        self._adjusted = []
        self._crude = []
        self._over = []

    # ------------------------------------------------------------------ generation
    def _try_build(self):
        rng = self.rng
        nt, nz = self.n_t, self.n_z
        pz = [rng.randint(2, 6) for _ in range(nz)]
        base = sorted([rng.uniform(0.3, 0.9) for _ in range(nz)], reverse=True)  # level 0 has the best prognosis
        effects = sorted([rng.uniform(-0.15, 0.15) for _ in range(nt)])
        rank = list(range(nt))
        rng.shuffle(rank)
        strength = rng.uniform(3.0, 8.0)
        cells = {}
        for z in range(nz):
            total = pz[z] * rng.randint(40, 70)
            # confounding: better treatments tend to be given to the harder cases (later strata)
            zc = (2 * z - (nz - 1)) / (nz - 1)
            weights = []
            for t in range(nt):
                rc = (2 * rank[t] - (nt - 1)) / (nt - 1)
                weights.append(strength ** (rc * zc) * rng.uniform(0.7, 1.3))
            wsum = sum(weights)
            for t in range(nt):
                n = max(6, round(total * weights[t] / wsum))
                p = min(0.95, max(0.05, base[z] + effects[rank[t]] + rng.uniform(-0.04, 0.04)))
                if self.mediator:
                    pm = min(0.9, max(0.1, 0.5 + 2 * effects[rank[t]] + rng.uniform(-0.15, 0.15)))
                    n1 = max(3, round(n * pm))
                    n0 = max(3, n - n1)
                    r1 = min(n1, max(0, round(n1 * min(0.97, p + 0.15))))
                    r0 = min(n0, max(0, round(n0 * max(0.03, p - 0.15))))
                    cells[(z, t, 1)] = (n1, r1)
                    cells[(z, t, 0)] = (n0, r0)
                else:
                    cells[(z, t)] = (n, min(n, max(0, round(n * p))))
        self.cells = cells
        return self._analyse()

    def _zt(self, z, t):
        if self.mediator:
            n = self.cells[(z, t, 0)][0] + self.cells[(z, t, 1)][0]
            r = self.cells[(z, t, 0)][1] + self.cells[(z, t, 1)][1]
            return n, r
        return self.cells[(z, t)]

    def _analyse(self):
        nt, nz = self.n_t, self.n_z
        zt = {(z, t): self._zt(z, t) for z in range(nz) for t in range(nt)}
        nz_tot = [sum(zt[(z, t)][0] for t in range(nt)) for z in range(nz)]
        total = sum(nz_tot)
        adjusted = []
        crude = []
        for t in range(nt):
            adjusted.append(sum(zt[(z, t)][1] / zt[(z, t)][0] * nz_tot[z] / total for z in range(nz)))
            crude.append(sum(zt[(z, t)][1] for z in range(nz)) / sum(zt[(z, t)][0] for z in range(nz)))
        order = sorted(range(nt), key=lambda t: -adjusted[t])
        best = order[0]
        if adjusted[best] - adjusted[order[1]] < 0.03:
            return False
        crude_best = max(range(nt), key=lambda t: crude[t])
        if crude_best == best or abs(crude[best] - adjusted[best]) < 0.02:
            return False
        over = list(adjusted)
        if self.mediator:
            over = []
            for t in range(nt):
                acc = 0.0
                for z in range(nz):
                    for m in (0, 1):
                        nzm = sum(self.cells[(z, s, m)][0] for s in range(nt))
                        n, r = self.cells[(z, t, m)]
                        acc += r / n * nzm / total
                over.append(acc)
            if abs(over[best] - adjusted[best]) < 0.01:
                return False
        self._best = best
        self._rate = adjusted[best]
        self._adjusted = adjusted
        self._crude = crude
        self._over = over
        return True

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.dom = self.rng.choice(DOMAINS)
        self.treats = self.rng.sample(self.dom["items"], self.n_t)
        lv = self.dom["levels"]
        self.levels = [lv[0], lv[2]] if self.n_z == 2 else list(lv)
        ok = False
        for _ in range(3000):
            if self._try_build():
                ok = True
                break
        if not ok:
            raise RuntimeError("could not generate a confounded table")
        self.turn = 0
        self.done = False
        return self._render(), {}

    def _pct(self, fr):
        return float(fr) * 100.0

    def _render(self):
        d = self.dom
        lines = ["CONFOUNDED RECORDS", "", d["intro"] + " " + d["why"]]
        if self.mediator:
            lines.append(d["m_why"])
        lines.append(f"Nothing else influenced the {d['treat']} choice. The counts below are exact records, not samples of a model.")
        lines.append("")
        if self.mediator:
            lines.append(f"{d['z']:<22} | {d['treat']:<12} | {d['m']:<34} | {d['unit']:>8} | {d['success']}")
            for z in range(self.n_z):
                for t in range(self.n_t):
                    for m in (1, 0):
                        n, r = self.cells[(z, t, m)]
                        lines.append(f"{self.levels[z]:<22} | {self.treats[t]:<12} | {'yes' if m else 'no':<34} | {n:>8} | {r}")
        else:
            lines.append(f"{d['z']:<22} | {d['treat']:<12} | {d['unit']:>8} | {d['success']}")
            for z in range(self.n_z):
                for t in range(self.n_t):
                    n, r = self.cells[(z, t)]
                    lines.append(f"{self.levels[z]:<22} | {self.treats[t]:<12} | {n:>8} | {r}")
        lines += [
            "",
            f"Question: if ONE {d['treat']} were given to ALL {d['unit']} of this population (an intervention, with the "
            f"{d['z']} mix of the population unchanged), which {d['treat']} would give the highest share of "
            f"{d['unit']} who {d['success']}, and what would that share be?",
            "",
            f"Answer as \\boxed{{NAME, PERCENT}} with the percentage to one decimal place, e.g. \\boxed{{{self.treats[-1]}, 50.0}}.",
            f"You have {self.max_turns} attempts. Options: " + ", ".join(self.treats) + ".",
        ]
        return "\n".join(lines)

    def step(self, action):
        try:
            return self._step(action)
        except Exception:
            self.turn += 1
            return "Could not read that answer; use \\boxed{NAME, PERCENT}.", 0.0, False, self.turn >= self.max_turns, {}

    def _step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new one.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        fmt = f"Answer as \\boxed{{NAME, PERCENT}}, e.g. \\boxed{{{self.treats[0]}, 42.5}}."
        if m is None:
            return "No answer found. " + fmt, 0.0, out_of_turns, False, {}
        body = m.group(1).strip()[:200]
        name_match = None
        for i, t in enumerate(self.treats):
            if re.search(r"(?<![A-Za-z])" + re.escape(t.lower()) + r"(?![A-Za-z])", body.lower()):
                name_match = i if name_match is None else -1
        nums = re.findall(r"-?\d+(?:\.\d+)?", body)
        if name_match is None or name_match == -1 or len(nums) != 1:
            return ("The answer must contain exactly one option name and one percentage. " + fmt,
                    0.0, out_of_turns, False, {})
        value = float(nums[0])
        if 0 < value <= 1 and "." in nums[0]:
            value *= 100.0
        target = self._pct(self._rate)
        name_ok = name_match == self._best
        rate_ok = abs(value - target) <= 0.1 + 1e-9
        if name_ok and rate_ok:
            self.done = True
            return "Correct! That is the best intervention and its adjusted success share.", 1.0, True, False, {}
        parts = []
        if name_ok:
            parts.append(f"the {self.dom['treat']} is right")
        else:
            parts.append(f"{self.treats[name_match]} is not the best {self.dom['treat']} under intervention")
            if name_match == max(range(self.n_t), key=lambda t: self._crude[t]):
                parts.append("(it only looks best in the raw totals)")
        guess_t = name_match
        if name_ok and not rate_ok:
            if abs(value - self._pct(self._crude[guess_t])) <= 0.1:
                parts.append("but your share is the raw (unadjusted) rate, which mixes in who received it")
            elif self.mediator and abs(value - self._pct(self._over[guess_t])) <= 0.1:
                parts.append(f"but your share also adjusts for '{self.dom['m']}', which is an effect of the "
                             f"{self.dom['treat']}, not a cause of its choice")
            else:
                parts.append(f"but your share is too {'high' if value > target else 'low'}")
        text = "Wrong: " + "; ".join(parts) + "."
        if out_of_turns:
            self.done = True
            return text + " No attempts left.", 0.0, True, False, {}
        return text + f" {self.max_turns - self.turn} attempt(s) left.", 0.0, False, False, {}

    def solution(self):
        return f"{self.treats[self._best]}, {self._pct(self._rate):.1f}"

    def hint(self):
        d = self.dom
        crude_best = max(range(self.n_t), key=lambda t: self._crude[t])
        text = (f"The raw totals are misleading here: {self.treats[crude_best]} looks best overall only because of "
                f"which {d['unit']} received it. Use the back-door adjustment over {d['z']}: for each "
                f"{d['treat']}, take its success rate inside each {d['z']} group and average those rates with "
                f"weights equal to each group's share of ALL {d['unit']} (not of those who got that {d['treat']}).")
        if self.mediator:
            text += (f" Do not stratify on '{d['m']}': it is caused by the {d['treat']}, so add its yes and no rows "
                     f"together before computing the rates.")
        return text
