# Hint rule, bad: the hint states the arithmetic recipe over the numbers on the screen ("Add the two
# largest catches and multiply the total by 3"), never the answer; a script that evaluates the
# recipe it reads over the screen's numbers wins.
import random
import re

HUNTERS = ["Aldo", "Bree", "Cass", "Dov", "Eli", "Fen", "Gus", "Hale"]
WORDS = {2: "two", 3: "three"}


class GuildPayEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        names = rng.sample(HUNTERS, 6)
        catches = rng.sample(range(5, 40), 6)
        self.k, self.m = rng.choice([2, 3]), rng.choice([2, 3, 4])
        self.answer = self.m * sum(sorted(catches, reverse=True)[: self.k])
        self.turns = 0
        table = "\n".join(f"  {n}: {c}" for n, c in zip(names, catches))
        return ("GUILD PAY\nPelts brought in this season:\n" + table + "\n"
                f"Only the {WORDS[self.k]} finest hunters are paid. Their pelts go into one pool, and the guild "
                f"pays {WORDS.get(self.m, 'four')} coins for every pelt in the pool. How many coins does the guild "
                "pay? Answer with \\boxed{COINS}; three tries."), {}

    def solution(self):
        return str(self.answer)

    def hint(self):
        return f"Add the {WORDS[self.k]} largest catches and multiply the total by {self.m}."

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*(\d{1,6})\s*\}", action)
        if m is not None and int(m.group(1)) == self.answer:
            return "Right: the guild pays that.", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Wrong. No tries left.", 0.0, True, False, {}
        return "Wrong.", 0.0, False, False, {}
