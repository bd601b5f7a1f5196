#!/usr/bin/env bash
# One-GPU smoke test of self-play's GPU paths, in under 10 minutes.
#
#   benchmarks/gpu_smoke.sh [OUT_DIR]             # on a machine with one GPU
#   benchmarks/gpu_smoke.sh --dry-run [OUT_DIR]   # on CPU: the same checks, transformers generation
#
# Builds a small Qwen2-architecture model locally (no download: the tokenizer is trained on
# the bundled suite, as the cpu-tiny preset does), then runs 2 self-play iterations
# through TRL: with vLLM installed, TRL's colocated vLLM engine (vllm_mode=colocate, on
# the one GPU beside training); without it, TRL's own transformers generation. Checks:
#
#   1. distinct completions within every GRPO group (per-sample seeds reach the engine);
#   2. generation changes after a weight update (the update reaches the engine: TRL's
#      sync_weights). A fixed probe (fixed prompt, fixed seeds) is sampled in iteration 1,
#      before the first update, and in iteration 2, after it. A small per-sample offset is
#      added to the rewards so that the first update is never zero;
#   3. the log-probabilities the rollout returns match the trainer's recompute of the same
#      tokens (mean absolute difference; vLLM in bf16 is allowed SMOKE_LOGPROB_TOL, default 0.05);
#   4. generated tokens per second of the rollouts (at least SMOKE_MIN_TOKENS_PER_S on GPU,
#      default 200; reported in the dry run);
#   5. padding-free passes (padding_free: a micro-batch's rows packed into one sequence, with
#      attn_implementation=auto: flash attention where it is installed) give the log-probabilities
#      of the padded pass (mean absolute difference; bf16 on GPU is allowed SMOKE_PACKED_TOL,
#      default 0.02).
#
# Prints one JSON line per check and a summary; exits 1 when a check fails. Environment:
# PYTHON (default: python), SMOKE_LOGPROB_TOL, SMOKE_MIN_TOKENS_PER_S.
set -euo pipefail

DRY_RUN=0
if [[ "${1:-}" == "--dry-run" ]]; then
  DRY_RUN=1
  shift
fi
OUT="${1:-$(mktemp -d -t spade-gpu-smoke-XXXXXX)}"
PY="${PYTHON:-python}"
export TRL_EXPERIMENTAL_SILENCE=1 SMOKE_DRY_RUN="$DRY_RUN" SMOKE_OUT="$OUT"
[[ "$DRY_RUN" == 1 ]] && export CUDA_VISIBLE_DEVICES="" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"

exec "$PY" - <<'PY'
import hashlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

dry_run = os.environ["SMOKE_DRY_RUN"] == "1"
out = Path(os.environ["SMOKE_OUT"])
out.mkdir(parents=True, exist_ok=True)

import torch

from spade_gym.selfplay.generation import make_generator
from spade_gym.selfplay.presets import load_preset
import spade_gym.selfplay.rollout as rollout_module

if not dry_run and not torch.cuda.is_available():
    sys.exit("gpu_smoke: no GPU visible (use --dry-run on CPU)")
use_vllm = not dry_run and importlib.util.find_spec("vllm") is not None
path = "vllm-colocate" if use_vllm else ("transformers-cpu" if dry_run else "transformers-gpu")

config = load_preset("cpu-test")
config.preset = "gpu-smoke"
config.iterations = 2
config.report_to = ()
config.warmstart.enabled = False  # the model is built, not taught: the checks need no skill
config.designer_groups, config.agent_groups, config.num_generations, config.paired_seeds = 1, 2, 4, 4
# vLLM reports log-probabilities at the temperature it sampled: every role at the loss's
config.designer_temperature = config.agent_temperature = config.temperature = 0.8
config.regret_temperature = None
if not dry_run:
    config.tiny.hidden_size, config.tiny.num_layers, config.tiny.num_heads = 256, 4, 4
    config.max_program_tokens, config.max_turn_tokens, config.max_episode_tokens = 256, 64, 512
    config.grpo = {"bf16": True}
    if use_vllm:
        config.grpo.update({"use_vllm": True, "vllm_mode": "colocate", "vllm_gpu_memory_utilization": 0.3})
    config.torch_threads = None
    config.attn_implementation = "auto"

PROBE = [{"role": "user", "content": "Design a single-turn text environment that trains counting."}]
state = {"calls": 0, "probes": [], "logprob_diffs": [], "packed_diffs": [], "distinct": [], "tokens": 0,
         "seconds": 0.0}
original = rollout_module.SpadeRollout.__call__


def probe(trainer):
    generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
    ids = trainer.processing_class.apply_chat_template(PROBE, tokenize=False, add_generation_prompt=True)
    ids = trainer.processing_class(ids, add_special_tokens=False)["input_ids"]
    with generator.session():
        samples = generator.sample([ids] * 4, max_new_tokens=24, temperature=trainer.args.temperature, seed=1234)
    return [[s.completion_ids, [round(x, 4) for x in s.logprobs]] for s in samples]


