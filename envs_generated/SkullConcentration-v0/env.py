"""Concentration with traps and a moving dealer: a grid of face-down picture cards hides matching pairs and a few
unpaired skull cards; you flip one card per turn, two flips per attempt, and after every attempt the dealer swaps
face-down cards or slides a row of them, so where a picture was seen is not where it lies now: you must carry every
remembered card through the moves to clear all pairs within the flip budget without turning a known skull again."""
import random
import re
from functools import lru_cache

PICTURES = [
    "ANCHOR", "COMET", "CROWN", "DRAGON", "FALCON", "HARP", "LOTUS", "OWL", "QUILL", "ROSE", "SPHINX", "TRIDENT",
    "ACORN", "BEACON", "CASTLE", "DOLPHIN", "FEATHER", "GLOBE", "HOURGLASS", "IBIS", "JESTER", "KRAKEN",
    "LANTERN", "MOON", "NAUTILUS", "ORCHID", "PEACOCK", "RAVEN", "SCARAB", "TORCH", "UNICORN", "VIOLIN",
]
ROW_LABELS = "ABCDE"

LEVELS = {
    # rows, cols, pairs, skulls, cards shown in the opening glimpse, dealer moves after each attempt, row slides
    "easy": (3, 4, 5, 2, 3, 1, False),
    "medium": (4, 4, 7, 2, 4, 1, True),
    "hard": (4, 5, 9, 2, 5, 2, True),
}


@lru_cache(maxsize=None)
def worst_flips(known_pairs, hidden_pairs, singles, hidden_skulls):
    """Most flips a perfect-memory player can need (standard strategy, adversarial deal).

    known_pairs: pairs whose two cards are both remembered; hidden_pairs: pairs never seen; singles: pairs with one
    card remembered; hidden_skulls: skulls never seen.
    """
    if known_pairs > 0:
        return 2 + worst_flips(known_pairs - 1, hidden_pairs, singles, hidden_skulls)
    if hidden_pairs == 0 and singles == 0:
        return 0
    outcomes = []
    if hidden_skulls > 0:  # the first unseen card is a skull: the attempt ends
        outcomes.append(1 + worst_flips(0, hidden_pairs, singles, hidden_skulls - 1))
    if singles > 0:  # it matches a remembered card: flip that one
        outcomes.append(2 + worst_flips(0, hidden_pairs, singles - 1, hidden_skulls))
    if hidden_pairs > 0:  # a new picture: flip another unseen card
        outcomes.append(2 + worst_flips(0, hidden_pairs - 1, singles, hidden_skulls))
        if hidden_skulls > 0:
            outcomes.append(2 + worst_flips(0, hidden_pairs - 1, singles + 1, hidden_skulls - 1))
        if singles > 0:
            outcomes.append(4 + worst_flips(0, hidden_pairs - 1, singles, hidden_skulls))
        if hidden_pairs > 1:
            outcomes.append(2 + worst_flips(0, hidden_pairs - 2, singles + 2, hidden_skulls))
    return max(outcomes)


