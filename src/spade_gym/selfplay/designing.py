"""Design stage of a self-play iteration: sample this rank's design groups from the run's designer.

Which targets (skill, single/multi-turn) an iteration's design groups take: with
``design_skills=0`` they rotate over every target, one group after another across
iterations; with ``design_skills=s`` each design round draws ``s`` targets afresh (the same
on every rank: the draw's stream is the run's seed and the round) and its groups take
them in turn. Only iterations ``config.designs_at`` designs at all (``design_every``).

What draws a group's programs — the trained policy or a served model — is the run's
:class:`~spade_gym.selfplay.designers.Designer`; this stage decides what each group is asked.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from spade_gym.generate.pipeline import suite_memory
from spade_gym.generate.prompts import build_design_messages, skill_by_name
from spade_gym.registry import Suite, SuiteEntry
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.designers import Designer
from spade_gym.selfplay.distributed import Ranks
from spade_gym.selfplay.policy import TokenPolicy
from spade_gym.selfplay.records import DesignResult
from spade_gym.selfplay.warmstart import compact_design_messages


@dataclass
class Designs:
    """This rank's designs of an iteration, in group order (``num_generations`` per group)."""

    designs: list[DesignResult] = field(default_factory=list)
    #: Per group, the policy's samples of its designs (empty when the designer does not train).
    samples: list[list] = field(default_factory=list)
    #: Per group, its prompt's token ids (empty when the designer does not train).
    prompt_ids: list[list[int]] = field(default_factory=list)


class DesignStage:
    def __init__(self, config: SelfPlayConfig, designer: Designer, *, suite: Suite, seed_entries: list[SuiteEntry],
                 ranks: Ranks):
        self.config = config
        self.designer = designer
        self.suite = suite
        self.seed_entries = seed_entries
        self.ranks = ranks
        #: (skill, multi_turn) targets in turn (a tool-use task always takes several turns);
        #: "warmstart" uses the pairs the warm start taught.
        self.targets: list[tuple[str, bool | None]] = [
            (skill, True if skill_by_name(skill).kind == "tool-use" else None) for skill in config.skill_names()]
        if config.designer_targets == "warmstart":
            from spade_gym.selfplay.warmstart import warm_start_targets

            self.targets = list(warm_start_targets(seed_entries, config)) or self.targets

    def target(self, iteration: int, index: int) -> tuple[str, bool | None]:
        """The (skill, multi-turn) target of design group ``index`` (among the iteration's, global)."""
        config = self.config
        design_round = (iteration - 1) // config.design_every
        if config.design_skills:
            # One draw per round, from the run's seed alone: every rank draws the same subset.
            draw = random.Random(f"design-skills:{config.seed}:{design_round}")
            targets = list(dict.fromkeys(self.targets))
            subset = draw.sample(targets, min(config.design_skills, len(targets)))
            return subset[index % len(subset)]
        return self.targets[(design_round * config.designer_groups + index) % len(self.targets)]

    def run(self, policy: TokenPolicy, n_groups: int, iteration: int, rng: random.Random, phase, *,
            offset: int = 0) -> Designs:
        """This rank's ``n_groups`` design groups; ``offset`` is the index of its first among the
        iteration's (``designer_groups``, global): the targets rotate over the iteration's groups,
        so the same groups get the same targets on any number of ranks."""
        config = self.config
        out = Designs()
        all_entries = self.seed_entries + self.suite.entries()
        for group in range(n_groups):
            skill, multi_turn = self.target(iteration, offset + group)
            if multi_turn is None:
                multi_turn = rng.random() < config.multi_turn_ratio
            if self.designer.compact_prompts:
                messages = compact_design_messages(skill, multi_turn)
            else:
                # Regret decides the memory: the suite's programs nearest the agent's frontier
                # (by the regret and win rates self-play recorded on their cards) are shown.
                memory = suite_memory(all_entries, skill, k=config.memory_k, rng=rng)
                messages = build_design_messages(skill, multi_turn=multi_turn, memory=memory, rng=rng)
            drawn = self.designer.design(messages, policy, rng)
            phase.advance(len(drawn.texts))
            if drawn.prompt_ids is not None:
                out.prompt_ids.append(drawn.prompt_ids)
                out.samples.append(drawn.samples)
            out.designs += [DesignResult(skill, multi_turn, text, rank=self.ranks.rank, index=len(out.designs) + i)
                            for i, text in enumerate(drawn.texts)]
        self.designer.finish(out.designs, policy, rng)
        return out
