"""A field agent is shown a codebook of look-alike three-letter code groups only once; then coded dispatches
arrive one per turn, and between them headquarters reshuffles the codebook with relative amendments (two codes swap
meanings, three codes rotate them, a code takes over another's meaning and leaves it as padding) that never print
a meaning, so every dispatch must be decoded with the codebook as it stands after all amendments so far."""
import random
import re

WORDS = [
    "harbor", "dawn", "bridge", "courier", "north", "embassy", "midnight", "train", "signal", "safehouse",
    "abort", "proceed", "package", "agent", "tunnel", "south", "market", "cathedral", "river", "border",
    "contact", "tonight", "east", "west", "station", "airfield", "ferry", "tower", "garden", "consulate",
    "noon", "convoy", "archive", "vault", "lighthouse", "museum",
]
CONSONANTS = "BDFGKLMNPRSTVZ"
VOWELS = "AEIOU"

LEVELS = {
    # codebook size, null groups, dispatches, (min, max) words per dispatch, amendments, strikes
    "easy": (8, 1, 5, (2, 3), 3, 2),
    "medium": (10, 2, 6, (3, 4), 4, 2),
    "hard": (12, 2, 7, (3, 5), 6, 2),
}


class CodebookCourierEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        (self.n_codes, self.n_nulls, self.n_messages, self.length, self.n_amend,
         self.max_strikes) = LEVELS[self.difficulty]
        self.rng = random.Random()
        self.book = {}
        self.nulls = []
        self.messages = []
        self.updates = {}
        self.index = 0
        self.strikes = 0
        self.turn = 0
        self.done = False
        self.shown_update = False

    # ------------------------------------------------------------------ amendments
    @staticmethod
    def _apply(book, nulls, change):
        """The codebook after one amendment (new dict, new null list)."""
        book, nulls = dict(book), list(nulls)
        kind, codes = change
        if kind == "swap":
            a, b = codes
            book[a], book[b] = book[b], book[a]
        elif kind == "rotate":
            a, b, c = codes
            book[a], book[b], book[c] = book[b], book[c], book[a]
        else:  # "take": a takes b's meaning, b becomes padding
            a, b = codes
            book[a] = book.pop(b)
            nulls.append(b)
        return book, nulls

    @staticmethod
    def _one_hop(printed, change, code):
        """What a reader who follows only the last amendment naming `code`, with the printed meanings, would say."""
        kind, codes = change
        if kind == "take" and code == codes[1]:
            return None
        if kind == "swap":
            other = codes[1] if code == codes[0] else codes[0]
        elif kind == "rotate":
            other = codes[(codes.index(code) + 1) % 3]
        else:
            other = codes[1]
        return printed.get(other)

    def _generate(self):
        rng = self.rng
        for _ in range(300):
            cons = rng.sample(CONSONANTS, 4)
            vows = rng.sample(VOWELS, 2)
            pool = [a + v + b for a in cons for v in vows for b in cons if a != b]
            codes = rng.sample(pool, self.n_codes + self.n_nulls)
            words = rng.sample(WORDS, self.n_codes)
            book = {codes[i]: words[i] for i in range(self.n_codes)}
            nulls = codes[self.n_codes:]
            slots = sorted(rng.sample(range(1, self.n_messages), min(self.n_amend, self.n_messages - 1)))
            extra = self.n_amend - len(slots)
            updates = {s: [] for s in slots}
            for _ in range(extra):
                updates[rng.choice(slots)].append(None)
            current, cur_nulls = dict(book), list(nulls)
            touched, last_change = [], {}
            messages = []
            for m in range(self.n_messages):
                changes = []
                for _ in updates.get(m, []) + ([None] if m in updates else []):
                    live = list(current)
                    # chain: reuse codes that were already amended, so one amendment never tells the whole story
                    seedc = [c for c in touched if c in current]
                    first = rng.choice(seedc) if seedc and rng.random() < 0.8 else rng.choice(live)
                    kind = rng.choice(["swap", "swap", "rotate", "take"] if len(live) > 5 else ["swap"])
                    rest = rng.sample([c for c in live if c != first], 2 if kind == "rotate" else 1)
                    change = (kind, tuple([first] + rest))
                    current, cur_nulls = self._apply(current, cur_nulls, change)
                    for c in change[1]:
                        touched.append(c)
                        last_change[c] = change
                    changes.append(change)
                if changes:
                    updates[m] = changes
                n = rng.randint(*self.length)
                fresh = [c for c in dict.fromkeys(touched) if c in current]
                groups = rng.sample(fresh, min(len(fresh), rng.randint(1, 2))) if fresh else []
                groups += rng.sample([c for c in current if c not in groups], n - len(groups))
                rng.shuffle(groups)
                coded = groups[:]
                if cur_nulls and rng.random() < 0.6:
                    coded.insert(rng.randint(0, len(coded)), rng.choice(cur_nulls))
                plain = [current[c] for c in groups]
                printed = [book.get(c) for c in coded if c not in nulls]
                hop = [self._one_hop(book, last_change[c], c) if c in last_change else book.get(c) for c in coded]
                hop = [w for w in hop if w is not None]
                messages.append({"coded": coded, "plain": plain, "lookup": [printed, hop]})
            fooled = [i for i, msg in enumerate(messages)
                      if msg["lookup"][0] != msg["plain"] and msg["lookup"][1] != msg["plain"]]
            if len(fooled) < 2:
                continue
            self.book, self.nulls, self.messages, self.updates = book, nulls, messages, updates
            return
        self.book, self.nulls, self.messages, self.updates = book, nulls, messages, updates

    # ------------------------------------------------------------------ text
    @staticmethod
    def _update_text(change):
        kind, codes = change
        if kind == "swap":
            return f"codes {codes[0]} and {codes[1]} swap their meanings."
        if kind == "rotate":
            a, b, c = codes
            return (f"codes {a}, {b} and {c} rotate their meanings: {a} takes the meaning {b} had, {b} takes the "
                    f"meaning {c} had, {c} takes the meaning {a} had.")
        a, b = codes
        return f"code {a} takes over the meaning of code {b}; {b} becomes a null group (padding) from now on."

    def _status(self, msg):
        lines = [msg] if msg else []
        lines.append(f"Turn {self.turn}/{self.max_turns} | Dispatch {self.index + 1}/{len(self.messages)} | "
                     f"Strikes {self.strikes}/{self.max_strikes}")
        if self.index in self.updates and not self.shown_update:
            for change in self.updates[self.index]:
                lines.append("HQ AMENDMENT (shown once, holds from this dispatch on): " + self._update_text(change))
            self.shown_update = True
        lines.append(f"Dispatch {self.index + 1}: {' '.join(self.messages[self.index]['coded'])}")
        lines.append("Command: \\boxed{decode <word> <word> ...} (the plain words in order, null groups dropped).")
        return "\n".join(lines)

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.index = 0
        self.strikes = 0
        self.turn = 0
        self.done = False
        self.shown_update = False
        entries = list(self.book.items())
        self.rng.shuffle(entries)
        book = "\n".join(f"  {c} = {w}" for c, w in entries)
        nulls = ", ".join(self.nulls)
        intro = (
            f"SPY CODEBOOK. Memorise this codebook - it is burned after this message and never shown again:\n"
            f"{book}\n  Null groups (padding, carry no word): {nulls}\n"
            f"{len(self.messages)} dispatches will arrive, one per turn. Decode each into its plain words, in order, "
            f"leaving out null groups. Between dispatches HQ reshuffles the codebook: codes swap meanings, rotate "
            f"them, or one code takes over another's meaning (which then becomes padding). Amendments never restate "
            f"a meaning, are shown once, and hold for all later dispatches, each one applied to the codebook as it "
            f"stands at that moment. A wrong decode is a strike (you keep the same dispatch); "
            f"{self.max_strikes} strikes and you are recalled home.\n"
        )
        return intro + self._status(""), {}

    def step(self, action):
        if self.done:
            return "The operation is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return self._wait("Format reminder: answer with \\boxed{decode <word> <word> ...}.", out_of_turns)
        words = " ".join(match.group(1).replace(",", " ").split()).lower().split()
        if words and words[0] == "decode":
            words = words[1:]
        if not words:
            return self._wait("Give the decoded words after 'decode'.", out_of_turns)
        plain = self.messages[self.index]["plain"]
        if words == plain:
            self.index += 1
            self.shown_update = False
            if self.index >= len(self.messages):
                self.done = True
                return (f"Dispatch decoded. All {len(self.messages)} dispatches read correctly - the operation "
                        f"succeeds. You win!"), 1.0, True, False, {}
            return self._wait("Correct - dispatch decoded.", out_of_turns)
        if len(words) != len(plain):
            why = (f"this dispatch decodes to {len(plain)} word(s), you sent {len(words)} "
                   f"(null groups carry no word)")
        else:
            bad = [str(i + 1) for i in range(len(plain)) if words[i] != plain[i]]
            why = f"word(s) {', '.join(bad)} of your decode are wrong"
        self.strikes += 1
        if self.strikes >= self.max_strikes:
            self.done = True
            return f"Strike {self.strikes}: {why}. You are recalled home. You lose.", 0.0, True, False, {}
        return self._wait(f"Strike {self.strikes}: {why}. Try this dispatch again.", out_of_turns)

    def _wait(self, msg, out_of_turns):
        if out_of_turns:
            self.done = True
            return msg + "\nOut of turns: the operation is called off.", 0.0, True, False, {}
        return self._status(msg), 0.0, False, False, {}

    def solution(self):
        i = min(self.index, len(self.messages) - 1)
        return "decode " + " ".join(self.messages[i]["plain"])

    def hint(self):
        n = sum(len(v) for v in self.updates.values())
        many = {}
        for changes in self.updates.values():
            for _, codes in changes:
                for c in codes:
                    many[c] = many.get(c, 0) + 1
        chained = sorted(c for c, k in many.items() if k >= 2)
        parts = [f"Copy the codebook, null groups included, and rewrite it after each of the {n} amendments, in "
                 f"order: a swap exchanges two current meanings, a rotation moves three, a take-over moves one "
                 f"meaning and turns the other code into padding. Never decode from the printed codebook alone."]
        if chained:
            parts.append("Codes amended more than once: " + ", ".join(chained) + ".")
        return " ".join(parts)
