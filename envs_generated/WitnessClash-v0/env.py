"""A witness to a busy morning on a town square gives numbered statements one per turn (each shown only once) about
who wore which coat and carried what, and about people swapping coats or trading what they carried (swaps never
name the coat or the thing); after each statement you either log it or name the statement that last set the fact it
contradicts, so you must carry every person's coat and load through the swaps to judge it."""
import random
import re

ROLES = ["the nurse", "the cyclist", "the old man", "the student", "the courier", "the priest", "the tourist",
         "the baker's boy", "the lady in spectacles", "the chauffeur"]
COATS = ["red", "grey", "green", "yellow", "navy", "brown", "white", "black", "purple", "orange"]
ITEMS = ["an umbrella", "a briefcase", "a parcel", "a violin case", "a dog leash", "a newspaper", "a shopping bag",
         "a camera", "a birdcage", "a toolbox"]
ATTRS = ("coat", "item")

LEVELS = {
    # people, statements, swaps, contradictions, strikes that end the game
    "easy": (4, 11, 2, 3, 2),
    "medium": (5, 12, 3, 3, 2),
    "hard": (6, 14, 4, 4, 2),
}


def cap(text):
    return text[:1].upper() + text[1:]


class WitnessClashEnv:
    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_people, self.n_statements, self.n_swaps, self.n_clash, self.max_strikes = LEVELS[self.difficulty]
        self.rng = random.Random()
        self.people = []
        self.statements = []
        self.answers = []
        self.index = 0
        self.strikes = 0
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ wording
    def _say(self, who, attr, value):
        if attr == "coat":
            forms = [f"{cap(who)} was wearing a {value} coat.", f"I noticed a {value} coat on {who}.",
                     f"{cap(who)} was dressed in {value} - a long {value} coat."]
        else:
            forms = [f"{cap(who)} was carrying {value}.", f"I saw {who} holding {value}.",
                     f"{cap(value)} - that was in the hands of {who}."]
        return self.rng.choice(forms)

    def _say_swap(self, a, b, attr):
        if attr == "coat":
            forms = [f"{cap(a)} and {b} swapped coats.", f"Then {a} and {b} exchanged coats with each other."]
        else:
            forms = [f"{cap(a)} and {b} traded what they were carrying.",
                     f"Then {a} handed what they carried to {b} and took {b}'s in return."]
        return self.rng.choice(forms)

    # ------------------------------------------------------------------ lookups the game must defeat
    @staticmethod
    def _lookup_verdicts(log):
        """Verdicts of two transcript readers on each statement: (a) compare with the last value printed for that
        person and attribute; (b) the same, but when the last statement naming them is a swap, take the partner's
        last printed value. Neither tracks a value through more than one swap."""
        out = []
        for i, st in enumerate(log):
            if st[0] != "fact":
                out.append(("noted", "noted"))
                continue
            _, p, a, v = st
            facts = [(j, s[3]) for j, s in enumerate(log[:i]) if s[0] == "fact" and s[1] == p and s[2] == a]
            named = [(j, s) for j, s in enumerate(log[:i]) if s[2] == a and (s[1] == p or (s[0] == "swap" and
                                                                                            s[3] == p))]
            first = "noted" if not facts or facts[-1][1] == v else f"conflict {facts[-1][0] + 1}"
            second = first
            if named and named[-1][1][0] == "swap":
                j, s = named[-1]
                partner = s[3] if s[1] == p else s[1]
                pf = [t[3] for t in log[:j] if t[0] == "fact" and t[1] == partner and t[2] == a]
                second = "noted" if not pf or pf[-1] == v else f"conflict {j + 1}"
            out.append((first, second))
        return out

    # ------------------------------------------------------------------ generation
    def _generate(self):
        rng = self.rng
        n = self.n_statements
        kept = ([], [], [])
        for _ in range(400):
            people = rng.sample(ROLES, self.n_people)
            value = {}
            for a, pool in (("coat", COATS), ("item", ITEMS)):
                for p, v in zip(people, rng.sample(pool, self.n_people)):
                    value[(p, a)] = v
            # kinds: facts first, then swaps and contradictions spread over the later statements
            late = list(range(3, n))
            special = rng.sample(late, self.n_swaps + self.n_clash)
            swaps = set(rng.sample(special, self.n_swaps))
            plan = ["swap" if i in swaps else "clash" if i in special else "fact" for i in range(n)]
            known, record, printed = set(), {}, {}
            log, answers, ok = [], [], True
            for i, kind in enumerate(plan):
                if kind == "swap":
                    opts = [(p, q, a) for a in ATTRS for p in people for q in people
                            if p < q and (p, a) in known and (q, a) in known]
                    if not opts:
                        ok = False
                        break
                    # chain swaps through people already swapped, so one hop never tells the whole story
                    chained = [o for o in opts if any(record.get((x, o[2])) is not None and log[record[(x, o[2])]][0]
                                                      == "swap" for x in o[:2])]
                    p, q, a = rng.choice(chained if chained and rng.random() < 0.7 else opts)
                    value[(p, a)], value[(q, a)] = value[(q, a)], value[(p, a)]
                    record[(p, a)] = record[(q, a)] = i
                    log.append(("swap", p, a, q))
                    answers.append("noted")
                elif kind == "clash":
                    opts = [k for k in known]
                    if not opts:
                        ok = False
                        break
                    # the stale value (last printed, changed since by a swap) when there is one
                    stale = [k for k in opts if printed.get(k) != value[k]]
                    p, a = rng.choice(stale) if stale and rng.random() < 0.75 else rng.choice(opts)
                    if printed.get((p, a)) != value[(p, a)] and printed.get((p, a)) is not None:
                        v = printed[(p, a)]
                    else:
                        pool = COATS if a == "coat" else ITEMS
                        v = rng.choice([x for x in pool if x != value[(p, a)]])
                    log.append(("fact", p, a, v))
                    answers.append(f"conflict {record[(p, a)] + 1}")
                else:
                    unknown = [(p, a) for p in people for a in ATTRS if (p, a) not in known]
                    moved = [k for k in known if printed.get(k) != value[k]]
                    if moved and (rng.random() < 0.6 or not unknown):
                        p, a = rng.choice(moved)
                    elif unknown:
                        p, a = rng.choice(unknown)
                    else:
                        p, a = rng.choice(sorted(known))
                    known.add((p, a))
                    printed[(p, a)] = value[(p, a)]
                    record[(p, a)] = i
                    log.append(("fact", p, a, value[(p, a)]))
                    answers.append("noted")
            if not ok:
                continue
            kept = (people, log, answers)
            verdicts = self._lookup_verdicts(log)
            wrong = [sum(1 for v, t in zip(verdicts, answers) if v[k] != t) for k in (0, 1)]
            if min(wrong) >= self.max_strikes:
                break
        # practically unreachable: after 400 draws keep the last complete one
        self.people, log, self.answers = kept
        self.statements = [self._say(s[1], s[2], s[3]) if s[0] == "fact" else self._say_swap(s[1], s[3], s[2])
                           for s in log]

    # ------------------------------------------------------------------ text
    def _status(self, msg):
        lines = [msg] if msg else []
        lines.append(f"Turn {self.turn}/{self.max_turns} | Statement {self.index + 1}/{len(self.statements)} | "
                     f"Strikes {self.strikes}/{self.max_strikes}")
        lines.append(f'Statement {self.index + 1}: "{self.statements[self.index]}"')
        lines.append("Commands: \\boxed{noted} (compatible with everything said so far) or \\boxed{conflict <n>} "
                     "(it contradicts the fact that statement n last set).")
        return "\n".join(lines)

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.index = 0
        self.strikes = 0
        self.turn = 0
        self.done = False
        intro = (
            f"WITNESS STAND. A witness describes a morning on the town square involving {len(self.people)} people: "
            f"{', '.join(sorted(self.people))}. Everyone wore one coat and carried one thing; no two wore the same "
            f"coat colour or carried the same thing, and they only changed when two of them swapped coats or traded "
            f"what they carried (the witness tells you about every swap, without naming the coats or things). The "
            f"witness makes {len(self.statements)} numbered statements in the order things happened, one per turn; "
            f"each is shown ONCE. After each, log it, or - if it contradicts what you know at that moment - name the "
            f"statement that last set that person's coat (or thing): the latest earlier statement that described "
            f"it or swapped it. Contradicting statements are struck from the record. A missed contradiction, a "
            f"false alarm or a wrong number is a strike; {self.max_strikes} strikes and the judge dismisses you.\n"
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
            why = f"statement {k} does contradict earlier testimony, but not what statement {claim} set"
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
        n_clash = sum(1 for a in self.answers if a != "noted")
        return (f"Keep a table person -> coat, thing, each with the number of the statement that last set it. A "
                f"description sets the value; a swap exchanges the two people's values and sets both numbers to the "
                f"swap's. Judge each description against the table, not against what was last said about that "
                f"person. This testimony holds {n_clash} contradiction(s); a description that differs from the "
                f"last one printed for that person is often no contradiction at all.")
