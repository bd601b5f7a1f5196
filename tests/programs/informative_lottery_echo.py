# A lottery that decorates its replies: the same opening screen on every seed, and every wrong guess
# gets "ticket <number>: not this time", with a ticket number drawn per seed. The replies differ
# between seeds (the old check took that as evidence), but every seed answers every guess alike:
# the feedback says nothing about the winning number, drawn apart from the ticket.
import random
import re


class EchoLotteryEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.winning = rng.randint(1, 100)
        self.ticket = rng.randint(10000, 99999)
        self.turns = 0
        return (f"NUMBER LOTTERY. Guess tonight's winning number (1-100) as \\boxed{{n}}. You have "
                f"{self.max_turns} tries."), {}

    def solution(self):
        return str(self.winning)

    def step(self, action):
        self.turns += 1
        match = re.search(r"\\boxed\{\s*(-?\d+)\s*\}", action)
        if match and int(match.group(1)) == self.winning:
            return f"Ticket {self.ticket} wins!", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return f"Ticket {self.ticket}: no luck tonight.", 0.0, True, False, {}
        return f"Ticket {self.ticket}: not this time.", 0.0, False, False, {}
