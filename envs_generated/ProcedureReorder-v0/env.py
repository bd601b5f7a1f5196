"""Shuffled instructions: the numbered sentences of notes on two chores done in one session, their steps
interleaved (making tea, planting a tree, mending a puncture, ...), are out of order; cue words ('first',
'once the kettle is full', 'before you ...', pronouns pointing back) fix exactly one order, including how the
two chores interleave, which must be given as a digit string."""

import random
import re

# each step: (imperative, imperative with a pronoun for the previous step's object or None,
#             number of the object a later pronoun would point to, finished-state clause or None)
DOMAINS = {
    "making a pot of tea": [
        ("fill the kettle with cold water", None, "sg", "the kettle is full"),
        ("set the kettle on the stove", "set it on the stove", "sg", "the kettle is on the stove"),
        ("wait until the water boils", None, "sg", "the water has boiled"),
        ("warm the teapot with a splash of the hot water", None, "sg", "the teapot is warm"),
        ("spoon three scoops of tea leaves into the teapot", None, "pl", "the leaves are in the pot"),
        ("pour the rest of the water over the leaves", "pour the rest of the water over them", "sg",
         "the leaves are soaking"),
        ("let the tea steep for four minutes", None, "sg", "the tea has steeped"),
        ("strain the tea into two cups", "strain it into two cups", "pl", "the tea is in the cups"),
        ("add a drop of milk to the cups", "add a drop of milk to them", "pl", "the milk is in the cups"),
        ("carry the cups out to your guests", "carry them out to your guests", "pl", None),
    ],
    "planting a young tree": [
        ("choose a sunny spot in the garden", None, "sg", "you have picked a spot"),
        ("dig a hole twice as wide as the roots", None, "sg", "the hole is dug"),
        ("loosen the soil at the bottom of the hole", None, "sg", "the soil at the bottom is loose"),
        ("soak the sapling's roots in a bucket of water", None, "pl", "the roots have soaked"),
        ("lower the sapling into the hole", None, "sg", "the sapling stands in the hole"),
        ("fill the hole back in with soil", None, "sg", "the hole is filled"),
        ("press the soil down firmly with your boot", "press it down firmly with your boot", "sg",
         "the soil is firm"),
        ("water the sapling generously", None, "sg", "the sapling is watered"),
        ("spread a layer of bark chips around the trunk", None, "pl", None),
    ],
    "mending a bicycle puncture": [
        ("turn the bicycle upside down", None, "sg", "the bicycle is upside down"),
        ("take the front wheel off the frame", None, "sg", "the wheel is off"),
        ("lever the tyre off the rim", None, "sg", "the tyre is off the rim"),
        ("pull out the inner tube", None, "sg", "the inner tube is out"),
        ("pump a little air into the tube to find the hole", "pump a little air into it to find the hole", "sg",
         "you have found the hole"),
        ("rub the rubber around the hole with sandpaper", None, "sg", "the rubber is roughened"),
        ("glue a patch over the hole", None, "sg", "the patch is glued on"),
        ("push the tube back inside the tyre", None, "sg", "the tube is back inside"),
        ("fit the wheel back onto the frame", None, "sg", "the wheel is back on"),
        ("pump the tyre up to full pressure", None, "sg", None),
    ],
    "making pancakes": [
        ("crack two eggs into a bowl", None, "pl", "the eggs are in the bowl"),
        ("whisk the eggs until frothy", "whisk them until frothy", "pl", "the eggs are frothy"),
        ("beat in the flour and milk to make a batter", None, "sg", "the batter is smooth"),
        ("let the batter rest for half an hour", "let it rest for half an hour", "sg", "the batter has rested"),
        ("melt a knob of butter in a frying pan", None, "sg", "the butter has melted"),
        ("pour a ladle of batter into the pan", None, "sg", "the batter is in the pan"),
        ("tilt the pan so the batter spreads thinly", "tilt it so the batter spreads thinly", "sg",
         "the batter has spread"),
        ("flip the pancake over with a spatula", None, "sg", "the pancake is flipped"),
        ("slide the pancake onto a warm plate", "slide it onto a warm plate", "sg", "the pancake is on the plate"),
        ("sprinkle the pancake with sugar and lemon juice", "sprinkle it with sugar and lemon juice", "sg", None),
    ],
    "painting a garden fence": [
        ("scrub the fence with soapy water", None, "sg", "the fence is clean"),
        ("leave the fence to dry overnight", "leave it to dry overnight", "sg", "the fence is dry"),
        ("sand the rough patches smooth", None, "pl", "the rough patches are smooth"),
        ("wipe away the sanding dust", None, "sg", "the dust is gone"),
        ("cover the flower beds below with old sheets", None, "pl", "the flower beds are covered"),
        ("stir the paint thoroughly", None, "sg", "the paint is stirred"),
        ("brush on a first coat along the grain", None, "sg", "the first coat is on"),
        ("let the first coat dry for two hours", "let it dry for two hours", "sg", "the first coat has dried"),
        ("brush on a second coat", None, "sg", "the second coat is on"),
        ("wash the brushes in warm water", None, "pl", None),
    ],
    "repotting a houseplant": [
        ("water the plant an hour ahead", None, "sg", "the old soil is moist"),
        ("pick a new pot one size larger", None, "sg", "you have a new pot"),
        ("put a layer of gravel in the new pot", None, "sg", "the gravel is in"),
        ("add a few handfuls of fresh compost", None, "pl", "the base layer of compost is in"),
        ("ease the plant out of its old pot", None, "sg", "the plant is out of its old pot"),
        ("tease apart the tangled roots", None, "pl", "the roots are loose"),
        ("set the plant in the middle of the new pot", None, "sg", "the plant sits in the new pot"),
        ("fill the gaps around the plant with compost", None, "pl", "the gaps are filled"),
        ("water the plant thoroughly", None, "sg", "the plant is watered again"),
        ("place the pot in a bright window", "place it in a bright window", "sg", None),
    ],
}
FIRST = ["First, ", "To begin, ", "Start here: "]
LAST = ["Finally, ", "Last of all, ", "To finish, "]
THEN = ["Then ", "Next, ", "After that, "]
PLURALS = {"leaves", "cups", "guests", "scoops", "roots", "chips", "eggs", "patches", "beds", "sheets", "brushes",
           "gaps", "handfuls"}
