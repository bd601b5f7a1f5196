# The lottery's sound twin: the same screen and replies, but tonight's winning number is the digit
# sum of the ticket shown, so what the agent sees determines the answer.
import random
import re


class TicketDigitsEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.ticket = rng.randint(10000, 99999)
        self.winning = sum(int(d) for d in str(self.ticket))
        self.turns = 0
        return (f"NUMBER LOTTERY. Your ticket number is {self.ticket}. Tonight's winning number is the sum of the "
                f"digits of your ticket number. Answer as \\boxed{{n}}. You have {self.max_turns} tries."), {}

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
