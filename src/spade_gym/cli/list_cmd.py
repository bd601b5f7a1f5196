"""``spade-gym list``: the registered environments."""

from __future__ import annotations

from pathlib import Path

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json
from spade_gym.registry import Suite, register_suite, registered_entries


def collect(suite: str | None, skill: str | None) -> list[dict]:
    if suite:
        register_suite(suite)
        entries = Suite(suite).entries(strict=False)
    else:
        entries = []
        for env_id, env_dir in registered_entries():
            directory = Path(env_dir)
            try:
                entries.append(Suite(directory.parent).get(directory.name))
            except Exception:  # a suite edited after registration: list what still reads
                continue
    rows = []
    for entry in sorted(entries, key=lambda e: e.id):
        card = entry.card
        if skill and card.skill.lower().replace("_", " ") != skill.lower().replace("_", " "):
            continue
        rows.append({
            "id": card.id, "skill": card.skill, "multi_turn": card.multi_turn, "max_turns": card.max_turns,
            "description": card.description, "difficulty_levels": card.difficulty_levels,
            "valid": card.validation.get("valid"), "directory": str(entry.directory),
        })
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = ["| id | skill | multi-turn | description |", "|---|---|---|---|"]
    for row in rows:
        description = " ".join(row["description"].split()).replace("|", "\\|")
        lines.append(f"| `{row['id']}` | {row['skill']} | {'yes' if row['multi_turn'] else 'no'} | {description} |")
    return "\n".join(lines) + "\n"


@click.command("list")
@click.option("--suite", type=click.Path(file_okay=False), help="List this suite directory instead of the registered ones.")
@click.option("--skill", help='Only environments of this skill (e.g. "Logical Deduction").')
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--markdown", is_flag=True, help="Print a markdown table (the suite README format).")
@handle_errors
def command(suite, skill, as_json, markdown):
    """List environments: id, skill, multi-turn, description.

    \b
    Example:
      spade-gym list --skill "Spatial Reasoning"
      spade-gym list --suite my_suite/ --json
    """
    rows = collect(suite, skill)
    if as_json:
        echo_json(rows)
        return
    if markdown:
        click.echo(markdown_table(rows), nl=False)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} environment(s)")
    for column in ("id", "skill", "multi-turn", "description"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row["id"], row["skill"], "yes" if row["multi_turn"] else "no", row["description"])
    Console().print(table)
