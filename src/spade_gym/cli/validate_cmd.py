"""``spade-gym validate``: check programs without registering them."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
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


@contextlib.contextmanager
def progress_bar(label: str, total: int, completed: int = 0):
    """A progress bar on stderr (when it is a terminal; one program can take many seconds too);
    yields ``advance()``."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(label, total=total, completed=completed)
        yield lambda: progress.advance(task)


def run_with_progress(sources: dict[str, str], *, hints=None, suite=None, workers=None, label="Validating",
                      config=None, executor=None, output=None, resume=False):
    """Validate ``sources`` (name -> text) with a progress bar on stderr; reports in input order.

    Without ``executor``: ``validate_many`` in this process, as always. With one (see
    :func:`spade_gym.executor.executor_for`), through the executor seam: ``suite`` is then a
    folder (or a :class:`~spade_gym.registry.Suite`, passed by its path), and ``output`` keeps
    a journal there that ``resume`` continues.
    """
    if executor is None:
        from spade_gym.validation import validate_many

        with progress_bar(label, len(sources)) as advance:
            return validate_many(sources, hints=hints, suite=suite, workers=workers, config=config,
                                 on_done=lambda index, report: advance())
    from spade_gym.executor.validation import Program, validate_batch

    hints = hints or {}
    programs = [Program(name, text, hints.get(name)) for name, text in sources.items()]
    suite_path = getattr(suite, "path", suite)
    with progress_bar(label, len(programs)) as advance:
        result = validate_batch(programs, executor=executor, config=config, suite=suite_path, output=output,
                                resume=resume, on_done=lambda index, report: advance())
    return result.reports


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is inside it (shorter reports)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


#: Where a Ray run without --output keeps its journal (one folder per run).
DEFAULT_OUTPUT_DIR = ".spade-validate"


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--hint", help="A privileged hint to check along with the program(s) (it must not leak the answer).")
@click.option("--suite", type=click.Path(file_okay=False, path_type=Path),
              help="Also check novelty against the environments of this suite directory.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Programs validated in parallel on the local pool (default: twice the CPU cores).")
@click.option("--seed", type=int, default=None,
              help="Run seed the probe seeds are drawn from (default: a fresh one per program, printed in the "
                   "report); give a report's seed to replay its validation exactly.")
@click.option("--ray", "ray", is_flag=False, flag_value="default", default=None, metavar="[ADDRESS]",
              help="Validate on a Ray cluster: ADDRESS (auto, ray://head:10001, head:6379) or, alone, "
                   "$RAY_ADDRESS or a Ray started on this machine [default: $SPADE_GYM_RAY]. Put it after the "
                   "paths or write --ray=ADDRESS. See docs/scale.md.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path),
              help="Run folder: every finished program's report is journaled in DIR/journal.jsonl as it "
                   "finishes, and all of them go to DIR/reports.json at the end [default with --ray: a new "
                   f"folder in {DEFAULT_OUTPUT_DIR}/].")
@click.option("--resume", is_flag=True,
              help="Continue the run journaled in --output (after a crash or Ctrl-C): only programs without "
                   "a report are validated, with that run's seed, suite and config.")
@click.option("--allow-unprotected-nodes", is_flag=True,
              help="With --ray, also validate on nodes whose sandbox lacks the process layer (spade-gym doctor "
                   "--ray shows each node's protections). Programs there run with the node's full rights.")
@click.option("--json", "as_json", is_flag=True, help="Print the full reports as JSON.")
@handle_errors
def command(paths, hint, suite, workers, seed, ray, output, resume, allow_unprotected_nodes, as_json):
    """Validate environment programs: files, or directories of *.py files.

    Runs every check (static, load, contract under fuzzing, termination, episode end,
    determinism, diversity, distinct solutions, solvability, non-triviality, difficulty,
    shortcut baselines, informative, levels, hint, info leak, gymnasium, novelty, cost)
    in the sandbox, on probe seeds drawn afresh for each run (see --seed). Tool-use programs
    (subclasses of ToolUseBaseEnv) also get tool schemas, odd tool calls and tools needed.
    With --ray the programs are validated on a cluster, with the same reports as here for
    the same --seed; with --output the run survives a crash (--resume).
    Exit status: 0 if all programs are valid, 1 if any is invalid, 2 on usage errors.

    \b
    Example:
      spade-gym validate my_env.py --hint "Binary search the range."
      spade-gym validate pool/games/ --json > reports.json
      spade-gym validate pool/games/ --output runs/pool --ray
    """
    from spade_gym.executor import executor_for, ray_address
    from spade_gym.executor.validation import Program, resume_config, validate_batch
    from spade_gym.validation import ValidationConfig

    if resume and output is None:
        raise click.UsageError("--resume needs --output: the folder of the run to continue")
    files = collect_programs(paths)
    sources = {display_path(f): read_program(f) for f in files}
    programs = [Program(name, text, hint) for name, text in sources.items()]
    suite_path = str(suite.expanduser().resolve()) if suite is not None else None
    if resume:
        config, suite_path = resume_config(output, seed=seed, suite=suite_path)
    else:
        config = ValidationConfig(seed=seed)
    if output is None and ray_address(ray) is not None:
        output = Path(DEFAULT_OUTPUT_DIR) / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        click.echo(f"Journal: {output / 'journal.jsonl'} (continue a crashed run with --output {output} --resume)",
                   err=True)
    executor = executor_for(ray, workers=workers, allow_unprotected=allow_unprotected_nodes,
                            unit_timeout=2 * config.max_seconds + 60,
                            on_warning=lambda message: click.echo(f"Warning: {message}", err=True))
    try:
        with progress_bar("Validating", len(programs)) as advance:
            result = validate_batch(programs, executor=executor, config=config, suite=suite_path, output=output,
                                    resume=resume, on_done=lambda index, report: advance())
    finally:
        executor.close()
    reports = result.reports
    rows = [{"path": path, **report.to_dict()} for path, report in zip(sources, reports)]
    if output is not None:
        _write_reports(output / "reports.json", rows)
        click.echo(f"{result.ran} program(s) validated, {result.reused} taken from the journal"
                   + (f", {result.machine_failures} not validated (machine failures)" if result.machine_failures
                      else "") + f"; reports in {output / 'reports.json'}", err=True)
    if as_json:
        echo_json(rows)
    else:
        _print_reports(list(sources), reports)
    if any(not r.valid for r in reports):
        sys.exit(1)


def _write_reports(path: Path, rows: list[dict]) -> None:
    from spade_gym.errors import ConfigError

    try:
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _print_reports(paths: list[str], reports) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if len(reports) == 1:
        report = reports[0]
        kind = report.facts.kind or "game"
        table = Table(title=safe_markup(f"{paths[0]} ({report.facts.class_name or 'no environment class'}, "
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
            table.add_row(safe_markup(path), safe_markup(report.facts.class_name or "-"), result,
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
