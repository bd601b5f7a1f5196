"""Progress of a self-play run: what it is doing now, how far it is, and an ETA.

Every phase that can take more than a few seconds (building the model, the warm start,
each iteration's design / validation / play / update) runs inside :meth:`Progress.phase`.
On a terminal that is a rich progress bar with elapsed time and time remaining; elsewhere
(CI logs, ``--json``) one line when a phase ends. Only the main process reports.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator
from typing import Any


class Phase:
    def __init__(self, progress: Progress, task_id, total: int | None):
        self._progress = progress
        self._task_id = task_id
        self.total = total
        self.done = 0

    def advance(self, amount: int = 1) -> None:
        self.done += amount
        if self._task_id is not None:
            self._progress._rich.update(self._task_id, advance=amount)

    def set_total(self, total: int) -> None:
        self.total = total
        if self._task_id is not None:
            self._progress._rich.update(self._task_id, total=total)


class Progress:
    """Reports phases (see the module docstring). ``enabled=False`` keeps it silent."""

    def __init__(self, *, console=None, enabled: bool = True, log=None):
        self.enabled = enabled
        self._console = console
        self._log = log
        self._rich: Any = None
        self._depth = 0

    def log(self, message: str) -> None:
        if not self.enabled:
            return
        if self._log is not None:
            self._log(message)
        elif self._console is not None:
            self._console.print(message, highlight=False, markup=False)
        else:
            print(message, flush=True)

    @contextlib.contextmanager
    def phase(self, description: str, total: int | None = None) -> Iterator[Phase]:
        """A unit of work; ``total`` steps when known (then rich shows an ETA)."""
        started = time.monotonic()
        interactive = self.enabled and self._console is not None and self._console.is_terminal
        task_id = None
        owner = False
        if interactive:
            if self._rich is None:
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    SpinnerColumn,
                    TextColumn,
                    TimeElapsedColumn,
                    TimeRemainingColumn,
                )
                from rich.progress import Progress as RichProgress

                self._rich = RichProgress(
                    SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=self._console,
                    transient=False)
                self._rich.start()
                owner = True
            task_id = self._rich.add_task(description, total=total)
        phase = Phase(self, task_id, total)
        self._depth += 1
        try:
            yield phase
        finally:
            self._depth -= 1
            seconds = time.monotonic() - started
            if task_id is not None:
                self._rich.update(task_id, completed=phase.total if phase.total else phase.done,
                                  total=phase.total or max(phase.done, 1))
                if self._depth > 0:
                    self._rich.remove_task(task_id)
            if owner:
                self._rich.stop()
                self._rich = None
            if not interactive and self.enabled:
                self.log(f"{description}: done in {seconds:.0f} s")


@contextlib.contextmanager
def quiet_libraries() -> Iterator[None]:
    """Library deprecation noise off for the length of a run (it says nothing to a user of
    spade-gym and buries the progress): transformers/TRL/torch FutureWarnings and
    DeprecationWarnings, and transformers' and TRL's info-level logging."""
    with warnings.catch_warnings():
        for category in (FutureWarning, DeprecationWarning, UserWarning):
            for module in ("transformers", "trl", "torch", "accelerate", "datasets"):
                warnings.filterwarnings("ignore", category=category, module=module)
        hf_logging: Any
        try:
            from transformers.utils import logging as hf_logging
        except ImportError:
            hf_logging = None
        if hf_logging is not None:
            level, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()  # "Loading weights" / "Writing model shards" bars
        try:
            yield
        finally:
            if hf_logging is not None:
                hf_logging.set_verbosity(level)
                if bars:
                    hf_logging.enable_progress_bar()
