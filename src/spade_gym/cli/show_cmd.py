"""``spade-gym show``: a card, its program with line numbers, its validation summary."""

from __future__ import annotations

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json, resolve_entry


@click.command("show")
@click.argument("env_id")
@click.option("--suite", type=click.Path(file_okay=False), help="Look the id up in this suite directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the card and source as JSON.")
@click.option("--no-source", is_flag=True, help="Do not print the program.")
@handle_errors
def command(env_id, suite, as_json, no_source):
    """Show an environment's card, program and validation summary.

    \b
    Example:
      spade-gym show spade/NumberHunt-v0
    """
    entry = resolve_entry(env_id, suite)
    source = entry.read_source()
    card = entry.card
    if as_json:
        echo_json({"card": card.to_dict(), "source": source, "directory": str(entry.directory)})
        return
    from rich.console import Console
    from rich.panel import Panel
    from rich.syntax import Syntax

    console = Console()
    lines = [
        f"[bold]{card.id}[/bold]  ({card.skill}, {'multi-turn' if card.multi_turn else 'single-turn'}, "
        f"max {card.max_turns} turns)",
        card.description,
        f"hint: {card.hint or '-'}",
        f"difficulty levels: {', '.join(card.difficulty_levels) or '-'}",
        f"sha256: {card.sha256}",
        f"provenance: {', '.join(f'{k}={v}' for k, v in card.provenance.items()) or '-'}",
        f"directory: {entry.directory}",
    ]
    console.print(Panel("\n".join(lines), title="card"))
    if not no_source:
        console.print(Syntax(source, "python", line_numbers=True))
    validation = card.validation or {}
    if validation:
        status = "[green]valid[/green]" if validation.get("valid") else "[red]invalid[/red]"
        body = [status]
        for check in validation.get("checks", []):
            mark = "[green]✓[/green]" if check.get("passed") else "[red]✗[/red]"
            body.append(f"{mark} {check.get('name')}: {check.get('message', '')}")
        console.print(Panel("\n".join(body), title="validation"))
    else:
        console.print("validation: not recorded on the card")
