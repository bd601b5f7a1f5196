"""Host side of the sandbox: the per-process zygote client and :class:`ProgramHandle`.

A :class:`ProgramHandle` is the one way the rest of spade-gym runs a program. It owns a
worker process, sends it plain-data requests, enforces every deadline from the
outside (killing the worker's process group when one passes) and turns the
worker's error reports into the exception classes of :mod:`spade_gym.errors`.
A handle survives its worker: after a timeout, crash or memory exhaustion the next
``reset`` starts a fresh worker with the same program.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from spade_gym.errors import (
    PolicyViolation,
    ProgramCPULimit,
    ProgramError,
    ProgramMemoryError,
    ProgramTimeout,
    ProtocolError,
    SandboxError,
    SandboxUnavailable,
    WorkerCrashed,
)
from spade_gym.sandbox import protocol
from spade_gym.sandbox.limits import DEFAULT_LIMITS, Limits
from spade_gym.sandbox.tooluse import check_tool_list

_ERROR_CLASSES = {
    "policy": PolicyViolation,
    "timeout": ProgramTimeout,
    "memory": ProgramMemoryError,
    "cpu": ProgramCPULimit,
    "program": ProgramError,
    "protocol": ProtocolError,
    "crash": WorkerCrashed,
    "internal": SandboxError,
}

#: Environment of the zygote: nothing from the host (no secrets), a fixed hash seed
#: (so set iteration order, and therefore tasks, are the same in every process and
#: on every machine) and single-threaded numerical libraries (threads would count
#: against the workers' process limit and their address space).
_ZYGOTE_ENV = {
    "PYTHONHASHSEED": "0",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "LC_ALL": "C.UTF-8",
    "PYTHONIOENCODING": "utf-8",
}

_BOOT = (
    "import sys, json; sys.path[:0] = json.loads(sys.argv[2]); "
    "from spade_gym.sandbox.zygote import main; main(int(sys.argv[1]))"
)

_START_TIMEOUT = 60.0


def error_from_report(report: dict) -> SandboxError:
    cls = _ERROR_CLASSES.get(report.get("kind"), SandboxError)
    details = report.get("traceback")
    if report.get("output"):
        details = (details or "") + "\nProgram output (tail):\n" + str(report["output"])
    return cls(str(report.get("message", "unknown error")), lineno=report.get("lineno"), details=details)


class Zygote:
    """One fork server per host process, started on first use."""

    _lock = threading.Lock()
    _instance: "Zygote | None" = None

    def __init__(self) -> None:
        self.pid_owner = os.getpid()
        host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control = host_end
        self._request_lock = threading.Lock()
        self.log = tempfile.TemporaryFile(prefix="spade-zygote-")
        import spade_gym

        package_root = os.path.dirname(os.path.dirname(os.path.abspath(spade_gym.__file__)))
        paths = [package_root] + [p for p in sys.path if p]
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(zygote_end.fileno()), json.dumps(paths)],
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=self.log,
                env=_ZYGOTE_ENV,
                pass_fds=(zygote_end.fileno(),),
                close_fds=True,
                start_new_session=True,  # Ctrl-C in the terminal must not reach the sandbox
            )
        except OSError as exc:
            raise SandboxUnavailable(f"could not start the sandbox process: {exc}") from None
        finally:
            zygote_end.close()
        ready = self._receive(_START_TIMEOUT)
        if not ready or not ready.get("ready"):
            raise SandboxUnavailable(f"the sandbox process failed to start:\n{self._log_tail()}")

    # ------------------------------------------------------------------ singleton

    @classmethod
    def get(cls) -> "Zygote":
        with cls._lock:
            zygote = cls._instance
            if zygote is None or zygote.pid_owner != os.getpid() or zygote.process.poll() is not None:
                if zygote is not None and zygote.pid_owner == os.getpid():
                    zygote.close()
                zygote = cls._instance = Zygote()
            return zygote

    @classmethod
    def shutdown(cls) -> None:
        with cls._lock:
            if cls._instance is not None and cls._instance.pid_owner == os.getpid():
                cls._instance.close()
            cls._instance = None

    @classmethod
    def _forget_after_fork(cls) -> None:
        # In a forked child the parent's zygote is not ours: close our copy of the
        # control socket (so the parent's zygote still sees EOF when the parent exits)
        # and start our own on first use.
        zygote = cls._instance
        cls._instance = None
        cls._lock = threading.Lock()
        if zygote is not None:
            try:
                zygote.control.close()
            except OSError:
                pass

    # ------------------------------------------------------------------ requests

    def _receive(self, timeout: float):
        self.control.settimeout(timeout)
        try:
            data = self.control.recv(1 << 16)
        except (socket.timeout, OSError):
            return None
        if not data:
            return None
        return json.loads(data)

    def _log_tail(self) -> str:
        try:
            self.log.seek(0)
            return self.log.read()[-4000:].decode("utf-8", "replace")
        except OSError:
            return "<no log>"

    def spawn(self, limits: Limits) -> tuple[socket.socket, int]:
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with self._request_lock:
                payload = json.dumps({"op": "spawn", "limits": limits.to_dict()}).encode()
                try:
                    socket.send_fds(self.control, [payload], [worker_end.fileno()])
                except OSError as exc:
                    raise SandboxUnavailable(f"the sandbox process is gone: {exc}") from None
                reply = self._receive(_START_TIMEOUT)
        finally:
            worker_end.close()
        if not reply or "pid" not in reply:
            host_end.close()
            raise SandboxUnavailable(f"the sandbox could not start a worker: {reply!r}\n{self._log_tail()}")
        return host_end, int(reply["pid"])

    def exit_status(self, pid: int, wait: float = 0.5) -> int | None:
        """Ask the zygote how a worker ended (None if it has not been reaped yet)."""
        deadline = time.monotonic() + wait
        while True:
            with self._request_lock:
                try:
                    self.control.send(json.dumps({"op": "status", "pid": pid}).encode())
                except OSError:
                    return None
                reply = self._receive(2.0)
            status = (reply or {}).get("status")
            if status is not None or time.monotonic() > deadline:
                return status
            time.sleep(0.02)

    def close(self) -> None:
        try:
            self.control.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        except Exception:
            pass
        self.log.close()


os.register_at_fork(after_in_child=Zygote._forget_after_fork)
atexit.register(Zygote.shutdown)


def describe_exit(status: int | None) -> str:
    if status is None:
        return "the worker process ended unexpectedly"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        hint = {
            "SIGSEGV": " (a crash in C code, e.g. a stack overflow from deep recursion)",
            "SIGKILL": " (killed: deadline, memory or CPU limit)",
            "SIGXCPU": " (CPU time limit exceeded)",
            "SIGABRT": " (aborted, often memory exhaustion inside C code)",
        }.get(name, "")
        return f"the worker process was killed by {name}{hint}"
    if os.WIFEXITED(status):
        return f"the worker process exited with status {os.WEXITSTATUS(status)}"
    return f"the worker process ended (status {status})"


class Worker:
    """One live worker process and its socket."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.zygote = Zygote.get()
        self.sock, self.pid = self.zygote.spawn(limits)
        self.owner = os.getpid()
        self.dead = False

    def call(self, request: dict, timeout: float, what: str) -> Any:
        """Send one request; return its result or raise the matching SandboxError."""
        self.send(request, what)
        return self.receive(timeout, what)

    def send(self, request: dict, what: str) -> None:
        if self.dead or self.owner != os.getpid():
            raise WorkerCrashed("the worker is no longer available")
        try:
            self.sock.sendall(protocol.encode(request))
        except (OSError, ValueError) as exc:
            self.kill()
            raise WorkerCrashed(f"{what}: could not reach the worker ({exc})") from None
        self.sent_at = time.monotonic()

    def receive(self, timeout: float, what: str) -> Any:
        deadline = self.sent_at + timeout + self.limits.kill_grace
        try:
            reply = protocol.recv_deadline(self.sock, deadline, self.limits.max_message_bytes)
        except protocol.FrameTimeout:
            self.kill()
            raise ProgramTimeout(
                f"{what} did not return within {timeout:g} s; the worker was killed"
            ) from None
        except protocol.FramingError as exc:
            status = self.zygote.exit_status(self.pid) if "closed" in str(exc) else None
            self.kill()
            if status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:
                raise ProgramCPULimit(f"{what}: CPU time limit exceeded; the worker was killed") from None
            raise WorkerCrashed(f"{what}: {describe_exit(status)}" if status is not None else f"{what}: {exc}") from None
        except ValueError as exc:
            self.kill()
            raise ProtocolError(f"{what}: the worker sent malformed data ({exc})") from None
        if not isinstance(reply, dict) or "ok" not in reply:
            self.kill()
            raise ProtocolError(f"{what}: the worker sent an unexpected reply")
        if reply["ok"]:
            return reply.get("result")
        report = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        error = error_from_report(report)
        if isinstance(error, (ProgramMemoryError, ProgramCPULimit)) or report.get("kind") == "timeout":
            # The program may have been interrupted half-way through its own state
            # update, or the allocator may be in a bad way: never reuse this worker.
            self.kill()
        raise error

    def kill(self) -> None:
        if self.dead:
            return
        self.dead = True
        if self.owner == os.getpid():
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.sock.close()
        except OSError:
            pass

    def close(self) -> None:
        # Closing the socket makes the worker's next recv see EOF and exit; kill it
        # as well so a program stuck in a loop cannot linger.
        self.kill()


