"""Forced win: a game of noughts and crosses (tic-tac-toe) is already under way and you play X, to move, against
a perfect O. The position is won for you, but only by the right moves: find them and win the game."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
# difficulty -> (marks already on the board, most winning first moves allowed)
LEVELS = {"easy": (4, 2), "medium": (4, 1), "hard": (4, 1)}


def winner(board):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


class ForcedWinEnv:
    def __init__(self, max_turns=6, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.board = ["."] * 9
        self.memo = {}
        self.last = ""
        self.turn = 0
        self.done = False

    def _value(self, board, player):
        """+1 if X wins with perfect play from here, 0 draw, -1 O wins; `player` is to move."""
        key = ("".join(board), player)
        if key in self.memo:
            return self.memo[key]
        w = winner(board)
        if w:
            v = 1 if w == "X" else -1
        elif "." not in board:
            v = 0
        else:
            vals = []
            for i in range(9):
                if board[i] == ".":
                    board[i] = player
                    vals.append(self._value(board, "O" if player == "X" else "X"))
                    board[i] = "."
            v = max(vals) if player == "X" else min(vals)
        self.memo[key] = v
        return v

    def _winning_moves(self, board):
        out = []
        for i in range(9):
            if board[i] == ".":
                board[i] = "X"
                if self._value(board, "O") == 1:
                    out.append(i)
                board[i] = "."
        return out

    @staticmethod
    def _quiet(board, wins):
        """Hard positions: the winning move threatens nothing yet (no line of two X and a gap), so it cannot be
        found by looking for threats."""
        for w in wins:
            b = board[:w] + ["X"] + board[w + 1:]
            if any(sorted(b[i] for i in line) == [".", "X", "X"] for line in LINES):
                return False
        return True

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        marks, most = LEVELS[self.difficulty]
        for _ in range(3000):
            board = ["."] * 9
            cells = self.rng.sample(range(9), marks)
            for k, c in enumerate(cells):
                board[c] = "X" if k % 2 == 0 else "O"
            if winner(board) or self._value(board, "X") != 1:
                continue
            wins = self._winning_moves(board)
            # no immediate three-in-a-row: the win must be set up (a fork), and few first moves work
            immediate = [i for i in wins if winner(board[:i] + ["X"] + board[i + 1:])]
            if not immediate and len(wins) <= most and (self.difficulty != "hard" or self._quiet(board, wins)):
                break
        self.board = board
        self.last = "You are X and it is your move."
        self.turn = 0
        self.done = False
        return self._render(), {}

    def _render(self):
        rows = [" ".join(self.board[r * 3 + c] if self.board[r * 3 + c] != "." else str(r * 3 + c + 1)
                         for c in range(3)) for r in range(3)]
        return ("FORCED WIN\n" + "\n".join("  " + r for r in rows) + "\n"
                f"Last: {self.last}\n"
                "Numbers mark the empty squares (1-9, row by row from the top left). Three X in a row, column or "
                "diagonal wins; O plays perfectly. Answer with the square for your X, e.g. \\boxed{5}.")

    def _o_move(self):
        best, best_v = None, None
        for i in range(9):
            if self.board[i] == ".":
                self.board[i] = "O"
                v = self._value(self.board, "X")
                self.board[i] = "."
                if best_v is None or v < best_v:
                    best, best_v = i, v
        return best

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:5000])
        raw = m.group(1).strip() if m else ""
        if not re.fullmatch(r"[1-9]", raw) or self.board[int(raw) - 1] != ".":
            self.last = "That is not an empty square (turn lost): answer with one empty square's number."
        else:
            i = int(raw) - 1
            self.board[i] = "X"
            self.last = f"You played X on {i + 1}."
            if winner(self.board) == "X":
                self.done = True
                self.last += " Three in a row: you win!"
                return self._render(), 1.0, True, False, {}
            if "." not in self.board:
                self.done = True
                self.last += " The board is full: a draw, which is not a win."
                return self._render(), 0.0, True, False, {}
            j = self._o_move()
            self.board[j] = "O"
            self.last += f" O played on {j + 1}."
            if winner(self.board) == "O":
                self.done = True
                self.last += " O has three in a row: you lose."
                return self._render(), 0.0, True, False, {}
            if "." not in self.board:
                self.done = True
                self.last += " The board is full: a draw, which is not a win."
                return self._render(), 0.0, True, False, {}
            if self._value(self.board, "X") != 1:
                self.done = True
                self.last += " The win has slipped away: O can now hold the game. You lose."
                return self._render(), 0.0, True, False, {}
        if self.turn >= self.max_turns:
            self.done = True
            self.last += " Out of turns: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        wins = self._winning_moves(self.board)
        # prefer finishing at once when possible
        for i in wins:
            if winner(self.board[:i] + ["X"] + self.board[i + 1:]):
                return str(i + 1)
        return str(wins[0] + 1) if wins else str(self.board.index(".") + 1)

    def hint(self):
        return ("Look for forks: squares from which X threatens lines in different directions together, so O cannot "
                "block them all. Before that, make sure O has no line it can complete on its next move.")
