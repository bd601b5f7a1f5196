"""Count the distinct rows that can be laid from a bag of lettered tiles (identical letters are indistinguishable) when several adjacency, position and ordering rules must all hold.
Trains multiset permutation counting with constraints (complements, inclusion-exclusion or a left-to-right state count)."""

import random
import re
from functools import lru_cache


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


def _count(mults, rules):
    """Number of distinct rows of the multiset `mults` (tuple of counts) obeying `rules`.

    Left-to-right count; state = remaining counts, last letter, first letter (only when an
    end rule exists), and for each 'before' rule whether its later letter has appeared."""
    n = sum(mults)
    k = len(mults)
    bad_pair = set()
    bad_pos = set()
    before = []
    ends = 0
    for r in rules:
        kind = r[0]
        if kind == "no_double":
            for c in range(k):
                bad_pair.add((c, c))
        elif kind == "not_followed":
            bad_pair.add((r[1], r[2]))
        elif kind == "apart":
            bad_pair.add((r[1], r[2]))
            bad_pair.add((r[2], r[1]))
        elif kind == "not_at":
            bad_pos.add((r[2], r[1]))
        elif kind == "at_in":
            for c in range(k):
                if c not in r[2]:
                    bad_pos.add((r[1], c))
        elif kind == "before":
            before.append((r[1], r[2]))
        elif kind == "ends_same":
            ends = 1
        elif kind == "ends_diff":
            ends = 2

    @lru_cache(maxsize=None)
    def go(rem, last, first, seen):
        pos = n - sum(rem)
        if pos == n:
            if ends == 1 and first != last:
                return 0
            if ends == 2 and first == last:
                return 0
            return 1
        total = 0
        for c in range(k):
            if rem[c] == 0 or (last, c) in bad_pair or (pos, c) in bad_pos:
                continue
            new_seen = seen
            if before:
                ok = True
                ns = list(seen)
                for bi, (x, y) in enumerate(before):
                    if c == x and seen[bi]:
                        ok = False
                        break
                    if c == y:
                        ns[bi] = True
                if not ok:
                    continue
                new_seen = tuple(ns)
            nr = list(rem)
            nr[c] -= 1
            total += go(tuple(nr), c, (c if first < 0 else first) if ends else 0, new_seen)
        return total

    return go(tuple(mults), -1, -1, tuple(False for _ in before))


ORD = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th", "11th", "12th"]


