"""Proof step referee: given facts and numbered statements (if-then rules, either-or statements) over lettered
propositions, prove the goal one inference per turn. Each turn names one new literal and the statement that
licenses it; the referee accepts it only if that statement together with literals already established yields it
by modus ponens, modus tollens or disjunctive syllogism. Rejected steps are not recorded; a second rejection, or
running out of steps, loses."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
# difficulty -> (inference steps in the proof, distractor statements, kinds of inference used)
LEVELS = {"easy": (3, 3, ("mp",)), "medium": (5, 5, ("mp", "mp", "mt", "ds")), "hard": (7, 7, ("mp", "mt", "ds"))}


def neg(lit):
    return (lit[0], not lit[1])


def show(lit):
    return lit[0] if lit[1] else "not " + lit[0]


class ProofStepRefereeEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        steps = LEVELS[self.difficulty][0]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns >= steps + 2 else steps + 2
        self.rng = random.Random()
        self.done = False

    def _fresh(self):
        a = self.pool.pop()
        return (a, self.rng.random() < 0.6)

    def _build(self, lit, budget):
        """Derive lit with about `budget` inference steps; returns the steps used."""
        rng = self.rng
        if budget <= 0:
            self.facts.append(lit)
            return 0
        kind = rng.choice(LEVELS[self.difficulty][2])
        self.kinds.add({"mp": "modus ponens", "mt": "modus tollens", "ds": "disjunctive syllogism"}[kind])
        if kind == "mp":
            prem = [self._fresh() for _ in range(2 if budget >= 3 and rng.random() < 0.5 else 1)]
            self.stmts.append(("if", prem, lit))
            used = 1
            share = [(budget - 1) // len(prem) + (1 if i < (budget - 1) % len(prem) else 0) for i in range(len(prem))]
            for p, b in zip(prem, share):
                used += self._build(p, b)
        elif kind == "mt":
            q = self._fresh()
            self.stmts.append(("if", [neg(lit)], q))
            used = 1 + self._build(neg(q), budget - 1)
        else:
            other = self._fresh()
            self.stmts.append(("or", other, lit) if rng.random() < 0.5 else ("or", lit, other))
            used = 1 + self._build(neg(other), budget - 1)
        self.plan.append(lit)
        return used

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        steps, extra, _ = LEVELS[self.difficulty]
        for _ in range(100):
            self.pool = list(LETTERS)
            rng.shuffle(self.pool)
            self.facts, self.stmts, self.plan, self.kinds = [], [], [], set()
            self.goal = self._fresh()
            if self._build(self.goal, steps) == steps and len(self.pool) >= 4:
                break
        used = [lit for s in self.stmts for lit in (s[1] + [s[2]] if s[0] == "if" else [s[1], s[2]])]
        atoms = sorted({lit[0] for lit in used})
        # distractors: rules that fire but lead nowhere, a rule that would give the goal from an unprovable
        # premise, and an either-or nobody can resolve; they make blind forward chaining run out of steps
        dis = [("if", [self._fresh()], self.goal)]
        side_made = []
        for _ in range(extra - 1):
            r = rng.random()
            if r < 0.6 and self.pool:
                # chains of rules that fire from provable literals but never reach the goal
                side = [d[2] for d in dis[1:] if d[0] == "if" and d[1][0] in self.facts + self.plan + side_made]
                dis.append(("if", [rng.choice(self.facts + self.plan[:-1] + side + side)], self._fresh()))
                side_made.append(dis[-1][2])
            elif r < 0.8 or len(self.pool) < 2:
                dis.append(("if", [(rng.choice(atoms), rng.random() < 0.5)], (rng.choice(atoms + [self.goal[0]]),
                                                                             rng.random() < 0.5)))
            else:
                dis.append(("or", self._fresh(), self._fresh()))
        # a distractor whose conclusion contradicts something provable would make the set inconsistent
        provable = set(self.facts) | set(self.plan)
        dis = [d for d in dis if not (d[0] == "if" and (neg(d[2]) in provable
                                                      or (len(d[1]) == 1 and d[1][0] in provable
                                                          and neg(d[2]) in provable)
                                                      or (d[1][0] in provable and d[2] in provable)))]
        self.stmts = self.stmts + dis
        rng.shuffle(self.stmts)
        self.known = list(self.facts)
        self.rejects = 0
        self.turn = 0
        self.done = False
        lines = [f"{i + 1}. {self._say(s)}" for i, s in enumerate(self.stmts)]
        facts = list(self.facts)
        rng.shuffle(facts)
        return ("PROOF STEP REFEREE\n"
                f"Given facts: {', '.join(show(f) for f in facts)}.\nStatements:\n" + "\n".join(lines) + "\n"
                f"Goal: prove {show(self.goal)}.\n"
                "Each turn state ONE new literal and the statement that licenses it, e.g. \\boxed{not Z by 4} or "
                "\\boxed{Z by 4}. Allowed inferences: from 'If P, then Q' and P infer Q (every premise of an 'and' "
                "rule must be established); from 'If P, then Q' and not Q infer not P; from 'P or Q' and not P "
                f"infer Q. You have {self.max_turns} steps; a second rejected step loses."), {}

    def _say(self, s):
        if s[0] == "if":
            return f"If {' and '.join(show(p) for p in s[1])}, then {show(s[2])}."
        return f"{show(s[1])} or {show(s[2])}."

    def _licensed(self, lit, s):
        known = set(self.known)
        if s[0] == "if":
            prem, concl = s[1], s[2]
            if lit == concl and all(p in known for p in prem):
                return True
            return len(prem) == 1 and lit == neg(prem[0]) and neg(concl) in known
        a, b = s[1], s[2]
        return (lit == b and neg(a) in known) or (lit == a and neg(b) in known)

    def step(self, action):
        if self.done:
            return "The proof is closed.", 0.0, True, False, {}
        self.turn += 1
        boxes = BOX_RE.findall(str(action)[:5000])
        m = re.fullmatch(r"(not )?([a-z]) by (\d+)", " ".join(boxes[0].strip().lower().split())) if len(
            boxes) == 1 else None
        ok = False
        if m and 1 <= int(m.group(3)) <= len(self.stmts):
            lit = (m.group(2).upper(), m.group(1) is None)
            ok = lit not in self.known and self._licensed(lit, self.stmts[int(m.group(3)) - 1])
        if ok:
            self.known.append(lit)
            if lit == self.goal:
                self.done = True
                return f"Accepted: {show(lit)}. The goal is proved: you win!", 1.0, True, False, {}
            msg = f"Accepted: {show(lit)} is established."
        else:
            self.rejects += 1
            if self.rejects >= 2:
                self.done = True
                return "Rejected again: the proof fails.", 0.0, True, False, {}
            msg = "Rejected: that step does not follow from the statement and what is established. Nothing recorded."
        if self.turn >= self.max_turns:
            self.done = True
            return msg + " No steps left: the goal was not proved.", 0.0, True, False, {}
        est = ", ".join(show(k) for k in self.known)
        return f"{msg}\nEstablished so far: {est}. Steps left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        known = set(self.known)
        for lit in self.plan:
            if lit not in known:
                for i, s in enumerate(self.stmts):
                    if self._licensed(lit, s):
                        return f"{show(lit)} by {i + 1}"
        return f"{show(self.goal)} by 1"

    def hint(self):
        kinds = sorted(self.kinds)
        return (f"The proof takes {len(self.plan)} steps and uses {', '.join(kinds)}. Work backwards from the goal: "
                "find the statement that could yield it, then what that statement needs, until you reach the given "
                "facts. A statement may conclude the goal from a premise nothing proves; some rules fire but lead "
                "nowhere, and steps are limited.")
