# Hint rule, bad: the hint names the winning sequence of moves ("The right order is 45, 12, 88, 31"),
# and the screen lists the marked levers in that same order. A script that plays the hint's numbers
# in the form of other seeds' moves wins, and so does the same script reading the screen instead: the
# screen hands the moves over too, which no baseline of the zoo reads ("pull 45", not "45").
import random
import re


class LeverLockEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.levers = rng.sample(range(10, 100), 8)
        self.order = rng.sample(self.levers, 4)
        self.pulled = 0
        self.turns = 0
        clues = [f"{b} comes right after {a}" for a, b in zip(self.order, self.order[1:])]
        rng.shuffle(clues)
        return ("LEVER LOCK\nMarked levers (pull exactly these, each once, in the right order): "
                + ", ".join(map(str, self.order)) + "\nClues: " + "; ".join(clues) + ".\n"
                "Pull a lever with \\boxed{pull N}. A wrong lever jams the lock."), {}

    def solution(self):
        return f"pull {self.order[min(self.pulled, 3)]}"

    def hint(self):
        return "The right order is " + ", ".join(map(str, self.order)) + "."

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\boxed\{\s*pull\s+(\d{1,3})\s*\}", action)
        if m is None:
            if self.turns >= self.max_turns:
                return "Out of turns.", 0.0, False, True, {}
            return "Say which lever as \\boxed{pull N}.", 0.0, False, False, {}
        if int(m.group(1)) != self.order[self.pulled]:
            return "The lock jams.", 0.0, True, False, {}
        self.pulled += 1
        if self.pulled == 4:
            return "The lock clicks open.", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Out of turns.", 0.0, False, True, {}
        return f"Lever {m.group(1)} stays down. {4 - self.pulled} to go.", 0.0, False, False, {}
