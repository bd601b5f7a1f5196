"""Plots and a markdown summary of a self-play run (``spade-gym report DIR``).

Reads ``metrics.jsonl`` only, so it works on a finished run, a running one or a copy
of the file. PNG plots need the ``[plots]`` extra (matplotlib); the markdown summary
does not.
"""

from __future__ import annotations

import json
from pathlib import Path

from spade_gym.errors import ConfigError

#: (metric, panel title, y-axis label, y range (None: a count, integer ticks, free range))
CURVES = [
    ("validity_rate", "valid designs", "fraction of designs", (0.0, 1.0)),
    ("regret_mean", "hint regret (mean over valid designs)", "return with hint - without", (-1.0, 1.0)),
    ("return_with_hint", "agent return with hint", "mean return", (-1.0, 1.0)),
    ("return_without_hint", "agent return without hint", "mean return", (-1.0, 1.0)),
    ("agent_win_rate_suite", "agent win rate on seed-suite tasks", "fraction won", (0.0, 1.0)),
    ("pool_size", "environment pool size", "environments", None),
    ("tokens_designer", "designer tokens", "tokens", None),
    ("tokens_agent", "agent tokens", "tokens", None),
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


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("PNG plots need matplotlib: pip install 'spade-gym[plots]' "
                          "(or use --no-plots for the markdown summary only)") from None
    return plt


def curves_figure(rows: list[dict]):
    """One panel per curve; a panel without data says so instead of staying blank."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    iterations = [r["iteration"] for r in rows]
    fig, axes = plt.subplots(4, 2, figsize=(11, 12))
    for ax, (key, title, ylabel, span) in zip(axes.flat, CURVES):
        points = [(i, r.get(key)) for i, r in zip(iterations, rows) if r.get(key) is not None]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o")
        else:
            ax.text(0.5, 0.5, "no data yet\n(no iteration measured this)", ha="center", va="center",
                    transform=ax.transAxes, color="0.4")
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.set_ylabel(ylabel)
        # Iterations are whole numbers: ticks on them, never between (one iteration included).
        ax.set_xlim(min(iterations) - 0.5, max(iterations) + 0.5)
        if len(iterations) <= 12:
            ax.set_xticks(iterations)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if span is None:
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        else:
            margin = 0.05 * (span[1] - span[0])
            ax.set_ylim(span[0] - margin, span[1] + margin)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def phases_figure(rows: list[dict], warm_start_s: float | None = None):
    """Seconds per phase per iteration, the warm start (often most of a CPU run) first."""
    plt = _pyplot()

    labels = [str(r["iteration"]) for r in rows]
    series = {phase: [float(r.get(phase) or 0.0) for r in rows] for phase in PHASES}
    warm = [0.0] * len(rows)
    if warm_start_s:
        labels = ["warm\nstart"] + labels
        series = {phase: [0.0] + values for phase, values in series.items()}
        warm = [float(warm_start_s)] + warm
    positions = list(range(len(labels)))
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(labels) + 3), 4))
    bottom = [0.0] * len(labels)
    if warm_start_s:
        ax.bar(positions, warm, bottom=bottom, label="warm start", color="0.6")
        bottom = [b + v for b, v in zip(bottom, warm)]
    for phase, values in series.items():
        ax.bar(positions, values, bottom=bottom, label=phase.removesuffix("_s"))
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(positions, labels)
    ax.set_xlabel("iteration")
    ax.set_ylabel("seconds")
    ax.set_title("time per phase")
    ax.legend()
    fig.tight_layout()
    return fig


def warm_start_seconds(run_dir: Path) -> float | None:
    """The warm start's (and model build's) duration, from the run's warmstart/DONE record."""
    done = Path(run_dir) / "warmstart" / "DONE"
    try:
        record = json.loads(done.read_text())
    except (OSError, ValueError):
        return None
    total = float(record.get("warmstart_s") or 0) + float(record.get("build_s") or 0)
    return total or None


def write_plots(rows: list[dict], out_dir: Path, *, warm_start_s: float | None = None) -> list[Path]:
    plt = _pyplot()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in (("curves.png", curves_figure(rows)), ("phases.png", phases_figure(rows, warm_start_s))):
        path = out_dir / name
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def markdown_summary(rows: list[dict], run_dir: Path, *, warm_start_s: float | None = None) -> str:
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
        (f"Warm start (model build included): {warm_start_s:.0f} s. " if warm_start_s else "")
        + f"Time: design {totals['design_s']:.0f} s, validate {totals['validate_s']:.0f} s, "
        f"play {totals['play_s']:.0f} s, update {totals['update_s']:.0f} s "
        f"(validation + play, which include the environment side, {env_side / total_time:.0%}).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for row in rows:
        lines.append("| " + " | ".join(fmt(row.get(k)) for k in keys) + " |")
    registered = sorted({e for r in rows for e in r.get("registered", [])})
    listed = ", ".join(f"`{e}`" for e in registered) or "none"
    lines += ["", f"Registered environments ({len(registered)}): " + listed]
    return "\n".join(lines) + "\n"
