"""InlayPiecePacking must need planning, not first-fit placement.

Host-side agents play it through ``gym.make`` (the program runs in the sandbox), each seeing only the screen:

* a *reader-solver* parses the board and the piece drawings and tiles the region with its own exhaustive search,
  then places the pieces one per turn: it must win every episode (the screen determines a packing);
* the obvious no-backtracking heuristics (pieces in listed order at the first cell where they fit, largest piece
  first at the first cell where it fits, fill the top-left empty cell with the first piece that covers it) must
  each win under HEURISTIC_LIMIT of the episodes at every level, the threshold the validator's shortcut zoo uses.
"""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from testkit import transcript_win_rate

import spade_gym  # noqa: F401  (registers the bundled suite)

ENV_ID = "spade/InlayPiecePacking-v0"
LEVELS = ("easy", "medium", "hard")
SEEDS = range(300, 308)
HEURISTIC_LIMIT = 0.5
MAX_STEPS = 20
COLS = "abcdefgh"


def read_screen(obs: str):
    """(open empty cells, blocked-or-covered cells, pieces still to place as {letter: set of (r, c)})."""
    lines = obs.splitlines()
    top = next(i for i, line in enumerate(lines) if line.strip() == "Board:") + 1
    width = len(lines[top].split())
    empty, rows = set(), 0
    for line in lines[top + 1:]:
        if not re.match(r"\s+\d+ ", line):
            break
        tokens = line.split()
        r = int(tokens[0]) - 1
        rows = max(rows, r + 1)
        for c, token in enumerate(tokens[1:]):
            if token == ".":
                empty.add((r, c))
    shelf_at = next(i for i, line in enumerate(lines) if line.startswith("Pieces still to place")) + 1
    shelf = []
    for line in lines[shelf_at:]:
        if line.startswith("Turns left"):
            break
        shelf.append(line)
    pieces = {}
    if shelf and "(none)" not in shelf[0]:
        heads = [(m.start(), m.group(1)) for m in re.finditer(r"([A-Z]) \(\d+\)", shelf[0])]
        for k, (start, letter) in enumerate(heads):
            stop = heads[k + 1][0] if k + 1 < len(heads) else None
            cells = set()
            for r, line in enumerate(shelf[1:]):
                for c, ch in enumerate(line[start:stop].rstrip()):
                    if ch == "X":
                        cells.add((r, c))
            pieces[letter] = cells
    return empty, (rows, width), pieces


def forms(cells):
    """The piece's distinct orientations, generated in a fixed order of our own (mirror first, then turns)."""
    out = []
    shape = [(r, -c) for r, c in cells]
    for _ in range(2):
        for _ in range(4):
            r0 = min(r for r, _ in shape)
            c0 = min(c for _, c in shape)
            form = tuple(sorted((r - r0, c - c0) for r, c in shape))
            if form not in out:
                out.append(form)
            shape = [(-c, r) for r, c in shape]
        shape = [(r, -c) for r, c in shape]
    return out


def placements(cells, empty):
    found = []
    for form in forms(cells):
        for r, c in sorted(empty):
            fr, fc = form[0]
            spot = frozenset((r - fr + dr, c - fc + dc) for dr, dc in form)
            if spot <= empty and spot not in found:
                found.append(spot)
    return found


def action(letter, cells):
    return "\\boxed{" + letter + ": " + " ".join(f"{COLS[c]}{r + 1}" for r, c in sorted(cells)) + "}"


def tile(empty, pieces):
    """Exhaustive search: a list of (letter, cells) covering `empty` exactly, or None."""
    if not empty:
        return []
    cell = min(empty)
    for letter, shape in pieces.items():
        rest = {k: v for k, v in pieces.items() if k != letter}
        for spot in placements(shape, empty):
            if cell in spot:
                sub = tile(empty - spot, rest)
                if sub is not None:
                    return [(letter, spot)] + sub
    return None


def reader_solver(transcript):
    empty, _, pieces = read_screen(transcript[-1])
    plan = tile(frozenset(empty), pieces)
    return "\\boxed{undo}" if plan is None else action(*plan[0])


def first_fit(order):
    def agent(transcript):
        empty, _, pieces = read_screen(transcript[-1])
        letters = order(pieces)
        if not letters:
            return "\\boxed{undo}"
        letter = letters[0]
        spots = placements(pieces[letter], frozenset(empty))
        if not spots:
            return action(letter, [])  # stuck: no backtracking, the turn is lost
        return action(letter, min(spots, key=lambda s: min(s)))
    return agent


def top_left_fill(transcript):
    empty, _, pieces = read_screen(transcript[-1])
    cell = min(empty)
    for letter, shape in pieces.items():
        for spot in placements(shape, frozenset(empty)):
            if cell in spot:
                return action(letter, spot)
    return "\\boxed{A: a1}"  # stuck: nothing covers the corner


HEURISTICS = {
    "listed order, first cell that fits": first_fit(lambda p: list(p)),
    "largest first, first cell that fits": first_fit(lambda p: sorted(p, key=lambda x: -len(p[x]))),
    "top-left empty cell, first piece that covers it": top_left_fill,
}


def play(level, agent, seeds=SEEDS):
    return transcript_win_rate(ENV_ID, level, agent, seeds, MAX_STEPS)


@pytest.mark.parametrize("level", LEVELS)
def test_reader_solver_wins_every_episode(level):
    assert play(level, reader_solver) == 1.0


@pytest.mark.parametrize("level", LEVELS)
def test_first_fit_heuristics_lose(level):
    rates = {name: play(level, agent) for name, agent in HEURISTICS.items()}
    assert max(rates.values()) < HEURISTIC_LIMIT, rates


def test_turns_run_out_terminated_with_reward_zero():
    """Wasted actions end the episode `terminated` with reward 0 once too few turns are left."""
    env = gym.make(ENV_ID, difficulty="easy")
    try:
        env.reset(seed=5)
        ends = [env.step("\\boxed{undo}") for _ in range(MAX_STEPS)]
        last = next(e for e in ends if e[2] or e[3])
        assert last[1] == 0.0 and last[2] is True and last[3] is False
        assert "packing failed" in last[0]
    finally:
        env.close()


def test_a_wrong_placement_is_rejected_and_undo_takes_back():
    env = gym.make(ENV_ID, difficulty="medium")
    try:
        obs, _ = env.reset(seed=7)
        empty, _, pieces = read_screen(obs)
        first, second = sorted(pieces)[:2]
        spot = placements(pieces[first], frozenset(empty))[0]
        # the pieces' shapes are distinct, so the first piece's cells never fit the second piece
        obs, reward, terminated, *_ = env.step(action(second, spot))
        assert "Rejected (turn used)" in obs and reward == 0.0 and not terminated
        assert read_screen(obs)[0] == empty
        obs, *_ = env.step(action(first, spot))
        assert f"Placed piece {first}" in obs
        assert first not in read_screen(obs)[2] and read_screen(obs)[0] == empty - spot
        obs, *_ = env.step("\\boxed{undo}")
        assert first in read_screen(obs)[2] and read_screen(obs)[0] == empty
    finally:
        env.close()
