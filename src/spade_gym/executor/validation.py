"""Validation as units: a program's text, its hint and the whole config (run seed included) in, the
report's dict out. :func:`validate_batch` plans, runs (on any executor), journals and collects.

Every unit carries its run seed: the batch's ``--seed`` when given (each program then replays a
local run with that seed exactly), else one drawn afresh for each program by the driver, so a
retried unit replays the very same probes. Novelty needs the suites the driver has registered;
a unit names them (the bundled suite is every node's own, and the code digest checks it is the
same), and a worker registers them before it validates (their folders must be on the node:
a shared file system).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade_gym.executor.base import Executor, ExecutorError, Outcome, Unit
from spade_gym.executor.journal import JOURNAL_FILE, Journal, run_journaled
from spade_gym.executor.suites import registered_suite_dirs, sync_suites
from spade_gym.validation import ValidationConfig, ValidationReport, validate_source
from spade_gym.validation.report import Check

TASK = "spade_gym.executor.validation:validate_unit"
#: The check a report of a unit that failed on every attempt holds: the machine's failure, not the program's.
MACHINE_CHECK = "executor"


@dataclass(frozen=True)
class Program:
    """One program of a batch: its label in the reports, its text, its designer's hint."""

    name: str
    source: str
    hint: str | None = None


def config_to_payload(config: ValidationConfig) -> dict[str, Any]:
    return json.loads(json.dumps(config.to_dict()))


def config_from_payload(data: dict[str, Any]) -> ValidationConfig:
    """The inverse of :func:`config_to_payload`: the same config, field for field. Every
    sequence field of the config is a tuple, and JSON knows only lists: each list is one."""
    from spade_gym.sandbox.limits import Limits

    data = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    data["limits"] = Limits.from_dict(data.get("limits"))
    return ValidationConfig(**data)


def report_from_dict(data: dict[str, Any]) -> ValidationReport:
    """A report rebuilt from its :meth:`~ValidationReport.to_dict` (``valid`` and ``summary``
    are derived again, so they cannot disagree with the checks)."""
    return ValidationReport(
        name=data["name"],
        checks=[Check(c["name"], bool(c["passed"]), c["message"], float(c.get("seconds", 0.0)), c.get("details"))
                for c in data.get("checks", [])],
        details=dict(data.get("details") or {}),
        sha256=data.get("sha256", ""),
        seconds=float(data.get("seconds", 0.0)),
        warnings=list(data.get("warnings") or []),
    )


def machine_failure_report(program: Program, outcome: Outcome) -> ValidationReport:
    """What a program gets when its unit failed on every attempt: not valid, and plainly not its fault."""
    from spade_gym.sandbox.language.compiler import source_sha256

    message = (f"not validated: {outcome.error}. This is the machine's failure, not the program's: "
               f"run again (with --resume, only such programs are validated again)")
    return ValidationReport(program.name, [Check(MACHINE_CHECK, False, message, 0.0,
                                                 {"kind": "machine", "failures": outcome.failures})],
                            {"machine_failure": True}, source_sha256(program.source))


# ----------------------------------------------------------------------------- the worker side


def validate_unit(payload: dict[str, Any]) -> dict[str, Any]:
    """The validation task: ``{"source", "hint", "name", "suite", "suites", "config"}`` in,
    ``{"report": report.to_dict()}`` out."""
    config = config_from_payload(payload["config"])
    if config.seed is None:
        raise ExecutorError("a validation unit must carry its run seed")
    sync_suites(payload.get("suites") or [])
    suite = payload.get("suite")
    if suite is not None and not os.path.isdir(suite):
        raise ExecutorError(f"suite folder {suite} is not on this node")
    report = validate_source(payload["source"], hint=payload.get("hint"), suite=suite, config=config,
                             name=payload.get("name"))
    return {"report": report.to_dict()}


# ----------------------------------------------------------------------------- the driver side


def unit_key(program: Program) -> str:
    """A program's identity in a journal: its label, its text and its hint (not its seed)."""
    digest = hashlib.sha256(json.dumps([program.name, program.source, program.hint]).encode("utf-8"))
    return digest.hexdigest()[:32]


def plan(programs: Sequence[Program], config: ValidationConfig, *, suite: str | None = None,
         suites: Sequence[str] | None = None) -> list[Unit]:
    """One unit per program, each with its run seed (``config.seed``, or a fresh one per program)."""
    suites = list(registered_suite_dirs() if suites is None else suites)
    base = config_to_payload(config)
    units = []
    for program in programs:
        seed = config.seed if config.seed is not None else secrets.randbits(63)
        payload = {"name": program.name, "source": program.source, "hint": program.hint, "suite": suite,
                   "suites": suites, "config": {**base, "seed": seed}}
        units.append(Unit(unit_key(program), TASK, payload))
    return units


