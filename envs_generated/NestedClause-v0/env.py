"""Nested clauses: one long sentence stacks relative clauses inside each other ('the baker that the tailor
that the guard warned paid ...'), the way centre-embedded English does; read it and answer two questions about
who did what to whom."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
PEOPLE = ["baker", "tailor", "guard", "miller", "sailor", "doctor", "farmer", "painter", "judge", "clerk",
          "potter", "mason", "weaver", "cook"]
VERBS = [("warned", "warn"), ("paid", "pay"), ("praised", "praise"), ("followed", "follow"), ("thanked", "thank"),
         ("blamed", "blame"), ("visited", "visit"), ("helped", "help"), ("hired", "hire"), ("greeted", "greet")]
# difficulty -> (depth of embedding, passive clauses allowed)
LEVELS = {"easy": (2, False), "medium": (3, False), "hard": (4, True)}


class NestedClauseEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.sentence = ""
        self.facts = []  # (doer, verb_past, receiver)
        self.question = ""
        self._answer = ""
        self.turn = 0
        self.done = False

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        depth, passive = LEVELS[self.difficulty]
        people = rng.sample(PEOPLE, depth + 2)
        verbs = rng.sample(VERBS, depth + 1)
        # Centre embedding: N0 that N1 that N2 ... V2 V1 V0 OBJ.
        # Clause k (k>=1): N_k did verb_k to N_{k-1} (object relative), or passive: N_{k-1} was verbed by N_k
        # Main clause: N0 did verb_0 to the last person.
        nouns = people[:depth + 1]
        obj = people[depth + 1]
        self.facts = []
        parts = [f"The {nouns[0]}"]
        tails = []
        for k in range(1, depth + 1):
            use_passive = passive and rng.random() < 0.5
            if use_passive:
                # '...the N_{k-1} that was V by the N_k' is not centre-embedded; keep depth via 'whom'
                parts.append(f"whom the {nouns[k]}")
            else:
                parts.append(f"that the {nouns[k]}")
            self.facts.append((nouns[k], verbs[k][0], nouns[k - 1]))
            tails.append(verbs[k][0])
        main = f"{verbs[0][0]} the {obj}"
        self.facts.append((nouns[0], verbs[0][0], obj))
        self.sentence = " ".join(parts) + " " + " ".join(reversed(tails)) + " " + main + "."
        # two questions about clauses inside the stack (the hard part to track), answered together: a single
        # name copied from the screen cannot be the answer
        base = dict((p, b) for p, b in VERBS)
        inner = self.facts[:-1] if depth > 1 else self.facts
        picks = rng.sample(inner, 2) if len(inner) >= 2 else [inner[0], self.facts[-1]]
        questions, answers = [], []
        for doer, verb, receiver in picks:
            if rng.random() < 0.5:
                questions.append(f"Who {verb} the {receiver}?")
                answers.append(doer)
            else:
                questions.append(f"Whom did the {doer} {base[verb]}?")
                answers.append(receiver)
        self.question = " ".join(f"({i + 1}) {q}" for i, q in enumerate(questions))
        self._answer = ", ".join(answers)
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        names = sorted(set(x for d, _, r in self.facts for x in (d, r)))
        return ("NESTED CLAUSES\n"
                f"Sentence: {self.sentence}\n"
                f"Question: {self.question}\n"
                f"People in the sentence: {', '.join(names)}.\n"
                "Answer both questions in order, one person each, e.g. \\boxed{<person 1>, <person 2>}. "
                f"You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        parts = [re.sub(r"^(the|a)\s+", "", p.strip().lower()) for p in re.split(r"[,;]", m.group(1))] if m else []
        guess = ", ".join(p for p in parts if p)
        if guess == self._answer:
            self.done = True
            return "Correct. You win!", 1.0, True, False, {}
        if not m:
            msg = "No answer found: name two people inside \\boxed{...}, separated by a comma."
        else:
            right = sum(1 for a, b in zip([p for p in parts if p], self._answer.split(", ")) if a == b)
            msg = f"Not right: {right} of the 2 answers are correct."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        doer, verb, receiver = self.facts[-1]  # the main clause: never the one asked about
        return ("Pair the verbs with the nouns from the inside out: the innermost 'that the X' goes with the FIRST "
                f"verb after the run of nouns, and so on outwards; the main verb belongs to the first noun. For "
                f"instance, '{verb}' is the main verb here, and this sentence has {len(self.facts) - 1} clause(s) "
                "stacked inside the main one.")
