"""Running the checks: :func:`validate_source` for one program, :func:`validate_many` for many.

The validator must never crash, whatever it is given: a check that raises is recorded as a
failed check (marked ``internal`` in its details), and every worker it started is closed
before it returns. ``static`` and ``load`` are fatal: when one fails, the later checks are
listed as skipped (and the report is invalid), since none of them could run meaningfully.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from spade_gym.registry.suite import Suite
from spade_gym.sandbox.language.compiler import source_sha256
from spade_gym.validation.checks import CheckSpec, registered
from spade_gym.validation.config import DEFAULT_CONFIG, ValidationConfig
from spade_gym.validation.context import Abort, Context
from spade_gym.validation.report import Check, ValidationReport


def validate_source(source: str, *, hint: str | None = None, suite: Suite | str | os.PathLike | None = None,
                    config: ValidationConfig | None = None, name: str | None = None) -> ValidationReport:
    """Validate one program; never raises on account of the program.

    ``hint`` is the designer's privileged hint (checked for leaks); ``suite`` (a
    :class:`~spade_gym.registry.Suite` or a directory) is where the novelty check looks for
    copies; ``name`` labels the report (default: the environment class name).
    """
    config = config or DEFAULT_CONFIG
    started = time.perf_counter()
    ctx = Context(source=source, config=config, hint=hint, suite=suite)
    checks: list[Check] = []
    stopped_by: str | None = None
    try:
        for spec in registered():
            if not config.enabled(spec.name) or ctx.kind not in spec.kinds:
                continue
            if stopped_by is not None:
                checks.append(Check(spec.name, False, f"not run: the {stopped_by} check failed", 0.0,
                                    {"skipped": True}))
                continue
            checks.append(_run_check(spec, ctx))
            if not checks[-1].passed and (spec.fatal or (checks[-1].details or {}).get("aborted")):
                stopped_by = spec.name
    finally:
        ctx.close()
    return ValidationReport(
        name=name or ctx.details.get("class_name") or "program",
        checks=checks,
        details=ctx.details,
        sha256=source_sha256(source) if isinstance(source, str) else "",
        seconds=time.perf_counter() - started,
        warnings=list(ctx.warnings),
    )


def _run_check(spec: CheckSpec, ctx: Context) -> Check:
    check_name = spec.name
    start = time.perf_counter()
    try:
        passed, message, details = spec.run(ctx)
        details = dict(details or {})
    except Abort as abort:
        # The program hung, crashed or ran out of a resource: this check fails and validation stops.
        passed, message, details = False, abort.message, {**(abort.details or {}), "aborted": True}
    except Exception as exc:  # a validator bug must not crash the caller or pass the program
        passed = False
        message = (f"internal error in the validator while running the {check_name} check "
                   f"({type(exc).__name__}: {exc}); the program was not accepted")
        details = {"internal": True, "aborted": True, "traceback": traceback.format_exc()[-2000:]}
    return Check(check_name, passed, message, time.perf_counter() - start, details or None)


def validate_many(
    sources: Sequence[str] | Mapping[str, str],
    *,
    hints: Sequence[str | None] | Mapping[str, str | None] | None = None,
    suite: Suite | str | os.PathLike | None = None,
    config: ValidationConfig | None = None,
    workers: int | None = None,
    on_done: Callable[[int, ValidationReport], None] | None = None,
) -> list[ValidationReport]:
    """Validate several programs in parallel; reports come back in input order.

    ``sources`` is a list of program texts, or a mapping name -> text (the names label the
    reports); ``hints`` matches it: a list in the same order, or a mapping by name. A thread
    pool is enough: the programs run in sandbox worker processes, the threads only wait on
    them. ``on_done(index, report)`` is called as each program finishes (progress bars).
    """
    if isinstance(sources, Mapping):
        keys = list(sources)
        names: list[str | None] = list(keys)
        texts = [sources[n] for n in keys]
    else:
        texts = list(sources)
        names = [None] * len(texts)
    if hints is None:
        hint_list: list[str | None] = [None] * len(texts)
    elif isinstance(hints, Mapping):
        hint_list = [hints.get(n) if n is not None else None for n in names]
    else:
        hint_list = list(hints)
    if len(hint_list) != len(texts):
        raise ValueError(f"got {len(hint_list)} hints for {len(texts)} programs")
    workers = max(1, workers or default_workers())
    reports: list[ValidationReport | None] = [None] * len(texts)

    def one(index: int) -> None:
        report = validate_source(texts[index], hint=hint_list[index], suite=suite, config=config, name=names[index])
        reports[index] = report
        if on_done is not None:
            on_done(index, report)

    if workers == 1 or len(texts) <= 1:
        for index in range(len(texts)):
            one(index)
    else:
        with ThreadPoolExecutor(max_workers=min(workers, len(texts)), thread_name_prefix="spade-validate") as pool:
            for future in [pool.submit(one, index) for index in range(len(texts))]:
                future.result()
    return [r for r in reports if r is not None]


def default_workers() -> int:
    """Programs validated at once: twice the CPU cores. Each validation's thread mostly waits
    on its sandbox workers (round trips, worker start-up), so one per core leaves cores idle."""
    return 2 * (os.cpu_count() or 1)
