"""Re-running the current validator over a whole suite, and refreshing its cards.

A card's ``validation`` record says what the validator of its day found. When the
validator gains checks (shortcut baselines, the per-level profile...), old cards say
nothing about them; :func:`revalidate_suite` re-checks every entry's program with its
card's hint — novelty against the *rest* of the suite, never against itself — and
:func:`write_validations` replaces the records of the programs that pass. A program
that now fails keeps its old card: the verdict is reported, never written over it,
since a card that says "invalid" would still be registered and played.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from spade_gym.registry import Suite, SuiteEntry
from spade_gym.validation.config import ValidationConfig
from spade_gym.validation.pipeline import validate_many
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

    @property
    def valid(self) -> bool:
        return self.report is not None and self.report.valid

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
        return list((self.report.details.get("level_profile") if self.report else None) or [])

    def to_dict(self) -> dict:
        return {"id": self.env_id, "directory": str(self.directory), "valid": self.valid,
                "first_failure": self.first_failure, "written": self.written, "not_written": self.not_written,
                "level_profile": self.level_profile, "run_seed": self.report.run_seed if self.report else None,
                "report": self.report.to_dict() if self.report else None}


def revalidate_suite(path: str | os.PathLike, *, config: ValidationConfig | None = None, workers: int | None = None,
                     on_start: Callable[[int], None] | None = None,
                     on_done: Callable[[Revalidation], None] | None = None) -> list[Revalidation]:
    """Validate every entry of the suite at ``path`` with the current checks; results in suite order.

    Entries the suite cannot read or trust are results with a ``problem`` (never dropped
    silently). ``on_start(total)`` is called once the programs are read, ``on_done`` as each
    program finishes (progress bars).
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
    names = [r.env_id for r in runnable]

    def finished(index: int, report: ValidationReport) -> None:
        runnable[index].report = report
        if on_done is not None:
            on_done(runnable[index])

    if runnable:
        # Novelty looks in this suite; the check skips the program's own entry (same checksum).
        reports = validate_many({name: r.source for name, r in zip(names, runnable) if r.source is not None},
                                hints={r.env_id: r.entry.card.hint for r in runnable if r.entry is not None},
                                suite=suite.path, config=config, workers=workers, on_done=finished)
        for result, report in zip(runnable, reports):
            result.report = report
    for result in results:
        if result.problem is not None and on_done is not None:
            on_done(result)
    return sorted(results, key=lambda r: r.env_id)


def write_validations(path: str | os.PathLike, results: list[Revalidation]) -> None:
    """Replace the ``validation`` record of every card whose program passed, under the suite lock.

    Only the record changes: the program, its checksum, the id and the version never do.
    Sets ``written`` / ``not_written`` on each result.
    """
    suite = Suite(path)
    valid, records = [], []
    for r in results:
        if r.valid and r.entry is not None and r.source is not None and r.report is not None:
            valid.append(r)
            records.append((r.entry, r.source, r.report.card_summary()))
    outcomes = suite.replace_validations(records)
    for result, outcome in zip(valid, outcomes):
        result.written = outcome is None
        result.not_written = outcome


def _skipped_id(reason: str) -> str:
    """A label for an entry the suite could not read: its directory name, from the reason."""
    head = reason.split(":", 1)[0].strip()
    return Path(head).name or head or "(unreadable)"
