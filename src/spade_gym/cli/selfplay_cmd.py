"""``spade-gym selfplay``: the GRPO self-play loop."""

from __future__ import annotations

import json

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json
from spade_gym.errors import ConfigError
from spade_gym.selfplay.overrides import apply_overrides
from spade_gym.selfplay.presets import PRESETS, load_preset


@click.command("selfplay")
@click.option("--preset", type=click.Choice(sorted(PRESETS)), default=None,
              help="Configuration to start from [default: cpu-tiny] (cpu-tiny runs on 2 CPU cores in minutes).")
@click.option("--output", type=click.Path(file_okay=False), default=None,
              help="Run directory (checkpoints, metrics.jsonl, the run's suite of designed environments); "
                   "required except with --plan and --show-config, which write nothing.")
@click.option("--resume", is_flag=True, help="Continue the run in --output from its last checkpoint.")
@click.option("--iterations", type=click.IntRange(min=1), help="Total iterations (overrides the preset).")
@click.option("--designer", type=click.Choice(["policy", "openai"]), default=None,
              help="Who designs: the trained policy (SPADE, default) or a served model on an OpenAI-compatible "
                   "server (then only the agent trains).")
@click.option("--base-url", help="The served designer's API root, e.g. http://localhost:8000/v1 (--designer openai).")
@click.option("--model", "designer_model", help="The served designer's model name (--designer openai).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a config field (repeatable), e.g. --set reward.mode=paper --set grpo.bf16=true.")
@click.option("--show-config", is_flag=True, help="Print the resolved configuration and exit.")
@click.option("--plan", "plan", is_flag=True,
              help="Print what one iteration costs (work per role, samples per step, generation and training time, "
                   "peak memory per device) and exit; nothing is trained or downloaded.")
@click.option("--gpus", type=click.IntRange(min=1), default=8, show_default=True,
              help="With --plan: GPUs of the run, the vLLM server's included.")
@click.option("--vllm-gpus", type=click.IntRange(min=0), default=None,
              help="With --plan: GPUs reserved for `trl vllm-serve` [default: the config's vllm_gpus with "
                   "vllm_mode=server, else 0].")
@click.option("--tokens-per-s", type=click.FloatRange(min=0, min_open=True), default=None,
              help="With --plan: decode tokens/s of one generation GPU at full batch [default: 4000, an 8B model "
                   "on an H100 80 GB].")
@click.option("--assume", "assume", multiple=True, metavar="KEY=VALUE",
              help="With --plan: another assumption (repeatable), e.g. --assume turns=6 --assume mfu=0.3.")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON.")
@handle_errors
def command(preset, output, resume, iterations, designer, base_url, designer_model, overrides, show_config,
            plan, gpus, vllm_gpus, tokens_per_s, assume, as_json):
    """Run SPADE self-play: one policy designs environments (rewarded by hint regret)
    and plays them (rewarded by its return), both trained with GRPO (TRL).

    Every iteration is checkpointed; valid designed programs are registered into
    OUTPUT/suite and are gym.make-able at once. Needs the [train] extra. For several
    GPUs run the same command under `accelerate launch` (see docs/selfplay.md).

    \b
    Examples:
      spade-gym selfplay --preset cpu-tiny --output runs/demo
      spade-gym selfplay --output runs/demo --resume --iterations 6
      spade-gym selfplay --preset qwen3-8b --output runs/q8 --set paired_seeds=8
      spade-gym selfplay --preset qwen3-8b --plan --gpus 8 --tokens-per-s 4000
      spade-gym selfplay --designer openai --base-url http://localhost:8000/v1 --model my-model --output runs/served
    """
    if output is None and not (plan or show_config):
        raise click.UsageError("Missing option '--output': the run directory (only --plan and --show-config "
                               "run without one).")
    if (base_url or designer_model) and designer != "openai":
        raise ConfigError("--base-url and --model are for a served designer: add --designer openai")
    served = [f"designer={designer}"] if designer else []
    if base_url:
        served.append(f"designer_base_url={base_url}")
    if designer_model:
        served.append(f"designer_model={designer_model}")
    if resume and (overrides or preset or served):
        _refuse_changes_on_resume(output, preset, served + list(overrides))
    config = apply_overrides(load_preset(preset or "cpu-tiny"), served + list(overrides))
    if iterations is not None:
        config.iterations = iterations
    if show_config:
        click.echo(json.dumps(config.to_dict(), indent=2))
        return
    if plan:
        from spade_gym.selfplay.plan import format_plan, parse_assumptions, plan_iteration

        assumptions = parse_assumptions(([f"tokens_per_s={tokens_per_s}"] if tokens_per_s else []) + list(assume))
        result = plan_iteration(config, gpus=gpus, vllm_gpus=vllm_gpus, assumptions=assumptions)
        if as_json:
            echo_json(result.to_dict())
        else:
            click.echo(format_plan(result))
        return
    if vllm_gpus is not None or tokens_per_s is not None or assume:
        raise ConfigError("--vllm-gpus, --tokens-per-s and --assume are for --plan")
    import contextlib
    import sys

    from rich.console import Console

    from spade_gym.selfplay import resume_selfplay, start_selfplay
    from spade_gym.selfplay.progress import Progress

    progress = Progress(console=Console(stderr=True) if as_json else Console())
    # With --json, stdout carries the summary only: anything else goes to stderr.
    quiet = contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext()
    with quiet:
        if resume:
            summary = resume_selfplay(output, iterations=iterations, progress=progress)
        else:
            summary = start_selfplay(config, output, progress=progress)
    if not summary:
        return  # not the main process
    if as_json:
        echo_json(summary)
        return
    click.echo(format_summary(summary))


