"""``spade-gym import``: validate programs (e.g. the SPADE reference's ``game_*.py`` pools)
and register the valid ones into a suite, each with a card."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json, safe_markup
from spade_gym.cli.validate_cmd import DEFAULT_OUTPUT_DIR, _write_reports, collect_programs, display_path, read_program

#: The reference implementation's file names: ``game_<rollout>_<index>_<skill_slug>.py``.
REFERENCE_NAME = re.compile(r"^game_\d+_\d+_(?P<skill>.+)\.py$")


def skill_for(path: Path, default: str | None) -> str:
    """``--skill`` if given, else the skill slug of a reference file name, else ``Unknown``."""
    if default:
        return default
    match = REFERENCE_NAME.match(path.name)
    if match:
        return " ".join(word.capitalize() for word in match.group("skill").replace("-", "_").split("_") if word)
    return "Unknown"


def load_hints(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise click.BadParameter(f"cannot read {path} as JSON: {exc}", param_hint="--hints") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and (v is None or isinstance(v, str))
                                             for k, v in data.items()):
        raise click.BadParameter(f"{path} must be a JSON object mapping file names (or stems) to hint text",
                                 param_hint="--hints")
    return data


def hint_for(path: Path, hints: dict[str, str]) -> str | None:
    return hints.get(path.name, hints.get(path.stem))


def submission_for(path: Path, source: str, *, name: str, skill: str | None, hints: dict[str, str]):
    """What ``import`` offers for one file: the program, its hint, skill and provenance."""
    from spade_gym.registry import designer_label
    from spade_gym.registry.admission import Submission

    return Submission(source, hint=hint_for(path, hints), skill=skill_for(path, skill), name=name,
                      provenance={"source": "import", "designer": designer_label(None, "import"), "file": path.name,
                                  "imported": datetime.now(UTC).isoformat(timespec="seconds")})


def executor_options(after: str):
    """``validate``'s --ray, --output, --resume and --allow-unprotected-nodes, same names, help and
    defaults; ``after`` is what a bare --ray must follow on this command's line."""

    def decorate(function):
        options = [
            click.option("--ray", "ray", is_flag=False, flag_value="default", default=None, metavar="[ADDRESS]",
                         help="Validate on a Ray cluster: ADDRESS (auto, ray://head:10001, head:6379) or, alone, "
                              "$RAY_ADDRESS or a Ray started on this machine [default: $SPADE_GYM_RAY]. Put it after "
                              f"the {after} or write --ray=ADDRESS. See docs/scale.md."),
            click.option("--output", type=click.Path(file_okay=False, path_type=Path),
                         help="Run folder: every finished program's report is journaled in DIR/journal.jsonl as it "
                              "finishes, and all of them go to DIR/reports.json at the end [default with --ray: a "
                              f"new folder in {DEFAULT_OUTPUT_DIR}/]."),
            click.option("--resume", is_flag=True,
                         help="Continue the run journaled in --output (after a crash or Ctrl-C): only programs "
                              "without a report are validated, with that run's seed, suite and config."),
            click.option("--allow-unprotected-nodes", is_flag=True,
                         help="With --ray, also validate on nodes whose sandbox lacks the process layer (spade-gym "
                              "doctor --ray shows each node's protections). Programs there run with the node's full "
                              "rights."),
        ]
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


def open_executor(ray, output: Path | None, resume: bool, *, workers, allow_unprotected: bool, max_seconds: float,
                  kind: str):
    """``(executor, validator, output)`` for a command's validate step: ``(None, None, None)`` without
    --ray and --output (the local thread pool, as always); else the executor seam, journaled in
    ``output`` (with --ray and no --output, a new folder in :data:`DEFAULT_OUTPUT_DIR`)."""
    import os
    import time

    from spade_gym.executor import executor_for, ray_address
    from spade_gym.executor.admission import ExecutorValidator

    if resume and output is None:
        raise click.UsageError("--resume needs --output: the folder of the run to continue")
    if output is None and ray_address(ray) is None:
        return None, None, None
    if output is None:
        output = Path(DEFAULT_OUTPUT_DIR) / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        click.echo(f"Journal: {output / 'journal.jsonl'} (continue a crashed run with --output {output} --resume)",
                   err=True)
    executor = executor_for(ray, workers=workers, allow_unprotected=allow_unprotected,
                            unit_timeout=2 * max_seconds + 60,
                            on_warning=lambda message: click.echo(f"Warning: {message}", err=True))
    return executor, ExecutorValidator(executor, output=output, resume=resume, kind=kind), output


