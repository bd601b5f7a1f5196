"""A letter-sum cipher from a guild ledger: in WORD1 + WORD2 = WORD3 every letter stands for a different digit (no leading zeros), a few true margin notes about the letters make the solution unique, and the player must report the numeric value of one of the three words.
Trains column-by-column reasoning with carries and case elimination."""

import random
import re


def _boxed(text):
    """Content of the last \\boxed{...} (balanced braces), or None."""
    if not isinstance(text, str):
        text = str(text)
    i = text.rfind("\\boxed{")
    if i < 0:
        return None
    start = i + 7
    depth = 0
    for j in range(start, len(text)):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return text[start:j]
            depth -= 1
    return None


def _solutions(w1, w2, w3, limit=60):
    """All digit assignments (distinct digits, no leading zero) with w1 + w2 = w3, as dicts;
    None when there are more than `limit` of them."""
    n = len(w3)
    cols = []
    for i in range(n):
        a = w1[-1 - i] if i < len(w1) else None
        b = w2[-1 - i] if i < len(w2) else None
        cols.append((a, b, w3[-1 - i]))
    leading = {w1[0], w2[0], w3[0]}
    val = {}
    used = [False] * 10
    found = []

    def choices(letter):
        if letter is None:
            return [None]
        if letter in val:
            return [-1]
        lo = 1 if letter in leading else 0
        return [d for d in range(lo, 10) if not used[d]]

    def solve(col, carry):
        if len(found) > limit:
            return
        if col == n:
            if carry == 0:
                found.append(dict(val))
            return
        a, b, c = cols[col]
        for da in choices(a):
            set_a = False
            if da is not None and da >= 0:
                val[a] = da
                used[da] = True
                set_a = True
            for db in choices(b):
                set_b = False
                if db is not None and db >= 0:
                    val[b] = db
                    used[db] = True
                    set_b = True
                s = carry + (val[a] if a is not None else 0) + (val[b] if b is not None else 0)
                digit, nc = s % 10, s // 10
                if c in val:
                    if val[c] == digit:
                        solve(col + 1, nc)
                elif not used[digit] and not (digit == 0 and c in leading):
                    val[c] = digit
                    used[digit] = True
                    solve(col + 1, nc)
                    used[digit] = False
                    del val[c]
                if set_b:
                    used[db] = False
                    del val[b]
                if len(found) > limit:
                    break
            if set_a:
                used[da] = False
                del val[a]
            if len(found) > limit:
                break

    solve(0, 0)
    return None if len(found) > limit else found


LETTER_POOL = "ABDEGHKLMNPRSTUVWY"


