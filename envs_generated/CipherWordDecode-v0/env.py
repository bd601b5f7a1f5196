"""Cipher Word Decode: a hidden letter-shifting rule (a fixed shift, a position-dependent or periodic shift, a letter-wise multiply-and-add, a running key, possibly on the reversed word) turned some words into ciphertext; from several plaintext/ciphertext examples, decode a new cipher word."""
import random
import re

WORDS = """anchor badger bakery bamboo barrel basket beacon beetle blanket bottle bridge bronze bucket butter
cabbage cactus camera candle canyon carpet castle cellar cherry chimney circus cobalt comet copper cotton
coyote crater crayon cricket crystal dagger dolphin donkey dragon ember engine falcon feather fiddle flannel
forest fossil fountain galaxy garden garlic geyser ginger glacier goblet granite gravel guitar hammer harbor
harvest hazel helmet hermit honey horizon iceberg island jacket jaguar jasmine jigsaw jungle kernel kettle
kitten ladder lantern lemon lizard lobster magnet mammoth mango marble meadow melody meteor mirror monkey
mosaic mustard napkin nectar needle nickel nutmeg oyster paddle palace panther parrot pebble pepper pigeon
pillow planet pocket potato prism pumpkin quartz rabbit radish raven ribbon rocket saddle salmon sandal
signal spider spiral squid statue sunset teapot temple thunder tiger timber tomato tunnel turtle velvet
violin volcano walnut whistle willow window winter wizard zebra orchid parsley walrus biscuit trumpet
cinnamon lagoon beaver clover pickle sparrow tulip""".split()

UNITS = [1, 3, 5, 7, 9, 11, 15, 17, 19, 21, 23, 25]
INV = {1: 1, 3: 9, 5: 21, 7: 15, 9: 3, 11: 19, 15: 7, 17: 23, 19: 11, 21: 5, 23: 17, 25: 25}


def _idx(word):
    return [ord(ch) - 97 for ch in word]


def _txt(nums):
    return "".join(chr(97 + (n % 26)) for n in nums)


def _encode(rule, word):
    kind = rule["kind"]
    p = _idx(word)
    if rule.get("rev"):
        p = p[::-1]
    if kind == "shift":
        c = [x + rule["k"] for x in p]
    elif kind == "linear":
        c = [x + rule["a"] + rule["b"] * i for i, x in enumerate(p)]
    elif kind == "period":
        key = rule["key"]
        c = [x + key[i % len(key)] for i, x in enumerate(p)]
    elif kind == "affine":
        c = [rule["m"] * x + rule["a"] + rule["b"] * i for i, x in enumerate(p)]
    elif kind == "autokey":
        c = [p[0] + rule["k"]] + [p[i] + p[i - 1] for i in range(1, len(p))]
    else:  # chain: shift by the previous cipher letter
        c = []
        for i, x in enumerate(p):
            c.append(x + (rule["k"] if i == 0 else c[-1]))
            c[-1] %= 26
    return _txt(c)


def _fit_all(pairs):
    """Every rule of the whole class that reproduces all example pairs (as rule dicts)."""
    fits = []
    for rev in (False, True):
        data = []
        for plain, ciph in pairs:
            p = _idx(plain)
            if rev:
                p = p[::-1]
            data.append((p, _idx(ciph)))
        # letter-wise multiply-and-add plus a linear position shift (covers shift, linear, affine)
        for m in UNITS:
            a = b = None
            ok = True
            for p, c in data:
                for i in range(len(p)):
                    r = (c[i] - m * p[i]) % 26
                    if i == 0:
                        if a is None:
                            a = r
                        elif r != a:
                            ok = False
                    elif i == 1 and b is None:
                        b = (r - a) % 26 if a is not None else None
                        if b is None:
                            ok = False
                    if not ok:
                        break
                if not ok:
                    break
            if ok and a is not None and b is not None:
                if all((c[i] - m * p[i] - a - b * i) % 26 == 0 for p, c in data for i in range(len(p))):
                    fits.append({"kind": "affine", "m": m, "a": a, "b": b, "rev": rev})
        # periodic shift (period 2, 3 or 4)
        for period in (2, 3, 4):
            key = [None] * period
            ok = True
            for p, c in data:
                for i in range(len(p)):
                    s = (c[i] - p[i]) % 26
                    if key[i % period] is None:
                        key[i % period] = s
                    elif key[i % period] != s:
                        ok = False
                        break
                if not ok:
                    break
            if ok and None not in key:
                fits.append({"kind": "period", "key": key, "rev": rev})
        # running keys
        for kind in ("autokey", "chain"):
            k = None
            ok = True
            for p, c in data:
                k0 = (c[0] - p[0]) % 26
                if k is None:
                    k = k0
                elif k != k0:
                    ok = False
                    break
                for i in range(1, len(p)):
                    prev = p[i - 1] if kind == "autokey" else c[i - 1]
                    if (p[i] + prev - c[i]) % 26:
                        ok = False
                        break
                if not ok:
                    break
            if ok and k is not None:
                fits.append({"kind": kind, "k": k, "rev": rev})
    return fits


