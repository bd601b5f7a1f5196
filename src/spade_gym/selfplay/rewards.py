"""Rewards of the two roles. Pure functions, no torch, unit-tested on their own.

**Designer.** Hint-based regret: the agent's return *with* the privileged hint minus
its return *without* it, on the **same** task instances (paired seeds), averaged over
seeds. A program that fails validation earns a fixed negative reward, so the designer
learns to avoid broken programs (the SPADE reference drops failed generations, which
teaches it nothing; ``invalid_designs="drop"`` does so too). Options: floor regret at 0,
or blend it with a solve-rate plateau term (the SPADE paper recipe: ``0.4 * clip(regret /
0.15, 0, 1) + 0.6 * plateau(win rate)``); a fixed reward for a program that hung while
played (``step_timeout_penalty``); the centred designer advantages scaled by the
iteration's agent/designer sample ratio (``scale_designer_rewards``).

**Agent.** The episode's outcome: the final reward if the episode terminated, else 0,
clamped to [-1, 1]. GRPO normalises it within each group of episodes on the same
(environment, seed).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class RewardConfig:
    """How designer rewards are computed (see the module docstring)."""

    invalid_penalty: float = -1.0
    #: "regret" (pure regret, the default) or "paper" (regret/plateau blend).
    mode: Literal["regret", "paper"] = "regret"
    floor: bool = False
    regret_scale: float = 0.15
    regret_weight: float = 0.4
    plateau_weight: float = 0.6
    plateau_low: float = 0.4
    plateau_high: float = 0.6
    plateau_ramp: float = 0.25
    #: Iterations of no-hint agent plays an environment's win rate is measured over (the
    #: plateau term of the blend, and the win rates on the cards the frontier memory
    #: reads): the reference's delay window of 4 rollouts.
    win_rate_window: int = 4
    #: The designer's advantage: False, GRPO's per-group normalisation (the G designs of
    #: one prompt); True, the reference's rule: reward minus the mean reward of the
    #: iteration's designs of the same skill (all ranks), no division by a std.
    skill_centring: bool = False
    #: Iterations between a design's sampling and its training (the reference's delay,
    #: 4): its samples are kept, with their sampling-time log-probabilities, and trained
    #: ``designer_reward_delay`` iterations later on a reward whose win rate covers the
    #: agent's plays since the design was drawn (the stale samples are importance-corrected
    #: per token, see selfplay/trainer.py). 0: a design is rewarded and trained in its own iteration.
    designer_reward_delay: int = 0
    #: What an invalid design (rejected by validation, or broken while played) earns:
    #: "penalise" (``invalid_penalty``: the designer learns to avoid broken programs) or
    #: "drop" (the reference's rule: its samples leave the designer's batch, no loss and
    #: no part in the baseline of the others, per group or per skill).
    invalid_designs: Literal["penalise", "drop"] = "penalise"
    #: The designer's reward for a program whose reset() or step() overran its deadline
    #: while its regret episodes were played (a hung game), in place of its regret or blend
    #: (the reference: -0.5); the agent's episodes that hung are then not trained on (no
    #: loss, out of their group's baseline). None: no special case (they score 0).
    step_timeout_penalty: float | None = None
    #: Multiply the per-skill centred designer advantages (needs ``skill_centring``) by
    #: the iteration's trained agent samples / trained design samples x ``design_every``,
    #: at most ``max_designer_reward_scale`` (the reference's env reward scale, cap 50):
    #: the designer's few samples then weigh in the update about as much as the agent's many.
    scale_designer_rewards: bool = False
    max_designer_reward_scale: float = 50.0

    def __post_init__(self):
        if self.mode not in ("regret", "paper"):
            raise ValueError(f"reward mode must be 'regret' or 'paper', got {self.mode!r}")
        if self.regret_scale <= 0 or self.plateau_ramp <= 0:
            raise ValueError("regret_scale and plateau_ramp must be positive")
        if self.floor and self.mode == "paper":
            # The blend clips regret / regret_scale to [0, 1]: a floor at 0 would change nothing.
            raise ValueError("reward.floor applies to mode 'regret' only (the paper blend already clips "
                             "regret at 0)")
        if not self.plateau_low <= self.plateau_high:
            raise ValueError("plateau_low must not exceed plateau_high")
        if self.win_rate_window < 1:
            raise ValueError("win_rate_window must be >= 1 (iterations)")
        if self.designer_reward_delay < 0:
            raise ValueError("designer_reward_delay must be >= 0 (iterations)")
        if self.invalid_designs not in ("penalise", "drop"):
            raise ValueError(f"invalid_designs must be 'penalise' or 'drop', got {self.invalid_designs!r}")
        if self.step_timeout_penalty is not None and not -1.0 <= self.step_timeout_penalty <= 1.0:
            raise ValueError(f"step_timeout_penalty must lie in [-1, 1] (the reference's is -0.5), got "
                             f"{self.step_timeout_penalty}")
        if self.scale_designer_rewards and not self.skill_centring:
            # GRPO's per-group normalisation divides every reward of a group by the group's std:
            # a common factor would cancel out.
            raise ValueError("scale_designer_rewards scales the per-skill centred designer advantages: set "
                             "skill_centring=true too (under GRPO's per-group normalisation a scale cancels out)")
        if not (self.max_designer_reward_scale >= 1.0 and math.isfinite(self.max_designer_reward_scale)):
            raise ValueError(f"max_designer_reward_scale must be a finite number >= 1, got "
                             f"{self.max_designer_reward_scale}")

    @property
    def plays_kept(self) -> int:
        """Iterations of no-hint plays to remember: the cards' window, and a delayed design's
        plays from its own iteration to its training."""
        return max(self.win_rate_window, self.designer_reward_delay + 1)


def paired_regret(with_hint: dict[int, float], without_hint: dict[int, float]) -> float:
    """Mean over seeds of (return with hint - return without), on the seeds both arms played.

    Pairing matters: the same task instance with and without the hint isolates what the
    hint is worth; two independent samples would mostly measure task-to-task variance.
    """
    seeds = sorted(set(with_hint) & set(without_hint))
    if not seeds:
        raise ValueError("no seed was played both with and without the hint")
    return sum(with_hint[s] - without_hint[s] for s in seeds) / len(seeds)


def plateau(win_rate: float, low: float = 0.4, high: float = 0.6, ramp: float = 0.25) -> float:
    """1 inside [low, high], falling linearly to 0 at ``low - ramp`` and ``high + ramp``."""
    if low <= win_rate <= high:
        return 1.0
    distance = low - win_rate if win_rate < low else win_rate - high
    return max(0.0, 1.0 - distance / ramp)


def designer_reward(valid: bool, *, regret: float | None = None, win_rate: float | None = None,
                    config: RewardConfig = RewardConfig(), step_timeout: bool = False) -> float:
    """The designer's reward for one program (invalid: the fixed penalty; see :func:`invalid_reward`
    for the drop rule; a valid program that hung while played: ``step_timeout_penalty`` when set)."""
    if not valid:
        return config.invalid_penalty
    if step_timeout and config.step_timeout_penalty is not None:
        return config.step_timeout_penalty
    if regret is None or math.isnan(regret):
        raise ValueError("a valid program needs a regret")
    if config.mode == "regret":
        return max(0.0, regret) if config.floor else regret
    if win_rate is None:
        raise ValueError("the paper blend needs the agent's win rate (without hint)")
    scaled = min(1.0, max(0.0, regret / config.regret_scale))  # the recipe clips to [0, 1]
    return (config.regret_weight * scaled
            + config.plateau_weight * plateau(win_rate, config.plateau_low, config.plateau_high, config.plateau_ramp))


def invalid_reward(config: RewardConfig) -> float | None:
    """An invalid design's reward: the penalty, or None where invalid designs are dropped (the
    reward function then returns None for its samples: TRL leaves them out of the group's
    baseline and gives them no advantage)."""
    return None if config.invalid_designs == "drop" else config.invalid_penalty


def designer_reward_scale(agent_samples: int, design_samples: int, *, interval: int, cap: float) -> float:
    """The factor on centred designer advantages (``scale_designer_rewards``): trained agent samples
    per trained design sample, times the iterations between design rounds, at most ``cap``;
    1 when either role trained nothing."""
    if agent_samples <= 0 or design_samples <= 0:
        return 1.0
    return min(cap, agent_samples / design_samples * interval)


def remember_plays(plays: dict[str, list[list[float]]], iteration: int, outcomes: Iterable[tuple[str, float]],
                   window: int) -> None:
    """Add an iteration's no-hint outcomes per environment (as ``[iteration, outcome]``) and
    forget those older than the last ``window`` iterations."""
    for env_id, outcome in outcomes:
        plays.setdefault(env_id, []).append([iteration, float(outcome)])
    for env_id in list(plays):
        plays[env_id] = [p for p in plays[env_id] if p[0] > iteration - window]
        if not plays[env_id]:
            del plays[env_id]


def window_win_rate(plays: dict[str, list[list[float]]], env_id: str, since: int | None = None) -> float | None:
    """Mean no-hint outcome of an environment over the remembered plays of iteration
    ``since`` on (all remembered ones when None); None: not played then."""
    outcomes = [outcome for iteration, outcome in plays.get(env_id, []) if since is None or iteration >= since]
    return sum(outcomes) / len(outcomes) if outcomes else None


def centre_per_skill(items: Sequence[tuple[str, float | None]]) -> list[float | None]:
    """Each (skill, reward) minus the mean reward of its skill: the reference's designer baseline.
    A None reward (a dropped design) takes no part in the means and gets None."""
    totals: dict[str, list[float]] = {}
    for skill, reward in items:
        if reward is not None:
            totals.setdefault(skill, []).append(reward)
    means = {skill: sum(rs) / len(rs) for skill, rs in totals.items()}
    return [None if reward is None else reward - means[skill] for skill, reward in items]


def learning_potential(outcomes: Sequence[float], *, floor: float = 0.05) -> float:
    """Sampling weight of an environment from its recent agent outcomes (1 = win).

    ``p (1 - p)`` peaks at a 50% win rate, where a GRPO group's outcomes differ most and
    the agent has most to learn; environments never played count as 50%. The floor keeps
    solved and hopeless environments reachable, so their estimates can change.
    """
    if not outcomes:
        return 0.25
    p = sum(outcomes) / len(outcomes)
    return max(floor * 0.25, p * (1.0 - p))


def episode_outcome(rewards: Sequence[float], terminated: bool) -> float:
    """The agent's return for one episode (outcome reward, clamped to [-1, 1])."""
    if not terminated or not rewards:
        return 0.0
    return max(-1.0, min(1.0, float(rewards[-1])))


def group_key(env_id: str, seed: int) -> tuple[str, int]:
    """Agent samples are grouped per (environment, seed) for GRPO's normalisation."""
    return (env_id, int(seed))


def check_groups(keys: Iterable, group_size: int) -> None:
    """Every consecutive run of ``group_size`` samples must share one key (GRPO groups by position)."""
    keys = list(keys)
    if len(keys) % group_size:
        raise ValueError(f"{len(keys)} samples do not split into groups of {group_size}")
    for start in range(0, len(keys), group_size):
        block = keys[start:start + group_size]
        if any(k != block[0] for k in block):
            raise ValueError(f"group at position {start} mixes keys: {block}")
