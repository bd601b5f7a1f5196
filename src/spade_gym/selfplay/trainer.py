"""TRL's ``GRPOTrainer`` with two additions: advantages self-play computed itself, and the
importance correction of delayed design samples on the transformers path.

**Advantages.** GRPO normalises rewards over each group of ``num_generations``
consecutive samples. The SPADE reference's designer baseline is another one: a design's
reward minus the mean reward of the iteration's designs of the same skill, across every
prompt and rank, with no division by a std (``reward.skill_centring``). No choice of
rewards makes TRL's per-group normalisation produce that, so the rollouts pass those
advantages in the ``spade_advantage`` column (NaN where TRL's own advantage stands) and
they replace TRL's after it has scored the batch, before the batch is shuffled and split
for the updates.

**Stale samples.** With ``reward.designer_reward_delay`` the designer trains samples an
older policy drew (``spade_stale`` marks them). TRL corrects such samples only on its
vLLM path (the ratio of the current policy to the rollout's sampling-time
log-probabilities, per token and truncated, with ``vllm_importance_sampling_mode=
token_truncate``). Elsewhere this trainer computes the same ratio for the stale rows
(clipped to TRL's ``vllm_importance_sampling_clip_min/max``; 1 for every other row) and
has TRL's loss apply it, as the reference's truncated importance sampling does.
Imported only by the loop, with the training extra installed.
"""

from __future__ import annotations

import math

import torch
from trl import GRPOTrainer

#: The (batch, completion tokens) importance ratio of stale samples, where TRL computes none.
STALE_RATIO = "spade_importance_ratio"


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
        stale = [bool(x.get("spade_stale")) for x in inputs]
        if any(stale) and not self._trl_corrects_samples():
            output[STALE_RATIO] = self._stale_ratio(output, stale)
        return output

    def _trl_corrects_samples(self) -> bool:
        return bool(self.use_vllm and self.vllm_importance_sampling_correction)

    def _stale_ratio(self, output: dict, stale: list[bool]) -> torch.Tensor:
        """Per token: exp(current log-prob - sampling-time log-prob), truncated, on stale rows; 1 elsewhere."""
        sampling = output.get("sampling_per_token_logps")
        if sampling is None:
            raise ValueError("stale samples need their sampling-time log-probabilities (the rollout's logprobs)")
        ids = torch.cat([output["prompt_ids"], output["completion_ids"]], dim=1)
        mask = torch.cat([output["prompt_mask"], output["completion_mask"]], dim=1)
        with torch.no_grad():
            current, _, _ = self._get_per_token_logps_and_entropies(
                self.model, ids, mask, output["completion_ids"].size(1),
                batch_size=self.args.per_device_train_batch_size)
        ratio = torch.exp(torch.nan_to_num(current - sampling, nan=0.0))
        ratio = ratio.clamp(min=self.vllm_importance_sampling_clip_min, max=self.vllm_importance_sampling_clip_max)
        rows = torch.tensor(stale, device=ratio.device).unsqueeze(1)
        return torch.where(rows, ratio, torch.ones_like(ratio))

    def _compute_loss(self, model, inputs):
        ratio = inputs.get(STALE_RATIO)
        if ratio is None:
            return super()._compute_loss(model, inputs)
        # TRL multiplies the per-token loss by ``importance_sampling_ratio`` only under its
        # vLLM flags; nothing else in the loss reads them.
        flags = self.use_vllm, self.vllm_importance_sampling_correction
        inputs = {**inputs, "importance_sampling_ratio": ratio}
        self.use_vllm, self.vllm_importance_sampling_correction = True, True
        try:
            return super()._compute_loss(model, inputs)
        finally:
            self.use_vllm, self.vllm_importance_sampling_correction = flags