class SkullConcentrationEnv:
    def __init__(self, max_turns=40, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rows, self.cols, self.n_pairs, self.n_skulls, self.n_glimpse, self.n_moves, self.slides = \
            LEVELS[self.difficulty]
        self.rng = random.Random()
        self.cards = {}
        self.positions = []
        self.order = []
        self.matched = set()
        self.seen = {}
        self.glimpse = []
        self.first = None
        self.flips = 0
        self.budget = 0
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ helpers
    def _label(self, r, c):
        return f"{ROW_LABELS[r]}{c + 1}"

    def _board(self):
        header = "     " + " ".join(f"{c + 1:^9}" for c in range(self.cols))
        lines = [header]
        for r in range(self.rows):
            cells = []
            for c in range(self.cols):
                pos = self._label(r, c)
                if pos in self.matched:
                    cells.append(f"{'--':^9}")
                elif pos == self.first:
                    cells.append(f"{self.cards[pos]:^9}")
                else:
                    cells.append(f"{'##':^9}")
            lines.append(f"  {ROW_LABELS[r]}  " + " ".join(cells))
        return "\n".join(lines)

    def _pairs_left(self):
        return self.n_pairs - len(self.matched) // 2

    def _status(self, msg):
        attempt = ("first card of an attempt" if self.first is None
                   else f"second card (your first card {self.first} is face up)")
        return (f"{msg}\n"
                f"Turn {self.turn}/{self.max_turns} | Flips used {self.flips}/{self.budget} | "
                f"Pairs left {self._pairs_left()}/{self.n_pairs} | Next flip: {attempt}\n"
                f"{self._board()}\n"
                f"Commands: \\boxed{{flip <row><column>}} for one face-down card, e.g. \\boxed{{flip B3}}.")

    def _remaining_worst(self):
        """Worst-case flips a perfect-memory player still needs from the current (between-attempt) state."""
        seen_left = {p: s for p, s in self.seen.items() if p not in self.matched}
        counts = {}
        for p, s in seen_left.items():
            counts[s] = counts.get(s, 0) + 1
        known_pairs = sum(1 for s, n in counts.items() if s != "SKULL" and n == 2)
        singles = sum(1 for s, n in counts.items() if s != "SKULL" and n == 1)
        hidden_pairs = self._pairs_left() - known_pairs - singles
        hidden_skulls = self.n_skulls - counts.get("SKULL", 0)
        return worst_flips(known_pairs, hidden_pairs, singles, hidden_skulls)

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.positions = [self._label(r, c) for r in range(self.rows) for c in range(self.cols)]
        pictures = self.rng.sample(PICTURES, self.n_pairs)
        deck = pictures * 2 + ["SKULL"] * self.n_skulls
        self.rng.shuffle(deck)
        self.cards = {pos: deck[i] for i, pos in enumerate(self.positions)}
        self.order = self.positions[:]
        self.rng.shuffle(self.order)  # the tie-break order the reference player opens unseen cards in
        self.matched = set()
        self.seen = {}
        self.first = None
        self.flips = 0
        self.turn = 0
        self.done = False
        # the glimpse: one skull and pictures of different pairs (each must be remembered until its partner shows)
        skulls = [p for p in self.positions if self.cards[p] == "SKULL"]
        chosen, used = [self.rng.choice(skulls)], set()
        for p in self.rng.sample(self.positions, len(self.positions)):
            sym = self.cards[p]
            if len(chosen) < self.n_glimpse and sym != "SKULL" and sym not in used:
                chosen.append(p)
                used.add(sym)
        self.glimpse = sorted(chosen, key=lambda p: self.positions.index(p))
        for pos in self.glimpse:
            self.seen[pos] = self.cards[pos]
        self.budget = min(self._remaining_worst(), self.max_turns)
        glimpse = ", ".join(f"{p} = {self.cards[p]}" for p in self.glimpse)
        opening_moves = self._deal_moves()
        intro = (
            f"CONCENTRATION WITH SKULLS AND A MOVING DEALER. {len(self.positions)} cards lie face down in a "
            f"{self.rows}x{self.cols} grid: {self.n_pairs} pictures appear exactly twice and {self.n_skulls} SKULL "
            f"cards have no partner. Pictures in this deck: {', '.join(sorted(pictures))}.\n"
            f"Each turn you flip ONE card; two flips make an attempt. If the two pictures match, the pair is "
            f"removed; otherwise both turn face down again. Turning up a SKULL ends the attempt at once (the cards "
            f"go face down) - but turning up a skull you have ALREADY seen loses the game. After every attempt the "
            f"dealer moves face-down cards ({self.n_moves} move(s): swapping two cards"
            f"{' or sliding a row of face-down cards one place to the right' if self.slides else ''}); a card keeps "
            f"its picture when it moves. Clear all pairs within {self.budget} flips. Revealed cards are shown only in "
            f"the turn you flip them - remember them, and where the dealer takes them.\n"
            f"Before play the dealer lets you glimpse {self.n_glimpse} cards, once: {glimpse}. Then: {opening_moves}"
        )
        return self._status(intro), {}

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return self._end_turn("Format reminder: flip one card with \\boxed{flip <row><column>}, e.g. C2.",
                                  out_of_turns)
        cmd = " ".join(match.group(1).upper().split())
        m = re.fullmatch(r"(?:FLIP\s*)?([A-E])\s*([1-9])", cmd)
        if m is None:
            return self._end_turn(f"Could not read '{cmd[:30]}': use flip plus a position such as A1 or {self.positions[-1]}.",
                                  out_of_turns)
        pos = m.group(1) + m.group(2)
        if pos not in self.cards:
            return self._end_turn(f"There is no position {pos} on this {self.rows}x{self.cols} grid "
                                  f"(rows A-{ROW_LABELS[self.rows - 1]}, columns 1-{self.cols}).", out_of_turns)
        if pos in self.matched:
            return self._end_turn(f"{pos} is already cleared; pick a face-down card.", out_of_turns)
        if pos == self.first:
            return self._end_turn(f"{pos} is already face up in this attempt; flip a different card.", out_of_turns)
        # a real flip
        self.flips += 1
        symbol = self.cards[pos]
        if symbol == "SKULL":
            if pos in self.seen:
                self.done = True
                return (f"You turned up the SKULL at {pos} again - you had already seen it there. The game is lost."
                        ), 0.0, True, False, {}
            self.seen[pos] = symbol
            extra = f" Your first card {self.first} turns face down too." if self.first else ""
            self.first = None
            return self._after_flip(f"You flip {pos}: SKULL! The attempt ends.{extra}", out_of_turns, True)
        self.seen[pos] = symbol
        if self.first is None:
            self.first = pos
            return self._after_flip(f"You flip {pos}: {symbol}. Now flip a second card.", out_of_turns)
        first, self.first = self.first, None
        if self.cards[first] == symbol:
            self.matched.update((first, pos))
            if self._pairs_left() == 0:
                self.done = True
                return (f"You flip {pos}: {symbol}. It matches {first}! All {self.n_pairs} pairs cleared in "
                        f"{self.flips} flips. You win!"), 1.0, True, False, {}
            return self._after_flip(f"You flip {pos}: {symbol}. It matches {first} - pair removed!", out_of_turns,
                                    True)
        return self._after_flip(f"You flip {pos}: {symbol}. No match with {first} ({self.cards[first]}); both cards "
                                f"turn face down.", out_of_turns, True)

    def _move_text(self, kind, cells):
        if kind == "swap":
            return f"The dealer swaps the face-down cards at {cells[0]} and {cells[1]}."
        return (f"The dealer slides the face-down cards of row {cells[0][0]} one place to the right along "
                f"{', '.join(cells)} (the card at {cells[-1]} wraps round to {cells[0]}).")

    def _deal_moves(self):
        """The dealer moves face-down cards; a remembered card moves with them. Swaps favour cards that have been
        seen, so the place a picture was shown at goes stale."""
        rng = self.rng
        notes = []
        for _ in range(self.n_moves):
            down = [p for p in self.positions if p not in self.matched]
            if len(down) < 2:
                break
            rows = {}
            for p in down:
                rows.setdefault(p[0], []).append(p)
            long_rows = [r for r in sorted(rows) if len(rows[r]) >= 3]
            if self.slides and long_rows and rng.random() < 0.4:
                cells = rows[rng.choice(long_rows)]
                perm = {cells[i]: cells[(i + 1) % len(cells)] for i in range(len(cells))}
                kind = "slide"
            else:
                known = [p for p in down if p in self.seen]
                a = rng.choice(known) if known else rng.choice(down)
                b = rng.choice([p for p in down if p != a])
                cells = sorted([a, b], key=self.positions.index)
                perm = {a: b, b: a}
                kind = "swap"
            self.cards.update({perm[p]: self.cards[p] for p in perm})
            moved_seen = {perm[p]: self.seen[p] for p in perm if p in self.seen}
            for p in perm:
                self.seen.pop(p, None)
            self.seen.update(moved_seen)
            notes.append(self._move_text(kind, cells))
        return " ".join(notes)

    def _after_flip(self, msg, out_of_turns, attempt_over=False):
        if self.flips >= self.budget:
            self.done = True
            return (msg + f"\nThe flip budget of {self.budget} is spent with {self._pairs_left()} pair(s) left. "
                          f"You lose."), 0.0, True, False, {}
        if attempt_over:
            msg = msg + "\n" + self._deal_moves()
        return self._end_turn(msg, out_of_turns)

    def _end_turn(self, msg, out_of_turns):
        if out_of_turns:
            self.done = True
            return msg + "\nOut of turns.", 0.0, True, False, {}
        return self._status(msg), 0.0, False, False, {}

    def solution(self):
        live = {p: s for p, s in self.seen.items() if p not in self.matched}
        if self.first is not None:
            sym = self.cards[self.first]
            partner = [p for p, s in live.items() if s == sym and p != self.first]
            if partner:
                return "flip " + partner[0]
            unseen = [p for p in self.order if p not in self.seen and p not in self.matched]
            return "flip " + (unseen[0] if unseen else next(p for p in self.order if p not in self.matched
                                                             and p != self.first and live.get(p) != "SKULL"))
        by_symbol = {}
        for p in self.order:
            if p in live and live[p] != "SKULL":
                by_symbol.setdefault(live[p], []).append(p)
        for sym, ps in by_symbol.items():
            if len(ps) == 2:
                return "flip " + ps[0]
        unseen = [p for p in self.order if p not in self.seen and p not in self.matched]
        if unseen:
            return "flip " + unseen[0]
        return "flip " + next((p for p in self.order if p not in self.matched and live.get(p) != "SKULL"), "A1")

    def hint(self):
        skulls = sorted(p for p, sym in self.seen.items() if sym == "SKULL" and p not in self.matched)
        where = (f"the skull(s) you have seen lie at {', '.join(skulls)} right now" if skulls
                 else "no skull has been seen yet")
        return (f"Keep a map position -> picture of every card seen (the glimpse included) and rewrite it after "
                f"every dealer move: a swap exchanges the two named positions; a slide moves each listed card one "
                f"place along the list and the last one to the first. Clear a pair as soon as both of its cards are "
                f"on your map. In this deal {where}.")
