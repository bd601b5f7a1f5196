"""Playing probes within deadlines, and telling a slow machine from a slow program.

Every batch sent to a worker gets at most what is left of the run's budget (``max_seconds``),
so a slow-but-legal program cannot run past it. Deadlines measure the machine as much as the
program, and only the ``cost`` check may judge time:

* a probe that hits a hard deadline (a call's: the worker interrupted it; a batch's: the host
  killed the worker) on a busy machine (:func:`machine_busy`) is played again from scratch,
  once, in a fresh worker whose deadlines are ``deadline_retry_factor`` times longer
  (:meth:`Deadlines.with_deadline_retry`), before any check counts it; a hit at the longer
  deadlines fails the program, reported as the machine's when the machine is still busy. On an
  idle machine the hit is the program's at once (a hang costs one deadline, as before);
* the per-call allowance ("too slow to validate") counts the worker's CPU time where the kernel
  reports it (:func:`worker_cpu`), so calls that only waited for a CPU never count;
* the run's budget is a backstop: reached on a busy machine, it is reported as the machine's.
"""

from __future__ import annotations

import copy
import os
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from spade_gym.errors import SandboxError
from spade_gym.sandbox import ProgramHandle
from spade_gym.sandbox.limits import Limits
from spade_gym.validation.episodes import BatchFailed, FatalEpisode, Job, ProbeEpisode, play
from spade_gym.validation.messages import describe_error, excerpt

if TYPE_CHECKING:
    from spade_gym.validation.config import ValidationConfig

T = TypeVar("T")


class Abort(Exception):
    """The program hung, crashed or exhausted a limit: the current check fails and validation stops."""

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message)
        self.message = message
        self.details = details


class DeadlineHit(Exception):
    """A probe hit a deadline: a call's (the worker interrupted it), a batch's (the host killed the
    worker) or, where the worker's CPU time is unknown, the per-call allowance. Raised inside
    :meth:`Deadlines.with_deadline_retry`, which plays the probe again at longer deadlines before
    anything counts it."""

    def __init__(self, abort: Abort):
        super().__init__(abort.message)
        self.abort = abort


