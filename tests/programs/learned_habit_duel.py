# Rounds of fire/water/grass (water beats fire, fire beats grass, grass beats water) against a rival
# with one fixed habit per match, drawn by the seed (MODE "habit"): a hidden cycle of four or five
# moves, or a hidden reply to your previous move (a copy of it, or the move that beats it). Every
# round shows both moves; win 11 of 20 rounds. No constant move and no fixed sequence beats most
# habits, but a next-move predictor learns each from the record within a few rounds and wins.
# MODE "random": the rival's moves come from a seeded generator, so no predictor beats it (the
# privileged policy still does, knowing the next move). The tests substitute MODE.
import random
import re

MODE = "habit"
ROUNDS, NEEDED = 20, 11
MOVES = ("fire", "water", "grass")
BEATS = {"fire": "water", "water": "grass", "grass": "fire"}  # move -> what beats it


class HabitDuelEnv:
    def __init__(self, max_turns=ROUNDS, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.habit = rng.choice(["cycle", "reply"]) if MODE == "habit" else "random"
        # a cycle of four or five with every move in it, or a reply that copies or beats your move:
        # no constant move wins, and too many habits for one fixed sequence of moves to beat most
        self.cycle = rng.sample(MOVES, 3)
        for _ in range(rng.choice([1, 2])):
            self.cycle.insert(rng.randrange(len(self.cycle) + 1), rng.choice(MOVES))
        self.reply = {m: rng.choice([m, BEATS[m]]) for m in MOVES}
        self.opening = rng.choice(MOVES)
        self.noise = random.Random(rng.random())
        self.draws = [self.noise.choice(MOVES) for _ in range(ROUNDS)]
        self.round, self.wins, self.mine = 0, 0, None
        return (f"Fire, water, grass: water beats fire, fire beats grass, grass beats water. The rival has a "
                f"habit. Win {NEEDED} of {ROUNDS} rounds. Play \\boxed{{fire}}, \\boxed{{water}} or "
                f"\\boxed{{grass}}."), {}

    def _theirs(self):
        if self.habit == "cycle":
            return self.cycle[self.round % len(self.cycle)]
        if self.habit == "reply":
            return self.opening if self.mine is None else self.reply[self.mine]
        return self.draws[self.round]

    def solution(self):
        return BEATS[self._theirs()]

    def step(self, action):
        m = re.search(r"\\boxed\{\s*(fire|water|grass)\s*\}", action.lower())
        mine = m.group(1) if m else None
        theirs = self._theirs()
        self.round += 1
        if mine == BEATS[theirs]:
            self.wins += 1
            outcome = "you win"
        elif mine == theirs:
            outcome = "draw"
        else:
            outcome = "rival wins"
        self.mine = mine
        text = f"Round {self.round}: you {mine or 'nothing'}, rival {theirs} - {outcome}. Wins {self.wins}."
        if self.wins >= NEEDED:
            return text + " Match won!", 1.0, True, False, {}
        if self.wins + (ROUNDS - self.round) < NEEDED:
            return text + " Match lost.", 0.0, True, False, {}
        return text, 0.0, False, False, {}
