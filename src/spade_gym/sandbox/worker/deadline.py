"""Worker side: wall-clock deadlines and the CPU budget for calls into the program.

One interval timer ticks every ``TICK`` seconds while requests are served; each call
into the program records when it must end, and the tick raises :class:`Deadline` in
the program once that moment has passed. The timer is started by the first request
after an idle spell and stopped by the first tick that finds no request in progress,
so a worker answering a stream of steps makes no timer system call per request, and
an idle worker gets at most one more tick. Overshoot: up to one tick.

This is the *polite* bound: it interrupts Python code and reports the line. The hard
bound is the host, which kills the worker's process group when a call's deadline plus
``kill_grace`` has passed — whatever the program does with the interruption.
"""

from __future__ import annotations

import resource
import signal
import time

TICK = 0.02


class Deadline(BaseException):
    """Raised inside program code when its wall-clock budget is spent."""


class CPUExhausted(BaseException):
    """Raised inside program code when the worker's CPU budget is spent."""


class _Clock:
    armed = False
    deadline = 0.0
    #: A request is being served (the timer must run).
    serving = False
    #: The interval timer is running.
    ticking = False


clock = _Clock()
monotonic = _monotonic = time.monotonic


def _on_alarm(signum, frame):
    # Raised again on every later tick, so a program that swallows the exception
    # (bare ``except:``) is interrupted again; the host kills the worker if it never gives up.
    if clock.armed:
        if _monotonic() > clock.deadline:
            raise Deadline()
    elif not clock.serving:
        # Idle between requests: nothing to watch until the next one starts the timer.
        # (Handlers run between bytecodes of the main thread, so this cannot interleave
        # with begin_request() between its two steps in a way that leaves a request untimed.)
        signal.setitimer(signal.ITIMER_REAL, 0)
        clock.ticking = False


def _on_cpu(signum, frame):
    if clock.armed:
        raise CPUExhausted()


#: Set once this process is a sandbox worker (its signal handlers installed): only a worker
#: budgets CPU through RLIMIT_CPU. A runtime used in-process (tests, tools) must never leave
#: a CPU limit on its host, which would die of SIGXCPU later.
_worker = False


def install_signal_handlers() -> None:
    global _worker
    _worker = True
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGXCPU, _on_cpu)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes fail with EFBIG instead of killing


def begin_request() -> None:
    """A request starts: make sure the timer ticks (a system call only after an idle spell)."""
    clock.serving = True  # first: from here on no tick stops the timer
    if not clock.ticking:
        signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
        clock.ticking = True


def end_request() -> None:
    """A request is answered; the next tick that finds none in progress stops the timer."""
    clock.serving = False


def stop_ticking() -> None:
    """Stop the timer now (the request loop is over)."""
    clock.serving = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    clock.ticking = False


def arm(seconds: float) -> None:
    clock.deadline = _monotonic() + seconds
    clock.armed = True


def disarm() -> None:
    clock.armed = False


def refill_cpu_budget(seconds_per_episode: int) -> None:
    """Give each episode a fresh CPU budget (RLIMIT_CPU counts the worker's lifetime)."""
    if not _worker:
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime) + 1
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    target = spent + seconds_per_episode
    if hard != resource.RLIM_INFINITY:
        target = min(target, hard)
    if soft == resource.RLIM_INFINITY or soft - spent < seconds_per_episode // 2:
        resource.setrlimit(resource.RLIMIT_CPU, (target, hard))
