"""TRL's ``GRPOTrainer`` with one addition: advantages self-play computed itself.

GRPO normalises rewards over each group of ``num_generations`` consecutive samples. The
SPADE reference's designer baseline is another one: a design's reward minus the mean
reward of the iteration's designs of the same skill, across every prompt and rank, with
no division by a std (``reward.skill_centring``). No choice of rewards makes TRL's
per-group normalisation produce that, so the rollouts pass those advantages in the
``spade_advantage`` column (NaN where TRL's own advantage stands) and they replace TRL's
after it has scored the batch, before the batch is shuffled and split for the updates.
Imported only by the loop, with the training extra installed.
"""

from __future__ import annotations

import math

from trl import GRPOTrainer


class SpadeGRPOTrainer(GRPOTrainer):
    def _generate_and_score_completions(self, inputs):
        output = super()._generate_and_score_completions(inputs)
        # TRL copied the rollout's extra columns into this process's inputs, in slot order,
        # and ``advantages`` holds this process's slice in the same order.
        given = [x.get("spade_advantage") for x in inputs]
        if any(a is not None and not math.isnan(a) for a in given):
            advantages = output["advantages"].clone()
            for i, a in enumerate(given):
                if a is not None and not math.isnan(a):
                    advantages[i] = a
            output["advantages"] = advantages
        return output
