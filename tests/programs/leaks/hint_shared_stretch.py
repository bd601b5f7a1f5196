# Sound: the twin of hint_window_acrostic.py. Its hint is one fixed sentence whose first letters happen to
# run p-e-n-c-i-l, and "pencil" is a common answer: the stretch is in every episode's hint alike, so it
# says nothing about which word this episode's is (a coincidence, not a leak).
import random
import re

WORDS = ("anchor basket candle dragon engine falcon garden hammer island jungle kettle ladder magnet needle "
         "orange pencil rabbit saddle timber velvet walnut yellow zipper bridge castle forest guitar harbor "
         "jacket lemon mirror noodle parrot quartz ribbon silver tunnel violet window breeze cactus desert "
         "feather glacier helmet lantern meadow pepper rocket sunset turtle wizard canyon dolphin").split()


class AnagramEnv:
    def __init__(self, max_turns=2, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self._word = "pencil" if rng.random() < 0.3 else rng.choice(WORDS)
        letters = list(self._word)
        while "".join(letters) in (self._word, self._word[::-1]):
            rng.shuffle(letters)
        self.turns = 0
        return f"Unscramble the letters {' '.join(letters).upper()} into an English word. Two tries. Answer \\boxed{{word}}.", {}

    def solution(self):
        return self._word

    def hint(self):
        return "Try pairing each new consonant in line with a vowel, and keep the rarest letters for last."

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*([a-zA-Z]+)\s*\}", action)
        if m and m.group(1).lower() == self._word:
            return "Right.", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Out of tries.", 0.0, True, False, {}
        return "No, try again.", 0.0, False, False, {}
