"""Host side of the process layer: the per-process zygote client and :class:`Worker`.

:class:`Zygote` starts the fork server (:mod:`spade_gym.sandbox.process.zygote`) once per
host process, with a clean environment and only the directories a worker may read; a
:class:`Worker` is one worker process forked from it, driven over a framed socket (a
deadline per call, enforced from the outside by killing the worker's process group).
:class:`~spade_gym.sandbox.handle.ProgramHandle`, above this module, is what the rest of
spade-gym uses: it restarts a worker that died and decodes its replies.
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

from spade_gym.errors import (
    ProgramCPULimit,
    ProgramTimeout,
    ProtocolError,
    SandboxUnavailable,
    WorkerCrashed,
)
from spade_gym.sandbox.limits import DEFAULT_LIMITS, Limits
from spade_gym.sandbox.process.paths import package_root, worker_import_path, worker_read_paths
from spade_gym.sandbox.wire import framing
from spade_gym.sandbox.wire import protocol as p
from spade_gym.sandbox.wire import replies as r

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
    "import sys, json; boot = json.loads(sys.argv[2]); sys.path[:] = boot['path']; "
    "from spade_gym.sandbox.process.zygote import main; main(int(sys.argv[1]), boot['readable'])"
)

_START_TIMEOUT = 60.0


class Zygote:
    """One fork server per host process, started on first use."""

    _lock = threading.Lock()
    _instance: Zygote | None = None

    def __init__(self) -> None:
        self.pid_owner = os.getpid()
        host_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control = host_end
        self._request_lock = threading.Lock()
        self.log = tempfile.TemporaryFile(prefix="spade-zygote-")
        boot = {"path": worker_import_path(), "readable": worker_read_paths()}
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(zygote_end.fileno()), json.dumps(boot)],
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=self.log,
                env=_ZYGOTE_ENV,
                pass_fds=(zygote_end.fileno(),),
                close_fds=True,
                start_new_session=True,  # Ctrl-C in the terminal must not reach the sandbox
                cwd=package_root(),  # never the caller's working directory
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
    def get(cls) -> Zygote:
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
        except (TimeoutError, OSError):
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

    def spawn(self, limits: Limits, role: str = "serve") -> tuple[socket.socket, int]:
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with self._request_lock:
                payload = json.dumps({"op": "spawn", "limits": limits.to_dict(), "role": role}).encode()
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

#: This process's id, kept current across ``fork``: a worker belongs to the process that
#: started it, and ``os.getpid()`` is a system call on every request otherwise.
_pid = os.getpid()


def _refresh_pid() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_refresh_pid)


def current_pid() -> int:
    """``os.getpid()`` without the system call (updated in every forked child)."""
    return _pid


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
    """One live worker process and its socket.

    Every reply is decoded here with the records of :mod:`protocol`; a reply that does
    not decode, or a success that arrives after the call's budget, kills the worker.
    """

    def __init__(self, limits: Limits, role: str = "serve"):
        self.limits = limits
        self.zygote = Zygote.get()
        self.sock, self.pid = self.zygote.spawn(limits, role)
        self.sock.setblocking(False)  # once: every read and write has a deadline
        self.spin = framing.Spin()
        self.owner = _pid
        self.dead = False
        self.sent_at = time.monotonic()
        self.budget = _START_TIMEOUT
        self.hard_deadline = self.sent_at + _START_TIMEOUT
        self.obs_limit = limits.max_observation_chars
        self.item_bytes = r.reply_limit(limits.max_observation_chars, limits.max_info_bytes)
        try:
            self.hello = p.Hello.from_wire(self._read_frame(1 << 16, "starting the worker"))
        except p.ReplyRejected as exc:
            self.kill()
            raise SandboxUnavailable(f"the worker did not start properly: {exc}") from None

    def send(self, request, what: str, budget: float, *, hard: bool = False) -> None:
        """Send a request record. The reply must come within ``budget`` seconds; the
        worker is killed ``kill_grace`` later (or at ``budget`` itself when ``hard``)."""
        if self.dead or self.owner != _pid:
            raise WorkerCrashed("the worker is no longer available")
        self.sent_at = time.monotonic()
        self.budget = budget
        self.hard_deadline = self.sent_at + budget + (0.0 if hard else self.limits.kill_grace)
        try:
            framing.send_deadline(self.sock, framing.encode(p.encode_request(request)), self.hard_deadline)
        except framing.FrameTimeout:
            self.kill()
            raise ProgramTimeout(f"{what}: the worker did not read the request within {budget:g} s; "
                                 "it was killed") from None
        except (OSError, ValueError) as exc:
            self.kill()
            raise WorkerCrashed(f"{what}: could not reach the worker ({exc})") from None

    def _read_frame(self, max_bytes: int, what: str):
        try:
            return framing.recv_deadline(self.sock, self.hard_deadline, max_bytes, self.spin)
        except framing.FrameTimeout:
            self.kill()
            raise ProgramTimeout(f"{what} did not return within {self.budget:g} s; the worker was killed") from None
        except framing.FramingError as exc:
            status = self.zygote.exit_status(self.pid) if "closed" in str(exc) else None
            self.kill()
            if status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:
                raise ProgramCPULimit(f"{what}: CPU time limit exceeded; the worker was killed") from None
            if status is None and "exceeds" in str(exc):
                raise ProtocolError(f"{what}: the worker sent an oversized reply ({exc}); it was killed") from None
            detail = describe_exit(status) if status is not None else exc
            raise WorkerCrashed(f"{what}: {detail}") from None
        except ValueError as exc:
            self.kill()
            raise ProtocolError(f"{what}: the worker sent malformed data ({exc}); it was killed") from None

    def receive(self, what: str, decode, items: int = 1, max_bytes: int | None = None):
        """Read one reply and return ``decode(result)``, or raise the matching SandboxError."""
        reply = self._read_frame(max_bytes or self.item_bytes * items + 4096, what)
        try:
            ok, value = r.split_reply(reply)
            if ok:
                if time.monotonic() > self.sent_at + self.budget:
                    # A result that arrives after the budget does not count, however the
                    # program got there (an interruption swallowed, a slow C call...).
                    self.kill()
                    raise ProgramTimeout(f"{what} did not return within {self.budget:g} s; the worker was killed")
                return decode(value)
        except p.ReplyRejected as exc:
            self.kill()
            raise ProtocolError(f"{what}: the worker's reply broke the protocol ({exc}); it was killed") from None
        error = value.to_exception()
        if value.kind in (p.ErrorKind.TIMEOUT, p.ErrorKind.MEMORY, p.ErrorKind.CPU):
            # The program may have been interrupted half-way through its own state
            # update, or the allocator may be in a bad way: never reuse this worker.
            self.kill()
        raise error

    def call(self, request, what: str, decode, budget: float, *, hard: bool = False, max_bytes: int | None = None):
        self.send(request, what, budget, hard=hard)
        return self.receive(what, decode, max_bytes=max_bytes)

    def kill(self) -> None:
        if self.dead:
            return
        self.dead = True
        if self.owner == _pid:
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


def diagnose(limits: Limits | None = None, *, read: tuple | list = (), signal_pids: tuple | list = ()) -> dict:
    """Start a diagnostic worker (confined like any other, running no program) and
    return its hello and what it could do: ``{"hello": {...}, "facts": {...}}``."""
    worker = Worker(limits or DEFAULT_LIMITS, role="diagnose")
    try:
        worker.sent_at = time.monotonic()
        worker.hard_deadline = worker.sent_at + 30.0
        framing.send_deadline(worker.sock, framing.encode({"read": list(read), "signal": list(signal_pids)}),
                              worker.hard_deadline)
        facts = worker._read_frame(1 << 20, "diagnosing the sandbox")
    finally:
        worker.kill()
    return {"hello": worker.hello.to_wire(), "facts": facts}
