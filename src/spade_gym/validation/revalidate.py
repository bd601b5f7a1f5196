"""Re-running the current validator over a whole suite, and refreshing its cards.

A card's ``validation`` record says what the validator of its day found. When the
validator gains checks (shortcut baselines, the per-level profile...), old cards say
nothing about them; :func:`revalidate_suite` re-checks every entry's program with its
card's hint — novelty against the *rest* of the suite, never against itself — and
:func:`write_validations` replaces the records of the programs that pass. A program
that now fails keeps its old card: the verdict is reported, never written over it,
since a card that says "invalid" would still be registered and played.

Both go through the one admission path (:mod:`spade_gym.registry.admission`, rules
``REVALIDATE``): the same validation step as every other way into a suite, and a refresh of
the validation record as its registration.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from spade_gym.registry import Suite, SuiteEntry
from spade_gym.registry.admission import (
    REVALIDATE,
    Admission,
    AdmissionSteps,
    Admitted,
    Candidate,
    Prepared,
    Rejected,
    Report,
    Submission,
)
from spade_gym.registry.admission.admit import BatchValidator
from spade_gym.validation import novelty
from spade_gym.validation.config import DEFAULT_CONFIG, ValidationConfig
from spade_gym.validation.pipeline import default_workers, validate_source
from spade_gym.validation.report import ValidationReport


@dataclass
class Revalidation:
    """One suite entry re-checked: its report, or why it could not be checked, and whether
    its card was rewritten."""

    env_id: str
    directory: Path
    report: ValidationReport | None = None
    #: Why the entry was not validated at all (unreadable card, untrusted or modified program).
    problem: str | None = None
    source: str | None = None
    entry: SuiteEntry | None = None
    written: bool = False
    #: Why a valid report was not written (``--write`` only).
    not_written: str | None = None
    #: The admission path's verdict on the report: what ``--write`` registers, or why not.
    judged: Candidate | Rejected | None = None

    @property
    def valid(self) -> bool:
        return self.report is not None and self.report.valid and not isinstance(self.judged, Rejected)

    @property
    def first_failure(self) -> str | None:
        """``check: first line of its message``, or the problem that kept the entry from running."""
        if self.problem is not None:
            return self.problem
        if self.report is None or self.report.valid:
            return None
        failure = self.report.first_failure
        if failure is None:  # invalid with only skipped checks cannot happen; be explicit anyway
            return "invalid"
        lines = [line.strip() for line in (failure.message or "").splitlines() if line.strip()]
        # A message that opens with a heading ("...too often:") names the culprit on its next line.
        text = " ".join(lines[:2]) if len(lines) > 1 and lines[0].endswith(":") else (lines[0] if lines else "")
        return f"{failure.name}: {text}"

    @property
    def level_profile(self) -> list[dict]:
        return list(self.report.facts.level_profile) if self.report else []

    def to_dict(self) -> dict:
        return {"id": self.env_id, "directory": str(self.directory), "valid": self.valid,
                "first_failure": self.first_failure, "written": self.written, "not_written": self.not_written,
                "level_profile": self.level_profile, "run_seed": self.report.run_seed if self.report else None,
                "report": self.report.to_dict() if self.report else None}


def revalidate_suite(path: str | os.PathLike, *, config: ValidationConfig | None = None, workers: int | None = None,
                     on_start: Callable[[int], None] | None = None,
                     on_done: Callable[[Revalidation], None] | None = None,
                     validator: BatchValidator | None = None) -> list[Revalidation]:
    """Validate every entry of the suite at ``path`` with the current checks; results in suite order.

    Entries the suite cannot read or trust are results with a ``problem`` (never dropped
    silently). ``on_start(total)`` is called once the programs are read, ``on_done`` as each
    program finishes (progress bars). ``validator`` runs the validate step elsewhere (e.g.
    :class:`spade_gym.executor.admission.ExecutorValidator`: on a Ray cluster, journaled);
    without it the programs are validated ``workers`` at a time in this process.
    """
    suite = Suite(path)
    entries = suite.entries()
    results: list[Revalidation] = [Revalidation(_skipped_id(reason), suite.path, problem=reason)
                                   for reason in suite.skipped]
    runnable: list[Revalidation] = []
    first_with: dict[str, str] = {}
    for entry in sorted(entries, key=lambda e: e.id):
        result = Revalidation(entry.id, entry.directory, entry=entry)
        # The novelty check skips byte-identical programs (its own entry among them), so a
        # program registered twice under two names is caught here instead.
        twin = first_with.setdefault(entry.card.sha256, entry.id)
        if twin != entry.id:
            result.problem = f"novelty: the same program as {twin} (identical sha256)"
        else:
            try:
                result.source = entry.read_source()
            except Exception as exc:  # noqa: BLE001 - integrity and trust problems are reported per entry
                result.problem = str(exc)
        results.append(result)
        if result.source is not None:
            runnable.append(result)
    if on_start is not None:
        on_start(len(runnable))
    admission = _admission(suite, config)
    # Novelty looks in this suite; the check skips the program's own entry (same checksum).
    prepared = [admission.prepare(Submission(r.source or "", hint=r.entry.card.hint if r.entry else None,
                                             name=r.env_id, entry=r.entry)) for r in runnable]
    by_item = {id(item): result for item, result in zip(prepared, runnable)}

    def finished(item: Prepared, report: Report) -> None:
        result = by_item[id(item)]
        result.report = cast(ValidationReport, report)  # the validator here is validate_source
        if on_done is not None:
            on_done(result)

    todo = [item for item in prepared if isinstance(item, Prepared)]
    for item, report in zip(todo, admission.validate_all(todo, workers=workers or default_workers(),
                                                         on_done=finished, validator=validator)):
        by_item[id(item)].report = cast(ValidationReport, report)
        by_item[id(item)].judged = admission.judge(item, report)
    for result in results:
        if result.problem is not None and on_done is not None:
            on_done(result)
    return sorted(results, key=lambda r: r.env_id)


def write_validations(path: str | os.PathLike, results: list[Revalidation]) -> None:
    """Replace the ``validation`` record of every card whose program passed, under the suite lock.

    Only the record changes: the program, its checksum, the id and the version never do.
    Sets ``written`` / ``not_written`` on each result.
    """
    passed = [(r, r.judged) for r in results if r.valid and isinstance(r.judged, Candidate)]
    outcomes = _admission(Suite(path), None).register_all([candidate for _, candidate in passed])
    for (result, _), outcome in zip(passed, outcomes):
        result.written = isinstance(outcome, Admitted)
        result.not_written = outcome.reason if isinstance(outcome, Rejected) else None


def _admission(suite: Suite, config: ValidationConfig | None) -> Admission:
    """``revalidate``'s admission: the validator's steps (no designer output to parse)."""
    steps = AdmissionSteps(validate=lambda *args, **kwargs: validate_source(*args, **kwargs),
                           novelty=lambda *args, **kwargs: novelty.check_novelty(*args, **kwargs),
                           registered_suites=lambda: novelty.registered_suites(), config=DEFAULT_CONFIG)
    return Admission(suite, REVALIDATE, steps, config=config)


def _skipped_id(reason: str) -> str:
    """A label for an entry the suite could not read: its directory name, from the reason."""
    head = reason.split(":", 1)[0].strip()
    return Path(head).name or head or "(unreadable)"
