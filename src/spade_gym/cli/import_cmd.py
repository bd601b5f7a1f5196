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
from spade_gym.cli.validate_cmd import collect_programs, display_path, read_program, run_with_progress

#: The reference implementation's file names: ``game_<rollout>_<index>_<skill_slug>.py``.
REFERENCE_NAME = re.compile(r"^game_\d+_\d+_(?P<skill>.+)\.py$")
#: Docstrings that say nothing about the game (the reference prepends the first to every file).
BOILERPLATE_DOCSTRINGS = ("spare self-play generated game", "spade self-play generated game")
DESCRIPTION_CHARS = 200


def skill_for(path: Path, default: str | None) -> str:
    """``--skill`` if given, else the skill slug of a reference file name, else ``Unknown``."""
    if default:
        return default
    match = REFERENCE_NAME.match(path.name)
    if match:
        return " ".join(word.capitalize() for word in match.group("skill").replace("-", "_").split("_") if word)
    return "Unknown"


def description_for(details: dict) -> str:
    """The class or module docstring, unless boilerplate; else the first sentence of the first observation."""
    docstring = " ".join((details.get("docstring") or "").split())
    if docstring and docstring.lower().rstrip(".") not in BOILERPLATE_DOCSTRINGS:
        return _clip(docstring)
    observation = " ".join((details.get("first_observation") or "").split())
    sentence = re.split(r"(?<=[.!?])\s", observation, maxsplit=1)[0] if observation else ""
    return _clip(sentence) or details.get("class_name") or "Imported environment"


def _clip(text: str) -> str:
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1].rstrip() + "…"


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


def build_card(path: Path, report, skill: str, hint: str | None, source: str):
    from spade_gym.contract import program_kind
    from spade_gym.registry import Card, designer_label

    return Card.from_report(
        report, skill=skill, hint=hint, description=description_for(report.details), kind=program_kind(source),
        provenance={"source": "import", "designer": designer_label(None, "import"), "file": path.name,
                    "imported": datetime.now(UTC).isoformat(timespec="seconds")},
    )


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
    from spade_gym.registry import Suite, sha256_text
    from spade_gym.validation import DEFAULT_CONFIG
    from spade_gym.validation import fingerprint as fingerprints

    hints = load_hints(hints_file)
    suite = Suite(suite_dir)
    files = collect_programs(paths)
    sources = {f: read_program(f) for f in files}
    accepted: list[dict] = []
    rejected: list[dict] = []
    to_validate: dict[Path, str] = {}
    for path, source in sources.items():
        present = suite.find_source(sha256_text(source))
        if present is not None:
            accepted.append({"file": display_path(path), "id": present.id, "status": "already present"})
        else:
            to_validate[path] = source
    names = {display_path(p): p for p in to_validate}
    reports = run_with_progress({name: to_validate[p] for name, p in names.items()},
                                hints={name: hint_for(p, hints) for name, p in names.items()},
                                suite=suite, workers=workers, label="Importing")
    for (name, path), report in zip(names.items(), reports):
        if not report.valid:
            rejected.append({"file": name, "reason": report.summary(), "failed": [c.name for c in report.failures]})
            continue
        source = to_validate[path]
        # Re-check novelty against the suite as it is now: programs accepted earlier in this
        # run (or by a concurrent import) were not there when this one was validated.
        match = fingerprints.nearest(source, suite.entries(), exclude_sha256=sha256_text(source))
        if match is not None and (match.exact or match.similarity >= DEFAULT_CONFIG.novelty_threshold):
            rejected.append({"file": name, "failed": ["novelty"],
                             "reason": f"a copy of {match.env_id} (similarity {match.similarity:.2f}), "
                                       f"registered while this import ran"})
            continue
        entry = suite.add(source, build_card(path, report, skill_for(path, skill), hint_for(path, hints), source))
        accepted.append({"file": name, "id": entry.id, "status": "added", "directory": str(entry.directory)})
    if as_json:
        echo_json({"suite": str(suite.path), "accepted": accepted, "rejected": rejected})
    else:
        _print(suite, accepted, rejected)
    if rejected:
        sys.exit(1)


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
