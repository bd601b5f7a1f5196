"""A field agent is shown a codebook of look-alike three-letter code groups only once; then coded dispatches
arrive one per turn (with occasional headquarters amendments to the codebook, also shown once), and each must be
decoded from memory, dropping null groups, before the next one comes in."""
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
    # codebook size, null groups, messages, (min, max) words per message, reassignments, swaps, strikes, recalls
    "easy": (10, 1, 5, (2, 3), 0, 0, 3, 2),
    "medium": (14, 2, 6, (3, 4), 1, 0, 2, 1),
    "hard": (18, 2, 7, (3, 5), 1, 1, 2, 1),
}


class CodebookCourierEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        (self.n_codes, self.n_nulls, self.n_messages, self.length, self.n_reassign, self.n_swaps,
         self.max_strikes, self.max_recalls) = LEVELS[self.difficulty]
        self.rng = random.Random()
        self.book = {}
        self.nulls = []
        self.messages = []
        self.updates = {}
        self.index = 0
        self.strikes = 0
        self.recalls = 0
        self.turn = 0
        self.done = False
        self.shown_update = False
        self.last_note = ""

    # ------------------------------------------------------------------ generation
    def _generate(self):
        rng = self.rng
        for _ in range(200):
            cons = rng.sample(CONSONANTS, 4)
            vows = rng.sample(VOWELS, 2)
            pool = [a + v + b for a in cons for v in vows for b in cons if a != b]
            codes = rng.sample(pool, self.n_codes + self.n_nulls)
            words = rng.sample(WORDS, self.n_codes + self.n_reassign)
            book = {codes[i]: words[i] for i in range(self.n_codes)}
            nulls = codes[self.n_codes:]
            spare = words[self.n_codes:]
            # amendments take effect just before a message in the second half
            changes = []
            ordinary = list(book)
            for w in spare:
                changes.append(("reassign", rng.choice(ordinary), w))
            for _ in range(self.n_swaps):
                a, b = rng.sample(ordinary, 2)
                changes.append(("swap", a, b))
            slots = rng.sample(range(2, self.n_messages - 1), len(changes)) if changes else []
            updates = {slot: change for slot, change in zip(sorted(slots), changes)}
            current = dict(book)
            messages = []
            ok = True
            for m in range(self.n_messages):
                if m in updates:
                    kind, a, b = updates[m]
                    if kind == "reassign":
                        current[a] = b
                    else:
                        current[a], current[b] = current[b], current[a]
                n = rng.randint(*self.length)
                groups = rng.sample(list(current), n)
                if m in updates:  # the amended code(s) must be used right away or later
                    kind, a, b = updates[m]
                    need = [a] if kind == "reassign" else [a, b]
                    for code in need:
                        if code not in groups:
                            groups[rng.randrange(len(groups))] = code
                    if len(set(groups)) != len(groups):
                        ok = False
                        break
                plain = [current[c] for c in groups]
                coded = groups[:]
                if nulls and rng.random() < 0.6:
                    coded.insert(rng.randint(0, len(coded)), rng.choice(nulls))
                messages.append({"coded": coded, "plain": plain})
            if not ok:
                continue
            # every amended code must appear after its amendment in a later message as well
            late_ok = True
            for slot, (kind, a, b) in updates.items():
                later = [c for msg in messages[slot + 1:] for c in msg["coded"]]
                if a not in later:
                    late_ok = False
            if not late_ok:
                continue
            self.book, self.nulls, self.messages, self.updates = book, nulls, messages, updates
            return
        self.book, self.nulls, self.messages, self.updates = book, nulls, messages, {}

    # ------------------------------------------------------------------ text
    def _update_text(self, change):
        kind, a, b = change
        if kind == "reassign":
            return f"HQ AMENDMENT (shown once): from this dispatch on, code {a} means '{b}'."
        return f"HQ AMENDMENT (shown once): from this dispatch on, codes {a} and {b} swap their meanings."

    def _status(self, msg):
        lines = [msg] if msg else []
        lines.append(f"Turn {self.turn}/{self.max_turns} | Dispatch {self.index + 1}/{len(self.messages)} | "
                     f"Strikes {self.strikes}/{self.max_strikes} | Recalls left {self.max_recalls - self.recalls}")
        if self.index in self.updates and not self.shown_update:
            lines.append(self._update_text(self.updates[self.index]))
            self.shown_update = True
        lines.append(f"Dispatch {self.index + 1}: {' '.join(self.messages[self.index]['coded'])}")
        lines.append("Commands: \\boxed{decode <word> <word> ...} (the plain words in order, nulls dropped), "
                     "\\boxed{recall <CODE>} (HQ repeats one code's current meaning; uses a recall and a turn).")
        return "\n".join(lines)

    def _current_book(self):
        current = dict(self.book)
        for slot in sorted(self.updates):
            if slot <= self.index:
                kind, a, b = self.updates[slot]
                if kind == "reassign":
                    current[a] = b
                else:
                    current[a], current[b] = current[b], current[a]
        return current

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.index = 0
        self.strikes = 0
        self.recalls = 0
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
            f"leaving out null groups. HQ may amend the codebook between dispatches; an amendment is shown once and "
            f"holds for all later dispatches. A wrong decode is a strike (you keep the same dispatch); "
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
            return self._wait("Format reminder: answer with \\boxed{decode ...} or \\boxed{recall CODE}.",
                              out_of_turns)
        cmd = " ".join(match.group(1).replace(",", " ").split())
        low = cmd.lower()
        rec = re.fullmatch(r"recall\s+([a-z]{3})", low)
        if rec:
            code = rec.group(1).upper()
            if self.recalls >= self.max_recalls:
                return self._wait("HQ refuses: you have no recalls left.", out_of_turns)
            book = self._current_book()
            if code in self.nulls:
                self.recalls += 1
                return self._wait(f"HQ: {code} is a null group (padding).", out_of_turns)
            if code not in book:
                return self._wait(f"HQ: there is no code {code} in your codebook (no recall used).", out_of_turns)
            self.recalls += 1
            return self._wait(f"HQ: {code} currently means '{book[code]}'.", out_of_turns)
        if low.startswith("recall"):
            return self._wait("Recall needs one three-letter code, e.g. recall plus a code from the dispatch.",
                              out_of_turns)
        words = low.split()
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
        # specific feedback: which word positions are wrong
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
        parts = ["Before the first dispatch, copy the whole codebook into your notes, nulls included, and apply every "
                 "HQ amendment to your notes the moment it appears."]
        used = {}
        for i, msg in enumerate(self.messages):
            for c in msg["coded"]:
                used.setdefault(c, []).append(i + 1)
        look = sorted(c for c in used if c not in self.nulls and any(
            c != d and sorted(c) == sorted(d) for d in used if d not in self.nulls))
        if look:
            parts.append("Look-alike codes that both occur in the dispatches: " + ", ".join(look) + "; read each "
                         "group letter by letter.")
        for slot, (kind, a, b) in sorted(self.updates.items()):
            later = sorted({i for i in used.get(a, []) if i > slot})
            what = f"code {a}" if kind == "reassign" else f"codes {a} and {b}"
            parts.append(f"The amendment before dispatch {slot + 1} changes {what}; dispatch(es) "
                         f"{', '.join(map(str, later))} use the new meaning.")
        nulls_used = sorted({c for c in used if c in self.nulls})
        if nulls_used:
            parts.append(f"{len(nulls_used)} null group(s) turn up in the dispatches.")
        return " ".join(parts)
