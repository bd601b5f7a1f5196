"""What ``--plan`` (:mod:`~spade_gym.selfplay.plan`) cannot read from the config: its assumptions.

Throughput, fill rates, prompt sizes, the GPU's FLOP/s and memory: each a stated default,
printed with every plan, and set with ``--assume KEY=VALUE`` (:func:`parse_assumptions`).
Kept apart from the arithmetic so that what is assumed is one list to read and to argue with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from spade_gym.errors import ConfigError


@dataclass(frozen=True)
class Assumptions:
    """What the plan cannot know from the config; every one is printed with the plan."""

    #: Decode tokens/s of one generation GPU at full batch (vLLM, bf16). 4,000: an 8B model on
    #: an H100 80 GB with ~90 sequences of ~4k context in the KV cache (memory-bandwidth bound:
    #: (16 GB of weights + ~55 GB of KV) read per step at 3.35 TB/s, ~22 ms a step).
    tokens_per_s: float = 4000.0
    #: Decode tokens/s of one sequence in that batch (the same step time: ~45).
    seq_tokens_per_s: float = 45.0
    #: Mean turns per episode (None: max_turns, every episode runs to the limit).
    turns: float | None = None
    #: Share of max_turn_tokens / max_program_tokens / self_hint_max_tokens a reply / a design /
    #: a written hint generates (1: the cap).
    turn_fill: float = 1.0
    program_fill: float = 1.0
    hint_fill: float = 1.0
    #: Share of designs that validate (and are played for regret).
    valid_fraction: float = 0.5
    #: Prompt tokens: a design prompt (the full prompt with its frontier memory), an
    #: episode's first observation, each later turn's feedback, and a reply once its
    #: reasoning is stripped (what per-turn prompts grow by).
    design_prompt_tokens: int = 4000
    first_prompt_tokens: int = 600
    feedback_tokens: int = 300
    visible_reply_tokens: int = 200
    #: Dense bf16 FLOP/s of one GPU (H100 SXM: 989e12) and the share training reaches.
    gpu_flops: float = 989e12
    mfu: float = 0.35
    gpu_memory_gb: float = 80.0
    #: Share of a vLLM GPU's memory vLLM takes (its gpu_memory_utilization).
    vllm_memory_fraction: float = 0.9
    #: Seconds to validate one design (one sandbox worker), and workers per rank (selfplay/admission.py: 4).
    validate_s: float = 20.0
    validate_workers: int = 4
    #: Weight push to the vLLM server (GB/s, TRL streams parameter by parameter over NCCL).
    sync_gb_per_s: float = 5.0
    #: Parameters per second one rank's host-side Adam updates (sharding=zero3-offload).
    cpu_adam_params_per_s: float = 1e9


def parse_assumptions(items: list[str], base: Assumptions | None = None) -> Assumptions:
    """``KEY=VALUE`` strings (``--assume``) over ``base``."""
    out = base or Assumptions()
    names = {f.name: f for f in fields(Assumptions)}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in names:
            raise ConfigError(f"--assume {item!r}: expected KEY=VALUE with KEY one of {', '.join(names)}")
        parsed: float | int | None
        try:
            parsed = None if value.strip().lower() in ("null", "none") and key == "turns" else float(value)
        except ValueError:
            raise ConfigError(f"--assume {key}={value!r}: expected a number") from None
        if parsed is not None and (not math.isfinite(parsed) or parsed <= 0):
            raise ConfigError(f"--assume {key}={value}: must be a number > 0")
        if key in ("design_prompt_tokens", "first_prompt_tokens", "feedback_tokens", "visible_reply_tokens",
                   "validate_workers") and parsed is not None:
            parsed = int(parsed)
        out = replace(out, **{key: parsed})  # type: ignore[arg-type]
    return out
