"""But-for causes: a small set of deterministic rules says which events make which happen (with AND, OR and
'unless' blockers); on one day some basic events occurred and the final outcome happened. Name exactly the
basic events that were but-for causes: had that one event not occurred (everything else unchanged), the
outcome would not have happened."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
BASIC = ["rain", "frost", "wind", "a power cut", "a late delivery", "a strike", "a holiday", "a fire drill",
         "a burst pipe", "a server crash", "a road closure", "a parade"]
DERIVED = ["an early market closure", "train delays", "a bread shortage", "an empty office", "a bridge closure",
           "an early school dismissal", "a flooded square", "a phone outage", "lost stock", "a blackout"]
OUTCOME = "an emergency council meeting"
# difficulty -> (basic events, derived events, basic events that occurred)
LEVELS = {"easy": (5, 2, 3), "medium": (6, 4, 4), "hard": (8, 6, 6)}


class ButForCausesEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.basics = []
        self.derived = []
        self.rules = []
        self.occurred = []
        self._causes = []
        self.turn = 0
        self.done = False

    # a rule: (target, kind, inputs, blocker or None); kind 'all' (AND) or 'any' (OR); the target happens when
    # its inputs combine to true and the blocker (an earlier event) did NOT happen
    def _evaluate(self, occurred):
        value = {b: (b in occurred) for b in self.basics}
        for target, kind, inputs, blocker in self.rules:
            vals = [value[x] for x in inputs]
            on = all(vals) if kind == "all" else any(vals)
            if blocker is not None and value[blocker]:
                on = False
            value[target] = on
        return value

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        nb, nd, nocc = LEVELS[self.difficulty]
        for _ in range(400):
            self.basics = rng.sample(BASIC, nb)
            self.derived = rng.sample(DERIVED, nd) + [OUTCOME]
            self.rules = []
            known = list(self.basics)
            for target in self.derived:
                k = rng.choice([2, 2, 3]) if len(known) >= 3 else 2
                if target == OUTCOME:
                    # the outcome hangs on at least one derived event, so causes act through chains
                    first = rng.choice(known[nb:])
                    inputs = [first] + rng.sample([x for x in known if x != first], k - 1)
                else:
                    inputs = rng.sample(known[-(nb + 2):], k)
                kind = rng.choice(["all", "any"])
                blocker = None
                if rng.random() < 0.3:
                    rest = [x for x in known if x not in inputs]
                    blocker = rng.choice(rest) if rest else None
                self.rules.append((target, kind, inputs, blocker))
                known.append(target)
            self.occurred = sorted(rng.sample(self.basics, nocc), key=self.basics.index)
            value = self._evaluate(set(self.occurred))
            if not value[OUTCOME]:
                continue
            causes = [b for b in self.occurred if not self._evaluate(set(self.occurred) - {b})[OUTCOME]]
            # several occurred events, some of them causes and some not: neither 'all' nor 'none' is right,
            # and at least one derived event must matter
            if 1 <= len(causes) < len(self.occurred) and (len(causes) >= 2 or self.difficulty == "easy"):
                used = set(x for _, _, ins, bl in self.rules for x in ins + ([bl] if bl else []))
                if any(d in used for d in self.derived[:-1]):
                    break
        self._causes = causes
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _rule_text(self, rule):
        target, kind, inputs, blocker = rule
        joined = (" and " if kind == "all" else " or ").join(inputs)
        lead = "both " if kind == "all" and len(inputs) == 2 else ("all of " if kind == "all" else "")
        lead = "either " if kind == "any" and len(inputs) == 2 else lead
        text = f"There is {target} if {lead}{joined} happened"
        if kind == "any" and len(inputs) > 2:
            text = f"There is {target} if at least one of {joined.replace(' or ', ', ')} happened"
        if blocker:
            text += f", unless {blocker} happened"
        return text + "."

    def _task(self):
        rules = [self._rule_text(r) for r in self.rules]
        order = list(range(len(rules)))
        self.rng.shuffle(order)
        return ("BUT-FOR CAUSES\n"
                "Nothing happens in this town except by these rules (an event named after 'if' may itself be the "
                "result of another rule; 'unless' means the rule is switched off when that event happened):\n"
                + "\n".join(f"  - {rules[i]}" for i in order) + "\n"
                f"Possible basic events: {', '.join(self.basics)}.\n"
                f"Yesterday exactly these basic events happened: {', '.join(self.occurred)}. And there was {OUTCOME}.\n"
                f"Which of yesterday's basic events were but-for causes of that, i.e. if that one event alone had "
                "not happened (all other basic events as they were), there would have been no emergency council meeting?\n"
                "List every such event and only those, separated by semicolons, e.g. \\boxed{rain; a strike}. "
                f"You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        if m is None:
            msg = "No answer found: list the events inside \\boxed{...}, separated by semicolons."
        else:
            parts = [re.sub(r"\s+", " ", p).strip().lower().rstrip(".") for p in re.split(r"[;\n]", m.group(1))]
            names = {b.lower(): b for b in self.basics}
            given = set()
            unknown = []
            for p in parts:
                if not p:
                    continue
                key = p if p in names else ("a " + p if "a " + p in names else p)
                if key in names:
                    given.add(names[key])
                else:
                    unknown.append(p[:30])
            if unknown:
                msg = f"Not basic events of this town: {', '.join(unknown)}."
            elif given == set(self._causes):
                self.done = True
                return "Correct: exactly those events were but-for causes. You win!", 1.0, True, False, {}
            else:
                msg = (f"Not right: {len(given & set(self._causes))} of your {len(given)} event(s) are but-for causes, "
                       "and the list is not complete and exact.")
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return "; ".join(self._causes)

    def hint(self):
        idle = [b for b in self.occurred if b not in self._causes]
        return (f"There are {len(self._causes)} but-for cause(s). Work out which derived events happened yesterday, "
                f"then remove one basic event at a time and recompute everything downstream (an 'unless' blocker "
                f"that disappears can switch a rule ON). For example, {idle[0] if idle else 'no event'} is NOT one: "
                "the outcome survives without it.")
