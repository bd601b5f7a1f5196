"""``spade-gym validate``: check programs without registering them."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json, safe_markup


def collect_programs(paths: tuple[Path, ...]) -> list[Path]:
    """Files as given; directories searched recursively for ``*.py`` (released SPADE pools
    nest ``game_*.py`` files in per-generation folders). Hidden folders and caches are skipped."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.py")
                           if not any(part.startswith(".") or part == "__pycache__"
                                      for part in p.relative_to(path).parts))
            if not found:
                raise click.UsageError(f"no *.py files in directory {path}")
            files.extend(found)
        else:
            files.append(path)
    unique: dict[Path, None] = {}
    for f in files:
        unique.setdefault(f.resolve(), None)
    return list(unique)


def read_program(path: Path) -> str:
    """The program text; a file that is not UTF-8 is a usage error, not an invalid program."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror}") from None


def run_with_progress(sources: dict[str, str], *, hints=None, suite=None, workers=None, label="Validating",
                      config=None):
    """``validate_many`` with a progress bar on stderr when there is more than one program."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from spade_gym.validation import validate_many

    console = Console(stderr=True)
    show = console.is_terminal  # one program can take many seconds too (slow steps, many levels)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not show) as progress:
        task = progress.add_task(label, total=len(sources))
        return validate_many(sources, hints=hints, suite=suite, workers=workers, config=config,
                             on_done=lambda index, report: progress.advance(task))


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it (shorter reports)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--hint", help="A privileged hint to check along with the program(s) (it must not leak the answer).")
@click.option("--suite", type=click.Path(file_okay=False, path_type=Path),
              help="Also check novelty against the environments of this suite directory.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Programs validated in parallel (default: twice the CPU cores).")
@click.option("--seed", type=int, default=None,
              help="Run seed the probe seeds are drawn from (default: a fresh one per run, printed in the "
                   "report); give a report's seed to replay its validation exactly.")
@click.option("--json", "as_json", is_flag=True, help="Print the full reports as JSON.")
@handle_errors
def command(paths, hint, suite, workers, seed, as_json):
    """Validate environment programs: files, or directories of *.py files.

    Runs every check (static, load, contract under fuzzing, termination, episode end,
    determinism, diversity, distinct solutions, solvability, non-triviality, difficulty,
    shortcut baselines, informative, levels, hint, info leak, gymnasium, novelty, cost)
    in the sandbox, on probe seeds drawn afresh for each run (see --seed). Tool-use programs
    (subclasses of ToolUseBaseEnv) also get tool schemas, odd tool calls and tools needed.
    Exit status: 0 if all programs are valid, 1 if any is invalid, 2 on usage errors.

    \b
    Example:
      spade-gym validate my_env.py --hint "Binary search the range."
      spade-gym validate pool/games/ --json > reports.json
    """
    files = collect_programs(paths)
    sources = {display_path(f): read_program(f) for f in files}
    hints = {name: hint for name in sources} if hint is not None else None
    from spade_gym.validation import ValidationConfig

    config = ValidationConfig(seed=seed) if seed is not None else None
    reports = run_with_progress(sources, hints=hints, suite=suite, workers=workers, config=config)
    invalid = sum(not r.valid for r in reports)
    if as_json:
        echo_json([{"path": path, **report.to_dict()} for path, report in zip(sources, reports)])
    else:
        _print_reports(list(sources), reports)
    if invalid:
        sys.exit(1)


def _print_reports(paths: list[str], reports) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if len(reports) == 1:
        report = reports[0]
        kind = report.details.get("kind") or "game"
        table = Table(title=safe_markup(f"{paths[0]} ({report.details.get('class_name') or 'no environment class'}, "
                                        f"{kind}, seed {report.run_seed})", newlines=False))
        for column in ("check", "result", "message", "time"):
            table.add_column(column, overflow="fold")
        for check in report.checks:
            mark = "[yellow]skipped[/yellow]" if check.skipped else "[green]pass[/green]" if check.passed \
                else "[red]FAIL[/red]"
            first_line = check.message.splitlines()[0] if check.message else ""
            table.add_row(check.name, mark, safe_markup(first_line), f"{check.seconds:.2f}s")
        console.print(table)
    else:
        table = Table(title=f"{len(reports)} program(s)")
        for column in ("file", "environment", "result", "failed checks", "time"):
            table.add_column(column, overflow="fold")
        for path, report in zip(paths, reports):
            result = "[green]valid[/green]" if report.valid else "[red]invalid[/red]"
            table.add_row(safe_markup(path), safe_markup(report.details.get("class_name") or "-"), result,
                          ", ".join(c.name for c in report.failures) or "-", f"{report.seconds:.2f}s")
        console.print(table)
    for path, report in zip(paths, reports):
        if not report.valid:
            console.print(f"\n[bold]{safe_markup(path)}[/bold]")
            console.print(safe_markup(report.summary()), highlight=False)
        for warning in report.warnings:
            console.print(f"[yellow]warning[/yellow] {safe_markup(path)}: {safe_markup(warning)}", highlight=False)
    valid = sum(r.valid for r in reports)
    console.print(f"\n{valid} of {len(reports)} valid.", style="green" if valid == len(reports) else "red")
