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
from spade_gym.cli.validate_cmd import collect_programs, display_path, read_program

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
@click.option("--json", "as_json", is_flag=True, help="Print accepted and rejected programs as JSON.")
@handle_errors
def command(paths, suite_dir, hints_file, skill, workers, as_json):
    """Validate programs in the SPADE reference format and register the valid ones.

    PATHS are files or directories (searched for *.py; the reference names its files
    game_*.py). Each valid program gets a card (name from its class, description, max
    turns, multi-turn, difficulty levels, hint, validation summary). Registration is
    atomic and locked: concurrent imports into one suite are safe, and importing the
    same program again changes nothing. Exit status: 0 if every program was accepted,
    1 if any was rejected, 2 on usage errors.

    \b
    Example:
      spade-gym import spade-pool/games/ --suite my_suite/ --hints hints.json
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
    outcomes = _admit_with_progress(Admission(suite, IMPORT, admission_steps()), submissions,
                                    workers or default_workers())
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


def _admit_with_progress(admission, submissions, workers: int):
    """``admit_many`` with a progress bar on stderr (a terminal only) over the programs it validates."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task("Importing", total=None)
        return admission.admit_many(submissions, workers=workers,
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
