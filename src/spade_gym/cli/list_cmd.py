"""``spade-gym list``: the registered environments."""

from __future__ import annotations

from pathlib import Path

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo, echo_json, existing_suite, safe_markup
from spade_gym.registry import CARD_KINDS, Suite, register_suite, registered_suite_entries


def _matches(value: str, wanted: str | None) -> bool:
    return wanted is None or value.lower().replace("_", " ") == wanted.lower().replace("_", " ")


def collect(suite: str | None, skill: str | None, kind: str | None = None) -> list[dict]:
    """One row per environment (registered ones, or those of ``suite``), filtered.

    One pass over the cards: each is read once (parsed once, :meth:`Card.load` keeps what
    it parsed), not once per id.
    """
    if suite:
        register_suite(existing_suite(suite))
        entries = Suite(suite).entries()
    else:
        # a suite edited after registration: list what still reads
        entries, _unreadable = registered_suite_entries()
    rows = []
    for entry in sorted(entries, key=lambda e: e.id):
        card = entry.card
        if not (_matches(card.skill, skill) and _matches(card.kind, kind)):
            continue
        rows.append({
            "id": card.id, "kind": card.kind, "skill": card.skill, "mechanic": card.mechanic,
            "multi_turn": card.multi_turn,
            "max_turns": card.max_turns,
            "description": card.description, "difficulty_levels": card.difficulty_levels,
            "valid": card.validation.get("valid"), "directory": str(entry.directory),
            "level_profile": _level_profile(card.validation),
        })
    return rows


#: Shown where a card records no baseline profile (validated before the ``levels`` check existed).
NO_PROFILE = "—"


def _level_profile(validation: dict) -> list[dict] | None:
    """The card's per-level baseline profile (the ``levels`` check), if it records a usable one."""
    profile = validation.get("level_profile")
    if not isinstance(profile, list) or not profile or not all(isinstance(p, dict) for p in profile):
        return None
    return profile


