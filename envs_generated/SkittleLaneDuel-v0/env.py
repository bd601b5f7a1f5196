"""Skittle lane duel: a numbered lane of skittles, some already down, splits into runs of standing skittles.
You and a rival alternately knock down one skittle or two standing neighbours; whoever knocks down the LAST
skittle wins, and the rival never misses a win. The drawn lane is a win for you, but only through a few moves:
first-legal, knock-two-at-once and mirror-the-rival habits all lose to the rival."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (lane lengths, how many skittles already down)
LEVELS = {"easy": ((10, 12), (1, 2)), "medium": ((13, 15), (2, 3)), "hard": ((17, 20), (2, 4))}


def run_values(limit):
    """values[n] = Sprague-Grundy value of one unbroken run of n skittles (knock 1, or 2 neighbours)."""
    values = [0] * (limit + 1)
    for n in range(1, limit + 1):
        seen = set()
        for taken in (1, 2):
            rest = n - taken
            if rest < 0:
                continue
            for left in range(rest + 1):
                seen.add(values[left] ^ values[rest - left])
        v = 0
        while v in seen:
            v += 1
        values[n] = v
    return values


VALUES = run_values(24)


class SkittleLaneDuelEnv:
    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.sizes, self.downs = LEVELS[self.difficulty]
        self.max_turns = max(int(max_turns), (self.sizes[1] + 1) // 2 + 3)
        self.rng = random.Random()
        self.standing = []
        self.turn = 0
        self.done = False
        self.log = []

    # ------------------------------------------------------------------ theory
    def _runs(self, standing=None):
        standing = self.standing if standing is None else standing
        runs, start = [], None
        for i, up in enumerate(standing + [False]):
            if up and start is None:
                start = i
            elif not up and start is not None:
                runs.append((start, i - start))
                start = None
        return runs

    def _value(self, standing=None):
        total = 0
        for _, length in self._runs(standing):
            total ^= VALUES[length]
        return total

    def _legal(self, standing=None):
        standing = self.standing if standing is None else standing
        moves = []
        for i, up in enumerate(standing):
            if up:
                moves.append((i,))
                if i + 1 < len(standing) and standing[i + 1]:
                    moves.append((i, i + 1))
        return moves

    def _after(self, move, standing=None):
        after = list(self.standing if standing is None else standing)
        for i in move:
            after[i] = False
        return after

    def _winning(self, standing=None):
        return [m for m in self._legal(standing) if self._value(self._after(m, standing)) == 0]

    def _habit_moves(self, standing):
        """First moves of the obvious habits: first legal skittle, first pair (take the most now), the move that
        leaves the lane mirror-symmetric (the classic single-lane trick), the middle of the longest run."""
        legal = self._legal(standing)
        moves = [legal[0]]
        pairs = [m for m in legal if len(m) == 2]
        if pairs:
            moves.append(pairs[0])
        for m in legal:
            after = self._after(m, standing)
            ups = [i for i, up in enumerate(after) if up]
            if ups and after[ups[0]:ups[-1] + 1] == after[ups[0]:ups[-1] + 1][::-1]:
                moves.append(m)
        start, length = max(self._runs(standing), key=lambda r: (r[1], -r[0]))
        mid = start + (length - 1) // 2
        moves.append((mid,) if length % 2 else (mid, mid + 1))
        return moves

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        chosen = None
        for _ in range(400):
            n = self.rng.randint(*self.sizes)
            standing = [True] * n
            for i in self.rng.sample(range(1, n - 1), self.rng.randint(*self.downs)):
                standing[i] = False
            if self._value(standing) == 0 or len(self._legal(standing)) < 10:
                continue
            wins = self._winning(standing)
            if any(m in wins for m in self._habit_moves(standing)):
                continue
            if chosen is None or len(wins) < chosen[0]:
                chosen = (len(wins), standing)
            if len(wins) <= 2:
                break
        if chosen is None:  # practically unreachable: a full lane of odd length is always a first-player win
            chosen = (1, [True] * self.sizes[0] + [False] + [True])
        self.standing = chosen[1]
        self.turn = 0
        self.done = False
        self.log = []
        return self._render("You move first."), {}

    def _lane(self):
        cells = [f"{i + 1}{'I' if up else '.'}" for i, up in enumerate(self.standing)]
        return " ".join(cells)

    def _render(self, last):
        runs = ", ".join(f"{s + 1}-{s + l}" if l > 1 else f"{s + 1}" for s, l in self._runs()) or "none"
        return ("SKITTLE LANE DUEL\n"
                f"Turn {self.turn}/{self.max_turns} | Skittles standing: {sum(self.standing)}\n"
                f"Lane (position then I = standing, . = down): {self._lane()}\n"
                f"Standing runs: {runs}\n"
                f"Moves so far: {'; '.join(self.log) if self.log else 'none'}\n"
                f"Last: {last}\n"
                "Rules: on a move a player knocks down ONE standing skittle, or TWO standing skittles at neighbouring "
                "positions. You and the rival alternate; whoever knocks down the LAST standing skittle wins. The "
                "rival plays perfectly and answers each of your moves at once.\n"
                "Reply with the position(s) inside \\boxed{}, e.g. \\boxed{7} for one skittle or \\boxed{7-8} for "
                "two neighbours.")

    @staticmethod
    def _name(move):
        return "-".join(str(i + 1) for i in move)

    def _parse(self, action):
        found = BOX_RE.findall(str(action)[:5000])
        if not found:
            return None, "No move found: put the position(s) inside \\boxed{}, e.g. \\boxed{7} or \\boxed{7-8}."
        numbers = re.findall(r"\d+", found[-1])
        if not 1 <= len(numbers) <= 2 or any(len(x) > 3 for x in numbers):
            return None, "Name one position or two neighbouring positions, e.g. \\boxed{7} or \\boxed{7-8}."
        spots = sorted(int(x) - 1 for x in numbers)
        if any(not 0 <= i < len(self.standing) or not self.standing[i] for i in spots):
            return None, "Every position you name must hold a standing skittle."
        if len(spots) == 2 and spots[1] - spots[0] != 1:
            return None, "Two skittles knocked at once must stand at neighbouring positions."
        return tuple(spots), ""

    def step(self, action):
        if self.done:
            return "The duel is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        move, problem = self._parse(action)
        if move is None:
            last = problem + " Turn lost, nothing knocked down."
            if self.turn >= self.max_turns:
                self.done = True
                return self._render(last + " Out of turns: you lose."), 0.0, True, False, {}
            return self._render(last), 0.0, False, False, {}
        self.standing = self._after(move)
        self.log.append(f"you {self._name(move)}")
        last = f"You knocked down {self._name(move)}."
        if not any(self.standing):
            self.done = True
            return self._render(last + " That was the last skittle: you win the duel!"), 1.0, True, False, {}
        reply = self._rival_move()
        self.standing = self._after(reply)
        self.log.append(f"rival {self._name(reply)}")
        last += f" The rival knocked down {self._name(reply)}."
        if not any(self.standing):
            self.done = True
            return self._render(last + " The rival knocked down the last skittle: you lose."), 0.0, True, False, {}
        if self._value() == 0:
            self.done = True
            return self._render(last + " The rival now has a forced win whatever you do: you lose."), \
                0.0, True, False, {}
        if self.turn >= self.max_turns:
            self.done = True
            return self._render(last + " Out of turns: you lose."), 0.0, True, False, {}
        return self._render(last), 0.0, False, False, {}

    def _rival_move(self):
        wins = self._winning()
        if wins:
            return wins[0]
        # lost against perfect play: knock down whatever leaves the player the fewest winning replies
        legal = self._legal()
        self.rng.shuffle(legal)
        return min(legal, key=lambda m: len(self._winning(self._after(m))))

    def solution(self):
        wins = self._winning()
        move = wins[-1] if wins else self._legal()[0]
        return self._name(move)

    def hint(self):
        return ("Each unbroken run of standing skittles is its own little game, and a move inside a run leaves the "
                "pieces on either side of it as shorter runs. Give every run length a value: the smallest number not "
                "among the values of the positions a single move can leave (separate runs combine by bitwise XOR). "
                "Start from the empty run and build the table up to the longest run you see, then always leave the "
                "rival runs whose values XOR to nothing. Mirroring the rival only works on a single symmetric lane.")
