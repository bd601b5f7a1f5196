"""Coin row duel: coins of different values lie in a row; you and a rival alternately take one coin from
either end of the row, and the rival always plays perfectly. Finish with at least as much as perfect play
guarantees you; grabbing the larger end coin every time does not get there."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (coins, largest value)
LEVELS = {"easy": (8, 30), "medium": (10, 40), "hard": (12, 50)}


def best_table(coins):
    """best[i][j] = most the player to move can still collect from coins[i..j] against perfect play."""
    n = len(coins)
    total = [0] * (n + 1)
    for i, c in enumerate(coins):
        total[i + 1] = total[i] + c
    best = [[0] * n for _ in range(n)]
    for i in range(n):
        best[i][i] = coins[i]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            rest = total[j + 1] - total[i]
            best[i][j] = rest - min(best[i + 1][j], best[i][j - 1])
    return best


class CoinRowDuelEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, self.top = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, (self.n + 1) // 2 + 2)
        self.rng = random.Random()
        self.coins = []
        self.lo = 0
        self.hi = -1
        self.mine = 0
        self.theirs = 0
        self.target = 0
        self.log = []
        self.turn = 0
        self.done = False
        self.best = []

    def _greedy_total(self, coins):
        """What 'always take the larger end' collects against the perfect rival (player moves first)."""
        best = best_table(coins)
        lo, hi, mine, me = 0, len(coins) - 1, 0, True
        while lo <= hi:
            if me:
                take_left = coins[lo] >= coins[hi]
            else:
                take_left = lo == hi or best[lo + 1][hi] <= best[lo][hi - 1]
            value = coins[lo] if take_left else coins[hi]
            if me:
                mine += value
            if take_left:
                lo += 1
            else:
                hi -= 1
            me = not me
        return mine

    def _line_total(self, coins, best, left):
        """What always taking the left (or always the right) end collects against the perfect rival."""
        lo, hi, mine = 0, len(coins) - 1, 0
        while lo <= hi:
            if left:
                mine, lo = mine + coins[lo], lo + 1
            else:
                mine, hi = mine + coins[hi], hi - 1
            if lo <= hi:
                if lo == hi or best[lo + 1][hi] <= best[lo][hi - 1]:
                    lo += 1
                else:
                    hi -= 1
        return mine

    def _winning_lines(self, coins, best, target):
        """How many of the player's left/right sequences reach the target against the perfect rival: a task
        where most sequences win could be won by a fixed script."""
        def rec(lo, hi, mine):
            if lo > hi:
                return 1 if mine >= target else 0
            wins = 0
            for take_left in (True, False):
                l2, h2 = (lo + 1, hi) if take_left else (lo, hi - 1)
                got = mine + (coins[lo] if take_left else coins[hi])
                if l2 <= h2:
                    rival_left = l2 == h2 or best[l2 + 1][h2] <= best[l2][h2 - 1]
                    l2, h2 = (l2 + 1, h2) if rival_left else (l2, h2 - 1)
                wins += rec(l2, h2, got)
                if lo == hi:
                    break
            return wins
        return rec(0, len(coins) - 1, 0)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        chosen = None
        for _ in range(80):
            # distinct values: ties between lines of play are rare, so only the right moves reach the goal
            coins = self.rng.sample(range(1, self.top + 1), self.n)
            best = best_table(coins)
            target = best[0][self.n - 1]
            # the larger-end habit must fall short, and so must the even/odd-position split
            if self._greedy_total(coins) >= target or sum(coins[::2]) >= target or sum(coins[1::2]) >= target:
                continue
            if self._line_total(coins, best, True) >= target or self._line_total(coins, best, False) >= target:
                continue  # always taking the same end must not be enough
            lines = self._winning_lines(coins, best, target)
            if chosen is None or lines < chosen[0]:
                chosen = (lines, coins, best, target)
            if lines <= 2:
                break
        if chosen is None:  # practically unreachable; keep the last row
            chosen = (0, coins, best, target)
        _, coins, best, target = chosen
        self.coins = coins
        self.best = best
        self.target = target
        self.lo, self.hi = 0, self.n - 1
        self.mine = self.theirs = 0
        self.log = []
        self.turn = 0
        self.done = False
        return self._render("You move first."), {}

    def _render(self, last):
        row = " ".join(str(c) for c in self.coins[self.lo:self.hi + 1]) if self.lo <= self.hi else "(empty)"
        return ("COIN ROW DUEL\n"
                f"Row now (left to right): {row}\n"
                f"Your total: {self.mine} | Rival's total: {self.theirs} | Goal: finish with at least {self.target}.\n"
                f"Moves so far: {', '.join(self.log) if self.log else 'none'}\n"
                f"Last: {last}\n"
                "On your turn take the LEFT or the RIGHT end coin, e.g. \\boxed{left}. The rival then takes an end "
                "coin, always playing perfectly for itself.")

    def _rival_move(self):
        lo, hi = self.lo, self.hi
        if lo == hi:
            return True
        # leave the rival (here: the player) the smaller best share of the rest
        return self.best[lo + 1][hi] <= self.best[lo][hi - 1]

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:5000])
        word = m.group(1).strip().lower() if m else ""
        if word in ("left", "l"):
            take_left = True
        elif word in ("right", "r"):
            take_left = False
        else:
            last = "Could not read your move (turn lost, no coin taken): answer \\boxed{left} or \\boxed{right}."
            if self.turn >= self.max_turns:
                self.done = True
                return self._render(last + " Out of turns: you lose."), 0.0, True, False, {}
            return self._render(last), 0.0, False, False, {}
        coin = self.coins[self.lo] if take_left else self.coins[self.hi]
        if take_left:
            self.lo += 1
        else:
            self.hi -= 1
        self.mine += coin
        self.log.append(f"you {coin}")
        last = f"You took {coin} from the {'left' if take_left else 'right'}."
        if self.lo <= self.hi:
            rl = self._rival_move()
            rc = self.coins[self.lo] if rl else self.coins[self.hi]
            if rl:
                self.lo += 1
            else:
                self.hi -= 1
            self.theirs += rc
            self.log.append(f"rival {rc}")
            last += f" The rival took {rc} from the {'left' if rl else 'right'}."
        if self.lo > self.hi:
            self.done = True
            if self.mine >= self.target:
                return self._render(last + f" Row empty: you collected {self.mine}. You win!"), 1.0, True, False, {}
            return self._render(last + f" Row empty: you collected {self.mine}, short of {self.target}. You lose."), \
                0.0, True, False, {}
        if self.best[self.lo][self.hi] + self.mine < self.target:
            self.done = True
            return self._render(last + " The goal can no longer be reached against perfect play. You lose."), \
                0.0, True, False, {}
        if self.turn >= self.max_turns:
            self.done = True
            return self._render(last + " Out of turns: you lose."), 0.0, True, False, {}
        return self._render(last), 0.0, False, False, {}

    def solution(self):
        lo, hi = self.lo, self.hi
        if lo >= hi:
            return "left"
        # whichever end leaves the rival the smaller best share of what remains
        return "left" if self.best[lo + 1][hi] <= self.best[lo][hi - 1] else "right"

    def hint(self):
        return (f"Perfect play gets you exactly {self.target} here, and the larger end coin is a trap at least once. "
                "Pick the end that leaves the rival the SMALLER best share of the remaining row; work those shares out "
                "for short rows first (length 1, 2, 3...) and build up.")
