"""A witness to a busy morning on a town square gives numbered statements one per turn (each shown only once) about
who wore what, carried what, went where and arrived when; after each statement you either log it or name the
earlier statement it contradicts, and the witness sometimes refers to people by details given earlier."""
import random
import re

ROLES = ["the nurse", "the cyclist", "the old man", "the student", "the courier", "the priest", "the tourist",
         "the baker's boy", "the lady in spectacles", "the chauffeur"]
COATS = ["red", "grey", "green", "yellow", "navy", "brown", "white", "black", "purple", "orange"]
ITEMS = ["an umbrella", "a briefcase", "a parcel", "a violin case", "a dog leash", "a newspaper", "a shopping bag",
         "a camera", "a birdcage", "a toolbox"]
PLACES = ["bakery", "bank", "pharmacy", "newsstand", "post office", "cafe", "bookshop", "florist", "town hall",
          "barber's"]
TIMES = ["9:05", "9:10", "9:15", "9:20", "9:25", "9:30", "9:35", "9:40", "9:45", "9:50", "9:55", "10:00"]
ATTRS = ("coat", "item", "place", "time")

LEVELS = {
    # people, statements, contradictions, chance of an indirect reference, strikes that end the game
    "easy": (4, 10, 2, 0.2, 2),
    "medium": (5, 11, 2, 0.4, 2),
    "hard": (6, 12, 3, 0.55, 2),
}


def bare(item):
    return item.split(" ", 1)[1]


def cap(text):
    return text[:1].upper() + text[1:]


