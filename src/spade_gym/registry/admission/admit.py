"""The admission path itself: :class:`Admission` (prepare, validate, judge, register, keep)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from filelock import BaseFileLock

from spade_gym.contract import program_kind
from spade_gym.errors import DesignerOutputError
from spade_gym.registry.admission.records import (
    Admitted,
    Candidate,
    Form,
    Gate,
    Outcome,
    Prepared,
    Rejected,
    Report,
    Submission,
    ValidationUnit,
)
from spade_gym.registry.admission.rules import AdmissionRules, AdmissionSteps, Keep, Registration
from spade_gym.registry.card import Card, describe
from spade_gym.registry.suite import Suite, SuiteEntry, sha256_text

#: What the hint rule says to a program without one (the designer reads it in a repair loop).
#: A validate step run elsewhere: ``(prepared, on_done)`` in, their reports in input order out,
#: ``on_done(item, report)`` called as each one finishes.
BatchValidator = Callable[[Sequence[Prepared], Callable[[Prepared, Report], None] | None], Sequence[Report]]

NO_HINT = ("no hint: neither a <hint> nor a hint() method, so the with-hint and without-hint plays would be "
           "identical and regret pure noise")


def admit(submission: Submission, *, suite: Suite | str | os.PathLike, rules: AdmissionRules,
          steps: AdmissionSteps, **options: Any) -> Outcome:
    """One program through the whole path: :meth:`Admission.admit` (``options`` as :class:`Admission` takes)."""
    return Admission(suite, rules, steps, **options).admit(submission)


class Admission:
    """Admits programs into ``suite`` under ``rules`` (see the module docstring).

    ``config`` is the validation config to start from (default: the validator's), under the
    rules' overrides; ``rejected_dir`` and ``keep_cap`` say where rejected programs go and
    how many a folder holds at most; ``novelty_suites`` are further suites rules with
    ``novelty_everywhere`` compares with (self-play's seed suite).
    """

    def __init__(self, suite: Suite | str | os.PathLike, rules: AdmissionRules, steps: AdmissionSteps, *,
                 config: Any = None, rejected_dir: str | os.PathLike | None = None, keep_cap: int | None = None,
                 novelty_suites: Iterable[Suite] = ()):
        self.suite = suite if isinstance(suite, Suite) else Suite(suite)
        self.rules = rules
        self.steps = steps
        base = config if config is not None else steps.config
        self.config = dataclasses.replace(base, **rules.validation) if rules.validation else base
        self.rejected_dir = Path(rejected_dir) if rejected_dir is not None else None
        self.keep_cap = keep_cap
        self.extra_novelty_suites = list(novelty_suites)

    # ------------------------------------------------------------------ the whole path

    def admit(self, submission: Submission) -> Outcome:
        """Prepare, validate, judge, register; a rejection is kept as the rules say."""
        return self.admit_many([submission])[0]

    def admit_many(self, submissions: Sequence[Submission], *, workers: int = 1,
                   on_start: Callable[[int], None] | None = None,
                   on_done: Callable[[Prepared, Report], None] | None = None,
                   validator: BatchValidator | None = None) -> list[Outcome]:
        """:meth:`admit` for several: validated ``workers`` at a time, registered in input order.
        ``on_start(n)`` is told how many need validating, ``on_done`` as each one is validated;
        ``validator`` replaces the validate step (see :meth:`validate_all`)."""
        staged = [self.prepare(s) for s in submissions]
        todo = [p for p in staged if isinstance(p, Prepared)]
        if on_start is not None:
            on_start(len(todo))
        reports = dict(zip(map(id, todo), self.validate_all(todo, workers=workers, on_done=on_done,
                                                            validator=validator)))
        outcomes: list[Outcome] = []
        for item in staged:
            if isinstance(item, Prepared):
                judged = self.judge(item, reports[id(item)])
                item = self.register(judged) if isinstance(judged, Candidate) else judged
            outcomes.append(item)
        return [self.keep([o])[0] if isinstance(o, Rejected) else o for o in outcomes]

    # ------------------------------------------------------------------ the steps

    def prepare(self, submission: Submission) -> Prepared | Admitted | Rejected:
        """The program and its hint out of the submission, checked for kind; an identical program
        already in the suite ends here (admitted, or rejected as a copy, as the rules say)."""
        code, hint = submission.text, submission.hint
        if submission.form is Form.DESIGNER_OUTPUT:
            if self.steps.parse is None:
                raise TypeError("admitting designer output needs AdmissionSteps.parse")
            try:
                parsed = self.steps.parse(submission.text)
            except DesignerOutputError as exc:
                return Rejected(Gate.PARSE, "parse", str(exc), submission)
            code, hint = parsed.code, parsed.hint or hint
        if submission.kind is not None and program_kind(code) != submission.kind:
            return Rejected(Gate.KIND, "kind", f"a {submission.kind} environment was asked for, but the program "
                                                f"is a {program_kind(code)} environment", submission, code)
        if self.rules.registration is Registration.ADD and self.rules.present_is_admitted:
            present = self.suite.find_source(sha256_text(code))
            if present is not None:
                return Admitted(present, added=False)
        return Prepared(submission, code, hint,
                        ValidationUnit(code, hint, self.config, str(self.suite.path), submission.name))

    def validate(self, prepared: Prepared) -> Report:
        return prepared.unit.run(self.steps.validate)

    def validate_all(self, prepared: Sequence[Prepared], *, workers: int = 1,
                     on_done: Callable[[Prepared, Report], None] | None = None,
                     validator: BatchValidator | None = None) -> list[Report]:
        """Reports in input order. Threads are enough: programs run in sandbox workers.

        ``validator(prepared, on_done)`` gets the reports from elsewhere instead (the executor
        seam: each :class:`ValidationUnit` run on a cluster); prepare, judge and register stay here.
        """
        if validator is not None:
            reports = list(validator(prepared, on_done))
            if len(reports) != len(prepared):
                raise RuntimeError(f"the validator returned {len(reports)} report(s) for {len(prepared)} program(s)")
            return reports

        def one(item: Prepared) -> Report:
            report = self.validate(item)
            if on_done is not None:
                on_done(item, report)
            return report

        if workers <= 1 or len(prepared) <= 1:
            return [one(item) for item in prepared]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(workers, len(prepared)), thread_name_prefix="spade-admit") as pool:
            return list(pool.map(one, prepared))

    def judge(self, prepared: Prepared, report: Report) -> Candidate | Rejected:
        """The rules on a report; what passes gets its card."""
        sub, code = prepared.submission, prepared.code
        if not report.valid:
            failure = report.first_failure
            return Rejected(Gate.VALIDATION, failure.name if failure else "validation",
                            failure.message if failure else report.summary(), sub, code, report)
        facts = report.facts
        hint = prepared.hint or facts.hint
        if self.rules.require_hint and not (hint and str(hint).strip()):
            return Rejected(Gate.HINT, "hint", NO_HINT, sub, code, report)
        if self.rules.novelty_everywhere:
            verdict = self.steps.novelty(code, suites=self.novelty_suites(),
                                         code_threshold=self.config.novelty_threshold)
            if not verdict.novel:
                return Rejected(Gate.NOVELTY, "novelty", verdict.reason, sub, code, report)
        if self.rules.registration is Registration.REFRESH:
            return Candidate(code, None, prepared, report)
        card = Card.from_report(report, skill=sub.skill, hint=hint or None, kind=program_kind(code),
                                provenance=dict(sub.provenance), description=describe(facts, source=code),
                                multi_turn=bool(sub.multi_turn if facts.multi_turn is None else facts.multi_turn))
        return Candidate(code, card, prepared, report)

    def register(self, candidate: Candidate) -> Admitted | Rejected:
        """Write the candidate under the suite's lock: a copy another admission registered since
        this one was validated (in this process or another) is turned away, and only then is
        the entry written, atomically (:meth:`Suite.add`)."""
        if self.rules.registration is Registration.REFRESH:
            return self.register_all([candidate])[0]
        code, card = candidate.code, candidate.card
        assert card is not None
        lock = self.suite.lock()
        with lock:
            suite = _Holding(self.suite.path, lock)
            present = suite.find_source(sha256_text(code))
            if present is not None:
                if self.rules.present_is_admitted:
                    return Admitted(present, candidate.report, added=False)
                return self._turned_away(candidate, Gate.NOVELTY, f"the same program as {present.id}")
            # the validator's novelty check once more, on the code alone (the lock is held), unless
            # the config leaves novelty out
            verdict = self.steps.novelty(code, suites=[suite], code_threshold=self.config.novelty_threshold,
                                         behaviour=False, exclude_identical=True) \
                if "novelty" in (getattr(self.config, "checks", None) or ("novelty",)) else None
            if verdict is not None and not verdict.novel:
                return self._turned_away(candidate, Gate.NOVELTY,
                                         f"{verdict.reason}, registered while this one was being validated")
            entry = suite.add(code, dataclasses.replace(card))
        return Admitted(entry, candidate.report)

    def register_all(self, candidates: Sequence[Candidate]) -> list[Admitted | Rejected]:
        """:meth:`register` for several, in order; refreshes share one hold of the lock."""
        if self.rules.registration is Registration.ADD:
            return [self.register(c) for c in candidates]
        updates = []
        for c in candidates:
            if c.prepared is None or c.prepared.submission.entry is None or c.report is None:
                raise ValueError("a refresh needs the entry it re-checks and its report")
            updates.append((c.prepared.submission.entry, c.code, c.report.card_summary()))
        out: list[Admitted | Rejected] = []
        for candidate, (entry, _, _), problem in zip(candidates, updates, self.suite.replace_validations(updates)):
            out.append(Admitted(entry, candidate.report, added=False) if problem is None else
                       self._turned_away(candidate, Gate.REGISTRATION, problem))
        return out

    def novelty_suites(self) -> list[Suite]:
        """What rules with ``novelty_everywhere`` compares with: every registered suite, the
        target suite and the caller's further ones, each once."""
        suites: dict[str, Suite] = {}
        for suite in [*self.steps.registered_suites(), self.suite, *self.extra_novelty_suites]:
            suites.setdefault(str(suite.path.resolve()), suite)
        return list(suites.values())

    def _turned_away(self, candidate: Candidate, gate: Gate, reason: str) -> Rejected:
        prepared = candidate.prepared
        return Rejected(gate, gate.value, reason, prepared.submission if prepared else None, candidate.code,
                        candidate.report)

    # ------------------------------------------------------------------ keeping the rejected

    def keep(self, rejections: Sequence[Rejected]) -> list[Rejected]:
        """Keep ``rejections`` with their reports as the rules say; returns them with ``kept`` set."""
        keep, folder = self.rules.keep, self.rejected_dir
        eligible = [r for r in rejections if r.submission is not None and
                    (keep is Keep.DESIGNS or (keep is Keep.PROGRAMS and r.report is not None and r.code is not None))]
        if keep is Keep.NOTHING or folder is None or not eligible:
            return list(rejections)
        suffix = ".txt" if keep is Keep.DESIGNS else ".py"
        room = len(eligible)
        if self.keep_cap is not None:
            room = max(0, self.keep_cap - len(list(folder.glob(f"*{suffix}")))) if folder.exists() else self.keep_cap
        if room <= 0:
            return list(rejections)
        folder.mkdir(parents=True, exist_ok=True)
        chosen = {id(r) for r in eligible[:room]}
        return [self._write(r, folder, suffix) if id(r) in chosen else r for r in rejections]

    def _write(self, rejected: Rejected, folder: Path, suffix: str) -> Rejected:
        sub = rejected.submission
        assert sub is not None
        if suffix == ".txt":
            stem, body = sub.label, sub.text
        else:
            stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            name = (rejected.report.name if rejected.report is not None else "") or "program"
            name = re.sub(r"[^\w.-]", "_", name)[:64]  # a file name, not the whole class name
            stem, body = f"{stamp}_{sub.label}_{name}", rejected.code or ""
        path = folder / f"{stem}{suffix}"
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(body, encoding="utf-8")
        tmp.replace(path)
        record = rejected.report.to_dict() if rejected.report is not None else {}
        record.update({"failed_check": rejected.check, "failure": rejected.reason, **sub.record})
        (folder / f"{stem}.report.json").write_text(json.dumps(record, indent=2, default=str), encoding="utf-8")
        return dataclasses.replace(rejected, kept=(str(path), str(folder / f"{stem}.report.json")))


class _Holding(Suite):
    """The suite while this thread holds its lock: :meth:`Suite.add` re-enters the held lock (a
    second lock object on the same file would wait for the first), and the entries are read once
    for the present check, the novelty look and the write (nobody else can change them meanwhile)."""

    def __init__(self, path: Path, lock: BaseFileLock):
        super().__init__(path)
        self._held = lock
        self._entries: list[SuiteEntry] | None = None

    def lock(self) -> BaseFileLock:  # type: ignore[override]
        return self._held

    def entries(self) -> list[SuiteEntry]:
        if self._entries is None:
            self._entries = super().entries()
            self._skipped = list(self.skipped)
        self.skipped = list(self._skipped)
        return list(self._entries)
