"""Syllogism check: a few premises about three groups ('all', 'no', 'some', 'some ... are not') are given, then
five candidate conclusions; say exactly which conclusions MUST be true whenever the premises are, judged by
logic alone, not by what sounds plausible."""
import itertools
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
#: a well-formed answer: labels only, optionally separated by commas or spaces ("AC", "A, C")
ANSWER_RE = re.compile(r"\s*[A-F](?:[\s,]*[A-F])*\s*")
TERMS = [("wizards", "wizard"), ("bakers", "baker"), ("pirates", "pirate"), ("poets", "poet"),
         ("gardeners", "gardener"), ("knights", "knight"), ("sailors", "sailor"), ("chess players", "chess player"),
         ("violinists", "violinist"), ("astronomers", "astronomer")]
KINDS = ("all", "no", "some", "somenot")
# difficulty -> (premises, candidate conclusions)
LEVELS = {"easy": (2, 5), "medium": (3, 6), "hard": (4, 6)}
# a model: which of the 8 regions (membership in X, Y, Z) are inhabited; only models where every group has a
# member count
MODELS = [m for m in range(1, 256) if all(any(m >> r & 1 and r >> t & 1 for r in range(8)) for t in range(3))]


def holds(model, kind, a, b):
    """Is 'kind a b' true in a model? a, b are term indices 0..2; regions are 3-bit masks."""
    inhabited = [r for r in range(8) if model >> r & 1]
    in_a = [r for r in inhabited if r >> a & 1]
    if kind == "all":
        return all(r >> b & 1 for r in in_a)
    if kind == "no":
        return not any(r >> b & 1 for r in in_a)
    if kind == "some":
        return any(r >> b & 1 for r in in_a)
    return any(not (r >> b & 1) for r in in_a)


STATEMENTS = [(k, a, b) for k in KINDS for a in range(3) for b in range(3) if a != b]
#: statement -> bit mask over MODELS of the models where it holds (computed once: reset only ANDs masks)
TRUTH = {}
for _s in STATEMENTS:
    TRUTH[_s] = sum(1 << i for i, _m in enumerate(MODELS) if holds(_m, *_s))


class SyllogismEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.terms = []
        self.premises = []
        self.conclusions = []
        self._answer = ""
        self.turn = 0
        self.done = False

    def _text(self, kind, a, b):
        pa, pb = self.terms[a][0], self.terms[b][0]
        if kind == "all":
            return f"All {pa} are {pb}."
        if kind == "no":
            return f"No {pa} are {pb}."
        if kind == "some":
            return f"Some {pa} are {pb}."
        return f"Some {pa} are not {pb}."

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        np_, nc = LEVELS[self.difficulty]
        found = None
        # fewer premises are tried when a level's count leaves too few open conclusions for this draw
        for count in (np_, np_ - 1, np_ - 2):
            for _ in range(200):
                terms = rng.sample(TERMS, 3)
                premises = rng.sample(STATEMENTS, count)
                models = (1 << len(MODELS)) - 1
                for p in premises:
                    models &= TRUTH[p]
                if not models:
                    continue
                cands = [x for x in STATEMENTS if x not in premises]
                follows = [x for x in cands if models & TRUTH[x] == models]
                possible = [x for x in cands if x not in follows and models & TRUTH[x]]
                least = 1 if self.difficulty == "easy" else 2
                if len(follows) < least or len(possible) < nc - least:
                    continue
                # several conclusions to pick on harder levels, so the answer is a set, not one popular letter
                k = rng.randint(least, min(len(follows), 3, nc - 1))
                chosen = rng.sample(follows, k) + rng.sample(possible, nc - k)
                rng.shuffle(chosen)
                found = (terms, premises, chosen, follows)
                break
            if found:
                break
        self.terms, premises, chosen, follows = found
        self.premises = premises
        self.conclusions = chosen
        labels = "ABCDEF"
        self._answer = "".join(labels[i] for i, s in enumerate(chosen) if s in follows)
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        labels = "ABCDEF"
        return ("SYLLOGISM CHECK\n"
                f"Premises (each of the three groups has at least one member):\n"
                + "\n".join(f"  {i + 1}. {self._text(*p)}" for i, p in enumerate(self.premises)) + "\n"
                "Candidate conclusions:\n"
                + "\n".join(f"  {labels[i]}. {self._text(*c)}" for i, c in enumerate(self.conclusions)) + "\n"
                "Which conclusions MUST be true whenever all the premises are true? ('Some X are Y' means at least "
                "one; it does not rule out 'all'.) Answer with the letters of exactly those conclusions, in "
                f"alphabetical order, e.g. \\boxed{{AC}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        boxes = BOX_RE.findall(str(action)[:5000])
        guess = self._parse(boxes[-1]) if boxes else None
        if guess is not None and guess == self._answer:
            self.done = True
            return "Correct: exactly those conclusions follow. You win!", 1.0, True, False, {}
        if not boxes:
            msg = "No answer found: write the letters inside \\boxed{...}."
        elif guess is None:
            msg = ("Malformed answer: inside \\boxed{...} write only the letters of the conclusions, each once, "
                   f"from A to {'ABCDEF'[len(self.conclusions) - 1]}.")
        else:
            msg = f"'{guess}' is not exactly the set of conclusions that must follow."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def _parse(self, text):
        """The sorted letters of a well-formed answer, or None: any other text in the box (a sentence, a
        label out of range, a label twice) is not an answer, so words made of A-F cannot pass as letters."""
        if not ANSWER_RE.fullmatch(text):
            return None
        letters = re.sub(r"[\s,]", "", text)
        if len(set(letters)) != len(letters) or any("ABCDEF".index(c) >= len(self.conclusions) for c in letters):
            return None
        return "".join(sorted(letters))

    def solution(self):
        return self._answer

    def hint(self):
        return (f"Exactly {len(self._answer)} of the conclusions must follow. Draw three overlapping circles and, "
                "for each premise, shade regions that must stay empty ('all', 'no') and mark regions that someone must "
                "occupy ('some'); each conclusion follows only if no way of filling the unmarked regions makes it false.")