class GuildLedgerCryptarithmEnv:
    LEVELS = {
        "easy": {"len1": (3, 3), "len2": (3, 3), "carry": True, "min_letters": 5, "max_notes": 2},
        "medium": {"len1": (4, 4), "len2": (3, 4), "carry": True, "min_letters": 6, "max_notes": 3},
        "hard": {"len1": (5, 5), "len2": (4, 5), "carry": None, "min_letters": 7, "max_notes": 3},
    }

    def __init__(self, max_turns=5, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.cfg = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.turn = 0
        self.done = False
        self.words = ("", "", "")
        self.mapping = {}
        self.notes = []
        self.n_base = 1
        self.values = (0, 0, 0)
        self.ask = 0
        self._answer = 0

    def _candidate_notes(self, truth):
        letters = sorted(truth)
        notes = []
        for x in letters:
            v = truth[x]
            notes.append((("par", x, v % 2), f"{x} is {'odd' if v % 2 else 'even'}."))
            notes.append((("m3", x, v % 3 == 0), f"{x} is {'a' if v % 3 == 0 else 'not a'} multiple of 3."))
        for i, x in enumerate(letters):
            for y in letters[i + 1:]:
                a, b = (x, y) if truth[x] > truth[y] else (y, x)
                notes.append((("gt", a, b), f"{a} is larger than {b}."))
                notes.append((("sum", x, y, truth[x] + truth[y]), f"{x} + {y} = {truth[x] + truth[y]}."))
                notes.append((("dif", a, b, truth[a] - truth[b]), f"{a} is exactly {truth[a] - truth[b]} more than {b}."))
        return notes

    @staticmethod
    def _holds(note, sol):
        kind = note[0]
        if kind == "par":
            return sol[note[1]] % 2 == note[2]
        if kind == "m3":
            return (sol[note[1]] % 3 == 0) == note[2]
        if kind == "gt":
            return sol[note[1]] > sol[note[2]]
        if kind == "sum":
            return sol[note[1]] + sol[note[2]] == note[3]
        return sol[note[1]] - sol[note[2]] == note[3]

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        cfg = self.cfg
        while True:
            l1 = self.rng.randint(*cfg["len1"])
            l2 = self.rng.randint(*cfg["len2"])
            x = self.rng.randint(10 ** (l1 - 1), 10 ** l1 - 1)
            y = self.rng.randint(10 ** (l2 - 1), 10 ** l2 - 1)
            z = x + y
            if cfg["carry"] is not None and (len(str(z)) > l1) != cfg["carry"]:
                continue
            digits = sorted(set(str(x) + str(y) + str(z)))
            if len(digits) < cfg["min_letters"]:
                continue
            letters = self.rng.sample(LETTER_POOL, len(digits))
            d2l = dict(zip(digits, letters))
            w1 = "".join(d2l[d] for d in str(x))
            w2 = "".join(d2l[d] for d in str(y))
            w3 = "".join(d2l[d] for d in str(z))
            sols = _solutions(w1, w2, w3)
            if sols is None:
                continue
            truth = {d2l[d]: int(d) for d in digits}
            # margin notes (true facts) are added until exactly one solution is left
            remaining = sols
            notes = []
            pool = self._candidate_notes(truth)
            while len(remaining) > 1 and len(notes) < cfg["max_notes"]:
                scored = []
                for note, text in pool:
                    left = [sl for sl in remaining if self._holds(note, sl)]
                    if len(left) < len(remaining):
                        scored.append((len(left), text, note, left))
                scored.sort(key=lambda t: (t[0], t[1]))
                pick = scored[self.rng.randrange(min(6, len(scored)))]
                notes.append(pick[1])
                remaining = pick[3]
            if len(remaining) != 1:
                continue
            break
        self.words = (w1, w2, w3)
        self.values = (x, y, z)
        self.notes = notes
        self.n_base = len(sols)
        self.mapping = truth
        self.ask = self.rng.randrange(3)
        self._answer = self.values[self.ask]
        return self._render(), {}

    def _render(self):
        w1, w2, w3 = self.words
        width = len(w3) + 2
        lines = ["A page of the Cipher Guild's ledger records one addition in code:",
                 "",
                 "  " + w1.rjust(width),
                 "  " + ("+ " + w2).rjust(width),
                 "  " + "-" * width,
                 "  " + w3.rjust(width),
                 "",
                 "Each letter stands for one digit, different letters stand for different digits, and no word "
                 "starts with 0."]
        if self.notes:
            lines.append("The clerk's margin notes (all true):")
            lines.extend(f"  - {t}" for t in self.notes)
            lines.append("With these notes the page has exactly one solution.")
        else:
            lines.append("The addition has exactly one solution.")
        lines.append(f"What number does the word {self.words[self.ask]} stand for?")
        lines.append(f"Answer with the number as \\boxed{{number}}. You have {self.max_turns} attempts; a wrong "
                     f"attempt is answered with 'too high' or 'too low', or with the reason it cannot fit.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() for a new ledger page.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        content = _boxed(action)
        if content is None:
            return self._wrong("No answer found: write the number inside \\boxed{...}.", out)
        raw = content.replace(",", "").replace("$", "").replace(" ", "").strip()
        if not re.fullmatch(r"\d{1,40}", raw):
            return self._wrong(f"'{content[:40]}' is not a whole number made of digits.", out)
        word = self.words[self.ask]
        if raw == str(self._answer):
            self.done = True
            return f"Correct! {word} = {raw}.", 1.0, True, False, {}
        if len(raw) != len(word) or raw[0] == "0":
            msg = f"{word} has {len(word)} letters, so it is a {len(word)}-digit number without a leading 0."
        else:
            bad = None
            for i in range(len(word)):
                for j in range(i + 1, len(word)):
                    if (word[i] == word[j]) != (raw[i] == raw[j]):
                        bad = (i, j)
                        break
                if bad:
                    break
            if bad:
                i, j = bad
                same = word[i] == word[j]
                msg = (f"{raw} does not fit the letter pattern of {word}: positions {i + 1} and {j + 1} hold "
                       f"{'the same letter' if same else 'different letters'}, so their digits must be "
                       f"{'equal' if same else 'different'}.")
            else:
                msg = "Too high." if int(raw) > self._answer else "Too low."
        return self._wrong(msg, out)

    def _wrong(self, msg, out):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        w1, w2, w3 = self.words
        parts = []
        if len(w3) > max(len(w1), len(w2)):
            parts.append(f"{w3} is longer than both addends, so its first letter {w3[0]} is a carry and must be 1.")
        else:
            parts.append("Start in the rightmost column and carry the possible carries (0 or 1) leftwards.")
        # reveal letters that are NOT in the asked word first, so the hint never spells the answer
        asked = set(self.words[self.ask])
        others = sorted(l for l in self.mapping if l not in asked and l != w3[0])
        inside = sorted(l for l in self.mapping if l in asked and l != w3[0])
        k = {"easy": 1, "medium": 2, "hard": 2}[self.difficulty]
        rng = random.Random(w1 + w2 + w3)
        chosen = rng.sample(others, min(k, len(others)))
        if len(chosen) < k and inside:
            chosen += rng.sample(inside, 1)
        if chosen:
            parts.append("Useful anchors: " + ", ".join(f"{l} = {self.mapping[l]}" for l in chosen) + ".")
        parts.append("In each column, letter + letter + carry-in = result letter + 10 x carry-out; a column where "
                     "the result letter equals one of its addends forces the other addend (plus carry) to be 0 or 10.")
        return " ".join(parts)

    def close(self):
        pass
