"""SkittleLaneDuel must need game-tree reasoning, not a habit.

Host-side agents play it through ``gym.make`` (the program runs in the sandbox), each seeing only the screens:

* a *reader-solver* that parses the lane and searches the game tree by plain win/loss minimax over the
  multiset of standing runs (no Sprague-Grundy theory, so it checks the program's theory independently): it
  must win every episode, which shows the screen determines a winning line against the perfect rival;
* the obvious habits (first legal skittle, knock two at once, the mirror trick, the middle of the longest run,
  a random legal move): each must win under HEURISTIC_LIMIT of the episodes at every level, the threshold the
  validator's shortcut zoo uses.
"""

from __future__ import annotations

import functools
import random
import re

import gymnasium as gym
import pytest
from testkit import transcript_win_rate

import spade_gym  # noqa: F401  (registers the bundled suite)

ENV_ID = "spade/SkittleLaneDuel-v0"
LEVELS = ("easy", "medium", "hard")
SEEDS = range(300, 310)
HEURISTIC_LIMIT = 0.5
MAX_STEPS = 30
LANE = re.compile(r"(\d+)([I.])")


def boxed(text: str) -> str:
    return "\\boxed{" + text + "}"


def play(level: str, agent, seeds=SEEDS) -> float:
    """Share of `seeds` that `agent` (a function of the screens so far) wins at `level`."""
    return transcript_win_rate(ENV_ID, level, agent, seeds, MAX_STEPS)


def lane(obs: str) -> list[bool]:
    line = next(line for line in obs.splitlines() if line.startswith("Lane"))
    cells = LANE.findall(line.split(":", 1)[1])
    assert [int(p) for p, _ in cells] == list(range(1, len(cells) + 1))
    return [mark == "I" for _, mark in cells]


def legal(standing: list[bool]) -> list[tuple[int, ...]]:
    moves = []
    for i, up in enumerate(standing):
        if up:
            moves.append((i,))
            if i + 1 < len(standing) and standing[i + 1]:
                moves.append((i, i + 1))
    return moves


def knock(standing, move):
    after = list(standing)
    for i in move:
        after[i] = False
    return after


def run_lengths(standing) -> tuple[int, ...]:
    text = "".join("I" if up else "." for up in standing)
    return tuple(sorted(len(r) for r in text.split(".") if r))


@functools.cache
def mover_wins(runs: tuple[int, ...]) -> bool:
    """Plain minimax: can the player to move take the last skittle from these runs?"""
    for k, length in enumerate(runs):
        others = runs[:k] + runs[k + 1:]
        for taken in (1, 2):
            for left in range(length - taken + 1):
                right = length - taken - left
                child = tuple(sorted(others + tuple(x for x in (left, right) if x)))
                if not mover_wins(child):
                    return True
    return False


def name(move) -> str:
    return "-".join(str(i + 1) for i in move)


def solver(transcript):
    standing = lane(transcript[-1])
    for move in legal(standing):
        if not mover_wins(run_lengths(knock(standing, move))):
            return boxed(name(move))
    raise AssertionError("the screen shows a lost lane to the player to move")


def first_legal(transcript):
    return boxed(name(legal(lane(transcript[-1]))[0]))


def knock_two(transcript):
    moves = legal(lane(transcript[-1]))
    return boxed(name(next((m for m in moves if len(m) == 2), moves[0])))


def mirror(transcript):
    """Leave a mirror-symmetric lane when one move does it, else copy the rival's last move reflected across the
    lane, else the first legal skittle."""
    standing = lane(transcript[-1])
    moves = legal(standing)
    for move in moves:
        after = knock(standing, move)
        ups = [i for i, up in enumerate(after) if up]
        if ups and after[ups[0]:ups[-1] + 1] == after[ups[0]:ups[-1] + 1][::-1]:
            return boxed(name(move))
    found = re.search(r"rival knocked down ([\d-]+)", transcript[-1])
    if found:
        n = len(standing)
        reflected = tuple(sorted(n - int(p) for p in found.group(1).split("-")))
        if reflected in moves:
            return boxed(name(reflected))
    return boxed(name(moves[0]))


def middle_of_longest(transcript):
    standing = lane(transcript[-1])
    text = "".join("I" if up else "." for up in standing)
    start, length = max(((m.start(), len(m.group())) for m in re.finditer(r"I+", text)), key=lambda r: r[1])
    mid = start + (length - 1) // 2
    return boxed(name((mid,) if length % 2 else (mid, mid + 1)))


def random_legal(transcript):
    standing = lane(transcript[-1])
    return boxed(name(random.Random(len(transcript) * 7919 + sum(standing)).choice(legal(standing))))


HEURISTICS = {"first_legal": first_legal, "knock_two": knock_two, "mirror": mirror,
              "middle_of_longest": middle_of_longest, "random_legal": random_legal}


@pytest.mark.parametrize("level", LEVELS)
def test_the_screen_determines_a_winning_line(level):
    assert play(level, solver) == 1.0


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("heuristic", sorted(HEURISTICS))
def test_obvious_heuristics_lose(heuristic, level):
    assert play(level, HEURISTICS[heuristic]) < HEURISTIC_LIMIT


def test_first_screens_differ_between_seeds():
    env = gym.make(ENV_ID, difficulty="medium")
    try:
        lanes = {tuple(lane(env.reset(seed=seed)[0])) for seed in SEEDS}
    finally:
        env.close()
    assert len(lanes) == len(SEEDS)


def test_a_losing_move_ends_the_duel_at_once():
    """One mistake hands the perfect rival a forced win: the episode ends terminated with reward 0."""
    env = gym.make(ENV_ID, difficulty="easy")
    try:
        obs, _ = env.reset(seed=SEEDS[0])
        standing = lane(obs)
        losing = next(m for m in legal(standing) if mover_wins(run_lengths(knock(standing, m))))
        obs, reward, terminated, truncated, _ = env.step(boxed(name(losing)))
    finally:
        env.close()
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert "you lose" in obs
