"""``spade-gym selfplay``: the GRPO self-play loop."""

from __future__ import annotations

import json

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json
from spade_gym.selfplay.config import PRESETS, apply_overrides, load_preset


@click.command("selfplay")
@click.option("--preset", type=click.Choice(sorted(PRESETS)), default="cpu-tiny", show_default=True,
              help="Configuration to start from (cpu-tiny runs on 2 CPU cores in minutes).")
@click.option("--output", type=click.Path(file_okay=False), required=True,
              help="Run directory (checkpoints, metrics.jsonl, the run's suite of designed environments).")
@click.option("--resume", is_flag=True, help="Continue the run in --output from its last checkpoint.")
@click.option("--iterations", type=click.IntRange(min=1), help="Total iterations (overrides the preset).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a config field (repeatable), e.g. --set reward.mode=paper --set grpo.bf16=true.")
@click.option("--show-config", is_flag=True, help="Print the resolved configuration and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON.")
@handle_errors
def command(preset, output, resume, iterations, overrides, show_config, as_json):
    """Run SPADE self-play: one policy designs environments (rewarded by hint regret)
    and plays them (rewarded by its return), both trained with GRPO (TRL).

    Every iteration is checkpointed; valid designed programs are registered into
    OUTPUT/suite and are gym.make-able at once. Needs the [train] extra. For several
    GPUs run the same command under `accelerate launch` (see the README).

    \b
    Examples:
      spade-gym selfplay --preset cpu-tiny --output runs/demo
      spade-gym selfplay --output runs/demo --resume --iterations 6
      spade-gym selfplay --preset qwen3-8b --output runs/q8 --set paired_seeds=8
    """
    config = apply_overrides(load_preset(preset), list(overrides))
    if show_config:
        click.echo(json.dumps(config.to_dict(), indent=2))
        return
    import contextlib
    import sys

    from spade_gym.selfplay import run_selfplay

    log = (lambda message: click.echo(message, err=True)) if as_json else click.echo
    # With --json, stdout carries the summary only: the trainer's own progress output goes to stderr.
    quiet = contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext()
    with quiet:
        summary = run_selfplay(config, output, resume=resume, iterations=iterations, log=log)
    if as_json:
        echo_json(summary)
        return
    click.echo(f"\n{summary['iterations']} iteration(s) in {summary['run_dir']}: "
               f"{summary['valid']} of {summary['designed']} designed programs valid; "
               f"{len(set(summary['registered']))} registered in {summary['run_dir']}/suite")
    click.echo(f"Plots and a summary: spade-gym report {summary['run_dir']}")
