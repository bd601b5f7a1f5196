"""Paraphrase roles: one sentence says who gave what to whom and when, relative to another event; several
rewordings follow (passive voice, moved clauses, 'before' turned into 'after'), some of them swapping a role or
the order of events. Pick exactly the rewordings that mean the same as the original."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
NAMES = ["Alice", "Bruno", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hugo"]
THINGS = ["the map", "a lantern", "the ledger", "a basket of pears", "the key", "a letter", "the compass"]
EVENTS = [("the storm broke", "the storm had broken"), ("the bell rang", "the bell had rung"),
          ("the guests left", "the guests had left"), ("the ferry docked", "the ferry had docked")]
# difficulty -> (rewordings, meaning-changing edits allowed)
LEVELS = {"easy": (5, ("swap", "order")), "medium": (6, ("swap", "order", "object")),
          "hard": (6, ("swap", "order", "object", "double"))}


class ParaphraseRolesEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.original = ""
        self.options = []
        self._answer = ""
        self.turn = 0
        self.done = False

    def _say(self, giver, receiver, thing, event, before, form):
        """Render 'giver gave thing to receiver' before/after 'event' in one of several equivalent forms."""
        rng = self.rng
        act = {
            "active": f"{giver} gave {thing} to {receiver}",
            "dative": f"{giver} gave {receiver} {thing}",
            "passive": f"{thing} was given to {receiver} by {giver}",
            "received": f"{receiver} received {thing} from {giver}",
        }[form]
        ev_now, ev_past = event
        style = rng.choice(["tail", "head", "flip"])
        if style == "tail":
            text = f"{act} {'before' if before else 'after'} {ev_now}"
        elif style == "head":
            text = f"{'before' if before else 'after'} {ev_now}, {act}"
        else:
            # the same order told from the other event: 'X after Y' == 'Y before X'
            text = f"{ev_now} {'after' if before else 'before'} {act}"
        return text[0].upper() + text[1:] + "."

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, edits = LEVELS[self.difficulty]
        labels = "ABCDEF"
        for _ in range(100):
            giver, receiver, other = rng.sample(NAMES, 3)
            thing, other_thing = rng.sample(THINGS, 2)
            event = rng.choice(EVENTS)
            before = rng.random() < 0.5
            self.original = f"{giver} gave {thing} to {receiver} {'before' if before else 'after'} {event[0]}."
            opts, truth = [], []
            for _ in range(n):
                form = rng.choice(["active", "dative", "passive", "received"])
                same = rng.random() < 0.5
                g, r, t, b = giver, receiver, thing, before
                if not same:
                    edit = rng.choice(edits)
                    if edit == "swap":
                        g, r = r, g
                    elif edit == "order":
                        b = not b
                    elif edit == "object":
                        t = other_thing
                    else:  # two changes that look like they cancel but do not: swap roles AND flip order
                        g, r, b = r, g, not b
                text = self._say(g, r, t, event, b, form)
                if text in opts or text == self.original:
                    continue
                opts.append(text)
                truth.append(same)
            if len(opts) == n and 0 < sum(truth) < n:
                break
        self.options = opts
        self._answer = "".join(labels[i] for i, t in enumerate(truth) if t)
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        labels = "ABCDEF"
        return ("PARAPHRASE ROLES\n"
                f"Original: {self.original}\n"
                "Rewordings:\n" + "\n".join(f"  {labels[i]}. {o}" for i, o in enumerate(self.options)) + "\n"
                "Which rewordings mean exactly the same as the original (same giver, receiver, thing, and the same "
                "order of the two events)? Answer with their letters in alphabetical order inside \\boxed{}, e.g. two letters as \\boxed{XY}. "
                f"You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = "".join(sorted(set(re.sub(r"[^A-F]", "", m.group(1).upper())))) if m else None
        if guess == self._answer:
            self.done = True
            return "Correct: exactly those rewordings keep the meaning. You win!", 1.0, True, False, {}
        msg = "No answer found." if m is None else "Not exactly the rewordings that keep the meaning."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        return (f"{len(self._answer)} rewording(s) keep the meaning. For each one, write down who gave, who "
                "received, what, and which event came first: 'Y after X' is the same order as 'X before Y', and "
                "'received from' turns the giver into the object of 'from'.")
