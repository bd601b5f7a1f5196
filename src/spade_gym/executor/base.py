"""Units of work, their outcomes, and the loop every executor shares (attempts, refusals, deadlines).

A unit is plain data: the dotted name of a task function in spade-gym and a JSON-able payload.
It crosses to a worker as JSON text and comes back as JSON text (:func:`run_unit`), on every
executor alike: the local pool runs the very same text round trip in a thread, so a unit's
result is the same bytes wherever it ran. Nothing pickled by program code, and no live object
(a compiled program, a handle, a config instance), is ever sent.
"""

from __future__ import annotations

import importlib
import json
import os
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from spade_gym.errors import SpadeError

#: Only spade-gym's own functions may be named as tasks (a payload never chooses code to import).
TASK_PREFIX = "spade_gym."
#: Attempts per unit before it is reported as the machine's failure.
DEFAULT_ATTEMPTS = 3


class ExecutorError(SpadeError):
    """The executor cannot run the work at all (no usable node, Ray missing, a bad address)."""


@dataclass(frozen=True)
class Unit:
    """One unit of work. ``key`` names it in the journal (stable across runs of the same plan);
    ``task`` is ``"spade_gym.module:function"``, a function taking and returning a JSON dict."""

    key: str
    task: str
    payload: dict[str, Any]
    #: CPUs the unit holds on a cluster (None: the executor's ``cpus_per_unit``). A design request
    #: waits on a model server, and must not hold a CPU that a validation could use.
    cpus: float | None = None

    def wire(self) -> str:
        """What is sent: the payload as JSON text."""
        return json.dumps(self.payload, ensure_ascii=False, allow_nan=True, sort_keys=True)


@dataclass
class Outcome:
    """What became of one unit: its ``result`` (the task's JSON dict), or ``error`` when every
    attempt failed (a machine's failure: a killed worker, a lost node, a crash of the task)."""

    key: str
    result: dict[str, Any] | None
    attempts: int
    node: str = ""
    error: str | None = None
    #: Why each failed attempt failed, oldest first.
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


class Executor(Protocol):
    """Runs units and yields their outcomes as they finish, in completion order.

    Every unit yields exactly one outcome per :meth:`run` (a success, or after
    ``max_attempts`` failed attempts a failure): never two, never none.
    """

    #: Short name for messages and journals ("local", "ray").
    name: str

    def run(self, units: Iterable[Unit]) -> Iterator[Outcome]: ...

    def close(self) -> None: ...


def echo_task(payload: dict) -> dict:
    """A unit that does nothing: what an executor costs per unit (benchmarks, health checks)."""
    return payload


def resolve_task(task: str) -> Callable[[dict], dict]:
    module_name, _, function = task.partition(":")
    if not module_name.startswith(TASK_PREFIX) or not function:
        raise ExecutorError(f"task {task!r} is not a spade-gym function ('spade_gym.module:function')")
    return getattr(importlib.import_module(module_name), function)


def run_unit(task: str, payload: str, guard: dict | None = None) -> str:
    """The worker side of every executor: JSON text in, a JSON envelope out; never raises.

    ``guard`` (Ray) asks the worker to check its node first (:mod:`spade_gym.executor.nodes`):
    the envelope then carries the node's code digest, and a node that lacks a required sandbox
    layer refuses the unit instead of running it.
    """
    from spade_gym.executor import nodes

    started = time.perf_counter()
    envelope: dict[str, Any] = {"pid": os.getpid()}
    try:
        if guard is not None:
            state = nodes.worker_state()
            envelope.update(node=guard.get("node") or nodes.node_id(), digest=state["digest"],
                            version=state["version"])
            if guard.get("require_process_layer", True) and not state["process_layer"]:
                envelope.update(ok=False, refused=state["summary"])
                return json.dumps(envelope)
        result = resolve_task(task)(json.loads(payload))
        envelope.update(ok=True, result=result)
    except Exception as exc:  # noqa: BLE001 - reported to the driver, which decides on a retry
        envelope.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:2000],
                        traceback=traceback.format_exc()[-2000:])
    envelope["seconds"] = round(time.perf_counter() - started, 6)
    try:
        return json.dumps(envelope, ensure_ascii=False, allow_nan=True, default=str)
    except ValueError as exc:  # a circular result: the task's bug, reported like any other
        return json.dumps({"pid": envelope["pid"], "ok": False, "error": f"unserializable result: {exc}"})


@dataclass
class Attempt:
    """A unit in flight: which attempt, where, since when."""

    unit: Unit
    number: int
    started: float = field(default_factory=time.monotonic)
    node: str = ""


