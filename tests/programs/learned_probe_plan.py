# A safe with four dials (0-9). "listen K" gives a clue about dial K; "open CODE" tries the code once.
# MODE "copy": the clue is the dial's digit ("Dial 2 clicks at 3."), so the same four listens on every
# safe, then the heard digits in order, open it without any reasoning. MODE "sum": the clue for dial K
# (K < 4) is the last digit of dial K + dial K+1, and dial 4 clicks at its digit, so the code follows
# only by working back from dial 4. The tests substitute MODE.
import random
import re

MODE = "copy"
DIALS = 4


class DialSafeEnv:
    def __init__(self, max_turns=7, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.code = [rng.randrange(10) for _ in range(DIALS)]
        self.heard = set()
        self.turn = 0
        return (f"A safe with {DIALS} dials, each 0-9. Send \\boxed{{listen K}} (K from 1 to {DIALS}) to hear a "
                "clue about dial K, or \\boxed{open CODE} (e.g. open 0000) to try a code once."), {}

    def _code(self):
        return "".join(map(str, self.code))

    def solution(self):
        for k in range(1, DIALS + 1):
            if k not in self.heard:
                return f"listen {k}"
        return f"open {self._code()}"

    def _clue(self, k):
        if MODE == "sum" and k < DIALS:
            return f"Dials {k} and {k + 1} add up to something ending in {(self.code[k - 1] + self.code[k]) % 10}."
        return f"Dial {k} clicks at {self.code[k - 1]}."

    def step(self, action):
        self.turn += 1
        listen = re.search(r"\\boxed\{\s*listen\s+(\d)\s*\}", action)
        opening = re.search(r"\\boxed\{\s*open\s+(\d{4})\s*\}", action)
        if opening:
            if opening.group(1) == self._code():
                return "The safe opens.", 1.0, True, False, {}
            return "Wrong code: the safe locks for good.", 0.0, True, False, {}
        if listen and 1 <= int(listen.group(1)) <= DIALS:
            k = int(listen.group(1))
            self.heard.add(k)
            text = self._clue(k)
        else:
            text = "Send \\boxed{listen K} or \\boxed{open CODE}."
        if self.turn >= self.max_turns:
            return text + " Time is up.", 0.0, False, True, {}
        return text, 0.0, False, False, {}
