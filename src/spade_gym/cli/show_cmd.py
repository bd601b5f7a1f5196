"""``spade-gym show``: a card, its program with line numbers, its validation summary."""

from __future__ import annotations

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json, printable, resolve_entry, safe_markup


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
      spade-gym show spade/LetterFeedbackHunt-v0
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
    one_line = lambda value: safe_markup(value, newlines=False)  # noqa: E731
    lines = [
        f"[bold]{one_line(card.id)}[/bold]  ({one_line(card.skill)}, {card.kind}, "
        f"{'multi-turn' if card.multi_turn else 'single-turn'}, max {card.max_turns} turns)",
        safe_markup(card.description),
        f"mechanic: {one_line(card.mechanic or '-')}",
        f"hint: {safe_markup(card.hint or '-')}",
        f"difficulty levels: {one_line(', '.join(card.difficulty_levels) or '-')}",
        f"sha256: {card.sha256}",
        f"provenance: {one_line(', '.join(f'{k}={v}' for k, v in card.provenance.items()) or '-')}",
        f"directory: {one_line(entry.directory)}",
    ]
    console.print(Panel("\n".join(lines), title="card"), highlight=False)
    if not no_source:
        console.print(Syntax(printable(source), "python", line_numbers=True))
    validation = card.validation or {}
    if validation:
        status = "[green]valid[/green]" if validation.get("valid") else "[red]invalid[/red]"
        body = [status]
        for check in validation.get("checks", []) if isinstance(validation.get("checks"), list) else []:
            check = check if isinstance(check, dict) else {}
            mark = "[green]✓[/green]" if check.get("passed") else "[red]✗[/red]"
            body.append(f"{mark} {one_line(check.get('name'))}: {one_line(check.get('message', ''))}")
        # Whatever else the validator recorded (e.g. a per-level profile, probe seeds).
        profile = validation.get("level_profile")
        if isinstance(profile, list) and profile and all(isinstance(p, dict) for p in profile):
            body.append("baseline profile (per level: best no-reasoning baseline, oracle turns):")
            body += [f"  {one_line(_profile_line(p))}" for p in profile]
        for key, value in validation.items():
            if key not in ("valid", "checks", "level_profile"):
                body.append(f"{one_line(key)}: {one_line(_compact(value))}")
        console.print(Panel("\n".join(body), title="validation"), highlight=False)
    else:
        console.print("validation: not recorded on the card")


def _compact(value) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _profile_line(level: dict) -> str:
    """``hard: prior won 1 of 8 seeds (12%); oracle 12 turn(s), 5-character solution``."""
    def number(key, text):
        value = level.get(key)
        return text(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"

    won = (f" won {level['best_wins']} of {level['seeds']} seeds" if isinstance(level.get("best_wins"), int)
           and isinstance(level.get("seeds"), int) else "")
    return (f"{level.get('level', '?')}: {level.get('best_baseline', '?')}{won} "
            f"({number('best_rate', lambda v: f'{v:.0%}')}); oracle {number('oracle_turns', lambda v: f'{v:g}')} "
            f"turn(s), {number('solution_chars', lambda v: f'{v:g}')}-character solution")