class Dispatcher:
    """The loop both executors share: a window of attempts in flight, bounded retries, refusals.

    A backend provides :meth:`_submit` (start an attempt, return a handle), :meth:`_wait`
    (handles that finished, each with its envelope text or the exception that replaced it),
    :meth:`_cancel` and :meth:`_refuse` (a node said it must not run units).
    """

    name = "base"

    def __init__(self, *, max_attempts: int = DEFAULT_ATTEMPTS, unit_timeout: float | None = None):
        if max_attempts < 1:
            raise ExecutorError(f"max_attempts must be at least 1, got {max_attempts}")
        self.max_attempts = max_attempts
        #: Seconds after which an attempt that has not answered is abandoned and retried
        #: (a hung node must not hold a unit forever); None: wait as long as it takes.
        self.unit_timeout = unit_timeout
        #: Units run, attempts retried, refusals seen: for benchmarks and messages.
        self.stats = {"units": 0, "retries": 0, "refusals": 0}

    # -- backend hooks
    def _window(self) -> int:
        raise NotImplementedError

    def _submit(self, attempt: Attempt) -> Any:
        raise NotImplementedError

    def _wait(self, handles: list, timeout: float) -> list[tuple[Any, str | None, BaseException | None]]:
        raise NotImplementedError

    def _cancel(self, handle: Any) -> None:
        """Abandon an attempt; its late answer, if any, is never read."""

    def _refuse(self, node: str, reason: str) -> None:
        raise ExecutorError(f"node {node} refused a unit: {reason}")

    def _check_envelope(self, envelope: dict) -> str | None:
        """Why an answered envelope must not count (e.g. another spade-gym release), else None."""
        return None

    # -- the loop
    def run(self, units: Iterable[Unit]) -> Iterator[Outcome]:
        queue: deque[Attempt] = deque(Attempt(unit, 1) for unit in units)
        self.stats["units"] += len(queue)
        failures: dict[str, list[str]] = {}
        inflight: dict[Any, Attempt] = {}
        try:
            while queue or inflight:
                while queue and len(inflight) < self._window():
                    attempt = queue.popleft()
                    attempt.started = time.monotonic()
                    inflight[self._submit(attempt)] = attempt
                done = self._wait(list(inflight), timeout=1.0)
                for handle, text, exc in done:
                    attempt = inflight.pop(handle)
                    outcome = self._settle(attempt, text, exc, queue, failures)
                    if outcome is not None:
                        yield outcome
                if self.unit_timeout is not None:
                    now = time.monotonic()
                    for handle, attempt in list(inflight.items()):
                        if now - attempt.started > self.unit_timeout:
                            del inflight[handle]
                            self._cancel(handle)
                            outcome = self._failed(attempt, f"no answer within {self.unit_timeout:g} s",
                                                   queue, failures)
                            if outcome is not None:
                                yield outcome
        finally:
            for handle in inflight:
                self._cancel(handle)

    def _settle(self, attempt: Attempt, text: str | None, exc: BaseException | None,
                queue: deque[Attempt], failures: dict[str, list[str]]) -> Outcome | None:
        if exc is not None or text is None:
            return self._failed(attempt, _describe(exc), queue, failures)
        try:
            envelope = json.loads(text)
        except ValueError as bad:
            return self._failed(attempt, f"unreadable answer: {bad}", queue, failures)
        node = str(envelope.get("node") or attempt.node)
        if envelope.get("refused"):
            self.stats["refusals"] += 1
            self._refuse(node, str(envelope["refused"]))
            queue.appendleft(Attempt(attempt.unit, attempt.number))  # a refusal is not the unit's attempt
            return None
        problem = self._check_envelope(envelope)
        if problem is not None:
            self.stats["refusals"] += 1
            self._refuse(node, problem)
            queue.appendleft(Attempt(attempt.unit, attempt.number))
            return None
        if not envelope.get("ok") or not isinstance(envelope.get("result"), dict):
            return self._failed(attempt, f"the task failed on node {node or '?'}: {envelope.get('error')}",
                                queue, failures)
        return Outcome(attempt.unit.key, envelope["result"], attempt.number, node,
                       failures=failures.pop(attempt.unit.key, []))

    def _failed(self, attempt: Attempt, reason: str, queue: deque[Attempt],
                failures: dict[str, list[str]]) -> Outcome | None:
        seen = failures.setdefault(attempt.unit.key, [])
        seen.append(f"attempt {attempt.number}: {reason}")
        if attempt.number < self.max_attempts:
            self.stats["retries"] += 1
            queue.appendleft(Attempt(attempt.unit, attempt.number + 1))
            return None
        failures.pop(attempt.unit.key, None)
        return Outcome(attempt.unit.key, None, attempt.number, attempt.node,
                       error=f"failed {attempt.number} time(s) on the {self.name} executor; last: {reason}",
                       failures=seen)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _describe(exc: BaseException | None) -> str:
    if exc is None:
        return "no answer"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]