class WitnessClashEnv:
    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_people, self.n_statements, self.n_clash, self.p_indirect, self.max_strikes = LEVELS[self.difficulty]
        self.rng = random.Random()
        self.truth = {}
        self.statements = []
        self.answers = []
        self.clash_facts = []
        self.index = 0
        self.strikes = 0
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ wording
    def _ref(self, person, known, avoid_attr, force=False):
        """Name a person directly or through a detail already stated (never the attribute being asserted)."""
        options = [a for a in known.get(person, []) if a != avoid_attr]
        if options and (force or self.rng.random() < self.p_indirect):
            a = self.rng.choice(options)
            v = self.truth[person][a]
            if a == "coat":
                return f"the person in the {v} coat"
            if a == "item":
                return f"the one carrying the {bare(v)}"
            if a == "place":
                return f"the person who went into the {v}"
            return f"whoever arrived at {v}"
        return person

    def _say(self, who, attr, value):
        rng = self.rng
        if attr == "coat":
            forms = [f"{cap(who)} wore a {value} coat.", f"I noticed a {value} coat on {who}.",
                     f"{cap(who)} was dressed in {value} - a long {value} coat."]
        elif attr == "item":
            forms = [f"{cap(who)} was carrying {value}.", f"I saw {who} holding {value}.",
                     f"{cap(value)} - that was in the hands of {who}."]
        elif attr == "place":
            forms = [f"{cap(who)} went into the {value}.", f"{cap(who)} headed straight for the {value}.",
                     f"The {value} is where {who} went, I am certain."]
        else:
            forms = [f"{cap(who)} arrived at {value}.", f"It was {value} when {who} showed up.",
                     f"{cap(who)} turned up on the square at {value}, by the church clock."]
        return rng.choice(forms)

    # ------------------------------------------------------------------ generation
    def _wrong_value(self, attr):
        pool = {"coat": COATS, "item": ITEMS, "place": PLACES, "time": TIMES}[attr]
        used = {self.truth[p][attr] for p in self.truth}
        return self.rng.choice([v for v in pool if v not in used])

    def _generate(self):
        rng = self.rng
        n = self.n_statements
        for _ in range(200):
            people = rng.sample(ROLES, self.n_people)
            coats = rng.sample(COATS, self.n_people)
            items = rng.sample(ITEMS, self.n_people)
            places = rng.sample(PLACES, self.n_people)
            times = rng.sample(TIMES, self.n_people)
            self.truth = {p: {"coat": coats[i], "item": items[i], "place": places[i], "time": times[i]}
                          for i, p in enumerate(people)}
            facts = [(p, a) for p in people for a in ATTRS]
            rng.shuffle(facts)
            clash_facts = facts[: self.n_clash]
            fresh = facts[self.n_clash:]
            clash_pos = sorted(rng.sample(range(4, n), self.n_clash))
            orig_pos = []
            ok = True
            for cp in clash_pos:
                choices = [j for j in range(0, cp - 2) if j not in orig_pos and j not in clash_pos]
                if not choices:
                    ok = False
                    break
                orig_pos.append(rng.choice(choices))
            if not ok:
                continue
            plan = [None] * n
            for f, j, i in zip(clash_facts, orig_pos, clash_pos):
                plan[j] = ("orig", f)
                plan[i] = ("clash", f, j)
            if self.p_indirect >= 0.4:
                # give each contradicted person another plain fact before the clash, so that the clash can name
                # them by that detail
                for f, i in zip(clash_facts, clash_pos):
                    person = f[0]
                    support = [g for g in fresh if g[0] == person]
                    free = [q for q in range(0, i) if plan[q] is None]
                    if support and free:
                        fresh.remove(support[0])
                        plan[rng.choice(free)] = ("new", support[0])
            stated = []  # facts already stated truthfully (not clash facts), allowed for repeats
            known = {}   # person -> attrs stated truthfully so far (usable as references)
            statements, answers = [], []
            for pos in range(n):
                step = plan[pos]
                if step is None:
                    if stated and (rng.random() < 0.3 or not fresh):
                        f = stated.pop(rng.randrange(len(stated)))  # each fact is repeated at most once
                        step = ("repeat", f)
                    else:
                        f = fresh.pop()
                        step = ("new", f)
                kind = step[0]
                person, attr = step[1]
                force = kind == "clash" and self.p_indirect >= 0.4
                if kind == "clash":
                    value = self._wrong_value(attr)
                    answers.append(f"conflict {step[2] + 1}")
                else:
                    value = self.truth[person][attr]
                    answers.append("noted")
                text = self._say(self._ref(person, known, attr, force), attr, value)
                for _ in range(8):  # a repeated fact comes in new words
                    if text not in statements:
                        break
                    text = self._say(self._ref(person, known, attr, force), attr, value)
                statements.append(text)
                if kind in ("new", "orig"):
                    known.setdefault(person, []).append(attr)
                if kind == "new":
                    stated.append((person, attr))
            self.statements, self.answers = statements, answers
            self.clash_facts = [plan[i][1] for i in clash_pos]
            return

    # ------------------------------------------------------------------ text
    def _status(self, msg):
        lines = [msg] if msg else []
        lines.append(f"Turn {self.turn}/{self.max_turns} | Statement {self.index + 1}/{len(self.statements)} | "
                     f"Strikes {self.strikes}/{self.max_strikes}")
        lines.append(f'Statement {self.index + 1}: "{self.statements[self.index]}"')
        lines.append("Commands: \\boxed{noted} (compatible with everything said so far) or \\boxed{conflict <n>} "
                     "(it contradicts earlier statement number n).")
        return "\n".join(lines)

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.index = 0
        self.strikes = 0
        self.turn = 0
        self.done = False
        people = sorted(self.truth)
        intro = (
            f"WITNESS STAND. A witness describes a morning on the town square involving {len(people)} people: "
            f"{', '.join(people)}. No two of them wore the same coat colour, carried the same thing, went into "
            f"the same shop or arrived at the same time, so a detail such as 'the person in the grey coat' always "
            f"points to one person. The witness makes {len(self.statements)} numbered statements, one per turn; "
            f"each is shown ONCE. After each, log it, or - if it contradicts an earlier statement - name that "
            f"statement's number. Each contradiction clashes with exactly one earlier statement. A missed "
            f"contradiction, a false alarm or a wrong number is a strike; {self.max_strikes} strikes and the "
            f"judge dismisses you.\n"
        )
        return intro + self._status(""), {}

    def step(self, action):
        if self.done:
            return "The hearing is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return self._wait("Format reminder: reply \\boxed{noted} or \\boxed{conflict <n>}.", out_of_turns)
        cmd = " ".join(match.group(1).lower().replace("#", " ").split())
        k = self.index + 1
        if cmd in ("noted", "note", "log", "ok"):
            claim = None
        else:
            m = re.fullmatch(r"(?:conflict|contradicts?|clash)\s*(?:with\s*)?(?:statement\s*)?(\d{1,4})", cmd)
            if m is None:
                return self._wait(f"Unknown command '{cmd[:30]}'. Reply \\boxed{{noted}} or \\boxed{{conflict <n>}}.",
                                  out_of_turns)
            claim = int(m.group(1))
            if not 1 <= claim < k:
                return self._wait(f"Statement {k} can only contradict statements 1 to {k - 1}.", out_of_turns)
        truth = self.answers[self.index]
        clash = truth.startswith("conflict")
        if claim is None and not clash:
            return self._advance(f"Statement {k} logged.", out_of_turns)
        if claim is not None and clash and truth == f"conflict {claim}":
            return self._advance(f"Objection sustained: statement {k} contradicts statement {claim}.", out_of_turns)
        if claim is None:
            why = f"statement {k} contradicts earlier testimony and you let it pass"
        elif not clash:
            why = f"statement {k} is compatible with everything said before; there is no contradiction"
        else:
            why = f"statement {k} does contradict earlier testimony, but not statement {claim}"
        return self._strike(why, out_of_turns)

    def _strike(self, why, out_of_turns):
        self.strikes += 1
        if self.strikes >= self.max_strikes:
            self.done = True
            return f"Strike {self.strikes}: {why}. The judge dismisses you. You lose.", 0.0, True, False, {}
        return self._advance(f"Strike {self.strikes}: {why}.", out_of_turns)

    def _advance(self, msg, out_of_turns):
        self.index += 1
        if self.index >= len(self.statements):
            self.done = True
            return (msg + f" The testimony is complete and you caught it all with {self.strikes} strike(s). "
                          f"You win!"), 1.0, True, False, {}
        return self._wait(msg, out_of_turns)

    def _wait(self, msg, out_of_turns):
        if out_of_turns:
            self.done = True
            return msg + "\nOut of turns: the hearing is adjourned.", 0.0, True, False, {}
        return self._status(msg), 0.0, False, False, {}

    def solution(self):
        return self.answers[min(self.index, len(self.answers) - 1)]

    def hint(self):
        kinds = {"coat": "a coat colour", "item": "something carried", "place": "a shop entered",
                 "time": "an arrival time"}
        topics = sorted(set(kinds[attr] for _, attr in self.clash_facts))
        return (f"Keep a table person -> coat, item, shop, time and fill it from every statement; when a "
                f"statement names someone by a detail ('the person in the X coat'), resolve that detail with the "
                f"table first, and note the statement number next to each fact. This testimony holds "
                f"{len(self.clash_facts)} contradiction(s); at least one is about " + topics[0] +
                ". Facts repeated in new words are not contradictions.")