def _decode(rule, cipher):
    c = _idx(cipher)
    kind = rule["kind"]
    if kind == "affine":
        inv = INV[rule["m"]]
        p = [inv * (x - rule["a"] - rule["b"] * i) for i, x in enumerate(c)]
    elif kind == "period":
        key = rule["key"]
        p = [x - key[i % len(key)] for i, x in enumerate(c)]
    elif kind == "autokey":
        p = []
        for i, x in enumerate(c):
            p.append((x - (rule["k"] if i == 0 else p[-1])) % 26)
    else:
        p = [x - (rule["k"] if i == 0 else c[i - 1]) for i, x in enumerate(c)]
    p = [x % 26 for x in p]
    if rule.get("rev"):
        p = p[::-1]
    return _txt(p)


HINTS = {
    "shift": "Every letter moves the same number of places along the alphabet (z wraps to a). Measure it on one "
             "example pair, confirm on the others, then move the cipher letters back.",
    "rev_shift": "Write each plaintext backwards before comparing it with its ciphertext: then every letter moves by "
                 "the same number of places. Undo the shift, then reverse.",
    "mirror": "The same plaintext letter always becomes the same cipher letter, and the alphabet is traversed "
              "backwards: with a=0..z=25, cipher index + plain index is the same number for every letter.",
    "linear": "Compute the shift (cipher index minus plain index, mod 26) at each position: it depends only on the "
              "position, and grows by the same step from one position to the next.",
    "period": "Compute the shift (cipher index minus plain index, mod 26) at each position: it depends only on the "
              "position and repeats with a short period. Read the key off the examples.",
    "affine": "The same plaintext letter always becomes the same cipher letter, wherever it stands. With a=0..z=25 the "
              "cipher index is (m*x + k) mod 26; two letter pairs fix m and k, then invert for the unseen letters.",
    "autokey": "The first letter moves by a fixed shift; every later letter moves by the index (a=0) of the PLAINTEXT "
               "letter just before it. Decode from left to right.",
    "chain": "The first letter moves by a fixed shift; every later letter moves by the index (a=0) of the CIPHER "
             "letter just before it. Decode from left to right using the ciphertext itself.",
    "rev_period": "The plaintext is written backwards before encoding. After reversing it, the shift (cipher minus "
                  "plain, mod 26) depends only on the position and repeats with a short period.",
    "rev_linear": "The plaintext is written backwards before encoding. After reversing it, the shift (cipher minus "
                  "plain, mod 26) grows by the same step from each position to the next.",
    "affine_linear": "Two layers: a letter-wise multiply-and-add on indices (a=0), then an extra shift that grows by "
                     "a fixed step with the position. Try each odd multiplier not divisible by 13 and check whether "
                     "the residual shifts become an arithmetic progression.",
}


