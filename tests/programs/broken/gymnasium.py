# Breaks the GYMNASIUM check: one attempt only, and a wrong answer ends the episode with
# truncated=True after a single step, which gymnasium's check_env rejects (a lost game
# should be terminated=True; truncation is for running out of time).
import random
import re


class OneShotVaultEnv:
    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = ""
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        digits = [rng.randint(0, 9) for _ in range(6)]
        self._answer = "".join(str(d) for d in sorted(digits, reverse=True))
        return (f"The vault code is the digits {digits} arranged into the largest number. "
                f"One attempt. Answer with \\boxed{{code}}."), {}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{([^}]*)\}", action)
        if m and m.group(1).strip() == self._answer:
            return "The vault opens.", 1.0, True, False, {}
        return "Alarm! Wrong code.", 0.0, False, self.turn_count >= self.max_turns, {}
