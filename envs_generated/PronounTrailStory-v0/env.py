"""Pronoun-trail story: a generated village tale in which objects change hands and people thank, scold or
greet each other, told with he/she/him/her/it and job titles instead of names; answer several who-did-what-
to-whom questions that need every pronoun resolved and every hand-over tracked."""

import random
import re

FEMALE = ["Mara", "Ilse", "Greta", "Nora", "Lena", "Vera", "Rosa", "Tess", "Olga", "Hanna"]
MALE = ["Tomas", "Felix", "Oskar", "Bruno", "Hugo", "Anton", "Emil", "Jonas", "Pavel", "Ruben"]
ROLES = ["baker", "fisher", "tailor", "smith", "miller", "potter", "weaver", "carpenter", "gardener", "shepherd",
         "cook", "doctor"]
OBJECTS = ["lantern", "map", "key", "letter", "basket", "violin", "compass", "kettle", "ladder", "scarf"]
SOCIAL = {"thank": ("thanked", "was thanked by"), "scold": ("scolded", "was scolded by"),
          "greet": ("greeted", "was greeted by"), "hug": ("hugged", "was hugged by"),
          "tease": ("teased", "was teased by"), "warn": ("warned", "was warned by")}
CONNECT = ["", "", "", "Then ", "Later, ", "After that, ", "Soon ", "A little later, "]
# difficulty -> (characters, objects, events, questions)
LEVELS = {"easy": (4, 2, 6, 3), "medium": (5, 3, 9, 3), "hard": (6, 3, 12, 4)}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


class PronounTrailStoryEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.chars = []
        self.story = ""
        self.questions = []
        self._answers = []
        self.key_sentences = []
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ generation
    def _events(self, nchar, objs, nev):
        rng = self.rng
        holder = {o: i for o, i in zip(objs, rng.sample(range(nchar), len(objs)))}
        start = dict(holder)
        events = []
        last_people = []
        while len(events) < nev:
            kind = rng.choices(["give", "take", "social"], [5, 2, 3])[0]
            if kind in ("give", "take"):
                o = rng.choice(objs)
                h = holder[o]
                others = [c for c in range(nchar) if c != h]
                if kind == "give":
                    b = rng.choice([c for c in others if c in last_people] or others) if rng.random() < 0.5 else rng.choice(others)
                    events.append(("give", h, o, b))
                    holder[o] = b
                    last_people = [h, b]
                else:
                    a = rng.choice(others)
                    events.append(("take", a, o, h))
                    holder[o] = a
                    last_people = [a, h]
            else:
                pool = last_people if last_people and rng.random() < 0.7 else list(range(nchar))
                a = rng.choice(pool)
                b = rng.choice([c for c in range(nchar) if c != a])
                verb = rng.choice(sorted(SOCIAL))
                events.append(("social", a, verb, b))
                last_people = [a, b]
        return start, events, holder

    def _render(self, events, start, objs):
        rng = self.rng
        chars = self.chars
        sentences = []
        intro_people = ", ".join(f"{c['name']} the {c['role']}" for c in chars[:-1]) + \
            f" and {chars[-1]['name']} the {chars[-1]['role']}"
        sentences.append(f"One market morning {intro_people} met by the village well.")
        hold = [f"{chars[start[o]]['name']} carried the {o}" for o in objs]
        sentences.append(("At first " + ", ".join(hold[:-1]) + " and " + hold[-1] + ".") if len(hold) > 1
                         else f"At first {hold[0]}.")
        prev_c = set(range(len(chars)))
        prev_o = set(objs)
        pron_used = []  # per event: set of roles rendered as pronouns
        for ev in events:
            kind = ev[0]
            if kind == "give":
                _, a, o, b = ev
                forms = [[("c", a), " gave ", ("o", o), " to ", ("c", b), "."],
                         [("c", a), " handed ", ("c", b), " ", ("o", o), "."],
                         [("c", b), " received ", ("o", o), " from ", ("c", a), "."],
                         [("o", o), " was passed to ", ("c", b), " by ", ("c", a), "."]]
            elif kind == "take":
                _, a, o, b = ev
                forms = [[("c", a), " took ", ("o", o), " from ", ("c", b), "."],
                         [("c", a), " snatched ", ("o", o), " away from ", ("c", b), "."],
                         [("c", b), " had ", ("o", o), " taken away by ", ("c", a), "."]]
            else:
                _, a, verb, b = ev
                active, passive = SOCIAL[verb]
                forms = [[("c", a), f" {active} ", ("c", b), "."],
                         [("c", b), f" {passive} ", ("c", a), "."]]
            form = rng.choice(forms)
            now_c, now_o = [], []
            out = []
            used = set()
            first = True
            for tok in form:
                if isinstance(tok, str):
                    out.append(tok)
                    continue
                kindtok, x = tok
                subject = first
                if kindtok == "c":
                    g = chars[x]["g"]
                    clash = [c for c in (prev_c | set(now_c)) if c != x and chars[c]["g"] == g]
                    can = x in prev_c and not clash and x not in now_c
                    if can and rng.random() < 0.75:
                        word = ("she" if g == "f" else "he") if subject else ("her" if g == "f" else "him")
                        used.add(x)
                    elif rng.random() < 0.3:
                        word = "the " + chars[x]["role"]
                    else:
                        word = chars[x]["name"]
                    now_c.append(x)
                else:
                    can = prev_o == {x} and not now_o
                    word = "it" if can and rng.random() < 0.7 else "the " + x
                    now_o.append(x)
                if first:
                    word = word[0].upper() + word[1:]
                out.append(word)
                first = False
            text = "".join(out)
            conn = rng.choice(CONNECT)
            if conn:
                lead = text.split(" ")[0]
                text = conn + (text[0].lower() + text[1:] if lead in ("He", "She", "It", "The") else text)
            sentences.append(text)
            prev_c, prev_o = set(now_c), set(now_o)
            pron_used.append(used)
        return " ".join(sentences), pron_used

    def _questions(self, events, end, objs, pron_used, k):
        rng = self.rng
        names = [c["name"] for c in self.chars]
        qs = []
        for i, ev in enumerate(events):
            if ev[0] == "give":
                _, a, o, b = ev
                same = [e for e in events if e[0] == "give" and e[2] == o and e[3] == b]
                if len(same) == 1:
                    qs.append((a in pron_used[i], f"Who gave the {o} to {names[b]}?", a, i + 3))
            elif ev[0] == "take":
                _, a, o, b = ev
                same = [e for e in events if e[0] == "take" and e[2] == o and e[3] == b]
                if len(same) == 1:
                    qs.append((a in pron_used[i], f"Who took the {o} away from {names[b]}?", a, i + 3))
            else:
                _, a, verb, b = ev
                past = SOCIAL[verb][0]
                if len([e for e in events if e[0] == "social" and e[1] == a and e[2] == verb]) == 1:
                    qs.append((b in pron_used[i], f"Whom did {names[a]} {verb}?", b, i + 3))
                if len([e for e in events if e[0] == "social" and e[3] == b and e[2] == verb]) == 1:
                    qs.append((a in pron_used[i], f"Who {past} {names[b]}?", a, i + 3))
        strong = [q for q in qs if q[0]]
        weak = [q for q in qs if not q[0]]
        rng.shuffle(strong)
        rng.shuffle(weak)
        moved = [o for o in objs]
        rng.shuffle(moved)
        def last_move(o):
            idx = [j for j, e in enumerate(events) if e[0] in ("give", "take") and e[2] == o]
            return idx[-1] + 3 if idx else 2

        picked = [(f"Who has the {moved[0]} at the end of the story?", end[moved[0]], last_move(moved[0]))]
        for q in strong + weak:
            if len(picked) >= k:
                break
            if all(q[1] != p[0] for p in picked):
                picked.append((q[1], q[2], q[3]))
        i = 1
        while len(picked) < k and i < len(moved):
            picked.append((f"Who has the {moved[i]} at the end of the story?", end[moved[i]], last_move(moved[i])))
            i += 1
        rng.shuffle(picked)
        return picked

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        nchar, nobj, nev, k = LEVELS[self.difficulty]
        while True:
            nf = nchar // 2 + rng.randint(0, nchar % 2)
            people = [(n, "f") for n in rng.sample(FEMALE, nf)] + [(n, "m") for n in rng.sample(MALE, nchar - nf)]
            rng.shuffle(people)
            roles = rng.sample(ROLES, nchar)
            self.chars = [{"name": n, "g": g, "role": r} for (n, g), r in zip(people, roles)]
            objs = rng.sample(OBJECTS, nobj)
            start, events, end = self._events(nchar, objs, nev)
            story, pron_used = self._render(events, start, objs)
            if sum(len(u) for u in pron_used) < nev // 2:
                continue
            picked = self._questions(events, end, objs, pron_used, k)
            if len(picked) == k:
                break
        self.story = story
        self.questions = [q for q, _, _ in picked]
        self._answers = [self.chars[a]["name"] for _, a, _ in picked]
        self.key_sentences = [n for _, _, n in picked]
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        qs = "\n".join(f"  Q{i}. {q}" for i, q in enumerate(self.questions, 1))
        return ("READ THE STORY\n" + self.story + "\n\nQuestions:\n" + qs + "\n\n"
                "Every pronoun (he, she, him, her, it) refers to someone or something mentioned in the sentence just "
                "before it. Answer every question with a person's name, in question order, separated by commas, "
                f"e.g. \\boxed{{Name1, Name2, ...}}. You have {self.max_turns} attempts.")

    # ------------------------------------------------------------------ play
    def _parse(self, text):
        lookup = {}
        for c in self.chars:
            lookup[c["name"].lower()] = c["name"]
            lookup[c["role"]] = c["name"]
            lookup["the " + c["role"]] = c["name"]
        parts = [p.strip().lower() for p in re.split(r",|;|\band\b|\n", text) if p.strip()]
        parts = [re.sub(r"^(q?\d+[.):]\s*)", "", p).strip(" .") for p in parts]
        return [lookup.get(p) for p in parts], parts

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        if m is None:
            msg = "No answer found: write the names inside \\boxed{...}, separated by commas."
        else:
            got, raw = self._parse(m.group(1)[:500])
            k = len(self._answers)
            if len(got) != k:
                msg = f"Expected {k} names (one per question), got {len(got)}."
            elif None in got:
                bad = raw[got.index(None)][:30]
                msg = f"'{bad}' is not one of the people in the story."
            elif got == self._answers:
                self.done = True
                return "Correct: all answers are right!", 1.0, True, False, {}
            else:
                right = sum(a == b for a, b in zip(got, self._answers))
                msg = f"{right} of {k} answers are correct. Re-check who each pronoun points to."
        if out:
            self.done = True
            msg += " No attempts left."
        else:
            msg += f" Attempts left: {self.max_turns - self.turn}."
        return msg + "\n\n" + self._task(), 0.0, out, False, {}

    def solution(self):
        return ", ".join(self._answers)

    def hint(self):
        where = "; ".join(f"Q{i} is settled by sentence {n}" for i, n in enumerate(self.key_sentences, 1))
        return ("Number the sentences from 1 (the opening line about the well). " + where + ". Resolve the pronouns "
                "of that sentence and of the sentence before it: he/she/him/her is the only man/woman named in the "
                "previous sentence, 'it' is the previous sentence's object, and 'the <job>' is the person with that "
                "job. Turn passives around ('X was passed to Y by Z' means Z gave X to Y).")
