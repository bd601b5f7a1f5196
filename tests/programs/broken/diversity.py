# Breaks the DIVERSITY check: reset() ignores its seed, so every episode poses the same task.
import re


class FixedEquationEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self.reset()

    def reset(self, seed=None):
        self.turn_count = 0
        return "Compute 3847 * 29 - 1234. Answer with \\boxed{number}.", {}

    def solution(self):
        return str(3847 * 29 - 1234)

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip() == self.solution():
            return "Correct!", 1.0, True, False, {}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {}
