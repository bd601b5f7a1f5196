"""Cipher probe: an enciphering machine applies a hidden letter rule (each letter is multiplied and shifted
along the alphabet, and the shift may cycle with the letter's position). You may feed it words of your choice a
few times and read what comes out; then decipher an intercepted word in one try."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
WORDS = ["harbor", "lantern", "meadow", "thistle", "garnet", "willow", "quarry", "saffron", "badger", "marble",
         "juniper", "pewter", "orchard", "tundra", "beacon", "canyon", "dagger", "fennel", "glacier", "kettle",
         "mantis", "nutmeg", "oyster", "pepper", "quiver", "sorrel", "timber", "velvet", "walnut", "zephyr",
         "anchor", "basket", "candle", "dragon", "falcon", "garden", "hammer", "island", "jacket", "jungle",
         "ladder", "magnet", "needle", "orchid", "parrot", "pencil", "pirate", "planet", "pocket", "rabbit",
         "saddle", "salmon", "shadow", "spider", "statue", "tunnel", "turtle", "violin", "walrus", "window"]
MULTS = [1, 3, 5, 7, 9, 11, 15, 17, 19, 21, 23, 25]
# difficulty -> (multipliers allowed, shift period choices, probes allowed)
LEVELS = {"easy": ([1], (1,), 3), "medium": ([1, 3, 5, 7], (1, 2), 3), "hard": (MULTS, (2, 3), 3)}


class CipherProbeEnv:
    def __init__(self, max_turns=6, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.max_turns = max(max_turns, 5)
        self.rng = random.Random()
        self.mult = 1
        self.shifts = [0]
        self.target = ""
        self.plain = ""
        self.probes = []
        self.budget = 3
        self.turn = 0
        self.done = False
        self.last = ""

    def _enc(self, word):
        return "".join(chr((self.mult * (ord(ch) - 97) + self.shifts[i % len(self.shifts)]) % 26 + 97)
                       for i, ch in enumerate(word))

    def reset(self, seed=None):
        # each level draws its own task for a seed, so one level's answer tells nothing about another's
        self.rng = random.Random(f"{self.difficulty}:{seed}" if seed is not None else None)
        mults, periods, self.budget = LEVELS[self.difficulty]
        self.mult = self.rng.choice(mults)
        period = self.rng.choice(periods)
        self.shifts = [self.rng.randrange(1, 26) for _ in range(period)]
        self.plain = self.rng.choice(WORDS)
        self.target = self._enc(self.plain)
        self.probes = []
        self.turn = 0
        self.done = False
        self.last = "The machine is ready."
        return self._render(), {}

    def _render(self):
        lines = ["CIPHER PROBE",
                 "A machine enciphers lowercase words letter by letter: it multiplies each letter's alphabet number "
                 "(a=0 ... z=25) by a fixed odd number other than 13 and adds a shift, modulo 26; the shift may "
                 "change with the letter's position, repeating every few letters.",
                 f"Intercepted word: {self.target} ({len(self.target)} letters)",
                 f"Probes left: {self.budget - len(self.probes)}"]
        for w, c in self.probes:
            lines.append(f"  you fed '{w}' -> '{c}'")
        lines.append(f"Last: {self.last}")
        lines.append("Send \\boxed{probe WORD} (lowercase letters, up to 12) to see its enciphering, or "
                     "\\boxed{answer WORD} to give the deciphered word - one answer only, it ends the game.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:5000])
        body = m.group(1).strip().lower() if m else ""
        pm = re.fullmatch(r"probe\s+([a-z]{1,12})", body)
        am = re.fullmatch(r"(?:answer\s+)?([a-z]{1,20})", body)
        if pm:
            if len(self.probes) >= self.budget:
                self.last = "No probes left: give your answer."
            else:
                w = pm.group(1)
                self.probes.append((w, self._enc(w)))
                self.last = f"'{w}' enciphers to '{self._enc(w)}'."
        elif am and body.startswith("answer"):
            self.done = True
            if am.group(1) == self.plain:
                self.last = "Deciphered correctly. You win!"
                return self._render(), 1.0, True, False, {}
            self.last = f"Wrong: the word was '{self.plain}'. You lose."
            return self._render(), 0.0, True, False, {}
        else:
            self.last = "Could not read a command (turn lost): \\boxed{probe WORD} or \\boxed{answer WORD}."
        if self.turn >= self.max_turns:
            self.done = True
            self.last += " Out of turns: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        n = 6
        if len(self.probes) < 2 and len(self.probes) < self.budget:
            return "probe " + ("a" * n if not self.probes else "b" * n)
        return "answer " + self.plain

    def hint(self):
        return ("Probe with words made of one repeated letter: 'aaaaaa' shows the shift at every position (a is 0), "
                "and a second probe such as 'bbbbbb' then reveals the multiplier. Undo the shift, then multiply by "
                f"the multiplier's inverse modulo 26. The shift here repeats every {len(self.shifts)} letter(s).")