def finish_run(validator, output: Path, rows: list[dict]) -> None:
    """After a journaled run: every report to ``output/reports.json``, and how the run went (stderr)."""
    result = validator.result
    if result is None or result.journal is None:  # nothing needed validating: keep the run's reports as they are
        click.echo("No program needed validating (every one is in the suite already, or was turned away first).",
                   err=True)
        return
    _write_reports(output / "reports.json", rows)
    ran, reused, failures = result.ran, result.reused, result.machine_failures
    click.echo(f"{ran} program(s) validated, {reused} taken from the journal"
               + (f", {failures} not validated (machine failures)" if failures else "")
               + f"; reports in {output / 'reports.json'}", err=True)


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--suite", "suite_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Suite directory to register the valid programs into (created if missing).")
@click.option("--hints", "hints_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSON object mapping file name (or stem) to that program's privileged hint.")
@click.option("--skill", default=None,
              help='Skill for every card (default: from reference names game_<r>_<i>_<skill>.py, else "Unknown").')
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Programs validated in parallel (default: twice the CPU cores).")
@executor_options("paths")
@click.option("--json", "as_json", is_flag=True, help="Print accepted and rejected programs as JSON.")
@handle_errors
def command(paths, suite_dir, hints_file, skill, workers, ray, output, resume, allow_unprotected_nodes, as_json):
    """Validate programs in the SPADE reference format and register the valid ones.

    PATHS are files or directories (searched for *.py; the reference names its files
    game_*.py). Each valid program gets a card (name from its class, description, max
    turns, multi-turn, difficulty levels, hint, validation summary). Registration is
    atomic and locked: concurrent imports into one suite are safe, and importing the
    same program again changes nothing. With --ray the programs are validated on a
    cluster (registration stays here, under the suite's lock); with --output the run
    survives a crash (--resume). Exit status: 0 if every program was accepted,
    1 if any was rejected, 2 on usage errors.

    \b
    Example:
      spade-gym import spade-pool/games/ --suite my_suite/ --hints hints.json
      spade-gym import spade-pool/games/ --suite my_suite/ --output runs/import --ray
    """
    from spade_gym.generate.pipeline import admission_steps
    from spade_gym.registry import Suite
    from spade_gym.registry.admission import IMPORT, Admission, Admitted
    from spade_gym.validation.pipeline import default_workers

    hints = load_hints(hints_file)
    suite = Suite(suite_dir)
    files = collect_programs(paths)
    sources = {f: read_program(f) for f in files}
    submissions = [submission_for(path, source, name=display_path(path), skill=skill, hints=hints)
                   for path, source in sources.items()]
    # The admission path re-checks novelty against the suite as it is when each program is
    # registered: programs accepted earlier in this run (or by a concurrent import) count.
    admission = Admission(suite, IMPORT, admission_steps())
    executor, validator, output = open_executor(ray, output, resume, workers=workers,
                                                allow_unprotected=allow_unprotected_nodes,
                                                max_seconds=admission.config.max_seconds, kind="import")
    try:
        outcomes = _admit_with_progress(admission, submissions, workers or default_workers(), validator)
    finally:
        if executor is not None:
            executor.close()
    if output is not None:
        finish_run(validator, output, [{"path": submission.name, **outcome.report.to_dict()}
                                       for submission, outcome in zip(submissions, outcomes)
                                       if getattr(outcome, "report", None) is not None])
    present: list[dict] = []
    added: list[dict] = []
    rejected: list[dict] = []
    for submission, outcome in zip(submissions, outcomes):
        if isinstance(outcome, Admitted) and not outcome.added:
            present.append({"file": submission.name, "id": outcome.entry.id, "status": "already present"})
        elif isinstance(outcome, Admitted):
            added.append({"file": submission.name, "id": outcome.entry.id, "status": "added",
                          "directory": str(outcome.entry.directory)})
        else:
            rejected.append({"file": submission.name, "reason": outcome.summary, "failed": outcome.failed_checks})
    accepted = present + added
    if as_json:
        echo_json({"suite": str(suite.path), "accepted": accepted, "rejected": rejected})
    else:
        _print(suite, accepted, rejected)
    if rejected:
        sys.exit(1)


def _admit_with_progress(admission, submissions, workers: int, validator=None):
    """``admit_many`` with a progress bar on stderr (a terminal only) over the programs it validates."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task("Importing", total=None)
        return admission.admit_many(submissions, workers=workers, validator=validator,
                                    on_start=lambda total: progress.update(task, total=total),
                                    on_done=lambda *_: progress.advance(task))


def _print(suite, accepted: list[dict], rejected: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if accepted:
        table = Table(title=f"Accepted into {suite.path} ({len(accepted)})")
        for column in ("file", "id", "status"):
            table.add_column(column, overflow="fold")
        for row in accepted:
            table.add_row(safe_markup(row["file"]), row["id"], row["status"])
        console.print(table)
    for row in rejected:
        console.print(f"\n[red]Rejected[/red] [bold]{safe_markup(row['file'])}[/bold]")
        console.print(safe_markup(row["reason"]), highlight=False)
    console.print(f"\n{len(accepted)} accepted, {len(rejected)} rejected.",
                  style="green" if not rejected else "red")
