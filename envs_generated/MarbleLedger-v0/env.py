"""Marble ledger: children trade marbles; the events arrive one at a time (gifts, doublings, halvings, bag
swaps), and later notes amend earlier events (a different amount, a different receiver). At the end, say how
many marbles one child holds: the count has to be rebuilt from the amended history, no line states it."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
KIDS = ["Ada", "Ben", "Cleo", "Dev", "Esme", "Finn", "Gus", "Hana"]
# difficulty -> (children, events, amendments)
LEVELS = {"easy": (3, 5, 1), "medium": (4, 7, 2), "hard": (5, 9, 3)}


class MarbleLedgerEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        n, ev, am = LEVELS[self.difficulty]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns > ev + am else ev + am + 1
        self.rng = random.Random()
        self.kids = []
        self.start = {}
        self.events = []
        self.original = []
        self.schedule = []  # what each turn shows: ("event", i) or ("amend", i, field, new)
        self.target = ""
        self._answer = 0
        self.pos = 0
        self.turn = 0
        self.done = False

    def _run(self, events):
        have = dict(self.start)
        for e in events:
            kind = e["kind"]
            if kind == "give":
                k = min(e["n"], have[e["a"]])
                have[e["a"]] -= k
                have[e["b"]] += k
            elif kind == "double":
                have[e["a"]] *= 2
            elif kind == "half":
                have[e["a"]] //= 2
            else:
                have[e["a"]], have[e["b"]] = have[e["b"]], have[e["a"]]
        return have

    def _event(self):
        rng = self.rng
        kind = rng.choice(["give", "give", "give", "double", "half", "swap"])
        a, b = rng.sample(self.kids, 2)
        return {"kind": kind, "a": a, "b": b, "n": rng.randint(2, 9)}

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, ev, am = LEVELS[self.difficulty]
        for _ in range(300):
            self.kids = rng.sample(KIDS, n)
            self.start = {k: rng.randint(5, 20) for k in self.kids}
            events = [self._event() for _ in range(ev)]
            original = [dict(e) for e in events]
            amends = []
            for i in sorted(rng.sample(range(ev - 1), am)):
                e = events[i]
                if e["kind"] == "give" and rng.random() < 0.5:
                    new = rng.choice([x for x in range(2, 10) if x != e["n"]])
                    amends.append((i, "n", new))
                    e["n"] = new
                elif e["kind"] in ("give", "swap"):
                    new = rng.choice([k for k in self.kids if k not in (e["a"], e["b"])])
                    amends.append((i, "b", new))
                    e["b"] = new
                else:
                    new = rng.choice([k for k in self.kids if k != e["a"]])
                    amends.append((i, "a", new))
                    e["a"] = new
            target = rng.choice(self.kids)
            final = self._run(events)[target]
            naive = self._run(original)[target]
            shown = set(self.start.values()) | set(e["n"] for e in original) | set(x[2] for x in amends if x[1] == "n")
            # the answer is a count no line states, changed by the corrections, and not a small count that
            # repeated halvings make common across tasks
            if final != naive and final not in shown and final >= 12:
                break
        self.events = events
        self.original = original
        self.target = target
        self._answer = final
        # each amendment arrives some turns after its event, before the question
        self.schedule = [("event", i) for i in range(ev)]
        for i, field, new in amends:
            at = self.schedule.index(("event", i))
            self.schedule.insert(rng.randint(at + 2, len(self.schedule)), ("amend", i, field, new))
        self.pos = 0
        self.turn = 0
        self.done = False
        intro = ("MARBLE LEDGER\n"
                 "Starting marbles: " + ", ".join(f"{k} {v}" for k, v in self.start.items()) + ".\n"
                 "Events will be read out one per turn, numbered; some later notes CORRECT an earlier event (the "
                 "corrected event then counts as if it had happened that way). A gift of more marbles than the giver "
                 "holds hands over everything the giver has. 'Halves' rounds down. Reply \\boxed{next} to hear the "
                 "next line; at the end you will be asked for one count.\n")
        return intro + self._line(), {}

    def _describe(self, e):
        if e["kind"] == "give":
            return f"{e['a']} gives {e['n']} marbles to {e['b']}."
        if e["kind"] == "double":
            return f"{e['a']} wins a game and doubles their marbles."
        if e["kind"] == "half":
            return f"{e['a']} loses a bet and halves their marbles."
        return f"{e['a']} and {e['b']} swap bags (and all marbles in them)."

    def _line(self):
        if self.pos >= len(self.schedule):
            return (f"That was the last line. Question: how many marbles does {self.target} hold now? Answer "
                    f"\\boxed{{<number>}}.")
        item = self.schedule[self.pos]
        if item[0] == "event":
            return f"Event {item[1] + 1}: {self._describe(self.original[item[1]])}"
        _, i, field, new = item
        what = {"n": f"the number of marbles was {new}", "b": f"the other child was {new}",
                "a": f"it was {new} (not {self.original[i]['a']})"}[field]
        return f"Correction to event {i + 1}: {what}."

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        if self.pos < len(self.schedule):
            self.pos += 1
            return self._line(), 0.0, False, False, {}
        m = BOX_RE.search(str(action)[:5000])
        raw = m.group(1).strip() if m else ""
        self.done = True
        if re.fullmatch(r"\d{1,5}", raw) and int(raw) == self._answer:
            return f"Correct: {self.target} holds {self._answer}. You win!", 1.0, True, False, {}
        return f"Not right: {self.target} holds {self._answer}. You lose.", 0.0, True, False, {}

    def solution(self):
        return "next" if self.pos < len(self.schedule) else str(self._answer)

    def hint(self):
        changed = sorted(set(s[1] + 1 for s in self.schedule if s[0] == "amend"))
        return (f"Keep a table of every child's count and update it after each event; when a correction arrives, "
                f"rewind: events {', '.join(map(str, changed))} get corrected, so recompute from that event onwards. "
                f"Swaps and doublings make early mistakes grow.")
