"""``spade-gym revalidate``: re-check a whole suite with the current validator, and refresh its cards."""

from __future__ import annotations

import sys

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json, existing_suite, safe_markup
from spade_gym.cli.import_cmd import executor_options, finish_run, open_executor


def profile_text(profile: list[dict], sep: str = "\n") -> str:
    """Per level: the best shortcut baseline and its win rate (``easy: prior 0%``)."""
    parts = []
    for row in profile:
        rate = row.get("best_rate")
        shown = f"{rate:.0%}" if isinstance(rate, (int, float)) else "?"
        parts.append(f"{row.get('level', '?')}: {row.get('best_baseline', '?')} {shown}")
    return sep.join(parts) or "-"


@click.command("revalidate")
@click.argument("suite_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--seed", type=int, default=None,
              help="Run seed the probe seeds are drawn from, the same for every program (default: a fresh one "
                   "per program); the same seed gives the same reports.")
@click.option("--write", is_flag=True,
              help="Replace the validation record on the card of every program that passes. Programs that "
                   "fail keep their card (and make the exit status 1); programs, checksums, ids and versions "
                   "never change.")
@click.option("--cost-budget-ms", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Budget of the cost check per reset()/step() call, in ms (default: the validator's). The check "
                   "times calls on this machine: on a loaded one, a wider budget keeps its load from rejecting "
                   "sound programs (each card records the budget it was checked against).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Programs validated in parallel (default: twice the CPU cores).")
@executor_options("suite directory")
@click.option("--json", "as_json", is_flag=True, help="Print every result, with its full report, as JSON.")
@handle_errors
def command(suite_dir, seed, write, cost_budget_ms, workers, ray, output, resume, allow_unprotected_nodes, as_json):
    """Re-run the current validator on every environment of a suite.

    Each program is checked with its card's hint, and for novelty against the rest
    of the suite. Use it when the validator gains checks: cards written by an older
    validator lack their findings (e.g. the per-level shortcut profile that `list
    --markdown` shows). With --ray the programs are validated on a cluster, with the
    same reports as here for the same --seed (cards are written here, under the suite's
    lock); with --output the run survives a crash (--resume).
    Exit status: 0 if every program passes, 1 otherwise.

    \b
    Example:
      spade-gym revalidate my_suite
      spade-gym revalidate my_suite --seed 20261201 --write
      spade-gym revalidate my_suite --seed 20261201 --output runs/reval --ray
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from spade_gym.executor.validation import resume_config
    from spade_gym.validation import ValidationConfig
    from spade_gym.validation.revalidate import revalidate_suite, write_validations

    suite = existing_suite(suite_dir)
    settings = {"seed": seed, "cost_budget_ms": cost_budget_ms}
    config = ValidationConfig(**{k: v for k, v in settings.items() if v is not None})
    if resume:  # continue the journaled run's seed and config; options given again must agree with them
        if output is None:
            raise click.UsageError("--resume needs --output: the folder of the run to continue")
        config, _ = resume_config(output, seed=seed, suite=str(suite.resolve()), kind="revalidate",
                                  config=config if cost_budget_ms is not None else None)
    executor, validator, output = open_executor(ray, output, resume, workers=workers,
                                                allow_unprotected=allow_unprotected_nodes,
                                                max_seconds=config.max_seconds, kind="revalidate")
    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task("Reading the suite", total=None, failed=0)
        failed = 0

        def on_done(result) -> None:
            nonlocal failed
            failed += not result.valid
            progress.update(task, advance=1 if result.problem is None else 0, failed=failed)

        try:
            results = revalidate_suite(suite, config=config, workers=workers, on_done=on_done, validator=validator,
                                       on_start=lambda total: progress.update(task, total=total,
                                                                              description="Revalidating"))
        finally:
            if executor is not None:
                executor.close()
    if write:
        write_validations(suite, results)
    if output is not None:
        finish_run(validator, output, [r.to_dict() for r in results])
    if as_json:
        echo_json({"suite": str(suite), "seed": seed, "written": write, "results": [r.to_dict() for r in results]})
    else:
        _print(results, write)
    if not results or any(not r.valid or r.not_written for r in results):
        sys.exit(1)


def _print(results, write: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"{len(results)} environment(s)")
    for column in ("id", "valid", "first failure", "best baseline per level") + (("card",) if write else ()):
        table.add_column(column, overflow="fold")
    for r in results:
        verdict = "[green]valid[/green]" if r.valid else "[red]invalid[/red]"
        row = [safe_markup(r.env_id), verdict, safe_markup(r.first_failure or "-"), profile_text(r.level_profile)]
        if write:
            row.append("[green]written[/green]" if r.written else "kept")
        table.add_row(*row)
    console.print(table)
    for r in results:
        if r.report is not None and not r.report.valid:
            console.print(f"\n[bold]{safe_markup(r.env_id)}[/bold]")
            console.print(safe_markup(r.report.summary()), highlight=False)
        if r.not_written:
            console.print(f"[yellow]not written[/yellow] {safe_markup(r.not_written)}", highlight=False)
    valid = sum(r.valid for r in results)
    line = f"\n{valid} of {len(results)} valid"
    if write:
        line += f"; {sum(r.written for r in results)} card(s) rewritten"
    seeds = {r.report.run_seed for r in results if r.report is not None}
    if len(seeds) == 1:
        line += f"; run seed {seeds.pop()}"
    console.print(line + ".", style="green" if valid == len(results) and results else "red", highlight=False)
