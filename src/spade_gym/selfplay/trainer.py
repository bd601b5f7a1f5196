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
**Trimmed micro-batches.** TRL pads a rank's whole generation batch to its widest
prompt plus its widest completion, and every forward pass (old and reference
log-probabilities, the loss) runs at that width. Self-play mixes design samples (short
prompt, long program) with per-turn agent samples (long prompt, short reply), so the
padded width is far above any one sample's length. Before each forward pass this trainer
drops the columns no row of the chunk attends (left prompt padding, right completion
padding) and pads the per-token outputs back: with ``per_device_train_batch_size=1`` (the
GPU presets) every sample costs its own length in FLOPs and activations, which is what
``--plan`` counts. Positions are rotary (relative), so the log-probabilities are the same
(tested against TRL's own).

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

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, batch_size=None,
                                           compute_entropy=False, compute_aux_loss=False, **kwargs):
        parent = super()._get_per_token_logps_and_entropies
        if any(v is not None for v in kwargs.values()):
            # images and the like are laid out per chunk by TRL: its own path, untrimmed
            return parent(model, input_ids, attention_mask, logits_to_keep, batch_size=batch_size,
                          compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss, **kwargs)
        batch_size = batch_size or input_ids.size(0)
        width = input_ids.size(1)
        prompt_width = width - logits_to_keep
        logps, entropies, aux = [], [], []
        for start in range(0, input_ids.size(0), batch_size):
            ids = input_ids[start:start + batch_size]
            mask = attention_mask[start:start + batch_size]
            used = mask.any(dim=0).nonzero().flatten()
            left, right = (0, width) if used.numel() == 0 else (int(used[0]), int(used[-1]) + 1)
            # keep at least the last prompt column and the first completion column
            left = min(left, prompt_width - 1) if prompt_width > 0 else 0
            right = max(right, prompt_width + 1)
            keep = right - prompt_width
            lp, ent, loss = parent(model, ids[:, left:right], mask[:, left:right], keep, batch_size=ids.size(0),
                                   compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss)
            pad = logits_to_keep - keep
            logps.append(torch.nn.functional.pad(lp, (0, pad)) if pad else lp)
            if ent is not None:
                entropies.append(torch.nn.functional.pad(ent, (0, pad)) if pad else ent)
            if loss is not None:
                aux.append(loss)
        return (torch.cat(logps, dim=0), torch.cat(entropies, dim=0) if entropies else None,
                torch.stack(aux).mean() if aux else None)

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
