"""One iteration's batch, divided across the training ranks. No torch here: ``--plan`` reads it.

The recipe's sizes are **global per iteration**: ``designer_groups`` design prompts (G
designs each) and ``agent_groups`` agent tasks (G episodes each), whatever the number of
ranks, so a batch means the same on 1 and on 64 GPUs. :func:`batch_layout` divides them:

* **design groups** go to ranks 0, 1, 2, ... in turn (rank r gets
  ``designer_groups // world`` plus one if ``r < designer_groups % world``); a rank's groups
  are a contiguous block of the iteration's design targets, so the skill rotation is the
  same for any number of ranks;
* **agent tasks** go one at a time to the rank holding the fewest slot groups so far (the
  highest such rank on a tie, so the extra ones avoid the main process, which also writes);
  with ``sample_unit="turn"`` a task takes ``turn_samples`` slot groups;
* TRL gives every rank the same number of slots, so every rank gets the largest share's
  slot count; a rank with less fills the rest with **padding slots** (a pad token, fully
  masked: no loss, no gradient, no generation). ``--plan`` shows the padding;
* of the agent tasks, ``floor(pool_task_share x agent_groups)`` always come from the pool
  (:func:`reserve_pool_tasks`), whatever the number of new designs.

A served designer's design groups are divided the same way (they are requests made by the
ranks) but take no slot. A configuration whose slot-taking groups (trained design groups
plus agent tasks) are fewer than the ranks is refused: some rank would hold nothing but
padding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from spade_gym.errors import ConfigError


@dataclass(frozen=True)
class RankShare:
    """One rank's part of an iteration."""

    rank: int
    #: Design prompts this rank samples (G designs each).
    design_groups: int
    #: Index of its first design group among the iteration's (the design targets rotate globally).
    design_offset: int
    #: Agent tasks (G episodes each) this rank trains: the no-hint regret plays it is given first, then pool tasks.
    agent_tasks: int
    #: Slot groups its designs take (0 with a served designer).
    design_slot_groups: int
    #: Slot groups of every rank (equal on all ranks: TRL's per-device batch).
    slot_groups: int
    #: Slot groups per agent task (``turn_samples`` with per-turn samples, else 1).
    per_task: int
    #: Of its agent tasks, those always drawn from the pool (its part of the iteration's
    #: ``floor(pool_task_share x agent_groups)``): regret groups never take them.
    pool_tasks: int = 0

    @property
    def regret_capacity(self) -> int:
        """Agent tasks this rank may fill with new designs' no-hint regret groups."""
        return self.agent_tasks - self.pool_tasks

    @property
    def agent_slot_groups(self) -> int:
        """The agent's slot groups, padding included (what ``PlayStage.agent_groups`` fills)."""
        return self.slot_groups - self.design_slot_groups

    @property
    def padding_groups(self) -> int:
        return self.slot_groups - self.design_slot_groups - self.agent_tasks * self.per_task


@dataclass(frozen=True)
class BatchLayout:
    world: int
    num_generations: int
    shares: tuple[RankShare, ...]

    @property
    def slot_groups(self) -> int:
        return self.shares[0].slot_groups

    @property
    def slots_per_rank(self) -> int:
        """Samples of one rank per iteration: TRL's per-device generation batch."""
        return self.slot_groups * self.num_generations

    @property
    def slots(self) -> int:
        """Samples per iteration, all ranks (= per optimizer step: one iteration is one step)."""
        return self.slots_per_rank * self.world

    @property
    def padding_slots(self) -> int:
        return sum(s.padding_groups for s in self.shares) * self.num_generations

    @property
    def trained_slots(self) -> int:
        return self.slots - self.padding_slots

    def share(self, rank: int) -> RankShare:
        return self.shares[rank]


