"""The trainer callback of the self-play loop: one metrics line per iteration (with TRL's
own train metrics), the loop's state in every checkpoint, and the iteration progress bar.

It runs first among the trainer's callbacks, so the ``spade/*`` numbers it adds to each
log reach TensorBoard (or whatever ``report_to`` names) through TRL's public logging,
without touching the trainer's private metric store.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from transformers import TrainerCallback

if TYPE_CHECKING:
    from spade_gym.selfplay.progress import Phase

#: TRL's train metrics copied into metrics.jsonl (as ``train_<name>``).
TRAIN_KEYS = ("loss", "grad_norm", "reward", "reward_std", "frac_reward_zero_std", "entropy", "learning_rate", "kl",
              "completions/mean_length", "completions/clipped_ratio")


class SpadeCallback(TrainerCallback):
    def __init__(self, rollout, metrics_path: Path, *, ranks, progress, iterations: int):
        self.rollout = rollout
        self.metrics_path = Path(metrics_path)
        self.ranks = ranks
        self.progress = progress
        self.iterations = iterations
        self._stack = contextlib.ExitStack()
        self._bar: Phase | None = None
        self._update_s: float | None = None

    def on_train_begin(self, args, state, control, **kwargs):
        self._bar = self._stack.enter_context(self.progress.phase("self-play iterations", total=self.iterations))
        self._bar.advance(self.rollout.state.iteration)
        return control

    def on_train_end(self, args, state, control, **kwargs):
        self._stack.close()
        return control

    def on_step_end(self, args, state, control, **kwargs):
        self._update_s = round(time.monotonic() - self.rollout.rollout_finished, 3)
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs is None or "loss" not in logs:
            return control  # not an iteration's training log (e.g. the final summary)
        metrics = dict(self.rollout.last_metrics)
        metrics["update_s"] = self._update_s
        for key in TRAIN_KEYS:
            if key in logs:
                metrics["train_" + key.replace("/", "_")] = logs[key]
        for key, value in metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                logs[f"spade/{key}"] = float(value)
        if self.ranks.is_main:
            with open(self.metrics_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(metrics) + "\n")
        if self._bar is not None:
            self._bar.advance(1)
        return control

    def on_save(self, args, state, control, **kwargs):
        """Commit the iteration: the checkpoint records what the suite holds now.

        With delayed designer rewards every rank first writes its pending design samples;
        ``spade_state.json``, the commit (a resume only picks checkpoints that have it),
        is written after all of them.
        """
        from spade_gym.selfplay.records import samples_file

        target = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        config = self.rollout.config
        if config.reward.designer_reward_delay and self.rollout.designer.trains:
            target.mkdir(parents=True, exist_ok=True)
            path = target / samples_file(self.ranks.rank)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps(self.rollout.state.pending_samples))
            tmp.replace(path)
            self.ranks.barrier()
        if self.ranks.is_main and target.is_dir():
            spade_state = self.rollout.state
            entries = self.rollout.suite.entries()
            spade_state.registered = sorted(e.id for e in entries)
            spade_state.card_stats = {e.id: dict(e.card.stats or {}) for e in entries}
            tmp = target / "spade_state.json.tmp"
            tmp.write_text(json.dumps(spade_state.to_dict()))
            tmp.replace(target / "spade_state.json")
        return control
