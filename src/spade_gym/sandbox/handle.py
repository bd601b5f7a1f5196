"""Host side: :class:`ProgramHandle`, the one way the rest of spade-gym runs a program.

A handle owns a worker process, sends it request records, decodes every reply at the
host (``protocol.decode_*``: nothing a worker says is trusted), enforces every
deadline from the outside and turns error records into the exceptions of
:mod:`spade_gym.errors`. It survives its worker: after a timeout, crash or memory
exhaustion the next ``reset`` starts a fresh worker with the same program.

Every call takes ``timeout=``: a hard bound in seconds on that call, restarts included
(the worker is killed when it passes). Callers with an overall budget — validation —
pass what is left of it; without it a call gets the per-call limit plus the grace.
"""

from __future__ import annotations

import os
import threading
import time

from spade_gym.errors import SandboxError, WorkerCrashed
from spade_gym.sandbox.call_results import CallResult, Failed, Ok
from spade_gym.sandbox.limits import DEFAULT_LIMITS, Limits
from spade_gym.sandbox.process import host
from spade_gym.sandbox.process.host import Worker
from spade_gym.sandbox.wire import protocol as p
from spade_gym.sandbox.wire import replies as r


def _identity(value):
    return value


class ProgramHandle:
    """A sandboxed program: load once, then ``reset``/``step``/``solution``/``hint``.

    ``count`` instances of the program can live in one worker (vector envs); each has
    its own module namespace, random streams and library state, addressed by ``index``.
    ``strict_info=True`` is validation mode: non-JSON ``info`` values and rewards outside
    the contract's range are failures with a precise message instead of being converted.
    """

    def __init__(self, source: str, *, kwargs: dict | None = None, limits: Limits | None = None,
                 count: int = 1, strict_info: bool = False, timeout: float | None = None):
        if not isinstance(source, str):
            raise TypeError(f"program source must be str, got {type(source).__name__}")
        self.source = source
        self.kwargs = dict(kwargs or {})
        self.limits = limits or DEFAULT_LIMITS
        self.count = count
        self.strict_info = strict_info
        self._lock = threading.RLock()
        self._worker: Worker | None = None
        self.load_info: r.LoadInfo | None = None
        self.restarts = 0
        self._obs_limit = limit = self.limits.max_observation_chars
        # The reply decoders, bound once (``step`` runs once per agent turn).
        self._decode_step = lambda v: r.decode_step(v, limit)
        self._decode_reset = lambda v: r.decode_reset(v, limit)
        self._start(None if timeout is None else time.monotonic() + timeout)

    @property
    def info(self) -> dict:
        """What loading found (class name, hint/solution methods, ``max_turns``...), as a dict."""
        return self.load_info.as_dict() if self.load_info else {}

    @property
    def confinement(self) -> dict:
        """What the current worker reported about its own confinement (its hello)."""
        worker = self._worker
        return dict(worker.hello.confinement, uid=worker.hello.uid) if worker else {}

    # ------------------------------------------------------------------ lifecycle

    def _start(self, end: float | None) -> None:
        worker = Worker(self.limits)
        try:
            if self.strict_info:
                budget, hard = self._budget(self.limits.call_timeout, end)
                worker.call(p.Configure(strict=True), "configure", _identity, budget, hard=hard)
            budget, hard = self._budget(self.limits.load_timeout * (self.count + 1), end)
            self.load_info = worker.call(p.Load(self.source, self.kwargs, self.count), "loading the program",
                                         r.decode_load_info, budget, hard=hard)
        except BaseException:
            worker.kill()
            raise
        self._worker = worker

    @staticmethod
    def _budget(default: float, end: float | None) -> tuple[float, bool]:
        """``(seconds, hard)``: the default budget, or what is left before ``end`` (a hard bound)."""
        if end is None:
            return default, False
        left = end - time.monotonic()
        if left <= 0:
            from spade_gym.errors import ProgramTimeout

            raise ProgramTimeout("the caller's time budget was spent before the call could start")
        return left, True

    def _live_worker(self, restart: bool, end: float | None) -> Worker:
        worker = self._worker
        if worker is None or worker.dead or worker.owner != host.current_pid():
            if not restart:
                raise WorkerCrashed("the program's worker was restarted after a failure; call reset() first")
            self._worker = None
            self.restarts += 1
            self._start(end)
            worker = self._worker
        assert worker is not None
        return worker

    @property
    def alive(self) -> bool:
        w = self._worker
        return w is not None and not w.dead and w.owner == host.current_pid()

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None

    def __enter__(self) -> ProgramHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            if self._worker is not None and self._worker.owner == os.getpid():
                self._worker.kill()
        except Exception:
            pass

    # ------------------------------------------------------------------ calls

    def _call(self, request, what: str, decode, *, restart: bool = False, timeout: float | None = None,
              max_bytes: int | None = None):
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            worker = self._live_worker(restart, end)
            budget, hard = self._budget(self.limits.call_timeout, end)
            return worker.call(request, what, decode, budget, hard=hard, max_bytes=max_bytes)

    def reset(self, seed: int | None = None, index: int = 0, *, timeout: float | None = None) -> r.ResetResult:
        return self._call(p.Reset(index, seed), "reset()", self._decode_reset, restart=True, timeout=timeout)

    def step(self, action: str, index: int = 0, *, timeout: float | None = None) -> r.StepResult:
        if not isinstance(action, str):
            raise TypeError(f"action must be str, got {type(action).__name__}")
        return self._call(p.Step(index, action), "step()", self._decode_step, timeout=timeout)

    def solution(self, index: int = 0, *, timeout: float | None = None) -> str:
        limit = self._obs_limit
        return self._call(p.Solution(index), "solution()", lambda v: r.decode_text(v, "solution()", limit),
                          timeout=timeout)

    def hint(self, index: int = 0, *, timeout: float | None = None) -> str | None:
        limit = self._obs_limit
        return self._call(p.Hint(index), "hint()", lambda v: r.decode_hint(v, limit), timeout=timeout)

    def tools(self, index: int = 0, *, timeout: float | None = None) -> list[dict]:
        """A tool-use program's tool schemas for the current episode (OpenAI function format)."""
        return self._call(p.Tools(index), "get_tools()", _decode_tools, timeout=timeout)

    def batch(self, items: list, timeout: float | None = None) -> list[CallResult]:
        """Run several calls — :class:`~protocol.Reset`/``Step``/``Solution``/``Hint`` records,
        or the shorthand dicts ``{"i", "seed"}`` / ``{"i", "action"}`` — in one round-trip.

        Each result is :class:`Ok` (the decoded value the single call would return) or
        :class:`Failed` (the :class:`SandboxError` it would raise). ``timeout`` bounds the
        whole batch (hard); by default each item gets the per-call limit.
        """
        return self.batch_receive(self.batch_send(items, restart=True, timeout=timeout))

    def batch_send(self, items: list, *, restart: bool = False, timeout: float | None = None):
        """First half of :meth:`batch`: send without waiting (vector envs send to every
        worker before collecting any reply). Returns a token for :meth:`batch_receive`."""
        records = tuple(p.batch_item(item) for item in items)
        end = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            worker = self._live_worker(restart, end)
            budget, hard = self._budget(self.limits.call_timeout * max(1, len(records)), end)
            worker.send(p.Batch(records), "batch", budget, hard=hard)
            return worker, records

    def batch_receive(self, token) -> list[CallResult]:
        worker, records = token
        decoders = [r.decoder_for(item, self._obs_limit) for item in records]

        def decode(results):
            if type(results) is not list or len(results) != len(records):
                raise p.ReplyRejected("a batch reply must hold one result per item")
            out: list[CallResult] = []
            for reply, item_decode in zip(results, decoders):
                ok, value = r.split_reply(reply)
                out.append(Ok(item_decode(value)) if ok else Failed(value.to_exception()))
            return out

        return worker.receive("batch", decode, items=len(records))


def _decode_tools(value) -> list[dict]:
    from spade_gym.sandbox.language.tooluse import check_tool_list

    try:
        return check_tool_list(value)
    except ValueError as exc:
        raise p.ReplyRejected(f"malformed tool schemas ({exc})") from None


__all__ = ["ProgramHandle", "SandboxError"]