def _number(value, text) -> str:
    return text(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else "?"


def profile_cells(rows: list[dict]) -> tuple[str, list[tuple[str, str]]]:
    """The level names the profile columns are headed with, and per row (best shortcut, oracle turns).

    When every profile has the same levels (the bundled suite: easy/medium/hard) the header
    names them once and cells hold only the numbers; otherwise each cell names its levels.
    """
    level_sets = {tuple(str(p.get("level")) for p in row["level_profile"]) for row in rows if row["level_profile"]}
    shared = next(iter(level_sets)) if len(level_sets) == 1 else None
    cells = []
    for row in rows:
        profile = row["level_profile"]
        if not profile:
            cells.append((NO_PROFILE, NO_PROFILE))
            continue
        named = (lambda p, text: text) if shared else (lambda p, text: f"{p.get('level')} {text}")
        best = " / ".join(named(p, _number(p.get("best_rate"), lambda v: f"{v:.0%}")) for p in profile)
        turns = " / ".join(named(p, _number(p.get("oracle_turns"), lambda v: f"{v:g}")) for p in profile)
        cells.append((best, turns))
    return ("/".join(shared) if shared else "per level"), cells


def markdown_table(rows: list[dict]) -> str:
    levels, profiles = profile_cells(rows)
    lines = [f"| id | kind | skill | multi-turn | best shortcut ({levels}) | oracle turns ({levels}) | description |",
             "|---|---|---|---|---|---|---|"]
    for row, (best, turns) in zip(rows, profiles):
        description = " ".join(row["description"].split()).replace("|", "\\|")
        skill = row["skill"].replace("|", "\\|")
        lines.append(f"| `{row['id']}` | {row['kind']} | {skill} | {'yes' if row['multi_turn'] else 'no'} "
                     f"| {best} | {turns} | {description} |")
    return "\n".join(lines) + "\n"


def profile_note(rows: list[dict]) -> str:
    """What the profile columns mean, and how many cards record one."""
    missing = sum(not row["level_profile"] for row in rows)
    text = ("Baseline profile, from each card's validation record (the `levels` check, on the probe seeds of the "
            "recorded run seed): **best shortcut** is the highest win rate any no-reasoning baseline of the "
            "validator's shortcut zoo reached at each difficulty level; **oracle turns** the turns the privileged "
            "solution needs there.")
    if missing:
        text += (f" {NO_PROFILE}: {missing} of {len(rows)} cards were validated before the check existed "
                 "(`spade-gym revalidate SUITE --write` records it).")
    return text


def evaluation_section(evaluation: dict | None, rows: list[dict]) -> list[str]:
    """Markdown lines: per skill, each published agent's success rate with its counts (``envs``
    counts the environments listed; a run that played others is named below the commands)."""
    from collections import Counter

    from spade_gym.evaluation.publish import agent_order

    agents = evaluation.get("agents", {}) if evaluation else {}
    columns = [(label, arm) for label in sorted(agents, key=agent_order)
               for arm in ("no_hint", "hint") if arm in agents[label].get("overall", {})]
    if not columns:
        return []

    def cell(group: dict | None, arm: str) -> str:
        counts = (group or {}).get(arm)
        if not counts or not counts.get("episodes"):
            return "-"
        return f"{counts['successes'] / counts['episodes']:.0%} ({counts['successes']}/{counts['episodes']})"

    headers = [label if arm == "no_hint" else f"{label} with hint" for label, arm in columns]
    skills = sorted({skill for label, _ in columns for skill in agents[label].get("skills", {})})
    lines = ["## Reference agents", "",
             "Success rate (successes/episodes) per skill, without the hint unless a column says so: the oracle "
             "plays the privileged solution (an upper bound), random play is a lower bound, and the baselines are "
             "the validator's no-reasoning shortcut scripts (the episodes dealt to them in turn). Produced by:", ""]
    lines += [f"* `{agents[label]['command']}`" for label in dict.fromkeys(label for label, _ in columns)]
    listed = {row["id"] for row in rows}
    stale = []
    for label in dict.fromkeys(label for label, _ in columns):
        evaluated = set(agents[label].get("envs", []))
        if evaluated != listed:
            gone = len(evaluated - listed)
            stale.append(f"{label} played {len(evaluated & listed)} of the {len(listed)} environments listed here"
                         + (f" and {gone} no longer in the suite" if gone else ""))
    if stale:
        lines += ["", "Not current: " + "; ".join(stale) + ". Rerun the commands above to refresh the table."]
    per_skill = Counter(row["skill"] for row in rows)
    lines += ["", "| skill | envs | " + " | ".join(headers) + " |", "|---|---|" + "---|" * len(headers)]
    for skill in skills:
        envs = per_skill.get(skill, 0)
        shown = skill.replace("|", "\\|")
        lines.append(f"| {shown} | {envs} | "
                     + " | ".join(cell(agents[label].get("skills", {}).get(skill), arm) for label, arm in columns)
                     + " |")
    lines.append(f"| **overall** | {len(rows)} | "
                 + " | ".join(cell(agents[label].get("overall"), arm) for label, arm in columns) + " |")
    return lines + [""]


def mechanic_counts(rows: list[dict]) -> list[str]:
    """Markdown lines: how many environments of each kind share each mechanic family, and which."""
    families: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        key = (row["kind"], row.get("mechanic") or "(unlabelled)")
        families.setdefault(key, []).append(row["id"].split("/", 1)[-1])
    lines = ["| kind | mechanic | environments | members |", "|---|---|---|---|"]
    for (kind, mechanic), members in sorted(families.items()):
        shown = mechanic.replace("|", "\\|")
        lines.append(f"| {kind} | {shown} | {len(members)} | {', '.join(members)} |")
    return lines


def markdown_document(rows: list[dict], command: str, evaluation: dict | None = None) -> str:
    """The suite README: counts per skill, the reference agents' results (``evaluation``, a
    published ``EVAL.json``), then the table. Regenerate, never edit by hand."""
    from collections import Counter

    skills = Counter(row["skill"] for row in rows)
    multi = sum(row["multi_turn"] for row in rows)
    share = f" ({multi / len(rows):.0%})" if rows else ""
    lines = [
        "# Environment suite",
        "",
        f"{len(rows)} environments, {multi} of them multi-turn{share}. Every one passed "
        "`spade-gym validate` when it was registered; its card (`card.json`) records the validation, "
        "the privileged hint, the difficulty levels and where the program came from.",
        "",
        "| skill | environments |",
        "|---|---|",
        *[f"| {skill} | {count} |" for skill, count in sorted(skills.items())],
        "",
        "Mechanic families (same interaction loop, feedback and solving method; a re-skin is the same family):",
        "",
        *mechanic_counts(rows),
        "",
        *evaluation_section(evaluation, rows),
        profile_note(rows),
        "",
        markdown_table(rows).rstrip(),
        "",
        f"<!-- generated by `{command}`; do not edit by hand -->",
    ]
    return "\n".join(lines) + "\n"


def suite_evaluation(suite: str | Path) -> dict | None:
    """The reference agents' results published next to a suite (``EVAL.json``), if any."""
    from spade_gym.evaluation.publish import EVAL_FILE, load

    return load(Path(suite) / EVAL_FILE)


@click.command("list")
@click.option("--suite", type=click.Path(file_okay=False),
              help="List this suite directory instead of the registered ones.")
@click.option("--skill", help='Only environments of this skill (e.g. "Logical Deduction").')
@click.option("--kind", type=click.Choice(CARD_KINDS), help="Only games, or only tool-use environments.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--markdown", is_flag=True, help="Print a markdown document: counts per skill and mechanic, the "
              "reference agents' results (a suite's EVAL.json, see eval --publish; whole suites only), and the "
              "table with each environment's baseline profile (the format of envs_generated/README.md).")
@handle_errors
def command(suite, skill, kind, as_json, markdown):
    """List environments: id, skill, multi-turn, description.

    \b
    Example:
      spade-gym list --skill "Spatial Reasoning"
      spade-gym list --kind tool-use
      spade-gym list --suite my_suite/ --json
    """
    rows = collect(suite, skill, kind)
    if as_json:
        echo_json(rows)
        return
    if markdown:
        where = f" --suite {suite}" if suite else ""
        echo(markdown_document(rows, f"spade-gym list{where} --markdown",
                               suite_evaluation(suite) if suite and not (skill or kind) else None), nl=False)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} environment(s)")
    for column in ("id", "kind", "skill", "multi-turn", "description"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(safe_markup(row["id"]), row["kind"], safe_markup(row["skill"], newlines=False),
                      "yes" if row["multi_turn"] else "no", safe_markup(row["description"], newlines=False))
    Console().print(table)
