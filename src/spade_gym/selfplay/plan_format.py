"""The text of ``spade-gym selfplay --plan`` (:mod:`~spade_gym.selfplay.plan`)."""

from __future__ import annotations

import textwrap


def format_plan(plan) -> str:
    """The plan as the CLI prints it."""
    a = plan.assumptions

    def n(x: float) -> str:
        return f"{x:,.0f}"

    def t(seconds: float) -> str:
        return f"{seconds / 60:,.1f} min" if seconds >= 60 else f"{seconds:,.0f} s"

    lines = [
        f"Plan: preset {plan.preset}, {plan.model} ({plan.params / 1e9:.2f}B parameters"
        + (f", {plan.active_params / 1e9:.2f}B active" if plan.active_params != plan.params else "") + ")",
        f"  {plan.gpus} GPU(s): {plan.train_ranks} training rank(s)"
        + (f" + {plan.vllm_gpus} for `trl vllm-serve`" if plan.vllm_gpus else "") + f"; generation: {plan.mode}"
        + f"; training state: {plan.sharding}",
        "",
        "Per iteration (all ranks):",
        f"  {'role':<22}{'prompts':>12}{'episodes':>11}{'samples':>10}{'tokens generated':>19}{'tokens trained':>17}",
    ]
    for r in plan.roles:
        lines.append(f"  {r.role:<22}{n(r.prompts):>12}{n(r.episodes):>11}{n(r.samples):>10}"
                     f"{n(r.tokens_generated):>19}{n(r.tokens_trained):>17}")
    total_gen = sum(r.tokens_generated for r in plan.roles)
    lines += [
        (f"  {'total':<22}{n(sum(r.prompts for r in plan.roles)):>12}{n(sum(r.episodes for r in plan.roles)):>11}"
         f"{n(sum(r.samples for r in plan.roles)):>10}{n(total_gen):>19}"
         f"{n(sum(r.tokens_trained for r in plan.roles)):>17}"),
        (f"  samples per optimizer step: {plan.samples_per_step:,} ({plan.padding_samples:,} padding); "
         + (f"{plan.micro_batches:,} micro-batches a rank, packed by length, of at most "
            f"{plan.memory_gb['micro_batch_tokens']:,} tokens" if plan.memory_gb.get("budget") else
            f"micro-batch {plan.micro_batch} at {plan.padded_length:,} tokens")),
        "",
        "Time per iteration:",
    ]
    for name, seconds in plan.generation_s.items():
        lines.append(f"  generation, {name:<14}{t(seconds):>12}")
    lines += [
        f"  validation{'':<16}{t(plan.validation_s):>12}",
        f"  weight push{'':<15}{t(plan.sync_s):>12}",
        f"  training{'':<18}{t(plan.training_s):>12}",
        *([f"  optimizer (host){'':<10}{t(plan.optimizer_s):>12}"] if plan.optimizer_s else []),
        f"  total{'':<21}{t(plan.iteration_s):>12}",
        *([f"  between design rounds{'':<5}{t(plan.between_s):>12}",
           f"  mean of {plan.design_every} iterations{'':<7}{t(plan.mean_iteration_s):>12}"]
          if plan.between_s is not None else []),
        "",
        "Peak memory per training device: "
        f"{plan.memory_gb['peak']:.1f} GB of {a['gpu_memory_gb']:g} "
        f"(state {plan.memory_gb['state']:.1f} + gathered {plan.memory_gb['gathered']:.1f} + activations "
        f"{plan.memory_gb['activations']:.1f} for {plan.memory_gb['micro_batch_tokens']:,} tokens"
        + (f", of which attention {plan.memory_gb['attention']:.1f}" if plan.memory_gb.get("attention") else "")
        + ", +10% + 2 GB)"
        + ("" if plan.memory_gb["peak"] <= a["gpu_memory_gb"] else "  DOES NOT FIT"),
    ]
    if plan.vllm_memory_gb:
        v = plan.vllm_memory_gb
        lines.append(f"vLLM GPU: weights {v['weights']:.1f} GB, KV cache {v['kv_cache']:.1f} GB = "
                     f"{v['kv_tokens']:,} tokens ({v['sequences_at_longest']:,} sequences of the longest sample)"
                     + ("" if v["sequences_at_longest"] >= 1 else "  DOES NOT FIT"))
    lines += [""] + textwrap.wrap("Assumptions (--assume KEY=VALUE): " + ", ".join(
        f"{k}={'max_turns' if v is None else f'{v:g}'}" for k, v in a.items()), width=100,
        subsequent_indent="  ", break_on_hyphens=False)
    lines += [f"Note: {note}" for note in plan.notes]
    return "\n".join(lines)
