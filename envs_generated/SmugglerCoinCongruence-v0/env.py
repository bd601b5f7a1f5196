"""A smuggler's hoard is described only by leftover-coin clues (piles, shortfalls, scaled counts, reference hoards), some with moduli that share factors; find the smallest hoard that fits every clue.
Trains combining modular conditions (Chinese remainder reasoning with non-coprime moduli)."""

import math
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


def _lcm(a, b):
    return a * b // math.gcd(a, b)


class SmugglerCoinCongruenceEnv:
    LEVELS = {
        # clues, modulus range, lcm window, clue forms allowed
        "easy": {"k": 3, "lo": 3, "hi": 13, "lmin": 200, "lmax": 2500, "forms": ("pile", "short")},
        "medium": {"k": 4, "lo": 4, "hi": 24, "lmin": 1500, "lmax": 60000,
                   "forms": ("pile", "short", "give", "mirror")},
        "hard": {"k": 5, "lo": 5, "hi": 36, "lmin": 20000, "lmax": 2000000,
                 "forms": ("pile", "short", "give", "mirror", "scaled")},
    }

    def __init__(self, max_turns=6, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.cfg = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.turn = 0
        self.done = False
        self.moduli = []
        self.residues = []
        self.clues = []
        self.checks = []
        self.period = 1
        self.shared = []
        self.forms_used = set()
        self._answer = 0
        self.task_text = ""

    # ------------------------------------------------------------------ generation
    def _pick_moduli(self):
        cfg = self.cfg
        while True:
            mods = []
            tries = 0
            while len(mods) < cfg["k"] and tries < 200:
                tries += 1
                m = self.rng.randint(cfg["lo"], cfg["hi"])
                if any(m % x == 0 or x % m == 0 for x in mods):
                    continue
                mods.append(m)
            if len(mods) < cfg["k"]:
                continue
            L = 1
            for m in mods:
                L = _lcm(L, m)
            shared = [(a, b, math.gcd(a, b)) for i, a in enumerate(mods) for b in mods[i + 1:] if math.gcd(a, b) > 1]
            if self.difficulty != "easy" and not shared:
                continue
            if cfg["lmin"] <= L <= cfg["lmax"]:
                return mods, L, shared

    def _phrase(self, m, r, form):
        """Return (clue text, checker data). Checker: (kind, m, value) meaning kind-specific test."""
        if form == "short" and r != 0:
            d = m - r
            return (f"With {d} more coin{'s' if d > 1 else ''}, the hoard could be split exactly into bags of {m}.",
                    (1, m, r))
        if form == "give":
            e = r + m * self.rng.randint(1, 4)
            return (f"After paying a bribe of {e} coins, the rest could be shared equally among {m} crew members "
                    f"with nothing left over.", (1, m, r))
        if form == "mirror":
            n = r + m * self.rng.randint(40, 900)
            return (f"Stacked in towers of {m}, the hoard leaves exactly as many loose coins as a pile of {n} coins "
                    f"stacked the same way would.", (1, m, r))
        if form == "scaled":
            ks = [k for k in range(2, 10) if math.gcd(k, m) == 1]
            k = self.rng.choice(ks)
            s = (k * r) % m
            return (f"If every coin were replaced by {k} coins, sorting them into crates of {m} would leave "
                    f"{s} coin{'s' if s != 1 else ''} over.", (1, m, r))
        if r == 0:
            return f"The coins divide evenly into piles of {m}.", (1, m, r)
        return f"Arranged in piles of {m}, the hoard leaves {r} coin{'s' if r > 1 else ''} over.", (1, m, r)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.done = False
        while True:
            mods, L, shared = self._pick_moduli()
            x = self.rng.randint(101, L - 1)
            forms = list(self.cfg["forms"])
            chosen = []
            for idx in range(len(mods)):
                # make sure the richer forms actually appear at the harder levels
                if idx < len(forms) - 2 and self.difficulty != "easy":
                    chosen.append(forms[2 + idx])
                else:
                    chosen.append(self.rng.choice(forms))
            self.rng.shuffle(chosen)
            clues = []
            for m, form in zip(mods, chosen):
                clues.append(self._phrase(m, x % m, form))
            order = list(range(len(mods)))
            self.rng.shuffle(order)
            self.moduli = [mods[i] for i in order]
            self.residues = [x % mods[i] for i in order]
            self.clues = [clues[i][0] for i in order]
            self.forms_used = set(chosen)
            self.period = L
            self.shared = shared
            self._answer = x
            text = self._render()
            tokens = set(re.findall(r"\d+", text + " " + self.hint()))
            if str(x) not in tokens:
                break
        self.task_text = text
        return text, {}

    def _render(self):
        lines = ["The smuggler Ilse buried a chest of gold coins and left her partner a list of clues about "
                 "how many coins it holds:"]
        for i, c in enumerate(self.clues, 1):
            lines.append(f"  Clue {i}: {c}")
        lines.append("What is the SMALLEST positive number of coins consistent with every clue?")
        lines.append(f"Answer with a single whole number in the form \\boxed{{number}}. "
                     f"You have {self.max_turns} attempts; after a wrong attempt you are told which clues your "
                     f"number breaks.")
        return "\n".join(lines)

    # ------------------------------------------------------------------ play
    def step(self, action):
        if self.done:
            return "The episode is over. Call reset() to start a new hoard.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        left = self.max_turns - self.turn
        content = _boxed(action)
        if content is None:
            msg = "No answer found. Put one whole number inside \\boxed{...}, e.g. the number of coins."
            return self._end_msg(msg, out, left)
        raw = content.replace(",", "").replace("$", "").replace(" ", "").strip()
        if not re.fullmatch(r"[+-]?\d{1,40}", raw):
            msg = f"'{content[:40]}' is not a whole number. The answer is a count of coins, e.g. \\boxed{{number}}."
            return self._end_msg(msg, out, left)
        val = int(raw)
        if val == self._answer:
            self.done = True
            return f"Correct! The chest holds {val} coins.", 1.0, True, False, {}
        if val <= 0:
            return self._end_msg("The chest holds a positive number of coins.", out, left)
        broken = [i + 1 for i, (m, r) in enumerate(zip(self.moduli, self.residues)) if val % m != r]
        if broken:
            held = [i + 1 for i in range(len(self.moduli)) if (i + 1) not in broken]
            msg = (f"{val} breaks clue{'s' if len(broken) > 1 else ''} {', '.join(map(str, broken))}"
                   + (f" (clue{'s' if len(held) > 1 else ''} {', '.join(map(str, held))} hold)." if held else "."))
        else:
            msg = f"{val} satisfies every clue, but it is not the smallest such positive number."
        return self._end_msg(msg, out, left)

    def _end_msg(self, msg, out, left):
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {left}.", 0.0, False, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        parts = ["First turn every clue into a plain statement 'count = r (mod m)'."]
        if "mirror" in self.forms_used:
            parts.append("A reference pile only matters through its remainder modulo the tower size.")
        if "give" in self.forms_used:
            parts.append("A bribe of e coins means count = e (mod crew size); reduce e.")
        if "scaled" in self.forms_used:
            parts.append("For the scaled clue, multiply by the inverse of the scale factor modulo the crate size.")
        if self.shared:
            a, b, g = self.shared[0]
            parts.append(f"Moduli {a} and {b} share the factor {g}, so together they only fix the count modulo "
                         f"{_lcm(a, b)}, not {a * b}.")
        parts.append(f"All clues together repeat with period {self.period}, so the answer lies between 1 and "
                     f"{self.period - 1}; combine the clues one at a time, starting with the largest modulus, "
                     f"stepping through its candidates.")
        return " ".join(parts)

    def close(self):
        pass
