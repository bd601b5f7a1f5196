"""A tavern game of chance is generated (a duel of oddly numbered dice, a die that decides how many tokens are drawn from a bag, or a draw-until-you-stop card game with a bust limit) and the player must give the exact probability of the stated event as a reduced fraction.
Trains exact probability reasoning: conditioning, counting equally likely outcomes, and replayed or sequential rounds."""

import math
import random
import re
from fractions import Fraction
from functools import lru_cache
from itertools import combinations


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


def _parse_fraction(s):
    """Exact value of 'p/q', '\\frac{p}{q}', an integer or a terminating decimal; None if unreadable."""
    t = s.strip().replace(" ", "").replace("$", "").replace("\\left", "").replace("\\right", "")
    t = t.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    m = re.fullmatch(r"\\frac\{([+-]?\d{1,30})\}\{([+-]?\d{1,30})\}", t)
    if m:
        num, den = int(m.group(1)), int(m.group(2))
    else:
        m = re.fullmatch(r"\(?([+-]?\d{1,30})\)?/\(?([+-]?\d{1,30})\)?", t)
        if m:
            num, den = int(m.group(1)), int(m.group(2))
        elif re.fullmatch(r"[+-]?\d{1,30}(\.\d{1,30})?", t):
            return Fraction(t)
        else:
            return None
    if den == 0:
        return None
    return Fraction(num, den)


COLORS = ["red", "blue", "green", "gold"]


def _a(n):
    return "an" if n in (8, 11, 18) else "a"