def machine_load() -> tuple[float, int]:
    """(1-minute load average, CPU cores) of this machine."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not available on this platform
        load = 0.0
    return load, os.cpu_count() or 1


def runnable_tasks() -> int | None:
    """Tasks runnable right now, this one included (Linux ``/proc/stat``; None elsewhere)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            for line in stat:
                if line.startswith("procs_running "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def machine_busy() -> bool:
    """Whether other work competes for this machine's CPUs: as many other runnable tasks as cores
    right now, or a 1-minute load average of twice the cores. A deadline hit on a machine that is
    not busy is the program's (retrying it would cost another, longer deadline for nothing)."""
    load, cores = machine_load()
    running = runnable_tasks()
    return (running is not None and running - 1 >= cores) or load >= 2 * cores


def worker_cpu(handle: ProgramHandle) -> tuple[int, float] | None:
    """(pid, CPU seconds used) of ``handle``'s current worker process, from ``/proc`` (None where
    that is unavailable, or no worker runs): what the program itself cost, whatever the load."""
    pid = getattr(getattr(handle, "_worker", None), "pid", None)
    if not isinstance(pid, int):
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return pid, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def machine_state() -> str:
    load, cores = machine_load()
    running = runnable_tasks()
    now = f", {running - 1} other task(s) runnable" if running is not None else ""
    return f"load average {load:.1f} on {cores} cores{now}"


def pristine_copy(jobs: list[Job]) -> list[Job]:
    """Deep copies of ``jobs`` made before they are played (a deadline retry replays them from
    scratch). The baselines' RNGs are copied through their state: ``copy.deepcopy`` of a
    ``random.Random`` copies its 625-word state one int at a time, which cost more than the play."""
    memo: dict[int, Any] = {}
    for job in jobs:
        rng = getattr(job.baseline, "rng", None)
        if type(rng) is random.Random and id(rng) not in memo:
            clone = random.Random()
            clone.setstate(rng.getstate())
            memo[id(rng)] = clone
    return copy.deepcopy(jobs, memo)


class Deadlines:
    """The deadline side of :class:`~spade_gym.validation.context.Context` (a mixin: the
    context's dataclass fields below are what it reads)."""

    config: ValidationConfig
    started: float
    warnings: list[str]
    details: dict
    _proven: set
    _retrying: bool
    _slow_machine_noted: bool

    @property
    def budget(self) -> float:
        """The run's time limit (``max_seconds``): a backstop, never lengthened, so a slow program on a
        busy machine still costs at most this (it is then reported as the machine's)."""
        return self.config.max_seconds

    def remaining(self) -> float:
        return self.budget - (time.perf_counter() - self.started)

    @property
    def long_limits(self) -> Limits:
        """The sandbox limits with every deadline ``deadline_retry_factor`` times longer."""
        limits, factor = self.config.limits, self.config.deadline_retry_factor
        return limits.replace(call_timeout=limits.call_timeout * factor, load_timeout=limits.load_timeout * factor)

    def deadline_scale(self, handle: ProgramHandle | None) -> float:
        """How much longer than configured the deadlines of ``handle`` are (1 until a retry)."""
        if handle is None:
            return 1.0
        return max(1.0, handle.limits.call_timeout / self.config.limits.call_timeout)

    def _left(self, what: str) -> float:
        """What is left of the run's budget; :meth:`budget_abort` when it is spent."""
        left = self.remaining()
        if left > 0:
            return left
        raise self.budget_abort(what)

    def budget_abort(self, what: str) -> Abort:
        """Validation ran out of time: the machine's fault when it is busy, else the program's."""
        if machine_busy():
            return Abort(f"{what}: validation stopped at its {self.budget:g} s time limit on a busy machine "
                         f"({machine_state()}): this says more about the machine than about the program; validate "
                         f"it again on a less busy machine", {"kind": "machine"})
        return Abort(f"{what}: validation stopped after {self.budget:g} s (its time limit); the program is far too "
                     f"slow", {"kind": "slow"})

    def timeout_for(self, calls: int, what: str = "probing", scale: float = 1.0) -> float:
        """Deadline of one batch: its share of the probe allowance (``scale`` times longer after a
        deadline retry), never more than what is left of the run's budget (so the backstop holds
        inside a batch, not only between checks)."""
        left = self._left(what)
        limits = self.config.limits
        allowance = scale * (limits.call_timeout * 2 + calls * self.config.probe_call_allowance) + limits.kill_grace
        return max(0.05, min(allowance, left))

    def with_deadline_retry(self, handle: ProgramHandle | None, what: str, attempt: Callable[[], T]) -> T:
        """Run ``attempt``; if it raises :class:`DeadlineHit`, play it again once, from scratch, with
        ``handle``'s worker restarted at ``deadline_retry_factor`` times longer deadlines; a hit
        then is final (an :class:`Abort`). Probes nested in an attempt leave the retry to it."""
        if self._retrying:
            return attempt()
        self._retrying = True
        try:
            try:
                return attempt()
            except DeadlineHit as hit:
                if handle is not None and self.deadline_scale(handle) > 1.0:  # it ran at the long deadlines
                    raise self._final_deadline(hit, retried=True) from None
                if handle is None or self.config.deadline_retry_factor <= 1 or not machine_busy():
                    raise self._final_deadline(hit, retried=False) from None
                first = hit.abort.message.splitlines()[0]
                self.lengthen_deadlines(handle)
                self.warnings.append(f"{what}: {first}; played again from scratch with "
                                     f"{self.config.deadline_retry_factor:g}x longer deadlines")
            try:
                return attempt()
            except DeadlineHit as hit:
                raise self._final_deadline(hit, retried=True) from None
        finally:
            self._retrying = False

    def retry_deadline(self, what: str, message: str) -> bool:
        """Whether a probe run outside :meth:`play` (gymnasium's ``check_env`` on its own env) that
        hit a deadline gets its one retry at :attr:`long_limits`; records it when it does."""
        if self.config.deadline_retry_factor <= 1 or not machine_busy():
            return False
        self.details["deadline_retries"] = self.details.get("deadline_retries", 0) + 1
        self.warnings.append(f"{what}: {message.splitlines()[0] if message else 'a deadline was hit'}; run again "
                             f"with {self.config.deadline_retry_factor:g}x longer deadlines")
        return True

    def lengthen_deadlines(self, handle: ProgramHandle) -> None:
        """Restart ``handle``'s worker with the long deadlines (its next call starts the new worker)."""
        self.details["deadline_retries"] = self.details.get("deadline_retries", 0) + 1
        handle.limits = self.long_limits
        handle.close()
        self._proven.discard(id(handle))

    def _final_deadline(self, hit: DeadlineHit, *, retried: bool) -> Abort:
        abort = hit.abort
        if not retried:
            return abort
        factor = self.config.deadline_retry_factor
        if machine_busy():
            return Abort(f"{abort.message}\n(again when played from scratch with {factor:g}x longer deadlines, on a "
                         f"busy machine: {machine_state()}; this may be the machine's doing, not the program's: "
                         f"validate it again on a less busy machine)",
                         {**(abort.details or {}), "kind": "machine",
                          "program_kind": (abort.details or {}).get("kind")})
        return Abort(f"{abort.message}\n(again when played from scratch with {factor:g}x longer deadlines: the "
                     f"program, not the machine, is too slow)", abort.details)

    # ------------------------------------------------------------------ playing

    def play(self, handle: ProgramHandle, jobs: list[Job], *, max_steps: int, what: str,
             slots: int | None = None) -> list[ProbeEpisode]:
        """Play jobs lock-step; raise :class:`Abort` if the program hangs, crashes or is too slow.

        A deadline hit is not counted yet: the jobs are played again from scratch (fresh copies of
        their baselines) in a restarted worker with longer deadlines, once (:meth:`with_deadline_retry`)."""
        retriable = self.deadline_scale(handle) == 1.0 and self.config.deadline_retry_factor > 1
        spare = pristine_copy(jobs) if retriable and not self._retrying else None
        attempts = iter([jobs, spare])

        def attempt() -> list[ProbeEpisode]:
            todo = next(attempts)  # a second attempt only comes when ``spare`` was made for it
            assert todo is not None
            return self._play(handle, todo, max_steps=max_steps, what=what, slots=slots)

        return self.with_deadline_retry(handle, what, attempt)

    def _play(self, handle: ProgramHandle, jobs: list[Job], *, max_steps: int, what: str,
              slots: int | None = None) -> list[ProbeEpisode]:
        """One attempt of :meth:`play`: deadline hits raise :class:`DeadlineHit`, other failures :class:`Abort`."""
        start = time.perf_counter()
        cpu_start = worker_cpu(handle)
        scale = self.deadline_scale(handle)

        def timeout_for(calls: int) -> float:
            return self.timeout_for(calls, what, scale)
        try:
            episodes = []
            if id(handle) not in self._proven and jobs:
                # A worker's first episode is played alone: a program that hangs on every seed
                # then costs one deadline, not one per instance of a lock-step batch.
                episodes += play(handle, jobs[:1], max_steps=max_steps, slots=1, timeout_for=timeout_for)
                jobs = jobs[1:]
                self._proven.add(id(handle))
            episodes += play(handle, jobs, max_steps=max_steps, slots=slots or handle.count, timeout_for=timeout_for)
        except FatalEpisode as fatal:
            episode = fatal.episode
            error = episode.error
            assert error is not None
            abort = Abort(f"{what}, seed {episode.seed}, turn {episode.error_turn}: {describe_error(error)}",
                          {"kind": error.kind, "lineno": error.lineno, "seed": episode.seed,
                           "turn": episode.error_turn, "policy": episode.baseline,
                           "action": episode.error_action})
            if error.kind == "timeout":
                raise DeadlineHit(abort) from None
            raise abort from None
        except SandboxError as exc:
            if self.remaining() <= 0.1:
                raise self.budget_abort(what) from None
            in_flight = exc.in_flight if isinstance(exc, BatchFailed) else ()
            actions = [action for _, call, action in in_flight if call == "step"]
            message = f"{what}: {describe_error(exc)}"
            if in_flight:
                listed = ", ".join(f"seed {seed} {call}" + (f" {excerpt(action, 40)}" if action is not None else "")
                                  for seed, call, action in in_flight[:6])
                message += f"\n(the calls in flight: {listed}{', ...' if len(in_flight) > 6 else ''})"
            abort = Abort(message, {"kind": exc.kind, "lineno": exc.lineno, "actions": actions})
            if exc.kind == "timeout":
                raise DeadlineHit(abort) from None
            raise abort from None
        elapsed = time.perf_counter() - start
        calls = max(1, sum(1 + e.turns for e in episodes))
        per_call, allowance = elapsed / calls, self.config.probe_call_allowance * scale
        if elapsed > 1.0 and per_call > allowance:
            # The allowance is for the program's time: its worker's CPU time, where the kernel says
            # (wall time also counts the time its calls waited for a CPU on a busy machine).
            cpu_end = worker_cpu(handle)
            cpu = cpu_end[1] - cpu_start[1] if cpu_start and cpu_end and cpu_start[0] == cpu_end[0] else None
            message = (f"{what}: the program is too slow to validate: {calls} reset/step calls took {elapsed:.1f} s "
                       f"({per_call * 1000:.0f} ms per call")
            if cpu is None:
                raise DeadlineHit(Abort(f"{message}; the cost budget is {self.config.cost_budget_ms:g} ms)",
                                        {"kind": "slow"}))
            if cpu / calls > allowance:
                raise Abort(f"{message}, {cpu / calls * 1000:.0f} ms of it computing; the cost budget is "
                            f"{self.config.cost_budget_ms:g} ms)", {"kind": "slow"})
            if not self._slow_machine_noted:
                self._slow_machine_noted = True
                self.warnings.append(f"{what}: {calls} calls took {elapsed:.1f} s but only {cpu:.1f} s of the "
                                     f"program's CPU time: the machine is busy ({machine_state()}), the program "
                                     f"is not slow")
        return episodes


__all__ = ["Abort", "DeadlineHit", "Deadlines", "machine_busy", "machine_load", "machine_state",
           "pristine_copy", "runnable_tasks", "worker_cpu"]
