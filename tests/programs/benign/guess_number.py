"""Reference style: global random.seed, f-strings, regex, math_verify, a base class."""
import random
import re
from math_verify import parse, verify


def verify_answer(player_answer, solution):
    if player_answer.strip() == solution.strip():
        return True
    try:
        return verify(parse(solution), parse(player_answer))
    except Exception:
        return False


class BaseGame:
    title: str = "Base"
    min_value: int = 1

    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0


class NumberHuntEnv(BaseGame):
    title: str = "Number Hunt"

    def __init__(self, max_turns=8, **kwargs):
        super().__init__(max_turns=max_turns, **kwargs)
        self._solution = None
        self._low = 1
        self._high = 1000
        self.history = []
        self.reset()

    def reset(self, seed=None):
        if seed is not None:
            random.seed(seed)
        self.turn_count = 0
        self._solution = random.randint(self._low, self._high)
        self.history = []
        obs = (f"{self.title}: I picked a number between {self._low} and {self._high}. "
               f"You have {self.max_turns} guesses. Answer with \\boxed{{number}}.")
        return obs, {}

    def solution(self):
        return str(self._solution)

    def step(self, action):
        self.turn_count += 1
        match = re.search(r"\\boxed\{([^}]+)\}", action)
        truncated = self.turn_count >= self.max_turns
        if not match:
            return "Please answer in the format \\boxed{number}.", 0.0, False, truncated, {}
        guess = match.group(1).strip()
        if verify_answer(guess, self.solution()):
            return f"Correct! It was {self._solution}.", 1.0, True, False, {}
        try:
            value = int(guess)
        except ValueError:
            return "That is not a whole number. {} guesses left.".format(self.max_turns - self.turn_count), 0.0, False, truncated, {}
        self.history.append(value)
        direction = "higher" if value < self._solution else "lower"
        if truncated:
            return f"Out of guesses. The number was {self._solution}.", 0.0, False, True, {}
        return f"Wrong. Go {direction}. Guesses so far: {self.history}", 0.0, False, False, {"turn": self.turn_count}

    def close(self):
        pass
