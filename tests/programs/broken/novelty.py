# Breaks the NOVELTY check: the benign guess_number.py program (NumberHuntEnv) with every
# name and text changed; validated against a suite that holds the original.
import random
import re
from math_verify import parse, verify


def check_guess(given, solution):
    if given.strip() == solution.strip():
        return True
    try:
        return verify(parse(solution), parse(given))
    except Exception:
        return False


class Game:
    label: str = "Game"
    lowest: int = 1

    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.turns = 0


class SecretValueEnv(Game):
    label: str = "Secret Value"

    def __init__(self, max_turns=8, **kwargs):
        super().__init__(max_turns=max_turns, **kwargs)
        self._secret = None
        self._lo = 1
        self._hi = 1000
        self.guesses = []
        self.reset()

    def reset(self, seed=None):
        if seed is not None:
            random.seed(seed)
        self.turns = 0
        self._secret = random.randint(self._lo, self._hi)
        self.guesses = []
        obs = (f"{self.label}: a secret value lies between {self._lo} and {self._hi}. "
               f"{self.max_turns} tries. Reply as \\boxed{{value}}.")
        return obs, {}

    def solution(self):
        return str(self._secret)

    def step(self, action):
        self.turns += 1
        found = re.search(r"\\boxed\{([^}]+)\}", action)
        out_of_tries = self.turns >= self.max_turns
        if not found:
            return "Reply as \\boxed{value}.", 0.0, False, out_of_tries, {}
        attempt = found.group(1).strip()
        if check_guess(attempt, self.solution()):
            return f"Yes! The value was {self._secret}.", 1.0, True, False, {}
        try:
            number = int(attempt)
        except ValueError:
            return "Whole numbers only. {} tries remain.".format(self.max_turns - self.turns), 0.0, False, out_of_tries, {}
        self.guesses.append(number)
        way = "up" if number < self._secret else "down"
        if out_of_tries:
            return f"No tries left. The value was {self._secret}.", 0.0, False, True, {}
        return f"No. Aim {way}. Tried: {self.guesses}", 0.0, False, False, {"turn": self.turns}

    def close(self):
        pass
