# A pure lottery: the first screen differs on every seed (a random ticket number), but the winning
# number is drawn apart from it and every wrong guess gets the same reply: nothing the agent sees
# predicts the answer. The old informative check passed it ("the first observation differs").
import random
import re


class TicketLotteryEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.ticket = rng.randint(10000, 99999)
        self.winning = rng.randint(1, 100)
        self.turns = 0
        return (f"NUMBER LOTTERY. Your ticket number is {self.ticket}. Guess tonight's winning number (1-100) "
                f"as \\boxed{{n}}. You have {self.max_turns} tries."), {}

    def solution(self):
        return str(self.winning)

    def step(self, action):
        self.turns += 1
        match = re.search(r"\\boxed\{\s*(-?\d+)\s*\}", action)
        if match and int(match.group(1)) == self.winning:
            return f"Winner! The number was {self.winning}.", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return f"No luck. The winning number was {self.winning}.", 0.0, True, False, {}
        return "Not this time. Try again.", 0.0, False, False, {}
