"""Time per self-play iteration by phase, and the environment side's share.

    python benchmarks/bench_selfplay.py                 # runs the cpu-tiny preset (a few minutes)
    python benchmarks/bench_selfplay.py --run runs/demo # reads an existing run's metrics.jsonl

Part 1 (measured): the cpu-tiny loop's phases — design (policy sampling programs),
validate (the sandbox validating them), play (episodes; of which the time inside
environments, i.e. the sandbox, is measured separately), update (TRL's GRPO step).

Part 2 (estimate, for the GPU presets): the environment side's share of an iteration
of ``qwen3-8b``, from this machine's measured per-program validation time and
per-step sandbox cost, and a stated generation throughput for the model class
(``--gen-tokens-per-s``; the default, 8,000 output tokens/s, is a conservative figure
for an 8B model served by vLLM in bf16 on one H100 with large batches). Token counts per
iteration follow from the preset; turns and tokens per turn are stated assumptions.
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

    config = load_preset("qwen3-8b")
    programs = config.designer_groups * config.num_generations
    valid_fraction = 0.5  # assumption: half of the designs validate
    turns, turn_tokens, program_tokens = 8, 600, 6000  # assumptions: typical episode and program sizes
    regret_episodes = int(programs * valid_fraction) * config.paired_seeds * 2
    agent_episodes = config.agent_groups * config.num_generations
    episodes = regret_episodes + agent_episodes
    gen_tokens = programs * program_tokens + episodes * turns * turn_tokens
    generation = gen_tokens / gen_tokens_per_s
    validation = programs * per_program / cores  # programs validate in parallel, one per core
    steps = episodes * (turns + 1)
    env_steps = steps * per_step / cores
    env = validation + env_steps
    rows = [
        ("designs per iteration", programs, ""),
        ("episodes per iteration (regret pairs + agent groups)", episodes, f"{turns} turns assumed"),
        ("generated tokens per iteration", f"{gen_tokens:,}", f"{program_tokens}/program, {turn_tokens}/turn assumed"),
        ("generation time", f"{generation:,.0f} s", f"at {gen_tokens_per_s:,.0f} tokens/s (assumed)"),
        ("validation time", f"{validation:,.1f} s", f"{per_program:.2f} s/program measured here, {cores} cores"),
        ("environment steps", f"{env_steps:,.1f} s", f"{steps:,} steps x {per_step * 1e6:.0f} us measured here"),
        ("environment side / (generation + environment side)", f"{env / (generation + env):.2%}", "target < 10%"),
    ]
    print_table("qwen3-8b preset: environment side's share of an iteration (estimate)", ("quantity", "value", "basis"),
                rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="read this run directory instead of running cpu-tiny")
    parser.add_argument("--gen-tokens-per-s", type=float, default=8000.0)
    parser.add_argument("--cores", type=int, default=32, help="CPU cores of the GPU host for validation")
    args = parser.parse_args()
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
