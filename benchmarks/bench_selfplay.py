"""Time per self-play iteration by phase, and the environment side's share.

    python benchmarks/bench_selfplay.py                 # runs the cpu-tiny preset (a few minutes)
    python benchmarks/bench_selfplay.py --run runs/demo # reads an existing run's metrics.jsonl

Part 1 (measured): the cpu-tiny loop's phases — design (policy sampling programs),
validate (the sandbox validating them), play (episodes; of which the time inside
environments, i.e. the sandbox, is measured separately), update (TRL's GRPO step).

Part 2 (estimate, for the GPU presets): the environment side's share of an iteration
of ``qwen3-8b`` on 8 GPUs, from the plan of ``spade-gym selfplay --plan``
(``selfplay/plan.py``: global counts, every rank, thinking turns at the preset's
``max_turn_tokens``) with this machine's measured per-program validation time and
per-step sandbox cost. ``--gen-tokens-per-s`` is the plan's ``tokens_per_s`` (decode
tokens/s of the one server GPU; default 4,000, an 8B model on an H100 80 GB).

Part 3 (``--micro-batches``, arithmetic only, no run): one ``qwen3-8b`` rank's batch on 7
training ranks (128 slots: its designs, per-turn agent samples of thinking turns, padding
slots; lengths drawn from the plan's shapes, every reply between a quarter of its cap and
the cap) cut into 64 micro-batches (``per_device_train_batch_size=2``): TRL's shuffled
equal cuts against ``micro_batch_tokens`` packing (``selfplay/trainer.py``), padded and
packed; tokens computed in all and in the largest micro-batch.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENIGN, print_table  # noqa: E402

PHASES = ("design_s", "validate_s", "play_s", "update_s")


def measured_costs() -> tuple[float, float]:
    """(seconds to validate one typical program, seconds per sandboxed step), measured now."""
    from spade_gym.sandbox import ProgramHandle
    from spade_gym.validation import validate_source

    sources = [p.read_text() for p in sorted(BENIGN.glob("*.py"))]
    start = time.perf_counter()
    for source in sources:
        validate_source(source)
    per_program = (time.perf_counter() - start) / len(sources)
    handle = ProgramHandle(sources[0])
    handle.reset(seed=0)
    start = time.perf_counter()
    steps = 0
    while steps < 2000:
        *_, terminated, truncated, _ = handle.step("\\boxed{7}")
        steps += 1
        if terminated or truncated:
            handle.reset(seed=steps)
    per_step = (time.perf_counter() - start) / steps
    handle.close()
    return per_program, per_step


def part_one(rows: list[dict]) -> None:
    table = []
    for row in rows:
        total = sum(row.get(p) or 0.0 for p in PHASES)
        env = (row.get("validate_s") or 0.0) + (row.get("play_env_s") or 0.0)
        table.append((row["iteration"], *(f"{row.get(p) or 0:.1f}" for p in PHASES),
                      f"{row.get('play_env_s') or 0:.2f}", f"{total:.1f}", f"{env / total:.1%}" if total else "-"))
    totals = {p: sum(r.get(p) or 0.0 for r in rows) for p in PHASES}
    total = sum(totals.values())
    env = totals["validate_s"] + sum(r.get("play_env_s") or 0.0 for r in rows)
    table.append(("all", *(f"{totals[p]:.1f}" for p in PHASES), f"{env - totals['validate_s']:.2f}",
                  f"{total:.1f}", f"{env / total:.1%}"))
    print_table("cpu-tiny: seconds per iteration by phase (measured)",
                ("iteration", "design", "validate", "play", "update", "  in envs", "total", "env side"), table)


def part_two(per_program: float, per_step: float, gen_tokens_per_s: float, cores: int) -> None:
    from spade_gym.selfplay import load_preset
    from spade_gym.selfplay.plan import Assumptions, plan_iteration

    config = load_preset("qwen3-8b")
    # validation runs on the host's cores: the plan's per-rank workers, each at the measured speed
    plan = plan_iteration(config, gpus=8, assumptions=Assumptions(tokens_per_s=gen_tokens_per_s,
                                                                  validate_s=per_program))
    episodes = sum(r.episodes for r in plan.roles)
    turns = config.max_turns
    steps = int(episodes * (turns + 1))
    env_steps = steps * per_step / cores  # every rank's sandbox workers share the host's cores
    generation = sum(plan.generation_s.values())
    env = plan.validation_s + env_steps
    rows = [
        ("designs per iteration (all ranks)", f"{int(plan.roles[0].prompts):,}", ""),
        ("episodes per iteration (regret pairs + agent tasks)", f"{int(episodes):,}", f"{turns} turns (max_turns)"),
        ("generated tokens per iteration", f"{sum(r.tokens_generated for r in plan.roles):,.0f}",
         f"{config.max_turn_tokens}/turn, {config.max_program_tokens}/program (the caps)"),
        ("generation time", f"{generation:,.0f} s", f"at {gen_tokens_per_s:,.0f} tokens/s on 1 server GPU (assumed)"),
        ("training time", f"{plan.training_s:,.0f} s", f"{plan.train_ranks} ranks, plan's MFU"),
        ("validation time", f"{plan.validation_s:,.1f} s", f"{per_program:.2f} s/program measured here"),
        ("environment steps", f"{env_steps:,.1f} s",
         f"{steps:,} steps x {per_step * 1e6:.0f} us measured, {cores} cores"),
        ("environment side / iteration", f"{env / (plan.iteration_s + env_steps):.2%}", "target < 10%"),
    ]
    print_table("qwen3-8b preset on 8 GPUs: environment side's share of an iteration (estimate, selfplay/plan.py)",
                ("quantity", "value", "basis"), rows)


def part_three(seed: int = 0, budget: int = 32_768, chunks: int = 64) -> None:
    import random

    from spade_gym.selfplay import load_preset
    from spade_gym.selfplay.trainer import micro_batch_cost, pack_micro_batches

    config = load_preset("qwen3-8b")
    rng = random.Random(seed)
    rows: list[tuple[int, int, bool]] = []  # (prompt, completion, designer row)
    for _ in range(3):  # 16 designs over 7 ranks: 2-3 a rank
        rows.append((4000, rng.randint(config.max_program_tokens // 4, config.max_program_tokens), True))
    while len(rows) < 112:  # per-turn samples: the prompt grows by the visible turns so far
        turn = rng.randrange(config.max_turns)
        prompt = min(600 + turn * 500, config.max_episode_tokens - config.max_turn_tokens)
        rows.append((prompt, rng.randint(config.max_turn_tokens // 4, config.max_turn_tokens), False))
    rows += [(1, 1, False)] * (128 - len(rows))  # padding slots
    prompt, completion, first = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]

    def cost(groups, packed):
        costs = [micro_batch_cost([prompt[i] for i in g], [completion[i] for i in g], padding_free=packed)
                 for g in groups]
        return sum(costs), max(costs)

    order = list(range(len(rows)))
    rng.shuffle(order)
    size = len(rows) // chunks
    trl = [order[i * size:(i + 1) * size] for i in range(chunks)]
    started = time.perf_counter()
    packed_padded = pack_micro_batches(prompt, completion, chunks, first=first, budget=budget)
    seconds = time.perf_counter() - started
    packed_free = pack_micro_batches(prompt, completion, chunks, first=first, budget=budget, padding_free=True)
    table = []
    for name, groups, packed in (("TRL: shuffled equal cuts, padded", trl, False),
                                 ("micro_batch_tokens, padded", packed_padded, False),
                                 ("TRL: shuffled equal cuts, padding_free", trl, True),
                                 ("micro_batch_tokens + padding_free", packed_free, True)):
        total, largest = cost(groups, packed)
        table.append((name, f"{total:,}", f"{largest:,}", "yes" if largest <= budget else "no"))
    print_table(f"qwen3-8b, one rank's 128 samples ({sum(prompt) + sum(completion):,} real tokens) in {chunks} "
                f"micro-batches, budget {budget:,} (packing took {seconds * 1e3:.0f} ms)",
                ("cut", "tokens computed", "largest micro-batch", "within budget"), table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="read this run directory instead of running cpu-tiny")
    parser.add_argument("--gen-tokens-per-s", type=float, default=4000.0)
    parser.add_argument("--cores", type=int, default=32, help="CPU cores of the GPU host for validation")
    parser.add_argument("--micro-batches", action="store_true", help="part 3 only: micro-batch packing arithmetic")
    args = parser.parse_args()
    if args.micro_batches:
        part_three()
        return
    if args.run:
        run_dir = Path(args.run)
    else:
        from spade_gym.selfplay import load_preset, start_selfplay
        from spade_gym.selfplay.progress import Progress

        run_dir = Path(tempfile.mkdtemp(prefix="bench-selfplay-")) / "run"
        config = load_preset("cpu-tiny")
        config.report_to = ()
        start_selfplay(config, run_dir, progress=Progress(enabled=False))
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    from spade_gym.selfplay.report import warm_start_seconds

    warm = warm_start_seconds(run_dir)
    if warm:
        print(f"warm start (model build included): {warm:.0f} s, before the first iteration")
    part_one(rows)
    per_program, per_step = measured_costs()
    part_two(per_program, per_step, args.gen_tokens_per_s, args.cores)
    print(f"(measured on this machine: validation {per_program:.2f} s per program, "
          f"sandboxed step {statistics.mean([per_step]) * 1e6:.0f} us)")


if __name__ == "__main__":
    main()