class TileRowRuleCountEnv:
    LEVELS = {
        "easy": {"shapes": [(2, 2, 2, 1), (3, 2, 1, 1), (2, 2, 1, 1, 1)], "rules": 2},
        "medium": {"shapes": [(3, 2, 2, 1), (2, 2, 2, 2), (3, 3, 1, 1), (2, 2, 2, 1, 1)], "rules": 3},
        "hard": {"shapes": [(3, 3, 2, 2), (3, 2, 2, 2, 1), (4, 2, 2, 1, 1), (3, 3, 2, 1, 1)], "rules": 4},
    }

    def __init__(self, max_turns=5, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.cfg = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.turn = 0
        self.done = False
        self.letters = []
        self.mults = ()
        self.rules = []
        self.rule_text = []
        self._answer = 0
        self.total0 = 0
        self.drop_counts = []
        self.single_counts = []

    # ------------------------------------------------------------------ generation
    def _random_rule(self, k, n):
        L = self.letters
        kind = self.rng.choice(["no_double", "not_followed", "apart", "not_at", "at_in", "before", "ends"])
        a, b = self.rng.sample(range(k), 2)
        if kind == "no_double":
            return ("no_double",), "No two tiles with the same letter are next to each other."
        if kind == "not_followed":
            return ("not_followed", a, b), f"A tile {L[a]} is never immediately followed by a tile {L[b]}."
        if kind == "apart":
            return ("apart", a, b), f"A tile {L[a]} and a tile {L[b]} are never neighbours (in either order)."
        if kind == "not_at":
            p = self.rng.choice([0, n - 1, self.rng.randrange(n)])
            where = "first" if p == 0 else ("last" if p == n - 1 else ORD[p])
            return ("not_at", a, p), f"The {where} slot does not hold tile {L[a]}."
        if kind == "at_in":
            p = self.rng.randrange(1, n - 1)
            allowed = tuple(sorted(self.rng.sample(range(k), 2)))
            return ("at_in", p, allowed), f"The {ORD[p]} slot holds tile {L[allowed[0]]} or tile {L[allowed[1]]}."
        if kind == "before":
            return ("before", a, b), f"Every tile {L[a]} lies to the left of every tile {L[b]}."
        if self.rng.random() < 0.5:
            return ("ends_same",), "The first and last tiles show the same letter."
        return ("ends_diff",), "The first and last tiles show different letters."

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        while True:
            shape = list(self.rng.choice(self.cfg["shapes"]))
            self.rng.shuffle(shape)
            k = len(shape)
            n = sum(shape)
            self.letters = sorted(self.rng.sample("ABCDEFGHKLMNPRSTW", k))
            self.mults = tuple(shape)
            rules, texts, keys = [], [], set()
            while len(rules) < self.cfg["rules"]:
                r, t = self._random_rule(k, n)
                key = r[0] if r[0] in ("no_double", "ends_same", "ends_diff") else r
                if key in keys or (r[0].startswith("ends") and ("ends_same" in keys or "ends_diff" in keys)):
                    continue
                keys.add(key)
                rules.append(r)
                texts.append(t)
            ans = _count(self.mults, tuple(rules))
            if ans <= 100:
                continue
            drops = []
            for i in range(len(rules)):
                drops.append(_count(self.mults, tuple(rules[:i] + rules[i + 1:])))
                if drops[-1] == ans:
                    break  # every rule must matter
            if ans in drops:
                continue
            self.rules, self.rule_text = rules, texts
            self.total0 = _count(self.mults, ())
            self.drop_counts = drops
            self.single_counts = [_count(self.mults, (rules[0],))]
            self._answer = ans
            obs = self._render()
            nums = set(re.findall(r"\d+", obs + " " + self.hint()))
            if str(ans) not in nums:
                return obs, {}

    def _render(self):
        bag = ", ".join(f"{m} x {l}" for l, m in zip(self.letters, self.mults))
        n = sum(self.mults)
        lines = [f"A bag holds {n} lettered tiles: {bag}. Tiles with the same letter are identical.",
                 f"All {n} tiles are laid in a row of {n} slots (slot 1 on the left). A row is valid when ALL of "
                 f"these rules hold:"]
        for i, t in enumerate(self.rule_text, 1):
            lines.append(f"  Rule {i}: {t}")
        lines.append("How many different valid rows are there? (Two rows differ when some slot shows a different "
                     "letter.)")
        lines.append(f"Answer with one whole number as \\boxed{{count}}. You have {self.max_turns} attempts; a wrong "
                     f"attempt is answered with 'too high' or 'too low'.")
        return "\n".join(lines)

    # ------------------------------------------------------------------ play
    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() for a new bag.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        content = _boxed(action)
        if content is None:
            return self._wrong("No answer found: write the count inside \\boxed{...}.", out)
        raw = content.replace(",", "").replace("$", "").replace(" ", "").strip()
        if not re.fullmatch(r"[+-]?\d{1,40}", raw):
            return self._wrong(f"'{content[:40]}' is not a whole number; the answer is a count of rows.", out)
        val = int(raw)
        if val == self._answer:
            self.done = True
            return f"Correct! There are exactly {val} valid rows.", 1.0, True, False, {}
        if val == self.total0:
            msg = "Too high: that is the number of rows when no rule applies."
        else:
            msg = "Too high." if val > self._answer else "Too low."
            for i, d in enumerate(self.drop_counts):
                if val == d:
                    msg += f" That count would be right if rule {i + 1} were ignored."
                    break
        return self._wrong(msg, out)

    def _wrong(self, msg, out):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        n = sum(self.mults)
        parts = [f"Without any rule there are {self.total0} rows ({n}! divided by the factorials of the letter "
                 f"counts)."]
        if self.single_counts:
            parts.append(f"Rule 1 on its own leaves {self.single_counts[0]} rows.")
        kinds = {r[0] for r in self.rules}
        tips = []
        if "before" in kinds:
            tips.append("an 'every X before every Y' rule means the X and Y tiles occupy their slots in a forced "
                        "order, so choose the slots of that block first")
        if kinds & {"no_double", "not_followed", "apart"}:
            tips.append("adjacency rules are easiest counted left to right while remembering the last letter "
                        "placed, or by complement (glue the forbidden pair into one block)")
        if kinds & {"not_at", "at_in", "ends_same", "ends_diff"}:
            tips.append("fix the constrained slots first, then count the arrangements of the remaining tiles")
        if tips:
            parts.append("Strategy: " + "; ".join(tips) + ".")
        return " ".join(parts)

    def close(self):
        pass
