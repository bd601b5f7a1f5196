"""Rival habit duel: rounds of rock-paper-scissors against a scripted rival that follows exactly one habit
from an announced list (a fixed hidden cycle, a hidden reply table to your last move, countering your
favourite move, sticking until beaten...) with hidden details. Each round shows both moves; work out the habit from
the record, then exploit it to win enough rounds before the match ends."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
MOVES = ["rock", "paper", "scissors"]
BEATS = {"rock": "paper", "paper": "scissors", "scissors": "rock"}  # BEATS[m] is the move that beats m
HABITS = {
    "cycle": "repeats a fixed hidden sequence of 3 or 4 moves over and over (from its very first move)",
    "answer": "answers YOUR previous move from a hidden reply table: for each move you might have played it has "
              "one fixed reply, which either copies that move or beats it (the table may differ move by move)",
    "answer2": "answers the move YOU played two rounds before from a hidden reply table (for each move, one "
               "fixed reply that either copies it or beats it; its first two moves are fixed openings)",
    "counter_fav": "answers the move YOU have played most often so far (a tie goes to the tied move you played "
                   "most recently) from a hidden reply table: for each move, one fixed reply that either copies it or beats it",
    "sticky": "keeps its move until it loses a round, then switches to the hidden table's reply to the move you "
              "just beat it with (for each move, one fixed reply that either copies it or beats it)",
}
# difficulty -> (rounds, wins needed, habits drawn from, longest cycle)
LEVELS = {
    "easy": (14, 10, ("cycle", "answer", "counter_fav"), 4),
    "medium": (15, 11, ("cycle", "answer", "counter_fav", "sticky"), 4),
    "hard": (16, 12, ("cycle", "answer", "answer2", "counter_fav", "sticky"), 4),
}


class RivalHabitDuelEnv:
    def __init__(self, max_turns=19, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rounds, self.need, self.habits, self.max_cycle = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, self.rounds + 3)
        self.rng = random.Random()
        self.habit = "cycle"
        self.cycle = []
        self.opening = "rock"
        self.openings = ["rock", "rock"]
        self.table = {m: m for m in MOVES}
        self.mine = []
        self.theirs = []
        self.scout_mine = []
        self.scout_theirs = []
        self.wins = 0
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ the rival
    def _rival_move(self, mine, theirs):
        k = len(theirs)
        if self.habit == "cycle":
            return self.cycle[k % len(self.cycle)]
        if k == 0:
            return self.opening
        if self.habit == "answer2":
            if k < 2:
                return self.openings[k]
            return self._shifted(mine[-2])
        you, it = mine[-1], theirs[-1]
        if self.habit == "answer":
            return self._shifted(you)
        if self.habit == "counter_fav":
            best = max(MOVES, key=lambda m: (mine.count(m), max([i for i, x in enumerate(mine) if x == m] or [-1])))
            return self._shifted(best)
        # sticky: switch only after losing, to the winning move copied or beaten
        return self._shifted(you) if you == BEATS[it] else it

    def _shifted(self, move):
        """The hidden reply table: each move is either copied or beaten, never lost to (a rival that lost to
        a fixed move would hand the match to a player who never changes move)."""
        return self.table[move]

    @staticmethod
    def _outcome(you, it):
        if you == it:
            return 0
        return 1 if you == BEATS[it] else -1

    def _draw(self):
        self.habit = self.rng.choice(self.habits)
        length = self.rng.randint(3, self.max_cycle)
        while True:
            self.cycle = [self.rng.choice(MOVES) for _ in range(length)]
            if len(set(self.cycle)) > 1:
                break
        self.openings = [self.rng.choice(MOVES), self.rng.choice(MOVES)]
        self.opening = self.openings[0]
        while True:
            self.table = {m: self.rng.choice([m, BEATS[m]]) for m in MOVES}
            if len(set(self.table[m] == m for m in MOVES)) == 2:
                break

    def _blind_wins(self):
        """Does a player who never looks (one move forever, or a fixed rotation of the three) win this match?"""
        scripts = [[m] for m in MOVES]
        for start in MOVES:
            scripts.append([start, BEATS[start], BEATS[BEATS[start]]])
            scripts.append([start, BEATS[BEATS[start]], BEATS[start]])
        for script in scripts:
            mine, theirs, wins = [], [], 0
            for k in range(self.rounds):
                it = self._rival_move(mine, theirs)
                you = script[k % len(script)]
                wins += self._outcome(you, it) == 1
                mine.append(you)
                theirs.append(it)
            if wins >= self.need:
                return True
        return False

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(100):
            self._draw()
            if not self._blind_wins():
                break
        # a scouting report: the same rival's first rounds in an earlier match against another player (the habit,
        # its openings and its table are the same; every match starts afresh)
        self.scout_mine, self.scout_theirs = [], []
        for _ in range(3):
            it = self._rival_move(self.scout_mine, self.scout_theirs)
            self.scout_mine.append(self.rng.choice(MOVES))
            self.scout_theirs.append(it)
        self.mine, self.theirs = [], []
        self.wins = 0
        self.turn = 0
        self.done = False
        return self._render("Round 1: make your move."), {}

    # ------------------------------------------------------------------ text
    def _render(self, last):
        habits = "\n".join(f"  - {text}" for name, text in HABITS.items() if name in self.habits)
        rows = []
        for i, (you, it) in enumerate(zip(self.mine, self.theirs)):
            res = {1: "you win", 0: "draw", -1: "rival wins"}[self._outcome(you, it)]
            rows.append(f"  round {i + 1}: you {you}, rival {it} - {res}")
        record = "\n".join(rows) if rows else "  (no rounds played yet)"
        scout = "\n".join(f"  round {i + 1}: Kit {you}, rival {it}"
                          for i, (you, it) in enumerate(zip(self.scout_mine, self.scout_theirs)))
        return ("RIVAL HABIT DUEL\n"
                f"Rock beats scissors, scissors beat paper, paper beats rock. The match has {self.rounds} rounds; "
                f"win at least {self.need} of them (draws do not count).\n"
                "The rival follows exactly ONE of these habits for the whole match (which one, and its hidden "
                "details such as its cycle or its opening move, you must work out):\n" + habits + "\n"
                "Scouting report: the first rounds of the rival's last match, against Kit (same habit, same hidden "
                "details; every match starts afresh, so your match begins like that one did):\n" + scout + "\n"
                "Record of your match so far:\n" + record + "\n"
                f"Wins: {self.wins}, rounds left: {self.rounds - len(self.mine)}.\n"
                "Play with \\boxed{rock}, \\boxed{paper} or \\boxed{scissors}.\n"
                f"Last: {last}")

    def step(self, action):
        if self.done:
            return "The match is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        body = m.group(1).strip().lower() if m else ""
        if body not in MOVES:
            last = "No move read (turn lost, the round was not played): \\boxed{rock}, \\boxed{paper} or \\boxed{scissors}."
        else:
            it = self._rival_move(self.mine, self.theirs)
            res = self._outcome(body, it)
            self.mine.append(body)
            self.theirs.append(it)
            self.wins += res == 1
            last = (f"Round {len(self.mine)}: you {body}, rival {it} - "
                    + {1: "you win.", 0: "draw.", -1: "the rival wins."}[res])
            left = self.rounds - len(self.mine)
            if self.wins >= self.need:
                self.done = True
                return self._render(last + f" You have {self.wins} wins: match won!"), 1.0, True, False, {}
            if self.wins + left < self.need:
                self.done = True
                return self._render(last + f" {self.need} wins are out of reach now: match lost."), 0.0, True, False, {}
        if self.turn >= self.max_turns:
            self.done = True
            return self._render(last + " Out of turns: match lost."), 0.0, True, False, {}
        return self._render(last), 0.0, False, False, {}

    def solution(self):
        return BEATS[self._rival_move(self.mine, self.theirs)]

    def hint(self):
        names = {"cycle": "a hidden cycle", "answer": "answering your previous move",
                 "answer2": "answering your move from two rounds before",
                 "counter_fav": "countering your favourite move", "sticky": "sticking until it loses"}
        return (f"The rival's habit is {names[self.habit]}. Work out its hidden details from the record, predict "
                "its next move, then play the move that beats the prediction.")