def split_in_turn(total: int, world: int) -> list[int]:
    """``total`` items over ``world`` ranks, the remainder to the first ranks."""
    return [total // world + (1 if r < total % world else 0) for r in range(world)]


def batch_layout(config, world: int) -> BatchLayout:
    """The iteration's groups divided over ``world`` ranks (see the module docstring).

    ``config`` is a :class:`~spade_gym.selfplay.config.SelfPlayConfig` (read: designer,
    designer_groups, agent_groups, num_generations, sample_unit, turn_samples).
    """
    if world < 1:
        raise ConfigError(f"the number of ranks must be >= 1, not {world}")
    served = config.designer != "policy"
    per_task = config.turn_samples if config.sample_unit == "turn" else 1
    designs = split_in_turn(config.designer_groups, world)
    design_slots = [0 if served else d for d in designs]
    taking = (0 if served else config.designer_groups) + config.agent_groups
    if taking < world:
        what = f"agent_groups={config.agent_groups}"
        what += "" if served else f" + designer_groups={config.designer_groups}"
        raise ConfigError(
            f"{what} = {taking} GRPO group(s) per iteration cannot be divided across {world} ranks: these sizes are "
            f"global (per iteration, all ranks together), and every rank needs at least one group. Raise "
            f"agent_groups (or designer_groups) to at least {world}, or launch fewer processes")
    load = list(design_slots)
    tasks = [0] * world
    for _ in range(config.agent_groups):
        rank = min(range(world), key=lambda r: (load[r], -r))
        tasks[rank] += 1
        load[rank] += per_task
    slot_groups = max(load)
    offsets = [sum(designs[:r]) for r in range(world)]
    pool = reserve_pool_tasks(tasks, getattr(config, "pool_task_share", 0.0))
    shares = tuple(RankShare(rank=r, design_groups=designs[r], design_offset=offsets[r], agent_tasks=tasks[r],
                             design_slot_groups=design_slots[r], slot_groups=slot_groups, per_task=per_task,
                             pool_tasks=pool[r])
                   for r in range(world))
    return BatchLayout(world=world, num_generations=config.num_generations, shares=shares)


def reserve_pool_tasks(tasks: list[int], share: float) -> list[int]:
    """Per rank, how many of its agent tasks always come from the pool.

    The share is of the iteration's tasks, all ranks together: ``floor(share x sum(tasks))``,
    dealt one at a time to the rank with the most tasks not yet reserved (the lower rank on a
    tie). Rounding per rank instead would reserve nothing wherever a rank holds few tasks (24
    tasks on 24 ranks: one each, ``floor(0.25 x 1) = 0``), and the pool would again go unplayed
    once new designs' regret groups fill every rank's tasks.
    """
    reserved = [0] * len(tasks)
    for _ in range(math.floor(share * sum(tasks) + 1e-9)):
        rank = max(range(len(tasks)), key=lambda r: (tasks[r] - reserved[r], -r))
        reserved[rank] += 1
    return reserved


def assign_regret_plays(environments: list[tuple[str, int]], capacities: list[int], *,
                        whole_groups: bool = True) -> list[list[tuple[str, bool, int]]]:
    """Which rank plays which regret episode: per rank, (environment, with hint, seed index).

    ``environments``: every valid design's (environment, paired seeds K), in (rank, index)
    order; ``capacities``: the agent tasks each rank trains. Balanced by episodes: a
    design's K no-hint plays stay together (with ``whole_groups`` they are one GRPO group
    of the rank that plays them), given to the rank with the most room for groups left,
    then the fewest episodes; the K with-hint plays are dealt one by one to the rank with
    the fewest episodes. Ties go to the lower rank. The same on every rank (no collective).
    """
    world = len(capacities)
    room = list(capacities)
    load = [0] * world
    plan: list[list[tuple[str, bool, int]]] = [[] for _ in range(world)]
    for env_id, k in environments:
        if whole_groups:
            rank = min(range(world), key=lambda r: (room[r] <= 0, load[r], r))
            room[rank] -= 1
            plan[rank] += [(env_id, False, i) for i in range(k)]
            load[rank] += k
        else:
            for i in range(k):
                rank = min(range(world), key=lambda r: (load[r], r))
                plan[rank].append((env_id, False, i))
                load[rank] += 1
    for env_id, k in environments:
        for i in range(k):
            rank = min(range(world), key=lambda r: (load[r], r))
            plan[rank].append((env_id, True, i))
            load[rank] += 1
    return plan
