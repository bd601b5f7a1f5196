"""The files of a self-play run directory (layout: :mod:`~spade_gym.selfplay.loop`).

Finding the newest committed checkpoint, a resume's roll-back of what later iterations
registered or rejected, the metrics cut back to the committed iterations, the run's summary
and model card, and the atomic JSON writes all of them use. Plain files, no torch: the loop
(:mod:`~spade_gym.selfplay.loop`) drives training; this module only reads and writes what a
kill must leave consistent.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

from spade_gym.errors import ConfigError
from spade_gym.selfplay.config import SelfPlayConfig

#: What a checkpoint holds besides TRL's own files (committed registrations, cards' stats, outcomes).
STATE_FILE = "spade_state.json"


def latest_checkpoint(run_dir: Path) -> Path | None:
    checkpoints = [p for p in Path(run_dir).glob("checkpoint-*") if re.fullmatch(r"checkpoint-\d+", p.name)
                   and (p / STATE_FILE).is_file()]
    return max(checkpoints, key=lambda p: int(p.name.split("-")[1]), default=None)


def pending_samples(checkpoint: Path, rank: int, state) -> list[dict]:
    """This rank's delayed design samples saved with ``checkpoint`` (written before its state)."""
    from spade_gym.selfplay.records import samples_file

    if not any(p["rank"] == rank for p in state.pending_designs):
        return []
    path = checkpoint / samples_file(rank)
    if not path.is_file():
        raise ConfigError(f"{checkpoint} holds pending designs of rank {rank} but not their samples "
                          f"({path.name}); resume with the run's number of processes")
    return json.loads(path.read_text())


def roll_back(run_dir: Path, state) -> None:
    """Remove what an iteration after the checkpoint registered or rejected."""
    from spade_gym.registry import Suite

    committed = set(state.registered)
    suite = Suite(run_dir / "suite")
    for entry in suite.entries() if suite.path.exists() else []:
        if entry.id not in committed:
            shutil.rmtree(entry.directory)
        elif entry.id in state.card_stats and (entry.card.stats or {}) != state.card_stats[entry.id]:
            # an iteration after the checkpoint refreshed this card (its window win rate)
            suite.update_card(entry, stats=state.card_stats[entry.id])
    for path in (run_dir / "rejected").glob("iter*") if (run_dir / "rejected").exists() else []:
        match = re.match(r"iter(\d+)-", path.name)
        if match and int(match.group(1)) > state.iteration:
            path.unlink()


def truncate_metrics(path: Path, iterations: int) -> list[dict]:
    if not path.exists():
        return []
    kept = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line cut by a kill
        if row.get("iteration", 0) <= iterations:
            kept.append(row)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(m) + "\n" for m in kept))
    tmp.replace(path)
    return kept


def run_summary(config: SelfPlayConfig, run_dir: Path, metrics: list[dict], train_seconds: float, phases: dict) -> dict:
    def mean(key):
        values = [m[key] for m in metrics if m.get(key) is not None]
        return round(sum(values) / len(values), 4) if values else None

    return {
        "run_dir": str(run_dir), "suite": str(run_dir / "suite"), "preset": config.preset, "model": config.model,
        "iterations": len(metrics),
        "designed": sum(m.get("designed", 0) for m in metrics),
        "valid": sum(m.get("valid", 0) for m in metrics),
        "registered": [env_id for m in metrics for env_id in m.get("registered", [])],
        "failed_checks": dict(sum((Counter(m.get("failed_checks", {})) for m in metrics), Counter())),
        "regret_mean": mean("regret_mean"),
        "agent_return_mean": mean("agent_return_mean"),
        "agent_win_rate_suite": mean("agent_win_rate_suite"),
        "train_seconds": round(train_seconds, 1), **{k: v for k, v in phases.items() if k.endswith("_s")},
    }


def write_model_card(final_dir: Path, config: SelfPlayConfig, summary: dict) -> None:
    """Our own card in place of TRL's generated one (which names no base model)."""
    base = "a tiny model built and warm-started locally (see warmstart/)" if config.model == "tiny" else \
        f"[{config.model}](https://huggingface.co/{config.model})" if "/" in config.model and \
        not Path(config.model).exists() else f"`{config.model}`"
    registered = summary["registered"]
    text = "\n".join([
        "---", "library_name: transformers", "tags: [spade-gym, self-play, grpo, trl]", "---", "",
        "# spade-gym self-play policy", "",
        f"Trained by `spade-gym selfplay` (preset `{config.preset}`) from {base}: one policy that designs text "
        "environments (rewarded by hint regret) and plays them (rewarded by its return), with GRPO in TRL.", "",
        f"* iterations: {summary['iterations']}",
        f"* designs: {summary['designed']}, valid: {summary['valid']}, registered: {len(set(registered))} "
        f"(in `{summary['suite']}`)",
        f"* mean hint regret: {summary['regret_mean']}; mean agent return: {summary['agent_return_mean']}",
        "* configuration: `config.json` in the run directory; curves and tables: `spade-gym report RUN_DIR`", "",
    ])
    # The run directory's README.md is TRL's generated card otherwise ("fine-tuned version of [None]").
    for path in (final_dir / "README.md", final_dir.parent / "README.md"):
        path.write_text(text, encoding="utf-8")


def write_json(path: Path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.replace(path)
