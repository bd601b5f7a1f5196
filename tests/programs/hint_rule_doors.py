# Hint rule, bad: the hint names the first move of a two-step game ("The amber door is the safe
# one"), never in the spelling of the move itself ("open amber"); after it the rest is mechanical
# (the vault's code is written on the next screen), so "the hint's first move, then copy" wins.
import random
import re

COLOURS = ["amber", "cobalt", "ivory", "olive", "coral", "slate", "khaki"]


class VaultDoorsEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.colours = rng.sample(COLOURS, 5)
        self.safe = rng.choice(self.colours)
        numbers = rng.sample([n for n in range(10, 100) if n % 7], 5)
        self.numbers = {c: (rng.choice(range(14, 99, 7)) if c == self.safe else n) for c, n in zip(self.colours, numbers)}
        self.code = rng.randint(1000, 9999)
        self.opened = False
        self.tries = 3
        self.turns = 0
        doors = "\n".join(f"  {c} door: number {self.numbers[c]}" for c in self.colours)
        return ("VAULT DOORS\n" + doors + "\nExactly one door is safe: the one whose number is a multiple of 7. "
                "Open a door with \\boxed{open COLOUR}; a wrong door sets off the alarm."), {}

    def solution(self):
        return str(self.code) if self.opened else f"open {self.safe}"

    def hint(self):
        return f"The {self.safe} door is the safe one."

    def _out_of_turns(self, text):
        if self.turns >= self.max_turns:
            return text + " Out of turns.", 0.0, False, True, {}
        return text, 0.0, False, False, {}

    def step(self, action):
        self.turns += 1
        if not self.opened:
            m = re.search(r"\\boxed\{\s*open\s+([a-z]+)\s*\}", action.lower())
            if m is None or m.group(1) not in self.colours:
                return self._out_of_turns("Say which door as \\boxed{open COLOUR}.")
            if m.group(1) != self.safe:
                return "The alarm sounds.", 0.0, True, False, {}
            self.opened = True
            return self._out_of_turns(f"The {self.safe} door swings open. A note on the keypad reads {self.code}; "
                                      "enter the code (3 tries).")
        m = re.search(r"\\boxed\{\s*(\d{1,6})\s*\}", action)
        if m is not None and int(m.group(1)) == self.code:
            return "The vault opens.", 1.0, True, False, {}
        self.tries -= 1
        if self.tries == 0:
            return "The keypad locks.", 0.0, True, False, {}
        return self._out_of_turns(f"Wrong code; {self.tries} tries left.")