class ProgramHandle:
    """A sandboxed program: load once, then ``reset``/``step``/``solution``/``hint``.

    ``count`` instances of the program can live in one worker (vector envs); each has
    its own module namespace and random streams, and is addressed by ``index``.
    """

    def __init__(self, source: str, *, kwargs: dict | None = None, limits: Limits | None = None,
                 count: int = 1, strict_info: bool = False):
        if not isinstance(source, str):
            raise TypeError(f"program source must be str, got {type(source).__name__}")
        self.source = source
        self.kwargs = dict(kwargs or {})
        self.limits = limits or DEFAULT_LIMITS
        self.count = count
        self.strict_info = strict_info
        self._lock = threading.RLock()
        self._worker: Worker | None = None
        self.info: dict = {}
        self.restarts = 0
        self._start()

    # ------------------------------------------------------------------ lifecycle

    def _start(self) -> None:
        worker = Worker(self.limits)
        try:
            if self.strict_info:
                worker.call({"op": "strict_info", "value": True}, self.limits.call_timeout, "configure")
            self.info = worker.call(
                {"op": "load", "source": self.source, "kwargs": self.kwargs, "count": self.count},
                self.limits.load_timeout * 2,
                "loading the program",
            )
        except BaseException:
            worker.kill()
            raise
        self._worker = worker

    def _live_worker(self, restart: bool) -> Worker:
        worker = self._worker
        if worker is None or worker.dead or worker.owner != os.getpid():
            if not restart:
                raise WorkerCrashed("the program's worker was restarted after a failure; call reset() first")
            self._worker = None
            self.restarts += 1
            self._start()
            worker = self._worker
        return worker

    @property
    def alive(self) -> bool:
        w = self._worker
        return w is not None and not w.dead and w.owner == os.getpid()

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None

    def __enter__(self) -> "ProgramHandle":
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

    def _call(self, request: dict, what: str, *, restart: bool = False, timeout: float | None = None):
        with self._lock:
            worker = self._live_worker(restart)
            return worker.call(request, self.limits.call_timeout if timeout is None else timeout, what)

    def reset(self, seed: int | None = None, index: int = 0) -> tuple[str, dict]:
        obs, info = self._call({"op": "reset", "i": index, "seed": seed}, "reset()", restart=True)
        return obs, info

    def step(self, action: str, index: int = 0) -> tuple[str, float, bool, bool, dict]:
        if not isinstance(action, str):
            raise TypeError(f"action must be str, got {type(action).__name__}")
        obs, reward, terminated, truncated, info = self._call(
            {"op": "step", "i": index, "action": action}, "step()"
        )
        return obs, reward, terminated, truncated, info

    def solution(self, index: int = 0) -> str:
        return self._call({"op": "solution", "i": index}, "solution()")

    def hint(self, index: int = 0) -> str | None:
        return self._call({"op": "hint", "i": index}, "hint()")

    def tools(self, index: int = 0) -> list[dict]:
        """A tool-use program's tool schemas for the current episode (OpenAI function format)."""
        result = self._call({"op": "tools", "i": index}, "get_tools()")
        try:
            return check_tool_list(result)
        except ValueError as exc:
            raise ProtocolError(f"get_tools(): the worker sent malformed tool schemas ({exc})") from None

    def batch(self, items: list[dict], timeout: float | None = None) -> list[dict]:
        """Run several reset/step calls (``{"i", "seed"}`` / ``{"i", "action"}``) in one round-trip.

        Each result is ``{"ok": True, "result": ...}`` or ``{"ok": False, "error": SandboxError}``.
        """
        return self.batch_receive(self.batch_send(items, restart=True, timeout=timeout))

    def batch_send(self, items: list[dict], *, restart: bool = False, timeout: float | None = None):
        """First half of :meth:`batch`: send without waiting (vector envs send to every
        worker before collecting any reply). Returns a token for :meth:`batch_receive`."""
        with self._lock:
            worker = self._live_worker(restart)
            budget = timeout if timeout is not None else self.limits.call_timeout * max(1, len(items))
            worker.send({"op": "batch", "items": items}, "batch")
            return worker, budget

    def batch_receive(self, token) -> list[dict]:
        worker, budget = token
        results = worker.receive(budget, "batch")
        for r in results:
            if not r["ok"]:
                r["error"] = error_from_report(r["error"])
        return results

    def episodes(self, seeds: list[int], policy: dict, *, max_steps: int, index: int = 0,
                 record: bool = False, timeout: float | None = None) -> list[dict]:
        """Play whole episodes inside the worker with a probe policy (see ``probes.py``)."""
        if timeout is None:
            timeout = self.limits.call_timeout * (max_steps + 4) * max(1, len(seeds))
        request = {"op": "episodes", "i": index, "seeds": list(seeds), "policy": policy,
                   "max_steps": int(max_steps), "record": record}
        return self._call(request, f"episodes with policy {policy.get('kind')!r}", restart=True, timeout=timeout)

    def selfcheck(self) -> dict:
        return self._call({"op": "selfcheck"}, "selfcheck")