class CipherWordDecodeEnv:
    # difficulty -> (example count, target length range, families)
    LEVELS = {
        "easy": (3, (5, 6), ["rev_shift", "mirror", "linear", "period"]),
        "medium": (4, (6, 7), ["linear", "period", "affine", "autokey"]),
        "hard": (4, (7, 8), ["rev_period", "rev_linear", "affine_linear", "chain"]),
    }

    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_examples, self.lengths, self.families = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.family = ""
        self.rule = {}
        self.examples = []
        self.cipher = ""
        self.turn = 0
        self.done = False
        self.tries = []
        self._answer = ""

    def _draw_rule(self, fam):
        r = self.rng
        if fam in ("shift", "rev_shift"):
            return {"kind": "shift", "k": r.randint(1, 25), "rev": fam == "rev_shift"}
        if fam == "mirror":
            return {"kind": "affine", "m": 25, "a": r.randint(0, 25), "b": 0, "rev": False}
        if fam in ("linear", "rev_linear"):
            return {"kind": "linear", "a": r.randint(0, 25), "b": r.choice([1, 2, 3, 4, 5, 21, 22, 23, 24, 25]),
                    "rev": fam == "rev_linear"}
        if fam in ("period", "rev_period"):
            size = r.choice([2, 3]) if fam == "period" else 3
            while True:
                key = [r.randint(0, 25) for _ in range(size)]
                if len(set(key)) == size:
                    return {"kind": "period", "key": key, "rev": fam == "rev_period"}
        if fam == "affine":
            return {"kind": "affine", "m": r.choice([3, 5, 7, 9, 11, 15, 17, 19, 21, 23]), "a": r.randint(0, 25),
                    "b": 0, "rev": False}
        if fam == "affine_linear":
            return {"kind": "affine", "m": r.choice([3, 5, 7, 9, 11, 15, 17, 19, 21, 23]), "a": r.randint(0, 25),
                    "b": r.choice([1, 2, 3, 23, 24, 25]), "rev": False}
        return {"kind": fam, "k": r.randint(1, 25), "rev": False}

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for attempt in range(60):
            fam = self.rng.choice(self.families)
            rule = self._draw_rule(fam)
            lo, hi = self.lengths
            targets = [w for w in WORDS if lo <= len(w) <= hi]
            target = self.rng.choice(targets)
            others = [w for w in WORDS if w != target and len(w) >= 5]
            plains = self.rng.sample(others, self.n_examples)
            if max(len(w) for w in plains) < len(target):
                continue
            pairs = [(w, _encode(rule, w)) for w in plains]
            cipher = _encode(rule, target)
            if cipher == target:
                continue
            decodes = set(_decode(f, cipher) for f in _fit_all(pairs))
            if decodes == {target}:
                break
        self.family = fam
        self.rule = rule
        self.examples = pairs
        self.cipher = cipher
        self._answer = target
        self.turn = 0
        self.done = False
        self.tries = []
        return self._render("Decode the new cipher word."), {}

    def _render(self, last):
        width = max(len(p) for p, _ in self.examples)
        lines = [
            f"CIPHER WORD DECODE | Attempt {self.turn}/{self.max_turns} | Difficulty: {self.difficulty}",
            "One hidden rule encodes lowercase words letter by letter. The rule moves letters along the alphabet "
            "(z wraps to a); the move may depend on the letter itself, on its position, or on neighbouring letters, "
            "and the word may be written backwards first.",
            "Known pairs (plaintext -> ciphertext):",
        ]
        for p, c in self.examples:
            lines.append(f"  {p.ljust(width)} -> {c}")
        lines.append(f"Ciphertext to decode: {self.cipher}  ({len(self.cipher)} letters)")
        lines.append("Task: give the plaintext word (an ordinary English word) inside \\boxed{}.")
        if self.tries:
            lines.append("Your attempts: " + "; ".join(self.tries))
        lines.append(f"Last result: {last}")
        lines.append(f"Attempts left: {self.max_turns - self.turn}. Reply with \\boxed{{word}}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        guess = None
        msg = ""
        if m is None:
            msg = "No answer found: write the decoded word inside \\boxed{}."
        else:
            body = re.sub(r"\s", "", m.group(1)).lower()
            if re.fullmatch(r"[a-z]{1,40}", body):
                guess = body
            else:
                msg = "Answer with letters a-z only (one word, no spaces or digits)."
        if guess is None:
            self.tries.append("(invalid)")
        elif guess == self._answer:
            self.done = True
            self.tries.append(f"{guess} correct")
            return self._render(f"'{guess}' is correct: you cracked the rule!"), 1.0, True, False, {}
        elif len(guess) != len(self._answer):
            self.tries.append(f"{guess} wrong length")
            msg = f"'{guess}' has {len(guess)} letters; the plaintext has as many letters as the ciphertext ({len(self._answer)})."
        else:
            right = sum(1 for a, b in zip(guess, self._answer) if a == b)
            self.tries.append(f"{guess} {right}/{len(self._answer)} letters right")
            msg = (f"'{guess}' is wrong: {right} of {len(self._answer)} letters are right. Check your rule against "
                   f"every example pair.")
        if out:
            self.done = True
            msg += " No attempts left."
        return self._render(msg), 0.0, out, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        return HINTS.get(self.family, "Compare each cipher letter with its plaintext letter, position by position.")
