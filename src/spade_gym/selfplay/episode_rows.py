"""What an agent episode leaves for training: the policy's record of it, and its training rows.

An episode is one sample (a whole-episode :class:`~spade_gym.selfplay.policy.Trace`) or, with
``sample_unit="turn"``, one sample per turn; :func:`training_rows` lays a batch of either out in
GRPO groups for the play stage (:mod:`~spade_gym.selfplay.playing`).
"""

from __future__ import annotations

import random

from spade_gym.errors import ProgramTimeout
from spade_gym.selfplay.policy import TokenAgent, TokenPolicy, Trace, TurnSample
from spade_gym.selfplay.rows import TrainingRow
from spade_gym.selfplay.turns import layout_turn_samples

#: What the policy left of one episode: a whole-episode Trace, or its turns.
Record = Trace | list[TurnSample]


def episode_hung(episode) -> bool:
    """The episode ended on a reset()/step() that overran its deadline (SpadeEnv's error kind)."""
    return isinstance(episode.error, dict) and episode.error.get("kind") == ProgramTimeout.kind


def episode_record(agent: TokenAgent, index: int, policy: TokenPolicy, episode) -> Record:
    """What the policy left of episode ``index`` (nothing, if the env failed before the first turn)."""
    if agent.sample_unit == "turn":
        return agent.turns.get(index, [])
    return agent.traces.get(index) or Trace(policy.chat_ids([{"role": "user",
                                                               "content": episode.first_observation or "-"}]))


def policy_tokens(record: Record) -> int:
    if isinstance(record, Trace):
        return sum(record.env_mask)
    return sum(len(turn.completion_ids) for turn in record)


def training_rows(episodes: list[tuple[Record, float | None]], G: int, turn_slots: int,
                   rng: random.Random) -> list[TrainingRow]:
    """The agent's training rows of consecutive groups of G episodes; per-turn records are laid
    out turn-major (:func:`~spade_gym.selfplay.turns.layout_turn_samples`), padding as empty rows."""
    rows: list[TrainingRow] = []
    traces = [(record, reward) for record, reward in episodes if isinstance(record, Trace)]
    if len(traces) == len(episodes):
        for trace, reward in traces:
            rows.append(TrainingRow(trace.prompt_ids, trace.completion_ids, trace.logprobs, trace.env_mask, reward))
        return rows
    per_turn = [(record, reward) for record, reward in episodes if not isinstance(record, Trace)]
    if len(per_turn) != len(episodes):
        raise ValueError("a batch mixes whole-episode traces and per-turn samples")
    groups = [per_turn[i:i + G] for i in range(0, len(per_turn), G)]
    for turn, reward in layout_turn_samples(groups, turn_slots, rng):
        if turn is None:
            rows.append(TrainingRow.padding(reward=reward))
        else:
            rows.append(TrainingRow(turn.prompt_ids, turn.completion_ids, turn.logprobs,
                                    [1] * len(turn.completion_ids), reward))
    return rows


__all__ = ["Record", "episode_hung", "episode_record", "policy_tokens", "training_rows"]
