"""Per-turn samples in GRPO's fixed, group-aligned batch.

TRL's ``rollout_func`` returns exactly one sample per prompt slot, and GRPO normalises
rewards over each run of ``num_generations`` (G) consecutive slots. An episode has as
many turns as it took, so per-turn samples need a fixed shape. Each agent task (G
episodes of one environment and seed) takes ``turn_slots`` (T) consecutive groups of G
slots, laid out turn-major::

    group 0: turn 0 of episode 0, turn 0 of episode 1, ..., turn 0 of episode G-1
    group 1: turn 1 of episode 0, ...
    ...

Every slot of episode ``e`` carries ``e``'s return, so each group of G slots holds the G
episodes' returns exactly once and TRL's per-group normalisation *is* the normalisation
over episodes: every turn of an episode gets that episode's advantage (the reference's
broadcast of the episode's normalised reward to its turn samples). An episode with
fewer than T turns fills its remaining slots with padding (``None`` here: a fully
masked sample, no loss and no gradient, still carrying the return so the group's
statistics stay those of the episodes). An episode with more than T turns is trained on
T of its turns drawn uniformly (in order); ``turn_slots = max_turns`` trains every turn.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")  # an episode's return, passed through as given


def layout_turn_samples(groups: Sequence[Sequence[tuple[Sequence[T], R]]], turn_slots: int,
                        rng: random.Random) -> list[tuple[T | None, R]]:
    """Slots for ``groups`` of G episodes, each episode given as (its turns, its return).

    Returns ``len(groups) * T * G`` (sample, return) pairs, ``None`` standing for padding.
    """
    if turn_slots < 1:
        raise ValueError("turn_slots must be >= 1")
    slots: list[tuple[T | None, R]] = []
    for episodes in groups:
        chosen = [_choose(list(turns), turn_slots, rng) for turns, _ in episodes]
        for block in range(turn_slots):
            for (_, reward), turns in zip(episodes, chosen):
                slots.append((turns[block] if block < len(turns) else None, reward))
    return slots


def _choose(turns: list[T], k: int, rng: random.Random) -> list[T]:
    if len(turns) <= k:
        return turns
    return [turns[i] for i in sorted(rng.sample(range(len(turns)), k))]
