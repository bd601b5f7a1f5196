"""Negation maze: a short report states what happened in a village; then numbered claims wrap those facts (or
their opposites) in layers of negation, denial and hedging ('It is not true that nobody doubted that ...').
Say which claims are true."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
FACTS = [("the baker opened the shop", "the baker kept the shop closed"),
         ("the ferry left on time", "the ferry left late"),
         ("the mayor attended the fair", "the mayor stayed away from the fair"),
         ("the well was dry", "the well had water"),
         ("the bell rang at noon", "the bell stayed silent at noon"),
         ("the miller sold his flour", "the miller kept his flour"),
         ("the school held its concert", "the school cancelled its concert"),
         ("the bridge was repaired", "the bridge was left broken"),
         ("the goats escaped", "the goats stayed in their pen"),
         ("the letter arrived", "the letter never arrived")]
# wrappers: (template, flips truth)
WRAPS = [("it is not true that {}", True), ("it is false that {}", True), ("it is true that {}", False),
         ("nobody could deny that {}", False), ("it would be wrong to claim that {}", True),
         ("it is not the case that {}", True), ("the report confirms that {}", False),
         ("it is a mistake to think that {}", True)]
# difficulty -> (facts, claims, largest number of wrappers per claim)
LEVELS = {"easy": (4, 5, 2), "medium": (5, 6, 3), "hard": (6, 8, 4)}


class NegationMazeEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.report = []
        self.claims = []
        self._answer = ""
        self.turn = 0
        self.done = False

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        nf, nc, depth = LEVELS[self.difficulty]
        labels = "ABCDEFGH"
        for _ in range(100):
            facts = rng.sample(FACTS, nf)
            truth = [rng.random() < 0.5 for _ in facts]
            self.report = [f[0] if t else f[1] for f, t in zip(facts, truth)]
            self.claims = []
            values = []
            for _ in range(nc):
                k = rng.randrange(nf)
                positive = rng.random() < 0.5
                text = facts[k][0] if positive else facts[k][1]
                value = truth[k] if positive else not truth[k]
                for _ in range(rng.randint(1, depth)):
                    tpl, flips = rng.choice(WRAPS)
                    text = tpl.format(text)
                    value = value != flips
                self.claims.append(text[0].upper() + text[1:] + ".")
                values.append(value)
            answer = "".join(labels[i] for i, v in enumerate(values) if v)
            # some claims true, some false
            if 0 < len(answer) < nc:
                break
        self._answer = answer
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        labels = "ABCDEFGH"
        return ("NEGATION MAZE\n"
                "What happened yesterday (all of it is true): " + "; ".join(self.report) + ".\n"
                "Claims:\n" + "\n".join(f"  {labels[i]}. {c}" for i, c in enumerate(self.claims)) + "\n"
                "Which claims are true? Answer with the letters of all true claims, in alphabetical order, e.g. "
                f"\\boxed{{BD}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = "".join(sorted(set(re.sub(r"[^A-H]", "", m.group(1).upper())))) if m else None
        if guess == self._answer:
            self.done = True
            return "Correct: exactly those claims are true. You win!", 1.0, True, False, {}
        msg = "No answer found." if m is None else "Not exactly the true claims."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        return (f"{len(self._answer)} of the {len(self.claims)} claims are true. Peel each claim from the outside "
                "in: every denial ('not true', 'false', 'wrong to claim', 'mistake to think', 'not the case') flips "
                "the value once, confirmations change nothing; then check the core sentence against the report, "
                "keeping in mind that some core sentences state the opposite of what happened.")
