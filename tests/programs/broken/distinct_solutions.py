# Breaks the DISTINCT_SOLUTIONS check: every seed shows a different sentence, but the answer
# is always the same word, so an agent can memorise it without reading anything.
import random


class AlwaysAmberEnv:
    COLOURS = ["red", "green", "blue", "violet", "amber", "teal", "ochre", "ivory"]

    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        shown = rng.sample(self.COLOURS, 5)
        self.turns = 0
        return f"Colours: {', '.join(shown)} (and {rng.randint(2, 99)} more). Name the secret colour in \\boxed{{}}.", {}

    def solution(self):
        return "amber"

    def step(self, action):
        self.turns += 1
        if "\\boxed{amber}" in action:
            return "Right.", 1.0, True, False, {}
        return "Wrong.", 0.0, True, False, {}