class TavernGameOddsEnv:
    POOLS = {
        "easy": ["duel_plain", "draw"],
        "medium": ["duel_replay", "draw", "bust"],
        "hard": ["duel_best", "draw", "bust"],
    }

    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.POOLS else "medium"
        self.rng = random.Random()
        self.turn = 0
        self.done = False
        self.kind = ""
        self.text = ""
        self._answer = Fraction(0)
        self._hint = ""

    # ------------------------------------------------------------------ games
    def _die(self, n, lo, hi):
        return sorted(self.rng.randint(lo, hi) for _ in range(n))

    def _duel(self, mode):
        rng = self.rng
        na, nb = rng.choice([4, 6, 8]), rng.choice([4, 6, 8])
        A = self._die(na, 0, 9)
        B = self._die(nb, 0, 9)
        if mode == "duel_best":
            outcomes_b = [max(x, y) for x in B for y in B]
            b_text = ("Bram rolls his die TWICE and keeps the higher of the two numbers.")
        else:
            outcomes_b = list(B)
            b_text = "Bram rolls his die once."
        win = sum(1 for a in A for b in outcomes_b if a > b)
        tie = sum(1 for a in A for b in outcomes_b if a == b)
        total = len(A) * len(outcomes_b)
        if mode == "duel_plain":
            ans = Fraction(win, total)
            rule = "Ada wins if her number is strictly higher; otherwise (a tie included) Bram wins."
            hint = (f"There are {total} equally likely (Ada, Bram) outcomes. For each of Ada's faces count Bram's faces "
                    f"that are strictly lower, then add up; a tie counts as a loss for Ada.")
        else:
            if tie == 0 or total - tie == 0:
                return None  # the replay rule must matter
            ans = Fraction(win, total - tie)
            rule = ("The higher number wins. On a tie both players roll again (the whole round is repeated) until "
                    "someone wins.")
            hint = (f"Ties are replayed, so the answer is P(Ada ahead in one round) / (1 - P(tie)); of the {total} "
                    f"equally likely outcomes of one round, exactly {tie} are ties.")
            if mode == "duel_best":
                hint += " For Bram's kept number m, P(max <= m) = P(one roll <= m)^2."
        text = (f"Ada owns {_a(na)} {na}-sided die with faces {A}; Bram owns {_a(nb)} {nb}-sided die with faces {B}. Every face of a "
                f"die is equally likely. Ada rolls her die once. {b_text} {rule}\n"
                f"What is the probability that ADA wins the game?")
        return ans, text, hint

    def _draw(self):
        rng = self.rng
        d = self.difficulty
        nbag = {"easy": 5, "medium": 6, "hard": 8}[d]
        kmax = {"easy": 2, "medium": 3, "hard": 3}[d]
        ncol = {"easy": 2, "medium": 3, "hard": 3}[d]
        cols = rng.sample(COLORS, ncol)
        tokens = [(rng.randint(1, 6), cols[i % ncol]) for i in range(nbag)]
        rng.shuffle(tokens)
        tokens.sort(key=lambda t: (COLORS.index(t[1]), t[0]))
        faces = sorted(rng.randint(1, kmax) for _ in range(rng.choice([4, 6])))
        if len(set(faces)) == 1:
            return None
        conds = []
        c1, c2 = rng.sample(cols, 2)
        top = sum(sorted((t[0] for t in tokens), reverse=True)[:kmax])
        thr = rng.randint(4, max(5, top - 1))
        pool = [
            (f"the numbers on the drawn tokens add up to at least {thr}", lambda h: sum(t[0] for t in h) >= thr),
            (f"at least one {c1} token is drawn", lambda h: any(t[1] == c1 for t in h)),
            ("all drawn tokens show different numbers", lambda h: len({t[0] for t in h}) == len(h)),
            (f"no {c2} token is drawn", lambda h: all(t[1] != c2 for t in h)),
            ("the numbers on the drawn tokens add up to an odd total", lambda h: sum(t[0] for t in h) % 2 == 1),
        ]
        picks = rng.sample(range(len(pool)), 1 if d == "easy" else 2)
        conds = [pool[i] for i in picks]
        ans = Fraction(0)
        per_k = {}
        for k in sorted(set(faces)):
            hands = list(combinations(range(nbag), k))
            fav = sum(1 for hd in hands if all(f([tokens[i] for i in hd]) for _, f in conds))
            per_k[k] = (fav, len(hands))
        for k in faces:
            fav, tot = per_k[k]
            ans += Fraction(fav, tot) / len(faces)
        bag = ", ".join(f"{c} {v}" for v, c in tokens)
        if len(conds) == 1:
            event = conds[0][0]
        else:
            event = "BOTH of these hold: (a) " + conds[0][0] + "; (b) " + conds[1][0]
        text = (f"A bag holds {nbag} tokens, each with a colour and a number: {bag}. A {len(faces)}-sided die has "
                f"faces {faces}; every face is equally likely. You roll the die once and then draw that many tokens "
                f"from the bag at random, all at once (without replacement).\n"
                f"What is the probability that {event}?")
        k0 = min(per_k)
        hint = (f"Condition on the die: each distinct face value k has probability (number of faces showing k)/"
                f"{len(faces)}, and given k every one of the C({nbag}, k) hands is equally likely. For k = {k0} the "
                f"event holds in {per_k[k0][0]} of the {per_k[k0][1]} hands; count the other values of k the same way "
                f"and take the weighted average.")
        return ans, text, hint

    def _bust(self):
        rng = self.rng
        n = 6 if self.difficulty == "medium" else 8
        deck = sorted(rng.randint(1, 6) for _ in range(n))
        T = rng.randint(7, 9) if n == 6 else rng.randint(10, 13)
        B = T + rng.randint(1, 2)
        if sum(deck) < T + 3:
            return None
        values = sorted(set(deck))
        counts0 = tuple(deck.count(v) for v in values)

        @lru_cache(maxsize=None)
        def f(counts, total):
            if total >= T:
                return Fraction(1) if total <= B else Fraction(0)
            left = sum(counts)
            if left == 0:
                return Fraction(0)
            acc = Fraction(0)
            for i, c in enumerate(counts):
                if c:
                    nc = counts[:i] + (c - 1,) + counts[i + 1:]
                    acc += Fraction(c, left) * f(nc, total + values[i])
            return acc

        ans = f(counts0, 0)
        hi = values[-1]
        i = len(values) - 1
        after_hi = f(counts0[:i] + (counts0[i] - 1,) + counts0[i + 1:], hi)
        text = (f"A deck of {n} cards shows the numbers {deck}. It is shuffled, and you turn over cards one at a time, "
                f"adding their numbers to a running total. You stop as soon as the total is {T} or more. You WIN if "
                f"you stop with a total of at most {B}; a total above {B} is a bust (loss). (The deck always holds "
                f"enough to reach {T}.)\nWhat is the probability that you win?")
        hint = (f"Work through a tree of running totals, branching on the card drawn with probability (copies left)/"
                f"(cards left). As a check: if the first card is a {hi}, your chance of winning from there is "
                f"{after_hi.numerator}/{after_hi.denominator}. Group equal cards to keep the tree small.")
        return ans, text, hint

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        while True:
            kind = self.rng.choice(self.POOLS[self.difficulty])
            if kind.startswith("duel"):
                res = self._duel(kind)
            elif kind == "draw":
                res = self._draw()
            else:
                res = self._bust()
            if res is None:
                continue
            ans, text, hint = res
            if not (0 < ans < 1) or ans.denominator < 10:
                continue
            ans_text = f"{ans.numerator}/{ans.denominator}"
            if ans_text in hint:
                continue
            break
        self.kind = kind
        self._answer = ans
        self._hint = hint
        self.text = (text + f"\nGive the exact probability as a reduced fraction, e.g. \\boxed{{p/q}}. You have "
                            f"{self.max_turns} attempts; a wrong attempt is answered with 'too high' or 'too low'.")
        return self.text, {}

    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() for a new game.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        content = _boxed(action)
        if content is None:
            return self._wrong("No answer found: write the probability inside \\boxed{...}, as p/q.", out)
        val = _parse_fraction(content)
        if val is None:
            return self._wrong(f"Could not read '{content[:40]}' as a fraction. Write it like \\boxed{{p/q}} with "
                               f"whole numbers p and q.", out)
        if val == self._answer:
            self.done = True
            return "Correct! That is the exact probability.", 1.0, True, False, {}
        if val < 0 or val > 1:
            return self._wrong("A probability lies between 0 and 1.", out)
        return self._wrong("Too high." if val > self._answer else "Too low.", out)

    def _wrong(self, msg, out):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.", 0.0, False, False, {}

    def solution(self):
        return f"{self._answer.numerator}/{self._answer.denominator}"

    def hint(self):
        return self._hint

    def close(self):
        pass