def run_header(config: ValidationConfig, suite: str | None, suites: Sequence[str],
               kind: str = "validate") -> dict[str, Any]:
    return {"kind": kind, "seed": config.seed, "suite": suite, "suites": list(suites),
            "config": {**config_to_payload(config), "seed": None}}


def resume_config(output: str | os.PathLike, *, seed: int | None, suite: str | None,
                  config: ValidationConfig | None = None,
                  kind: str = "validate") -> tuple[ValidationConfig, str | None]:
    """The config and suite of the run journaled in ``output``: a resume continues that run. Options
    given again must agree with it (``config`` is compared only when it is not the default).
    ``kind`` is the command whose run it must be (``validate``, ``revalidate``, ``import``)."""
    from spade_gym.executor.journal import read

    header, _, _ = read(Path(output) / JOURNAL_FILE)
    if header is None:
        raise ExecutorError(f"nothing to resume: there is no journal in {output}")
    if header.get("kind") != kind:
        raise ExecutorError(f"the journal in {output} is of a `{header.get('kind')}` run, not of a `{kind}` run: "
                            f"resume it with the command that started it")
    stored = config_from_payload({**header["config"], "seed": header.get("seed")})
    changes = []
    if seed is not None and seed != header.get("seed"):
        changes.append(f"--seed {seed} (the run's: {header.get('seed')})")
    if suite is not None and suite != header.get("suite"):
        changes.append(f"--suite {suite} (the run's: {header.get('suite')})")
    if config is not None and config.replace(seed=stored.seed) != stored:
        changes.append("another validation config")
    if changes:
        raise ExecutorError(f"--resume continues the run journaled in {output}, which was started with other "
                            f"options: {', '.join(changes)}; leave them out, or start a new run elsewhere")
    return stored, header.get("suite")


@dataclass
class BatchResult:
    """A batch's reports in input order, and how it went."""

    reports: list[ValidationReport]
    ran: int
    reused: int
    machine_failures: int
    journal: Path | None


def validate_batch(programs: Sequence[Program], *, executor: Executor, config: ValidationConfig | None = None,
                   suite: str | os.PathLike | None = None, output: str | os.PathLike | None = None,
                   resume: bool = False, on_done: Callable[[int, ValidationReport], None] | None = None,
                   kind: str = "validate") -> BatchResult:
    """Validate ``programs`` on ``executor``; reports in input order, each also passed to
    ``on_done(index, report)`` as it finishes (journaled ones first, at once).

    With ``output``, the run is journaled in ``output/journal.jsonl`` (and ``resume`` continues
    it: the run's own config, seed and suite are used, see :func:`resume_config`); ``kind`` names
    the command in the journal, so one command's run is never resumed by another.
    """
    suite_path = str(Path(suite).expanduser().resolve()) if suite is not None else None
    config = config or ValidationConfig()
    if resume:
        if output is None:
            raise ExecutorError("--resume needs the output folder of the run to continue")
        config, suite_path = resume_config(output, seed=None, suite=None, kind=kind)
    suites = registered_suite_dirs()
    journal = None
    if output is not None:
        journal = Journal(Path(output) / JOURNAL_FILE, run_header(config, suite_path, suites, kind),
                          resume=resume)
        if journal.header.get("suites") != suites:
            journal.close()
            raise ExecutorError(f"the run journaled in {output} compared novelty with other registered suites "
                                f"({journal.header.get('suites')}); register the same ones ($SPADE_GYM_SUITES) "
                                f"to resume it")
    units = plan(programs, config, suite=suite_path, suites=suites)
    index = {u.key: i for i, u in enumerate(units)}
    if journal is not None and resume and journal.done and not journal.done.keys() & index.keys():
        journal.close()  # a resume that would redo everything is a mistake (other paths, another --hint)
        raise ExecutorError(f"the run journaled in {output} validated none of these programs (a program is "
                            f"named by its path, its text and its hint): give the same paths and --hint")
    reports: list[ValidationReport | None] = [None] * len(units)
    reused = failures = 0
    try:
        if journal is not None:
            for key, record in journal.done.items():
                if key in index:
                    report = reports[index[key]] = report_from_dict(record["result"]["report"])
                    reused += 1
                    if on_done is not None:
                        on_done(index[key], report)
        for outcome in run_journaled(executor, units, journal):
            i = index[outcome.key]
            if outcome.result is not None:
                report = report_from_dict(outcome.result["report"])
            else:
                failures += 1
                report = machine_failure_report(programs[i], outcome)
            reports[i] = report
            if on_done is not None:
                on_done(i, report)
    finally:
        if journal is not None:
            journal.close()
    missing = [programs[i].name for i, r in enumerate(reports) if r is None]
    if missing:  # the executor's contract is one outcome per unit; say so loudly if it broke
        raise ExecutorError(f"no outcome for {len(missing)} program(s): {', '.join(missing[:5])}")
    return BatchResult([r for r in reports if r is not None], ran=len(units) - reused, reused=reused,
                       machine_failures=failures, journal=journal.path if journal is not None else None)