def recompute(trainer, batch):
    """Mean |returned - recomputed| log-probability over the policy's tokens of a few rows."""
    diffs = []
    model = trainer.model
    was_training = model.training
    model.eval()
    try:
        for prompt, ids, logps, mask in list(zip(batch["prompt_ids"], batch["completion_ids"], batch["logprobs"],
                                                 batch["env_mask"]))[:8]:
            if not any(mask) or len(ids) < 2:
                continue
            x = torch.tensor([prompt + ids], device=model.device)
            with torch.no_grad():
                got, _, _ = trainer._get_per_token_logps_and_entropies(model, x, torch.ones_like(x), len(ids))
            for a, b, m in zip(logps, got[0].float().tolist(), mask):
                if m and a == a:  # skip NaN (no log-probability reported)
                    diffs.append(abs(a - b))
    finally:
        if was_training:
            model.train()
    return sum(diffs) / len(diffs) if diffs else None


def packed_vs_padded(trainer, batch):
    """Mean |padded - packed| log-probability of up to 4 rows in one pass (padding_free on and off)."""
    rows = [(p, c) for p, c, m in zip(batch["prompt_ids"], batch["completion_ids"], batch["env_mask"])
            if any(m) and len(c) > 1][:4]
    if len(rows) < 2:
        return None
    pad = trainer.processing_class.pad_token_id or 0
    wp, wc = max(len(p) for p, _ in rows), max(len(c) for _, c in rows)
    model = trainer.model
    ids = torch.tensor([[pad] * (wp - len(p)) + p + c + [pad] * (wc - len(c)) for p, c in rows], device=model.device)
    mask = torch.tensor([[0] * (wp - len(p)) + [1] * (len(p) + len(c)) + [0] * (wc - len(c)) for p, c in rows],
                        device=model.device)
    scored = torch.tensor([[1] * len(c) + [0] * (wc - len(c)) for _, c in rows], device=model.device).bool()
    state["attention"] = getattr(model.config, "_attn_implementation", None)
    was_training, packed = model.training, trainer.spade_padding_free
    model.eval()
    try:
        out = []
        for flag in (False, True):
            trainer.spade_padding_free = flag
            with torch.no_grad():
                logps, _, _ = trainer._get_per_token_logps_and_entropies(model, ids, mask, wc, batch_size=len(rows))
            out.append(logps.float()[scored])
    finally:
        trainer.spade_padding_free = packed
        if was_training:
            model.train()
    return (out[0] - out[1]).abs().mean().item()


def wrapped(self, prompts, trainer):
    started = time.monotonic()
    batch = original(self, prompts, trainer)
    state["seconds"] += time.monotonic() - started
    state["calls"] += 1
    m = self.last_metrics
    state["tokens"] += m["tokens_designer"] + m["tokens_agent"]
    G = self.config.num_generations
    for g in range(0, len(batch["completion_ids"]), G):
        group = [tuple(c) for c, mask in zip(batch["completion_ids"][g:g + G], batch["env_mask"][g:g + G])
                 if any(mask)]
        if len(group) == G:  # not padding, not a group without loss
            state["distinct"].append(len(set(group)))
    state["logprob_diffs"].append(recompute(trainer, batch))
    state["packed_diffs"].append(packed_vs_padded(trainer, batch))
    state["probes"].append(probe(trainer))
    # never a zero update: a small per-sample offset on the rewards (a smoke test, not a result)
    batch["spade_reward"] = [r + 0.05 * (i % 2) for i, r in enumerate(batch["spade_reward"])]
    return batch


rollout_module.SpadeRollout.__call__ = wrapped
from spade_gym.selfplay import start_selfplay  # noqa: E402
from spade_gym.selfplay.progress import Progress  # noqa: E402

run_dir = out / "run"
started = time.monotonic()
summary = start_selfplay(config, run_dir, progress=Progress(enabled=False))
wall = time.monotonic() - started

tolerance = float(os.environ.get("SMOKE_LOGPROB_TOL", "1e-3" if not use_vllm else "0.05"))
floor = 0.0 if dry_run else float(os.environ.get("SMOKE_MIN_TOKENS_PER_S", "200"))
tokens_per_s = state["tokens"] / state["seconds"] if state["seconds"] else 0.0
diffs = [d for d in state["logprob_diffs"] if d is not None]
packed = [d for d in state["packed_diffs"] if d is not None]
packed_tolerance = float(os.environ.get("SMOKE_PACKED_TOL", "1e-4" if dry_run else "0.02"))
digest = [hashlib.sha256(json.dumps(p).encode()).hexdigest()[:12] for p in state["probes"]]
checks = [
    ("iterations", state["calls"] == 2 and summary.get("iterations") == 2, {"rollouts": state["calls"]}),
    ("distinct completions per group", bool(state["distinct"]) and min(state["distinct"]) >= 2,
     {"distinct": state["distinct"], "G": config.num_generations}),
    ("generation changes after a weight update", len(digest) == 2 and digest[0] != digest[1], {"probe": digest}),
    ("log-probabilities match the trainer's recompute", bool(diffs) and max(diffs) <= tolerance,
     {"mean_abs_diff": diffs, "tolerance": tolerance}),
    ("tokens per second", tokens_per_s > floor, {"tokens": state["tokens"], "tokens_per_s": round(tokens_per_s, 1),
                                                 "floor": floor}),
    ("padding-free passes match the padded ones", bool(packed) and max(packed) <= packed_tolerance,
     {"mean_abs_diff": packed, "tolerance": packed_tolerance,
      "attention": state.get("attention")}),
]
failed = 0
for name, ok, detail in checks:
    failed += not ok
    print(json.dumps({"check": name, "ok": bool(ok), **detail}))
print(json.dumps({"path": path, "dry_run": dry_run, "wall_s": round(wall, 1), "run_dir": str(run_dir),
                  "failed": failed}))
sys.exit(1 if failed else 0)
PY
