"""Odd one out: several short strings share one hidden property (a palindrome, letters in alphabetical order,
a doubled letter, vowels and consonants alternating, a digit sum that is even...), all but one; find the one
that breaks the pattern. Decoy properties are shared by some items but not all, so only the true rule isolates
exactly one string."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
VOWELS = set("aeiou")


def p_palindrome(w):
    return w == w[::-1]


def p_sorted(w):
    return list(w) == sorted(w)


def p_double(w):
    return any(a == b for a, b in zip(w, w[1:]))


def p_alternate(w):
    return all((a in VOWELS) != (b in VOWELS) for a, b in zip(w, w[1:]))


def p_same_ends(w):
    return w[0] == w[-1]


def p_even_length(w):
    return len(w) % 2 == 0


def p_three_vowels(w):
    return sum(c in VOWELS for c in w) == 3


def p_no_e(w):
    return "e" not in w


PROPS = [("palindrome", p_palindrome), ("sorted", p_sorted), ("double", p_double), ("alternate", p_alternate),
         ("same_ends", p_same_ends), ("even_length", p_even_length), ("three_vowels", p_three_vowels),
         ("no_e", p_no_e)]
# difficulty -> (items, word length range)
LEVELS = {"easy": (9, (4, 5)), "medium": (10, (5, 6)), "hard": (12, (5, 7))}
LETTERS = "abcdeghiklmnoprstu"


class OddOneOutEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.items = []
        self.rule = "palindrome"
        self._answer = ""
        self.turn = 0
        self.done = False

    def _word(self, want, test, lo, hi):
        rng = self.rng
        for _ in range(4000):
            n = rng.randint(lo, hi)
            if self.rule == "palindrome" and want:
                half = "".join(rng.choice(LETTERS) for _ in range((n + 1) // 2))
                w = half + half[: n // 2][::-1]
            elif self.rule == "sorted" and want:
                w = "".join(sorted(rng.choice(LETTERS) for _ in range(n)))
            elif self.rule == "alternate" and want:
                first = rng.random() < 0.5
                w = "".join(rng.choice("aeiou") if (i % 2 == 0) == first else rng.choice("bcdghklmnprst")
                            for i in range(n))
            else:
                w = "".join(rng.choice(LETTERS) for _ in range(n))
            if test(w) == want:
                return w
        return None

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        k, (lo, hi) = LEVELS[self.difficulty]
        for _ in range(200):
            self.rule, test = rng.choice(PROPS)
            items = [self._word(True, test, lo, hi) for _ in range(k - 1)]
            odd = self._word(False, test, lo, hi)
            if odd is None or None in items or len(set(items + [odd])) < k:
                continue
            items.append(odd)
            rng.shuffle(items)
            # no other property may single out exactly one item (it would be a second valid answer)
            clash = False
            for name, other in PROPS:
                if name == self.rule:
                    continue
                holds = [other(w) for w in items]
                if holds.count(True) == k - 1 or holds.count(False) == k - 1:
                    clash = True
                    break
            if not clash:
                break
        self.items = items
        self._answer = odd
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        return ("ODD ONE OUT\n"
                f"Strings: {', '.join(self.items)}\n"
                "All but one of these strings share a property of their letters (for example: reads the same "
                "backwards; letters in alphabetical order; contains a doubled letter; vowels and consonants "
                "alternate; starts and ends with the same letter; has an even length; has exactly three vowels; "
                "has no letter e). Which string is the odd one out?\n"
                f"Answer with that string inside \\boxed{{}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = m.group(1).strip().lower() if m else ""
        if guess == self._answer:
            self.done = True
            return "Correct: that string breaks the shared property. You win!", 1.0, True, False, {}
        msg = "No answer found." if not m else f"'{guess[:20]}' is not the odd one out."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        kind = {"palindrome": "how the string reads backwards", "sorted": "the order of its letters",
                "double": "letters standing next to each other", "alternate": "the pattern of vowels and consonants",
                "same_ends": "its first and last letters", "even_length": "its length",
                "three_vowels": "how many vowels it has", "no_e": "one particular letter"}[self.rule]
        return (f"The shared property is about {kind}. Test every listed property on every string: the true rule "
                "holds for all strings but one.")
