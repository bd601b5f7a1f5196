"""One training sample of a self-play iteration, as the stages hand it on.

Rows stay :class:`TrainingRow` objects from the stage that makes them (agent plays,
designer samples) to the rollout's return; only :func:`trl_batch`, at the ``rollout_func``
boundary, turns them into the column dict TRL's ``GRPOTrainer`` takes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

Role = Literal["designer", "agent"]


@dataclass(frozen=True, slots=True)
class TrainingRow:
    """One sample, in slot order. ``env_mask`` marks the completion tokens in the loss (the
    policy's own; all 0: a sample with no loss)."""

    prompt_ids: list[int]
    completion_ids: list[int]
    #: Sampling-time log-probabilities of ``completion_ids``.
    logprobs: list[float]
    env_mask: list[int]
    #: None: out of its GRPO group's baseline (a dropped design, a hung episode).
    reward: float | None
    role: Role = "agent"
    #: The advantage self-play computed (per-skill centring of the designer's rewards);
    #: None: GRPO's per-group normalisation applies.
    advantage: float | None = None
    #: Drawn by an older policy (delayed designer rewards): importance-corrected.
    stale: bool = False

    @classmethod
    def padding(cls, role: Role = "agent", *, reward: float | None = 0.0) -> TrainingRow:
        """A slot no sample fills: nothing generated, no loss (see :func:`trl_batch`)."""
        return cls([], [], [], [], reward, role)

    @property
    def trained(self) -> bool:
        """Some token of it is in the loss."""
        return any(self.env_mask)

    def with_advantage(self, advantage: float | None) -> TrainingRow:
        return dataclasses.replace(self, advantage=advantage)


def trl_batch(rows: list[TrainingRow], pad_id: int) -> dict[str, list]:
    """``rollout_func``'s return value from the iteration's rows, in slot order. Where some row
    gives its advantage (per-skill centring), ``spade_advantage`` carries it (NaN elsewhere);
    where some row was drawn by an older policy (delayed designer rewards), ``spade_stale``
    marks it; both for :mod:`~spade_gym.selfplay.trainer`."""
    out: dict[str, list] = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [],
                            "spade_reward": [], "spade_role": []}
    if any(row.advantage is not None for row in rows):
        out["spade_advantage"] = [float("nan") if row.advantage is None else float(row.advantage) for row in rows]
    if any(row.stale for row in rows):
        out["spade_stale"] = [row.stale for row in rows]
    for row in rows:
        prompt, ids, logprobs, mask = row.prompt_ids, row.completion_ids, row.logprobs, row.env_mask
        if not ids:
            # Nothing was generated (the env failed before the first turn, or a per-turn
            # padding slot): TRL needs one token per sample, so a padding token stands in,
            # masked out of the loss.
            ids, logprobs, mask = [pad_id], [0.0], [0]
            prompt = prompt or [pad_id]
        out["prompt_ids"].append(prompt)
        out["completion_ids"].append(ids)
        out["logprobs"].append(logprobs)
        out["env_mask"].append(mask)
        out["spade_reward"].append(row.reward)
        out["spade_role"].append(row.role)
    return out
