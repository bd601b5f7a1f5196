# Hint rule, bad: the hint names the rival's fixed habit (its cycle of moves from round 1, by their
# initials), never the moves that win; a script that learned on other seeds which move answers the
# letter at each place of the hint wins. Without the hint the cycle follows from the screen's clues.
import random
import re

MOVES = ["rock", "paper", "scissors"]
BEATS = {"rock": "paper", "paper": "scissors", "scissors": "rock"}
LOSES = {v: k for k, v in BEATS.items()}


class RivalCycleEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.cycle = rng.sample(MOVES, 3)
        self.round = 0
        self.wins = 0
        probe = rng.choice(MOVES)
        clues = []
        for place, move in zip(("first", "second", "third"), self.cycle):
            if BEATS[probe] == move:
                clues.append(f"its {place} move beats {probe}")
            elif LOSES[probe] == move:
                clues.append(f"its {place} move loses to {probe}")
            else:
                clues.append(f"its {place} move ties with {probe}")
        return ("RIVAL CYCLE\nThe rival repeats a fixed cycle of three different moves (rock, paper, scissors), "
                "starting with the first in round 1. Clues: " + "; ".join(clues) + ".\n"
                "Six rounds; win at least five. Play with \\boxed{rock}, \\boxed{paper} or \\boxed{scissors}."), {}

    def _rival(self):
        return self.cycle[self.round % 3]

    def solution(self):
        return BEATS[self._rival()]

    def hint(self):
        return "The rival's cycle from round 1, by initials: " + ", ".join(m[0].upper() for m in self.cycle) + "."

    def step(self, action):
        m = re.search(r"\\boxed\{\s*(rock|paper|scissors)\s*\}", action.lower())
        rival = self._rival()
        self.round += 1
        won = m is not None and m.group(1) == BEATS[rival]
        self.wins += won
        text = f"Round {self.round}: the rival played {rival}; you {'win' if won else 'do not win'} it."
        if self.round - self.wins > 1:
            return text + " Too many rounds lost.", 0.0, True, False, {}
        if self.round == 6:
            return text + " You win the match.", 1.0, True, False, {}
        return text, 0.0, False, False, {}