def format_summary(summary: dict) -> str:
    registered = sorted(set(summary["registered"]))
    failed = ", ".join(f"{name} {count}" for name, count in sorted(summary.get("failed_checks", {}).items(),
                                                                   key=lambda kv: -kv[1]))

    def num(value):
        return "-" if value is None else f"{value:.3g}"

    lines = [
        "",
        f"Self-play: {summary['iterations']} iteration(s), preset {summary['preset']}, run in {summary['run_dir']}",
        f"  designed {summary['designed']}, valid {summary['valid']}"
        + (f" (rejected by: {failed})" if failed else ""),
        f"  registered {len(registered)} in {summary['suite']}: " + (", ".join(registered) or "none"),
        f"  mean hint regret {num(summary.get('regret_mean'))}; agent return {num(summary.get('agent_return_mean'))}"
        f"; agent win rate on seed-suite tasks {num(summary.get('agent_win_rate_suite'))}",
        f"  rejected designs and their reports: {summary['run_dir']}/rejected/",
        f"  plots and a summary: spade-gym report {summary['run_dir']}",
    ]
    if summary.get("model") == "tiny":
        lines += [
            "",
            "A tiny CPU model demonstrates the machinery (designing, validating, registering, regret, GRPO on",
            "both roles); it cannot invent environments. For real designs keep a strong designer on a server",
            "(--designer openai --base-url URL --model NAME) or train a GPU preset (--preset qwen3-8b under",
            "accelerate launch); see docs/selfplay.md.",
        ]
    if registered:
        lines += ["", f"Use them: SPADE_GYM_SUITES={summary['suite']} spade-gym list"]
    return "\n".join(lines)


def _refuse_changes_on_resume(output, preset: str | None, overrides: list[str]) -> None:
    """A resumed run keeps its config.json: a change there would make the replay of the
    interrupted iteration differ from the run it continues. Options that say what the run
    already has (the very --preset it started with, a --set of the value it has) are fine;
    real changes are named. (``iterations`` is extended with --iterations, not compared.)"""
    from pathlib import Path

    from spade_gym.selfplay.config import SelfPlayConfig

    path = Path(output) / "config.json"
    if not path.exists():
        return  # the resume itself says there is nothing to resume
    saved_config = SelfPlayConfig.from_dict(json.loads(path.read_text()))
    requested = apply_overrides(load_preset(preset) if preset else saved_config, overrides)
    saved, wanted = saved_config.to_dict(), requested.to_dict()
    set_keys = {item.partition("=")[0].strip() for item in overrides}
    changed = sorted(key for key in set(saved) | set(wanted)
                     if (key != "iterations" or key in set_keys) and saved.get(key) != wanted.get(key))
    if changed:
        listed = ", ".join(f"{key} ({saved.get(key)!r} -> {wanted.get(key)!r})" for key in changed[:6])
        more = f" and {len(changed) - 6} more" if len(changed) > 6 else ""
        raise ConfigError(f"--resume continues the run with its saved config.json; these options would change it: "
                          f"{listed}{more} (start a new --output instead; --iterations may extend the run)")
