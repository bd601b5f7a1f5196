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

**Token-budget micro-batches** (``micro_batch_tokens``). TRL shuffles a rank's batch and
cuts it into micro-batches of equal row counts, so a 12k-token design can share a
micro-batch with short turns and pad every one of them to its width. With a budget this
trainer cuts it instead by length: the rows, designer rows first and each role longest
first, are split into the same number of micro-batches (every rank runs the same number of
forward and backward passes: ZeRO-3 gathers parameters collectively in each) in contiguous
runs chosen so that the largest micro-batch is as small as it can be
(:func:`pack_micro_batches`). A micro-batch then holds rows of similar length, as many as
fit, and its padded tokens (rows x widest prompt + widest completion, or the packed length)
stay within the budget wherever that many micro-batches can hold the rows at all. The
forward passes that need no gradient (old and reference log-probabilities) are cut the
same way. Micro-batches then hold different numbers of rows, which is exact for losses
normalised over the whole batch (TRL's default ``dapo``; the config refuses the others).

**Padding-free** (``padding_free``). Each forward pass's rows are packed into one sequence
of their real tokens, positions restarting at 0 for each (no attention mask:
transformers then keeps attention within each row), and the per-token outputs are put back
in TRL's padded layout.

Imported only by the loop, with the training extra installed.
"""

from __future__ import annotations

import math
from typing import Any, cast

import torch
from trl import GRPOConfig, GRPOTrainer

#: The (batch, completion tokens) importance ratio of stale samples, where TRL computes none.
STALE_RATIO = "spade_importance_ratio"


#: The per-row role of a batch (True: a design sample), for the token-budget packing.
DESIGN_ROWS = "spade_design_row"


class SpadeGRPOTrainer(GRPOTrainer):
    args: GRPOConfig  # what GRPOTrainer is given (transformers' Trainer types it TrainingArguments)
    #: TRL's batch buffer (TRL's __init__ sets it to None, which mypy takes for its type)
    _buffered_inputs: list[dict] | None  # type: ignore[assignment]

    def __init__(self, *args, micro_batch_tokens: int | None = None, padding_free: bool = False, **kwargs):
        self.spade_micro_batch_tokens = micro_batch_tokens
        self.spade_padding_free = padding_free
        #: The last packing: padded tokens of each micro-batch (this rank).
        self.spade_micro_batches: list[int] = []
        self._spade_roles: torch.Tensor | None = None
        super().__init__(*args, **kwargs)

    def _generate_and_score_completions(self, inputs):
        if self.spade_micro_batch_tokens is not None:
            # known before TRL's no-gradient forward passes, which are packed the same way
            self._spade_roles = torch.tensor([x.get("spade_role") == "designer" for x in inputs], dtype=torch.bool)
        try:
            output = super()._generate_and_score_completions(inputs)
        finally:
            roles, self._spade_roles = self._spade_roles, None
        if roles is not None:
            output[DESIGN_ROWS] = roles.to(output["prompt_ids"].device)
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

    def _prepare_inputs(self, generation_batch):
        budget = self.spade_micro_batch_tokens
        # (``model`` is set once training runs; transformers types it Optional)
        if budget is None or not cast(torch.nn.Module, self.model).training:
            return super()._prepare_inputs(generation_batch)
        # TRL's buffering, with the shuffle-and-split replaced by the packing by length.
        steps = cast(int, self.args.steps_per_generation)  # GRPOConfig fills it in where it is not given
        generate_every = steps * self.num_iterations
        if self._step % generate_every == 0 or self._buffered_inputs is None:
            batch = self._generate_and_score_completions(generation_batch)
            self._buffered_inputs = self._pack_batch(batch, steps, budget)
        return self._buffered_inputs[self._step % steps]

    def _pack_batch(self, batch: dict, chunks: int, budget: int) -> list[dict]:
        """The generation batch as ``chunks`` micro-batches of rows of similar length, each within ``budget``
        padded tokens where they fit (see the module docstring)."""
        prompt_len, completion_len = _lengths(batch["prompt_mask"], batch["completion_mask"])
        roles = batch.get(DESIGN_ROWS)
        groups = pack_micro_batches(prompt_len, completion_len, chunks, padding_free=self.spade_padding_free,
                                    first=roles.tolist() if roles is not None else None,
                                    budget=budget)
        rows = batch["prompt_ids"].size(0)
        self.spade_micro_batches = [micro_batch_cost([prompt_len[i] for i in g], [completion_len[i] for i in g],
                                                     padding_free=self.spade_padding_free) for g in groups]
        self._report_packing(budget)
        out = []
        for group in groups:
            index = torch.tensor(group, dtype=torch.long, device=batch["prompt_ids"].device)
            part: dict[str, Any] = {}
            for key, value in batch.items():
                if isinstance(value, torch.Tensor) and value.ndim > 0 and value.size(0) == rows:
                    part[key] = value.index_select(0, index)
                elif isinstance(value, list) and len(value) == rows:
                    part[key] = [value[i] for i in group]
                else:
                    part[key] = value  # scalars (num_items_in_batch) and None
            out.append(part)
        return out

    def _report_packing(self, budget: int) -> None:
        """The largest micro-batch (all ranks) and how many exceed ``budget``, on the iteration's metrics line."""
        local = torch.tensor([max(self.spade_micro_batches, default=0),
                              sum(1 for c in self.spade_micro_batches if c > budget)],
                             device=self.accelerator.device)
        everyone = self.accelerator.gather(local.unsqueeze(0)).view(-1, 2)
        largest, over = int(everyone[:, 0].max()), int(everyone[:, 1].sum())
        rollout = getattr(self, "rollout_func", None)
        metrics = getattr(rollout, "last_metrics", None)
        if isinstance(metrics, dict):
            metrics["micro_batch_tokens_max"] = largest
            metrics["micro_batches_over_budget"] = over
        progress = getattr(rollout, "progress", None)
        if over and progress is not None:
            progress.log(f"{over} micro-batch(es) hold more than micro_batch_tokens="
                         f"{budget} padded tokens (largest {largest:,}): the samples do "
                         "not fit that many micro-batches; lower grpo.per_device_train_batch_size")

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, batch_size=None,
                                           compute_entropy=False, compute_aux_loss=False, **kwargs):
        parent = super()._get_per_token_logps_and_entropies
        if any(v is not None for v in kwargs.values()):
            # images and the like are laid out per chunk by TRL: its own path, untrimmed
            return parent(model, input_ids, attention_mask, logits_to_keep, batch_size=batch_size,
                          compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss, **kwargs)
        rows = input_ids.size(0)
        batch_size = batch_size or rows
        chunks = math.ceil(rows / batch_size)
        if self.spade_micro_batch_tokens is not None and chunks > 1:
            # The same number of passes as TRL's chunks (collective under ZeRO-3), cut by length.
            width = input_ids.size(1) - logits_to_keep
            prompt_len, completion_len = _lengths(attention_mask[:, :width], attention_mask[:, width:])
            roles = self._spade_roles.tolist() if self._spade_roles is not None and \
                len(self._spade_roles) == rows else None
            groups = pack_micro_batches(prompt_len, completion_len, chunks, padding_free=self.spade_padding_free,
                                        first=roles, budget=self.spade_micro_batch_tokens)
        else:
            groups = [list(range(start, min(rows, start + batch_size))) for start in range(0, rows, batch_size)]
        forward = self._packed_forward if self.spade_padding_free else self._trimmed_forward
        logps = entropies = None
        aux = []
        for group in groups:
            index = torch.tensor(group, dtype=torch.long, device=input_ids.device)
            lp, ent, loss = forward(parent, model, input_ids.index_select(0, index),
                                    attention_mask.index_select(0, index), logits_to_keep,
                                    compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss)
            if logps is None:
                logps = lp.new_zeros((rows, logits_to_keep))
                entropies = lp.new_zeros((rows, logits_to_keep)) if ent is not None else None
            logps = logps.index_copy(0, index, lp)
            if ent is not None and entropies is not None:
                entropies = entropies.index_copy(0, index, ent)
            if loss is not None:
                aux.append(loss)
        return logps, entropies, torch.stack(aux).mean() if aux else None

    @staticmethod
    def _trimmed_forward(parent, model, ids, mask, logits_to_keep, *, compute_entropy, compute_aux_loss):
        """TRL's forward on the columns some row of the chunk attends (the rest padded back)."""
        width = ids.size(1)
        prompt_width = width - logits_to_keep
        used = mask.any(dim=0).nonzero().flatten()
        left, right = (0, width) if used.numel() == 0 else (int(used[0]), int(used[-1]) + 1)
        # keep at least the last prompt column and the first completion column
        left = min(left, prompt_width - 1) if prompt_width > 0 else 0
        right = max(right, prompt_width + 1)
        keep = right - prompt_width
        lp, ent, loss = parent(model, ids[:, left:right], mask[:, left:right], keep, batch_size=ids.size(0),
                               compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss)
        pad = logits_to_keep - keep
        if pad:
            lp = torch.nn.functional.pad(lp, (0, pad))
            ent = torch.nn.functional.pad(ent, (0, pad)) if ent is not None else None
        return lp, ent, loss

    def _packed_forward(self, parent, model, ids, mask, logits_to_keep, *, compute_entropy, compute_aux_loss):
        """The chunk's rows as one sequence of their real tokens, positions restarting per row;
        per-token outputs in TRL's layout (completion column j of row i)."""
        rows, width = ids.shape
        prompt_width = width - logits_to_keep
        real = mask.bool()
        tokens = ids[real]  # row by row: each row's prompt tokens, then its completion tokens
        lengths = real.sum(dim=1)
        prompt_len = real[:, :prompt_width].sum(dim=1)
        starts = torch.cumsum(lengths, 0) - lengths
        positions = torch.arange(tokens.numel(), device=ids.device) - torch.repeat_interleave(starts, lengths)
        # Score completion tokens only, never a row's first token (it would be predicted from the row before).
        completion = real[:, prompt_width:]
        row_of, col_of = completion.nonzero(as_tuple=True)
        at = starts[row_of] + prompt_len[row_of] + torch.cumsum(completion.int(), dim=1)[row_of, col_of] - 1
        scored = positions[at] > 0
        row_of, col_of, at = row_of[scored], col_of[scored], at[scored]
        labels = torch.full_like(tokens, -100)
        labels[at] = tokens[at]
        if tokens.numel() == 0:
            # Every rank runs this pass (ZeRO-3 gathers collectively): one masked token stands in.
            tokens, labels = ids.new_zeros(2), ids.new_full((2,), -100)
            positions = torch.arange(2, device=ids.device)
        model_inputs = {"input_ids": tokens.unsqueeze(0), "position_ids": positions.unsqueeze(0)}
        if compute_aux_loss:
            model_inputs["output_router_logits"] = True
        with self.accelerator.autocast():
            outputs = model(**model_inputs, labels=labels.unsqueeze(0), fused_lm_head=True)
        # outputs hold, at index t, the label of position t + 1
        lp = outputs.log_probs[0].new_zeros((rows, logits_to_keep)).index_put((row_of, col_of),
                                                                             outputs.log_probs[0][at - 1])
        ent = None
        if compute_entropy:
            ent = outputs.entropy[0].new_zeros((rows, logits_to_keep)).index_put((row_of, col_of),
                                                                                outputs.entropy[0][at - 1])
        return lp, ent, outputs.aux_loss if compute_aux_loss else None

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


