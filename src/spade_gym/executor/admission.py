"""The admission path's validate step on the executor seam (``revalidate``, ``import``).

Admission is prepare -> validate -> judge -> register. Only the validate step leaves the
driver: each prepared program's :class:`~spade_gym.registry.admission.ValidationUnit` (its
text, hint, config with run seed, and suite path: plain data) becomes a validation unit of
:func:`~spade_gym.executor.validation.validate_batch`, so it is journaled, retried when its
worker dies and resumable. Prepare, judge and register run on the driver exactly as without
an executor, and registration stays under the suite's lock there: a cluster never writes a card.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from spade_gym.executor.base import Executor, ExecutorError
from spade_gym.executor.validation import BatchResult, Program, resume_config, validate_batch
from spade_gym.registry.admission import Prepared, Report
from spade_gym.validation import ValidationConfig


class ExecutorValidator:
    """A validate step for ``Admission.validate_all`` / ``admit_many`` (``validator=``) that runs
    the prepared programs on ``executor``; with ``output``, journaled there (``resume`` continues
    that run, and refuses one started with another config, seed or suite). ``kind`` names the
    command in the journal. ``result`` is the last batch's (how many ran, were reused, failed)."""

    def __init__(self, executor: Executor, *, output: str | os.PathLike | None = None, resume: bool = False,
                 kind: str = "validate"):
        if resume and output is None:
            raise ExecutorError("--resume needs the output folder of the run to continue")
        self.executor = executor
        self.output = output
        self.resume = resume
        self.kind = kind
        self.result: BatchResult | None = None

    def __call__(self, prepared: Sequence[Prepared],
                 on_done: Callable[[Prepared, Report], None] | None = None) -> list[Report]:
        if not prepared:  # nothing to validate: no journal to start, nothing to resume
            self.result = BatchResult([], 0, 0, 0, None)
            return []
        units = [item.unit for item in prepared]
        config, suite = cast(ValidationConfig, units[0].config), units[0].suite
        # One admission validates under one config and one suite: a journal header holds one of each.
        if any(u.config != config or u.suite != suite for u in units):
            raise ExecutorError("the programs of one executor batch must share their validation config and suite")
        suite_path = str(Path(suite).expanduser().resolve()) if suite is not None else None
        if suite_path is not None:
            # A suite about to be created (import) is empty, but a unit refuses a folder it cannot
            # see (no shared file system): make it here, where it will be registered into.
            Path(suite_path).mkdir(parents=True, exist_ok=True)
        if self.resume:
            assert self.output is not None
            # validate_batch continues the journaled run's config; here the caller's config is
            # the admission's own, so a disagreement is refused rather than silently overridden.
            resume_config(self.output, seed=config.seed, suite=suite_path, config=config, kind=self.kind)
        programs = [Program(u.name or "", u.source, u.hint) for u in units]

        def done(index: int, report) -> None:
            if on_done is not None:
                on_done(prepared[index], report)

        self.result = validate_batch(programs, executor=self.executor, config=config, suite=suite_path,
                                     output=self.output, resume=self.resume, on_done=done, kind=self.kind)
        return list(self.result.reports)
