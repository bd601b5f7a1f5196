"""Ember piles duel: players alternately take embers from one pile, each pile with its own limit on how
many may be taken at once; whoever takes the last ember wins, against a rival who never misses a win."""

import random
import re

PILES = "ABCDE"


class EmberPilesDuelEnv:
    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.cfg = {
            "easy": {"piles": 3, "size": (3, 9), "cap": (2, 4), "shared_cap": True, "open_pile": False},
            "medium": {"piles": 4, "size": (3, 10), "cap": (2, 5), "shared_cap": False, "open_pile": False},
            "hard": {"piles": 5, "size": (2, 10), "cap": (2, 6), "shared_cap": False, "open_pile": True},
        }[self.difficulty]
        self.rng = random.Random()
        self.sizes = []
        self.caps = []
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ theory
    def _cap(self, i):
        return self.caps[i] if self.caps[i] > 0 else self.sizes[i]

    def _grundy(self, i, size=None):
        n = self.sizes[i] if size is None else size
        if self.caps[i] <= 0:  # open pile: any number may be taken
            return n
        return n % (self.caps[i] + 1)

    def _xor(self, sizes):
        total = 0
        for i, n in enumerate(sizes):
            total ^= self._grundy(i, n)
        return total

    def _legal(self):
        moves = []
        for i, n in enumerate(self.sizes):
            for k in range(1, min(n, self._cap(i)) + 1):
                moves.append((k, i))
        return moves

    def _winning_moves(self):
        out = []
        for k, i in self._legal():
            after = list(self.sizes)
            after[i] -= k
            if self._xor(after) == 0:
                out.append((k, i))
        return out

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        cfg = self.cfg
        limit = max(6, 2 * int(self.max_turns) - 1)  # each round removes >= 2 embers: the game fits
        for _ in range(1000):
            n = cfg["piles"]
            if cfg["shared_cap"]:
                k = self.rng.randint(*cfg["cap"])
                caps = [k] * n
            else:
                caps = [self.rng.randint(*cfg["cap"]) for _ in range(n)]
            if cfg["open_pile"]:
                caps[self.rng.randrange(n)] = 0
            sizes = [self.rng.randint(*cfg["size"]) for _ in range(n)]
            if sum(sizes) > limit:
                continue
            self.caps, self.sizes = caps, sizes
            wins = self._winning_moves()
            if self._xor(sizes) != 0 and 1 <= len(wins) <= 3 and len(self._legal()) >= 8:
                break
        self.turn = 0
        self.done = False
        self.last = "The braziers are lit. You move first."
        return self._observation(), {}

    def _pile_text(self):
        parts = []
        for i, n in enumerate(self.sizes):
            rule = "take any number" if self.caps[i] <= 0 else f"take 1 to {self.caps[i]}"
            parts.append(f"  pile {PILES[i]}: {n} ember{'' if n == 1 else 's'} ({rule})")
        return "\n".join(parts)

    def _observation(self):
        return (
            f"Turn {self.turn}/{self.max_turns} | Embers left: {sum(self.sizes)}\n"
            "Rules: on each move a player takes embers from exactly ONE pile, at least 1 and at most that pile's "
            "limit (never more than the pile holds). You and the rival alternate; whoever takes the LAST ember of "
            "all piles wins. The rival answers each of your moves at once.\n"
            f"Piles:\n{self._pile_text()}\n"
            f"Last: {self.last}\n"
            "Command: take N from X (N embers from pile X). Reply with one command inside \\boxed{}, "
            "e.g. \\boxed{take N from X} with your numbers."
        )

    def _parse(self, action):
        text = str(action)[:4000]
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        if not found:
            return None
        body = found[-1].strip().upper()
        letters = re.findall(r"(?<![A-Z])([A-E])(?![A-Z])", body.replace("FROM", " "))
        numbers = re.findall(r"\d+", body)
        if len(letters) != 1 or len(numbers) != 1 or len(numbers[0]) > 4:
            return ""
        return int(numbers[0]), PILES.index(letters[0])

    def step(self, action):
        if self.done:
            return "The duel is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        move = self._parse(action)
        if move is None:
            self.last = ("No command found. Put one command inside \\boxed{}, e.g. \\boxed{take N from X} with "
                         "your numbers.")
        elif move == "":
            self.last = "Could not read that. Name exactly one pile letter and one number of embers."
        else:
            k, i = move
            if i >= len(self.sizes):
                self.last = f"There is no pile {PILES[i]}. Nothing happened."
            elif self.sizes[i] == 0:
                self.last = f"Pile {PILES[i]} is empty. Nothing happened."
            elif k < 1 or k > self._cap(i) or k > self.sizes[i]:
                self.last = (f"Pile {PILES[i]} allows taking 1 to {min(self._cap(i), self.sizes[i])} embers now. "
                             "Nothing happened.")
            else:
                self.sizes[i] -= k
                mine = f"You took {k} from pile {PILES[i]}."
                if sum(self.sizes) == 0:
                    self.done = True
                    self.last = mine + " You took the last ember: you win the duel!"
                    return self._observation(), 1.0, True, False, {}
                rk, ri = self._rival_move()
                self.sizes[ri] -= rk
                self.last = mine + f" The rival took {rk} from pile {PILES[ri]}."
                if sum(self.sizes) == 0:
                    self.done = True
                    self.last += " The rival took the last ember: you lose."
                    return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " The braziers burn out: out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def _rival_move(self):
        wins = self._winning_moves()
        if wins:
            wins.sort(key=lambda m: (-m[0], m[1]))
            return wins[0]
        return self.rng.choice(self._legal())

    def solution(self):
        wins = self._winning_moves()
        if wins:
            wins.sort(key=lambda m: (-m[0], m[1]))
            k, i = wins[0]
        else:
            k, i = self._legal()[0] if self._legal() else (1, 0)
        return f"take {k} from {PILES[i]}"

    def hint(self):
        capped = [i for i in range(len(self.sizes)) if self.caps[i] > 0]
        example = ""
        if capped:
            i = capped[0]
            example = (f" For example, pile {PILES[i]} (take at most {self.caps[i]}) is lost for the player to move "
                       f"when it holds 0, {self.caps[i] + 1} or {2 * (self.caps[i] + 1)} embers.")
        return ("This is Nim in disguise: work out, for each pile alone, which sizes are lost for the player to "
                "move and how the pattern repeats; that gives each pile an equivalent Nim heap. Combine the heaps "
                "with bitwise XOR and always leave your opponent a total of 0." + example)

    def _legal_commands(self):
        return [f"take {k} from {PILES[i]}" for k, i in self._legal()]
