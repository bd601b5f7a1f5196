"""Plots and a markdown summary of a self-play run (``spade-gym report DIR``).

Reads ``metrics.jsonl`` only, so it works on a finished run, a running one or a copy
of the file. PNG plots need the ``[plots]`` extra (matplotlib); the markdown summary
does not.
"""

from __future__ import annotations

import json
from pathlib import Path

from spade_gym.errors import ConfigError

CURVES = [
    ("validity_rate", "valid designs (fraction)"),
    ("regret_mean", "hint regret (mean over valid designs)"),
    ("return_with_hint", "agent return with hint"),
    ("return_without_hint", "agent return without hint"),
    ("agent_win_rate_suite", "agent win rate on seed-suite tasks"),
    ("pool_size", "environment pool size"),
    ("tokens_designer", "designer tokens"),
    ("tokens_agent", "agent tokens"),
]
PHASES = ["design_s", "validate_s", "play_s", "update_s"]


def load_metrics(run_dir: Path) -> list[dict]:
    path = Path(run_dir) / "metrics.jsonl"
    if not path.exists():
        raise ConfigError(f"{path} not found: is {run_dir} a self-play run directory?")
    rows = []
    for line in path.read_text().splitlines():
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue  # a line cut by a kill: the run resumes from the checkpoint before it
    if not rows:
        raise ConfigError(f"{path} holds no finished iteration yet")
    return rows


def write_plots(rows: list[dict], out_dir: Path) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise ConfigError("PNG plots need matplotlib: pip install 'spade-gym[plots]' "
                          "(or use --no-plots for the markdown summary only)") from None
    out_dir.mkdir(parents=True, exist_ok=True)
    iterations = [r["iteration"] for r in rows]
    written = []
    fig, axes = plt.subplots(4, 2, figsize=(11, 12))
    for ax, (key, title) in zip(axes.flat, CURVES):
        values = [r.get(key) for r in rows]
        points = [(i, v) for i, v in zip(iterations, values) if v is not None]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o")
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path = out_dir / "curves.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    written.append(path)
    fig, ax = plt.subplots(figsize=(8, 4))
    bottom = [0.0] * len(rows)
    for phase in PHASES:
        values = [float(r.get(phase) or 0.0) for r in rows]
        ax.bar(iterations, values, bottom=bottom, label=phase.removesuffix("_s"))
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xlabel("iteration")
    ax.set_ylabel("seconds")
    ax.set_title("time per phase")
    ax.legend()
    fig.tight_layout()
    path = out_dir / "phases.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    written.append(path)
    return written


def markdown_summary(rows: list[dict], run_dir: Path) -> str:
    def fmt(value):
        if value is None:
            return "-"
        return f"{value:.3g}" if isinstance(value, float) else str(value)

    header = ["iteration", "designed", "valid", "regret", "return w/ hint", "return w/o hint",
              "agent win (suite)", "pool", "design s", "validate s", "play s", "update s"]
    keys = ["iteration", "designed", "valid", "regret_mean", "return_with_hint", "return_without_hint",
            "agent_win_rate_suite", "pool_size", "design_s", "validate_s", "play_s", "update_s"]
    lines = [f"# Self-play run `{run_dir}`", ""]
    designed = sum(r.get("designed", 0) for r in rows)
    valid = sum(r.get("valid", 0) for r in rows)
    totals = {p: sum(float(r.get(p) or 0) for r in rows) for p in PHASES}
    total_time = sum(totals.values()) or 1.0
    env_side = totals["validate_s"] + totals["play_s"]
    lines += [
        f"{len(rows)} iteration(s); {valid} of {designed} designed programs valid "
        f"({valid / designed:.0%}).".replace("(nan%)", "") if designed else f"{len(rows)} iteration(s).",
        f"Time: design {totals['design_s']:.0f} s, validate {totals['validate_s']:.0f} s, "
        f"play {totals['play_s']:.0f} s, update {totals['update_s']:.0f} s "
        f"(validation + play, which include the environment side, {env_side / total_time:.0%}).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for row in rows:
        lines.append("| " + " | ".join(fmt(row.get(k)) for k in keys) + " |")
    registered = sorted({e for r in rows for e in r.get("registered", [])})
    lines += ["", f"Registered environments ({len(registered)}): " + (", ".join(f"`{e}`" for e in registered) or "none")]
    return "\n".join(lines) + "\n"
