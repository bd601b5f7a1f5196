"""Evaluation reports: one dict (the JSON file), rendered as rich tables and as markdown.

Why one dict first: the JSON file, the screen and the markdown must never disagree, so
both renderings read the numbers from the same structure :func:`build_report` makes.
Results are grouped per environment, per skill (the card's skill; Reasoning Gym tasks
by category) and overall, each with the success rate per arm and, when both arms were
played, the paired hint gain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from spade_gym import __version__
from spade_gym.evaluation.runner import EvalRun, Evaluation
from spade_gym.evaluation.stats import hint_gain, pass_hat_ks, summarize_arm

#: Report key of each arm's summary.
ARM_KEYS = {False: "no_hint", True: "hint"}
#: Console width from which the per-env table also shows each env's skill.
WIDE_CONSOLE = 120


def _group(records: Sequence[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for hint, key in ARM_KEYS.items():
        arm = [r for r in records if bool(r["hint"]) == hint]
        if arm:
            out[key] = summarize_arm(arm).to_dict()
    gain = hint_gain(records)
    if gain is not None:
        out["hint_gain"] = gain.to_dict()
    return out


def _pass_k(records: Sequence[dict], tasks: int) -> dict[str, Any]:
    """pass^1..pass^n of a benchmark played over n trials per task (tau2), on the no-hint arm if played."""
    arm = [r for r in records if not r["hint"]] or [r for r in records if r["hint"]]
    values = pass_hat_ks(arm, tasks)
    return {"tasks": len({int(r["seed"]) % tasks for r in arm}), "trials": len(values), "pass_hat": values}


def build_report(evaluation: Evaluation, run: EvalRun, patterns: Iterable[str] = ()) -> dict[str, Any]:
    """The full report as plain JSON-ready data."""
    by_env: dict[str, list[dict]] = {}
    for record in run.records:
        by_env.setdefault(record["env_id"], []).append(record)
    skills: dict[str, list[str]] = {}
    env_rows = []
    for env in evaluation.envs:
        skills.setdefault(env.skill, []).append(env.env_id)
        env_rows.append({"env_id": env.env_id, "skill": env.skill, **_group(by_env.get(env.env_id, []))})
        if env.pass_k and env.tasks:
            env_rows[-1]["pass_k"] = _pass_k(by_env.get(env.env_id, []), env.tasks)
    skill_rows = [
        {"skill": skill, "envs": len(ids), **_group([r for env_id in ids for r in by_env.get(env_id, [])])}
        for skill, ids in sorted(skills.items())
    ]
    return {
        "spade_gym_version": __version__,
        "agent": {"fingerprint": evaluation.fingerprint, **evaluation.config.settings()},
        "patterns": list(patterns),
        "episodes_per_env": evaluation.episodes,
        "seed": evaluation.seed,
        "arms": evaluation.arms,
        "results_file": str(run.results_path),
        "played": run.played,
        "reused": run.reused,
        "agent_errors": run.agent_errors,
        "envs": env_rows,
        "skills": skill_rows,
        "overall": {"envs": len(evaluation.envs), **_group(run.records)},
    }


# ----------------------------------------------------------------------------- formatting


def _rate(arm: dict | None, sep: str) -> str:
    if arm is None:
        return "-"
    return f"{arm['success_rate']:.0%}{sep}({100 * arm['ci_low']:.0f}–{100 * arm['ci_high']:.0f})"


def _turns(arm: dict | None) -> str:
    return "-" if arm is None else f"{arm['mean_turns']:.1f}"


def _gain(gain: dict | None, sep: str) -> str:
    if gain is None:
        return "-"
    return f"{100 * gain['gain']:+.0f} pp{sep}({100 * gain['ci_low']:+.0f}…{100 * gain['ci_high']:+.0f})"


def _columns(report: dict, *, screen: bool) -> list[tuple[str, Any]]:
    """(header, row -> cell) for the arms this report has. Intervals are in percent. On
    screen, headers are short (a caption explains them) and intervals go under the
    estimate, keeping the table inside 80 columns."""
    sep = "\n" if screen else " "
    ci = "" if screen else " (95% CI)"
    arms = [key for key in ARM_KEYS.values() if key in report["overall"]]
    columns: list[tuple[str, Any]] = [("n" if screen else "episodes per arm",
                                       lambda row: str(max((row[a]["episodes"] for a in arms if a in row), default=0)))]
    for arm in arms:
        success = ("hinted" if screen else "success with hint") if arm == "hint" else "success"
        turns = "turns" if screen or arm != "hint" else "turns with hint"
        columns += [(f"{success}{ci}", lambda row, a=arm: _rate(row.get(a), sep)),
                    (turns, lambda row, a=arm: _turns(row.get(a)))]
    if "hint_gain" in report["overall"]:
        columns.append((f"{'gain' if screen else 'hint gain'}{ci}", lambda row: _gain(row.get("hint_gain"), sep)))
    return columns


#: Explains the short on-screen headers.
CAPTION = ("n: episodes per arm; success / hinted: success rate without / with the hint (95% Wilson "
           "interval, %); turns: mean per episode; gain: hinted minus success, paired by seed (95% Newcombe "
           "interval)")


def _title(report: dict) -> str:
    agent = report["agent"]
    model = f" {agent['model']}" if agent.get("model") else ""
    return (f"{agent['kind']}{model} — {report['episodes_per_env']} seed(s) per env, {report['arms']}, "
            f"seed {report['seed']}")


def print_report(report: dict, console=None) -> None:
    """Per-env and per-skill rich tables (with an overall row) on ``console`` (default stdout)."""
    from rich.console import Console
    from rich.markup import escape as escape_markup
    from rich.table import Table

    from spade_gym.display import printable

    def escape(text: str) -> str:  # ids and skills come from cards: neither markup nor control codes
        return escape_markup(printable(text, newlines=False))

    console = console or Console()
    columns = _columns(report, screen=True)
    # In a narrow terminal the skill column (repeated in the per-skill table) gives way to the ids.
    show_skill = console.width >= WIDE_CONSOLE
    envs = Table(title=escape(_title(report)))
    envs.add_column("environment", overflow="fold")
    if show_skill:
        envs.add_column("skill", overflow="fold")
    for header, _ in columns:
        envs.add_column(header, justify="right")
    for row in report["envs"]:
        names = [escape(row["env_id"])] + ([escape(row["skill"])] if show_skill else [])
        envs.add_row(*names, *(cell(row) for _, cell in columns))
    console.print(envs)
    passes = [row for row in report["envs"] if row.get("pass_k", {}).get("pass_hat")]
    if passes:
        trials = max(row["pass_k"]["trials"] for row in passes)
        table = Table(title="pass^k (each task played k or more times; tau2-bench's metric)")
        table.add_column("environment", overflow="fold")
        table.add_column("tasks", justify="right")
        for k in range(1, trials + 1):
            table.add_column(f"pass^{k}", justify="right")
        for row in passes:
            values = row["pass_k"]["pass_hat"]
            table.add_row(escape(row["env_id"]), str(row["pass_k"]["tasks"]),
                          *(f"{values[str(k)]:.0%}" if str(k) in values else "-" for k in range(1, trials + 1)))
        console.print(table)
    skills = Table(title="per skill", caption=CAPTION)
    skills.add_column("skill", overflow="fold")
    skills.add_column("envs", justify="right")
    for header, _ in columns:
        skills.add_column(header, justify="right")
    for row in report["skills"]:
        skills.add_row(escape(row["skill"]), str(row["envs"]), *(cell(row) for _, cell in columns))
    overall = report["overall"]
    skills.add_row("[bold]overall[/bold]", str(overall["envs"]), *(cell(overall) for _, cell in columns),
                   end_section=True)
    console.print(skills)


def to_markdown(report: dict) -> str:
    """The same tables in GitHub markdown, with the settings needed to reproduce them."""
    columns = _columns(report, screen=False)
    agent = report["agent"]
    lines = [
        f"# Evaluation: {_title(report)}",
        "",
        f"Agent fingerprint `{agent['fingerprint']}`; settings: "
        + ", ".join(f"{k}={v}" for k, v in agent.items() if k != "fingerprint") + ".",
        f"Environments: {', '.join(f'`{p}`' for p in report['patterns']) or '-'}. "
        f"Episodes played {report['played']}, reused {report['reused']}; "
        f"spade-gym {report['spade_gym_version']}.",
        "Success rates in percent with 95% Wilson intervals; the hint gain (success with the hint minus "
        "without, paired by seed) in percentage points with a 95% Newcombe paired interval.",
        "",
        "## Per environment",
        "",
        _md_table(["environment", "skill"] + [h for h, _ in columns],
                  [[f"`{r['env_id']}`", r["skill"]] + [cell(r) for _, cell in columns] for r in report["envs"]]),
        "",
        *_md_pass_k(report),
        "## Per skill",
        "",
        _md_table(["skill", "envs"] + [h for h, _ in columns],
                  [[r["skill"], str(r["envs"])] + [cell(r) for _, cell in columns] for r in report["skills"]]
                  + [["**overall**", str(report["overall"]["envs"])]
                     + [cell(report["overall"]) for _, cell in columns]]),
        "",
    ]
    return "\n".join(lines)


def _md_pass_k(report: dict) -> list[str]:
    """The pass^k section (tau2-bench's metric), only when the report has such envs."""
    passes = [row for row in report["envs"] if row.get("pass_k", {}).get("pass_hat")]
    if not passes:
        return []
    trials = max(row["pass_k"]["trials"] for row in passes)
    rows = [[f"`{row['env_id']}`", str(row["pass_k"]["tasks"])]
            + [f"{row['pass_k']['pass_hat'][str(k)]:.1%}" if str(k) in row["pass_k"]["pass_hat"] else "-"
               for k in range(1, trials + 1)] for row in passes]
    return ["## pass^k", "", "The chance that k trials of a task all succeed, averaged over tasks (tau2-bench's "
            "pass^k, from the trials played of each task).", "",
            _md_table(["environment", "tasks"] + [f"pass^{k}" for k in range(1, trials + 1)], rows), ""]


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "|" + "---|" * len(header)] + [line(r) for r in rows])
