"""``generate`` on the executor seam: design requests as units, and the run's journal.

A design request crosses to a worker as plain data: the endpoint (its url, the model asked of
it, the *name* of the environment variable holding its API key, never the key), the messages
and the sampling settings. The worker makes the HTTP request and sends back the completion's
text, the model that wrote it and its token counts, or the backend's error (a failed request is
the endpoint's answer, not a machine failure: the driver's endpoint pool decides where it goes
next). Validation units are :mod:`spade_gym.executor.validation`'s. Parsing, judging and
registering stay on the driver, under the suite's lock.

A generate run's journal (:class:`GenerateJournal`) holds three kinds of record, each written
before it is counted: ``design:<target>:<attempt>`` (a completion), ``validate:<target>:<attempt>``
(a report) and ``target:<target>`` (the target's result, once it is final). ``--resume`` takes
finished targets from the journal as they are, and replays an unfinished target's attempts from
its journaled completions and reports (no request repeated) until it reaches what is missing.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from spade_gym.executor.base import Executor, ExecutorError, Outcome, Unit
from spade_gym.executor.journal import JOURNAL_FILE, Journal
from spade_gym.generate.backends.base import BackendError, Completion, EndpointUnreachable, _ContextManaged

DESIGN_TASK = "spade_gym.generate.units:design_unit"
#: The journal's ``kind``: a generate run is resumed only by ``generate``.
KIND = "generate"
#: Endpoint fields a design unit carries (``timeout``/``max_retries``: None leaves the backend's own).
SPEC_KEYS = ("base_url", "model", "api_key_env", "timeout", "max_retries")


# ----------------------------------------------------------------------------- the worker side


def design_unit(payload: dict[str, Any]) -> dict[str, Any]:
    """One design request: ``{"endpoint", "messages", "temperature", "max_tokens", "seed"}`` in,
    ``{"completion": {...}}`` or ``{"error", "status", "unreachable"}`` out."""
    from spade_gym.generate.backends import make_backend

    spec = payload["endpoint"]
    options = {k: spec[k] for k in ("timeout", "max_retries") if spec.get(k) is not None}
    backend = make_backend("openai", model=spec["model"], base_url=spec["base_url"],
                           api_key_env=spec.get("api_key_env") or "OPENAI_API_KEY", concurrency=1, **options)
    try:
        completion = backend.complete(payload["messages"], n=1, temperature=payload["temperature"],
                                      max_tokens=payload["max_tokens"], seed=payload.get("seed"))[0]
    except BackendError as exc:
        return {"error": str(exc), "status": exc.status, "unreachable": isinstance(exc, EndpointUnreachable)}
    finally:
        backend.close()
    return {"completion": completion_to_dict(completion)}


def completion_to_dict(completion: Completion) -> dict[str, Any]:
    return {"text": completion.text, "model": completion.model, "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens, "finish_reason": completion.finish_reason}


def completion_from_dict(data: dict[str, Any]) -> Completion:
    return Completion(str(data["text"]), int(data.get("prompt_tokens") or 0), int(data.get("completion_tokens") or 0),
                      data.get("finish_reason"), model=data.get("model"))


# ----------------------------------------------------------------------------- the driver side


class ExecutorBackend(_ContextManaged):
    """A designer backend whose requests run as units on ``executor``: one OpenAI-compatible
    endpoint (``spec``: :data:`SPEC_KEYS`). Several of them make an
    :class:`~spade_gym.generate.endpoints.EndpointPool`, whose caps and failover stay on the driver."""

    name = "openai"

    def __init__(self, spec: dict[str, Any], executor: Executor):
        unknown = set(spec) - set(SPEC_KEYS)
        if unknown or not spec.get("base_url") or not spec.get("model"):
            raise ExecutorError(f"a design unit's endpoint needs base_url and model (got {sorted(spec)})")
        self.spec = dict(spec)
        self.model = spec["model"]
        self.executor = executor
        self._numbers = itertools.count()

    def check_endpoint(self, timeout: float = 10.0) -> None:
        """Probed from the driver: a dead or mistyped url fails in seconds, before any unit."""
        from spade_gym.generate.backends import make_backend

        probe = make_backend("openai", model=self.spec["model"], base_url=self.spec["base_url"],
                             api_key_env=self.spec.get("api_key_env") or "OPENAI_API_KEY")
        try:
            probe.check_endpoint(timeout)  # type: ignore[attr-defined]  # the openai backend has it
        finally:
            probe.close()

    def complete(self, messages: list[dict], *, n: int = 1, temperature: float = 0.7, max_tokens: int = 4096,
                 seed: int | None = None) -> list[Completion]:
        if n != 1:
            raise BackendError("a design unit asks for one completion")
        payload = {"endpoint": self.spec, "messages": messages, "temperature": temperature,
                   "max_tokens": max_tokens, "seed": seed}
        # The key only has to tell this call's one unit apart: the run's journal names designs itself.
        unit = Unit(f"request-{next(self._numbers)}", DESIGN_TASK, payload, cpus=0.0)
        outcome = one_outcome(self.executor, unit)
        if outcome.result is None:
            raise BackendError(f"the design request was lost: {outcome.error}")
        result = outcome.result
        if "completion" in result:
            return [completion_from_dict(result["completion"])]
        error = EndpointUnreachable if result.get("unreachable") else BackendError
        raise error(str(result.get("error")), status=result.get("status"))

    def close(self) -> None:
        pass


def one_outcome(executor: Executor, unit: Unit) -> Outcome:
    """Run one unit (retried by the executor as it retries any) and return its one outcome."""
    outcomes = [o for o in executor.run([unit]) if o.key == unit.key]
    if len(outcomes) != 1:  # the executor's contract is one outcome per unit
        raise ExecutorError(f"{len(outcomes)} outcomes for unit {unit.key}")
    return outcomes[0]


def run_header(config, suite: Path, validation_seed: int | None) -> dict[str, Any]:
    """What a generate run is, for its journal: a resume must plan the very same targets."""
    from spade_gym.generate.targets import plan_targets

    return {"kind": KIND, "suite": str(suite.resolve()), "settings": config.request_settings(),
            "n": config.n, "targets": [asdict(t) for t in plan_targets(config)], "validation_seed": validation_seed}


class GenerateJournal:
    """A generate run's journal in ``output`` (see the module docstring); thread-safe."""

    def __init__(self, output: str | Path, header: dict[str, Any], *, resume: bool = False):
        self.journal = Journal(Path(output) / JOURNAL_FILE, header, resume=resume)
        stored = self.journal.header
        if stored.get("kind") != KIND:
            self.journal.close()
            raise ExecutorError(f"the journal in {output} is of a `{stored.get('kind')}` run, not of a `generate` "
                                f"run: resume it with the command that started it")
        changed = [name for name in ("suite", "settings", "n", "targets", "validation_seed")
                   if stored.get(name) != header.get(name)]
        if changed:
            self.journal.close()
            raise ExecutorError(f"--resume continues the generate run journaled in {output}, which was started with "
                                f"other options ({', '.join(changed)} differ); give the same ones, or start a new "
                                f"run elsewhere")
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self.journal.path

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            record = self.journal.done.get(key)
        return record["result"] if record is not None else None

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Durably, before the caller counts it; a key already journaled keeps its first result."""
        with self._lock:
            if key not in self.journal.done:
                self.journal.append(Outcome(key, result, 1, "driver"))

    def close(self) -> None:
        self.journal.close()


class AttemptSteps:
    """The two steps of a design attempt that may leave the driver, each journaled: the design
    request (asked of the backend unless the journal holds its completion) and the validation
    (a unit on ``executor``, or the admission's own validate step without one, unless the journal
    holds its report). ``reused`` counts what came from the journal."""

    def __init__(self, admission, executor: Executor | None, journal: GenerateJournal | None):
        self.admission = admission
        self.executor = executor
        self.journal = journal
        self.reused = {"designs": 0, "reports": 0, "targets": 0}
        self._lock = threading.Lock()

    def journaled(self, key: str) -> dict[str, Any] | None:
        return self.journal.get(key) if self.journal is not None else None

    def _count(self, what: str) -> None:
        with self._lock:
            self.reused[what] += 1

    def complete(self, backend, target: int, attempt: int, messages: list[dict], **request: Any) -> Completion:
        key = design_key(target, attempt)
        stored = self.journaled(key)
        if stored is not None:  # never asked twice: the journal's completion is the attempt's
            self._count("designs")
            return completion_from_dict(stored["completion"])
        completion = backend.complete(messages, n=1, **request)[0]
        if self.journal is not None:
            self.journal.put(key, {"completion": completion_to_dict(completion)})
        return completion

    def validator(self, target: int, attempt: int):
        """A validate step for ``Admission.admit_many`` (``validator=``) of one attempt's program."""
        from spade_gym.executor.validation import report_from_dict

        key = validate_key(target, attempt)

        def validate(prepared, on_done=None):
            reports = []
            for item in prepared:
                stored = self.journaled(key)
                if stored is not None:
                    self._count("reports")
                    report = report_from_dict(stored["report"])
                else:
                    report = self._validate(item)
                    # a machine failure is not the program's verdict: a resume validates it again
                    if self.journal is not None and not report.details.get("machine_failure"):
                        self.journal.put(key, {"report": report.to_dict()})
                if on_done is not None:
                    on_done(item, report)
                reports.append(report)
            return reports

        return validate

    def _validate(self, item):
        from spade_gym.executor.validation import Program, machine_failure_report, plan, report_from_dict

        if self.executor is None:
            return self.admission.validate(item)
        unit = item.unit
        program = Program(unit.name or "", unit.source, unit.hint)
        # a worker's working folder is not the driver's: the suite goes by its absolute path
        suite = str(Path(unit.suite).resolve()) if unit.suite is not None else None
        (planned,) = plan([program], unit.config, suite=suite)
        outcome = one_outcome(self.executor, planned)
        if outcome.result is None:
            return machine_failure_report(program, outcome)
        return report_from_dict(outcome.result["report"])


def design_key(target: int, attempt: int) -> str:
    return f"design:{target}:{attempt}"


def validate_key(target: int, attempt: int) -> str:
    return f"validate:{target}:{attempt}"


def target_key(target: int) -> str:
    return f"target:{target}"


def journaled_targets(journal: GenerateJournal, indices: Sequence[int]) -> dict[int, dict[str, Any]]:
    return {i: r["target_result"] for i in indices if (r := journal.get(target_key(i))) is not None}