# difficulty -> (sentences, weight of direct first/last cues, weight of long-range references)
LEVELS = {"easy": (5, 0.8, 0.2), "medium": (6, 0.5, 0.5), "hard": (7, 0.25, 0.8)}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


def count_orders(n, cons, limit=2):
    """Number of orders (up to `limit`) of sentences 0..n-1 that satisfy every constraint."""
    first = {k for k, c in cons.items() if "first" in c}
    last = {k for k, c in cons.items() if "last" in c}
    found = [0]
    order = []
    used = [False] * n

    def ok(k):
        pos = len(order)
        c = cons[k]
        if pos == 0 and c.get("notfirst"):
            return False
        if "first" in c and pos != 0:
            return False
        if "last" in c and pos != n - 1:
            return False
        if pos == 0 and first and k not in first:
            return False
        if pos == n - 1 and last and k not in last:
            return False
        for j in c.get("after", ()):
            if not used[j]:
                return False
        for j in c.get("before", ()):
            if used[j]:
                return False
        # a pronoun sentence follows directly after some sentence; 'them' needs a plural thing there. (Judged
        # leniently, as a reader could: 'it' may point to any singular thing, and every sentence names one.)
        if "pron" in c and (not order or (c["pron"] == "pl" and not cons[order[-1]]["plural"])):
            return False
        return True

    def rec():
        if found[0] >= limit:
            return
        if len(order) == n:
            found[0] += 1
            return
        for k in range(n):
            if not used[k] and ok(k):
                used[k] = True
                order.append(k)
                rec()
                order.pop()
                used[k] = False

    rec()
    return found[0]


class ProcedureReorderEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.topic = ""
        self.shuffled = []
        self._answer = ""
        self._cons = []
        self._label_of = {}
        self.turn = 0
        self.done = False

    def _sentence(self, steps, k, choice, longrange):
        """Text of canonical sentence k with the given cue, and what a careful reader can derive from it."""
        rng = self.rng
        n = len(steps)
        act, pro, num, done = steps[k]
        c = {"num": num}
        if choice == "first":
            text = rng.choice(FIRST) + act
            c["first"] = True
        elif choice == "last":
            text = rng.choice(LAST) + act
            c["last"] = True
            c["notfirst"] = True
        elif choice == "then":
            text = rng.choice(THEN) + act
            c["notfirst"] = True
        elif choice == "pron":
            text = (rng.choice(THEN) + pro) if rng.random() < 0.4 else pro
            c["pron"] = steps[k - 1][2]
            c["notfirst"] = True
        elif choice in ("once_prev", "once_far"):
            far = [j for j in range(k - 1) if steps[j][3]]
            j = rng.choice(far) if choice == "once_far" and far else k - 1
            text = f"{rng.choice(['Once', 'When', 'As soon as'])} {steps[j][3]}, {act}"
            c["after"] = [j]
        elif choice in ("before_next", "before_far"):
            j = rng.randrange(k + 2, n) if choice == "before_far" and k + 2 < n else k + 1
            text = f"Before you {steps[j][0]}, {act}"
            c["before"] = [j]
        else:
            text = act
        c["plural"] = any(w in PLURALS for w in re.findall(r"[a-z]+", text.lower()))
        return text[0].upper() + text[1:] + ".", c

    def _options(self, steps, k, strong, longrange):
        n = len(steps)
        if strong:
            opts = []
            if k == 0:
                opts.append("first")
            if k == n - 1:
                opts.append("last")
            if k > 0 and steps[k - 1][3]:
                opts.append("once_prev")
            if k > 0 and steps[k][1]:
                opts += ["pron", "pron"]
            if k < n - 1:
                opts.append("before_next")
            return opts or ["plain"]
        opts = ["plain", "then"] if k > 0 else ["plain"]
        if k > 1 and any(steps[j][3] for j in range(k - 1)) and self.rng.random() < longrange:
            opts.append("once_far")
        if k + 2 < n and self.rng.random() < longrange:
            opts.append("before_far")
        return opts

    def _render(self, steps, direct, longrange):
        rng = self.rng
        n = len(steps)
        choices = []
        for k in range(n):
            strong = rng.random() < (direct if k in (0, n - 1) else 0.35)
            choices.append(rng.choice(self._options(steps, k, strong, longrange)))
        rendered = [self._sentence(steps, k, ch, longrange) for k, ch in enumerate(choices)]
        for _ in range(4 * n):
            cons = dict(enumerate(c for _, c in rendered))
            if count_orders(n, cons) == 1:
                return [t for t, _ in rendered], [c for _, c in rendered]
            weak = [k for k in range(n) if choices[k] in ("plain", "then", "once_far", "before_far")]
            k = rng.choice(weak) if weak else rng.randrange(n)
            choices[k] = rng.choice(self._options(steps, k, True, longrange))
            rendered[k] = self._sentence(steps, k, choices[k], longrange)
        rendered = [self._sentence(steps, k, "first" if k == 0 else "once_prev", longrange) for k in range(n)]
        return [t for t, _ in rendered], [c for _, c in rendered]

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, direct, longrange = LEVELS[self.difficulty]
        # Two chores done in one session, their steps interleaved at random: knowing how each chore
        # usually goes fixes the order inside each chore, but only the cue words fix how they interleave.
        topics = rng.sample(sorted(DOMAINS), 2)
        self.topic = " and ".join(topics)
        sizes = [n - n // 2, n // 2]
        threads = []
        for topic, size in zip(topics, sizes):
            all_steps = DOMAINS[topic]
            start = rng.randrange(len(all_steps) - size + 1)
            threads.append(list(all_steps[start:start + size]))
        while True:
            picks = [0] * sizes[0] + [1] * sizes[1]
            rng.shuffle(picks)
            # a plain 'all of one chore, then the other' split is what memory alone would guess
            if picks != sorted(picks) and picks != sorted(picks, reverse=True):
                break
        steps = [threads[t].pop(0) for t in picks]
        texts, cons = self._render(steps, direct, longrange)
        perm = list(range(n))
        while perm == sorted(perm):
            rng.shuffle(perm)
        # perm[label-1] = canonical index of the sentence shown with that label
        self.shuffled = [texts[p] for p in perm]
        label_of = {p: i + 1 for i, p in enumerate(perm)}
        self._answer = "".join(str(label_of[k]) for k in range(n))
        self._cons = cons
        self._label_of = label_of
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        n = len(self.shuffled)
        lines = [f"SHUFFLED INSTRUCTIONS: {self.topic}",
                 f"One person did these two chores in a single session, switching between them. The {n} sentences "
                 "of their notes have been shuffled:"]
        lines += [f"  ({i}) {s}" for i, s in enumerate(self.shuffled, 1)]
        lines.append(f"Exactly one order agrees with all the cue words and with what every pronoun ('it', 'them') "
                     f"points back to. Give the sentence numbers in the correct order as one string of {n} digits, "
                     f"e.g. \\boxed{{{''.join(str(i) for i in range(1, n + 1))}}} would mean the order shown. "
                     f"You have {self.max_turns} attempts.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        n = len(self.shuffled)
        m = BOX_RE.search(str(action)[:5000])
        if m is None:
            msg = "No answer found: write the order inside \\boxed{...}."
        else:
            digits = re.sub(r"[^0-9]", "", m.group(1))[:50]
            if digits == self._answer:
                self.done = True
                return "Correct: that is the right order!", 1.0, True, False, {}
            if len(digits) != n or sorted(digits) != [str(i) for i in range(1, n + 1)]:
                msg = f"'{digits[:20]}' is not an ordering: use each of the digits 1 to {n} exactly once."
            else:
                right = sum(a == b for a, b in zip(digits, self._answer))
                msg = f"{right} of {n} sentences are in the right position."
                if digits[0] != self._answer[0]:
                    msg += " The opening sentence is wrong."
        if out:
            self.done = True
            msg += " No attempts left."
        else:
            msg += f" Attempts left: {self.max_turns - self.turn}."
        return msg + "\n\n" + self._task(), 0.0, out, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        refs = []
        for k, c in enumerate(self._cons):
            for j in c.get("after", []):
                refs.append(f"({self._label_of[k]}) must come after ({self._label_of[j]})")
            for j in c.get("before", []):
                refs.append(f"({self._label_of[k]}) must come before ({self._label_of[j]})")
        first = self._answer[0]
        text = f"Sentence ({first}) opens the instructions."
        if refs:
            text += " Decoded references: " + "; ".join(refs[:2]) + "."
        text += (" Every 'it'/'them' sentence must sit right after a sentence whose last-handled thing matches "
                 "that pronoun; chain the remaining sentences from there.")
        if re.search(r"(?<![0-9])" + self._answer + r"(?![0-9])", text):
            text = f"Sentence ({first}) opens the instructions; chain the others by their cue words."
        return text
