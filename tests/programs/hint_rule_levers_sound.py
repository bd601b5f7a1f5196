# Hint rule, sound twin of hint_rule_levers: the hint gives the idea that finds the order (start
# from the lever no clue puts after another), and names no lever: no script reads a move off it.
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
        marked = sorted(self.order)
        return ("LEVER LOCK\nLevers: " + " ".join(map(str, sorted(self.levers))) + "\n"
                "Marked levers (pull exactly these, each once, in the right order): "
                + ", ".join(map(str, marked)) + "\nClues: " + "; ".join(clues) + ".\n"
                "Pull a lever with \\boxed{pull N}. A wrong lever jams the lock."), {}

    def solution(self):
        return f"pull {self.order[min(self.pulled, 3)]}"

    def hint(self):
        return "Start from the marked lever that no clue puts after another one, then follow the clues."

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
