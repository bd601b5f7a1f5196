"""``spade-gym report``: plots and a markdown summary of a self-play run."""

from __future__ import annotations

from pathlib import Path

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json


@click.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--out", type=click.Path(file_okay=False), help="Where to write (default: RUN_DIR/report).")
@click.option("--no-plots", is_flag=True, help="Only the markdown summary (no matplotlib needed).")
@click.option("--json", "as_json", is_flag=True, help="Print the per-iteration metrics as JSON.")
@handle_errors
def command(run_dir, out, no_plots, as_json):
    """Write PNG plots of a self-play run's curves (validity, regret, returns with and
    without hint, agent win rate, pool size, tokens, time per phase including the warm
    start) and a markdown summary.

    \b
    Example:
      spade-gym report runs/demo
    """
    from spade_gym.selfplay.report import load_metrics, markdown_summary, warm_start_seconds, write_plots

    run = Path(run_dir)
    rows = load_metrics(run)
    if as_json:
        echo_json(rows)
        return
    target = Path(out) if out else run / "report"
    target.mkdir(parents=True, exist_ok=True)
    warm_start_s = warm_start_seconds(run)
    written = [] if no_plots else write_plots(rows, target, warm_start_s=warm_start_s)
    summary_path = target / "summary.md"
    summary_path.write_text(markdown_summary(rows, run, warm_start_s=warm_start_s))
    for path in written + [summary_path]:
        click.echo(str(path))
