"""Nested clauses: one long sentence stacks relative clauses inside each other ('the baker that the tailor
that the guard warned paid ...'), the way centre-embedded English does; read it and say who did what to whom."""
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
        # ask about a clause in the middle of the stack (the hard part to track)
        doer, verb, receiver = rng.choice(self.facts[:-1] if depth > 1 else self.facts)
        if rng.random() < 0.5:
            self.question = f"Who {verb} the {receiver}?"
            self._answer = doer
        else:
            self.question = f"Whom did the {doer} {dict((p, b) for p, b in VERBS)[verb]}?"
            self._answer = receiver
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        names = sorted(set(x for d, _, r in self.facts for x in (d, r)))
        return ("NESTED CLAUSES\n"
                f"Sentence: {self.sentence}\n"
                f"Question: {self.question}\n"
                f"People in the sentence: {', '.join(names)}.\n"
                "Answer with one person, e.g. \\boxed{baker}. "
                f"You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = re.sub(r"^(the|a)\s+", "", m.group(1).strip().lower()) if m else ""
        if guess == self._answer:
            self.done = True
            return "Correct. You win!", 1.0, True, False, {}
        msg = "No answer found: name one person inside \\boxed{...}." if not m else f"'{guess[:20]}' is not right."
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