def _lengths(prompt_mask: torch.Tensor, completion_mask: torch.Tensor) -> tuple[list[int], list[int]]:
    return prompt_mask.sum(dim=1).tolist(), completion_mask.sum(dim=1).tolist()


def micro_batch_cost(prompt_len: list[int], completion_len: list[int], *, padding_free: bool = False) -> int:
    """The tokens one forward pass over these rows computes: rows x (widest prompt + widest
    completion), the trimmed padded width; or, packed, the sum of the rows' lengths."""
    if not prompt_len:
        return 0
    if padding_free:
        return sum(prompt_len) + sum(completion_len)
    return len(prompt_len) * (max(prompt_len) + max(completion_len))


def pack_micro_batches(prompt_len: list[int], completion_len: list[int], chunks: int, *,
                       padding_free: bool = False, first: list[bool] | None = None,
                       budget: int | None = None) -> list[list[int]]:
    """Row indices of ``chunks`` non-empty micro-batches, rows of similar length together.

    The rows are ordered (the ``first`` ones, designer rows, before the rest; within each,
    longest first) and cut into ``chunks`` contiguous runs. The limit on a run's cost
    (:func:`micro_batch_cost`) is ``budget``, or the least any such cut can reach where that
    is more (a binary search, each candidate checked by a greedy scan); under that limit the
    cut with the fewest padded tokens in all, and of those the one with the smallest largest
    run, is taken (a dynamic programme over the runs' ends; packed, every cut computes the
    same tokens, so the runs come out balanced). Pure Python: the same rows give the same
    micro-batches on every call.
    """
    rows = len(prompt_len)
    if not 1 <= chunks <= rows:
        raise ValueError(f"cannot cut {rows} rows into {chunks} non-empty micro-batches")
    key = [((not first[i]) if first is not None else False, -(prompt_len[i] + completion_len[i]), i)
           for i in range(rows)]
    order = [i for *_, i in sorted(key)]
    if chunks == rows:
        return [[i] for i in order]
    p = [prompt_len[i] for i in order]
    c = [completion_len[i] for i in order]

    def cost(lo: int, hi: int) -> int:  # rows order[lo:hi]
        return micro_batch_cost(p[lo:hi], c[lo:hi], padding_free=padding_free)

    def runs_needed(limit: int) -> int:
        runs, start = 1, 0
        for j in range(1, rows):
            if cost(start, j + 1) > limit:
                runs, start = runs + 1, j
        return runs

    low = max(cost(j, j + 1) for j in range(rows))
    high = max(low, cost(0, rows))  # one run of everything: no run of a cut costs more
    while low < high:
        middle = (low + high) // 2
        if runs_needed(middle) <= chunks:
            high = middle
        else:
            low = middle + 1
    limit = max(low, budget or 0)
    inf = (float("inf"), float("inf"))
    # best[k][j]: (fewest tokens, then the smallest largest run) for rows order[:j] in k runs,
    # each within the limit. Lexicographic is exact here: among equal totals, a smaller largest
    # run so far never makes the whole worse. Packed, every total is the same: the largest run
    # is then as small as it can be (the micro-batches balanced).
    best = [[inf] * (rows + 1) for _ in range(chunks + 1)]
    start_of = [[0] * (rows + 1) for _ in range(chunks + 1)]
    best[0][0] = (0, 0)
    for k in range(1, chunks + 1):
        for j in range(k, rows - (chunks - k) + 1):
            top_p = top_c = total = 0
            for i in range(j - 1, k - 2, -1):  # the last run: order[i:j]
                top_p, top_c, total = max(top_p, p[i]), max(top_c, c[i]), total + p[i] + c[i]
                run = total if padding_free else (j - i) * (top_p + top_c)
                if run > limit:
                    break
                before = best[k - 1][i]
                candidate = (before[0] + run, max(before[1], run))
                if candidate < best[k][j]:
                    best[k][j], start_of[k][j] = candidate, i
    runs, j = [], rows
    for k in range(chunks, 0, -1):
        i = start_of[k][j]
        runs.append(order[i:j])
        j = i
    return runs[::-1]
