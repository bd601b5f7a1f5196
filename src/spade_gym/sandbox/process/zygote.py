"""Process layer: the fork server ("zygote") and the birth of each worker.

A fresh interpreter that imports numpy costs ~150 ms; ``fork()`` of one that already
has costs ~2 ms. So each host process starts one zygote (a plain ``subprocess``, which
also works inside gymnasium's daemonic ``AsyncVectorEnv`` workers, where
``multiprocessing`` children are forbidden). The zygote imports everything a program
can reach, then forks one worker per program on request. The host passes the
worker's end of a socketpair over the control socket (SCM_RIGHTS), so the worker
talks to the host directly and the zygote stays out of the data path.

A worker, before it touches program code:

* starts its own session/process group (the host kills the whole group on a deadline);
* closes every inherited descriptor except its socket; stdio goes to /dev/null;
* dies with the zygote (``PR_SET_PDEATHSIG``) and can never gain privileges;
* moves into an empty, read-only directory and clears its environment;
* reads only the interpreter's stdlib, the site-packages holding the vetted modules
  and spade-gym's own package (Landlock) — never the host's working or script directory;
* gets an identity of its own: a distinct uid when the host runs as root, else a
  PID namespace of its own where the kernel allows, so workers cannot signal each other;
* caps address space, file size (0), processes (0), open files, core dumps and CPU;
* installs a seccomp allow-list, then reports what took effect in its first frame.

When the host goes away, the zygote sees EOF on its control socket, kills every
worker it made and exits.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import socket
import sys
import tempfile

_CONTROL_TIMEOUT = 1.0


def _preload() -> None:
    """Import everything a worker may need, so no worker ever reads the disk for code."""
    import numpy  # noqa: F401
    import numpy.fft  # noqa: F401
    import numpy.linalg  # noqa: F401
    import numpy.random  # noqa: F401

    # what _become_worker imports after confinement (seccomp leaves no open() for code then)
    from spade_gym.sandbox.limits import Limits
    from spade_gym.sandbox.process import diagnose  # noqa: F401
    from spade_gym.sandbox.worker import serve  # noqa: F401
    from spade_gym.sandbox.worker.instance import build_namespace
    from spade_gym.sandbox.worker.runtime import ProgramRuntime

    # Build (and throw away) one namespace: warms every lazy import and cache once,
    # in the zygote, instead of once per worker.
    warm = ProgramRuntime(Limits())

    class _Owner:
        recursion_limit = sys.getrecursionlimit()

    build_namespace(warm.guards, warm.surfaces.for_instance(_Owner()))
    import numpy as np

    _warm_numpy(np)
    f"{1}"
    import re

    re.compile(r"\\boxed\{([^{}]*)\}").search("\\boxed{1}")
    import datetime

    datetime.datetime.strptime("2024-01-02", "%Y-%m-%d")
    for codec in ("utf-16", "utf-32", "latin-1", "ascii", "cp1252", "utf-8-sig", "unicode_escape", "idna"):
        "x".encode(codec)


def _warm_numpy(np) -> None:
    """Exercise numpy once so its C code imports and caches its lazy helpers (array
    printing, reductions, ...) in the zygote instead of asking each worker's import hook."""
    a = np.arange(12, dtype=float).reshape(3, 4)
    for method in ("max", "min", "mean", "std", "var", "sum", "prod", "any", "all", "argmax", "argmin",
                   "cumsum", "cumprod", "round", "nonzero", "tolist", "flatten", "ravel", "copy"):
        getattr(a, method)()
    str(a), repr(a), str(np.float64(1.5)), repr(np.int64(3)), format(np.float64(2.5), ".2f")
    a.clip(1, 5), a.astype(int), a.T.dot(a), np.sort(a, axis=0), np.unique(a), np.median(a)
    np.percentile(a, 50), np.where(a > 3), np.argwhere(a > 5), np.einsum("ij->j", a), np.histogram(a)
    np.isclose(a, a).all(), np.array_equal(a, a), np.count_nonzero(a), np.diff(a), np.nanmax(a)
    np.average(a, weights=np.ones_like(a)), np.cov(a), np.polyfit([0, 1, 2], [1, 3, 5], 1)
    np.convolve([1, 2], [1, 1]), np.linalg.det(np.eye(2)), np.linalg.inv(np.eye(2)), np.linalg.solve(np.eye(2), [1, 2])
    np.fft.fft(np.ones(4)), np.random.default_rng(0).integers(0, 10), np.random.RandomState(0).randint(5)
    np.array(["a", "b"]).astype(str), np.array([1, 2]) == np.array([1, 3]), np.char.upper(np.array(["a"]))


def _become_worker(sock: socket.socket, limits_dict: dict, empty_dir: str, keep_fd: int,
                   read_paths: list[str], role: str) -> None:
    """Runs in the freshly forked child. Never returns."""
    code = 0
    try:
        from spade_gym.sandbox.process import confine

        os.setsid()
        report: dict = {
            "pdeathsig": confine.prctl_checked(confine.PR_SET_PDEATHSIG, signal.SIGKILL),  # die with the zygote
            "no_new_privs": confine.prctl_checked(confine.PR_SET_NO_NEW_PRIVS, 1),
        }
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.closerange(3, keep_fd)
        os.closerange(keep_fd + 1, 65536)
        os.chdir(empty_dir)
        os.environ.clear()

        from spade_gym.sandbox.limits import Limits
        from spade_gym.sandbox.wire.protocol import Hello

        limits = Limits.from_dict(limits_dict)
        # Landlock first: its read rules need the import paths opened with our
        # current (possibly root) credentials.
        report["landlock_abi"] = confine.apply_landlock(read_paths)
        report.update(confine.isolate_identity(limits.drop_privileges))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        nofile = limits.max_open_files
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu = int(used.ru_utime + used.ru_stime) + 1 + limits.cpu_seconds_per_episode
        _, cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
        report["seccomp"] = confine.apply_seccomp()
        hello = Hello(os.getpid(), os.getuid(), report)
        if role == "diagnose":
            from spade_gym.sandbox.process.diagnose import answer

            answer(sock, hello)
        else:
            from spade_gym.sandbox.worker.serve import serve

            serve(sock, limits, hello)
    except BaseException as exc:  # noqa: BLE001 - the child must never return into the zygote loop
        code = 70
        _report_startup_failure(sock, exc)
    finally:
        os._exit(code)


def _report_startup_failure(sock: socket.socket, exc: BaseException) -> None:
    """Tell the host why this worker could not start (its stderr is /dev/null)."""
    try:
        import traceback

        from spade_gym.sandbox.wire import framing

        text = "".join(traceback.format_exception(exc))[-3000:]
        framing.send(sock, {"hello": False, "error": text})
    except BaseException:  # noqa: BLE001 - nothing more can be done from here
        pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def main(control_fd: int, read_paths: list[str]) -> None:
    control = socket.socket(fileno=control_fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host decides when we stop
    _preload()
    empty_dir = tempfile.mkdtemp(prefix="spade-sandbox-")
    os.chmod(empty_dir, 0o555)
    import gc

    gc.collect()
    gc.freeze()  # keep the preloaded heap shared between workers (copy-on-write)

    children: dict[int, int | None] = {}  # pid -> exit status once reaped
    _reply(control, {"ready": True, "pid": os.getpid()})
    try:
        while True:
            _reap(children)
            readable, _, _ = select.select([control], [], [], _CONTROL_TIMEOUT)
            if not readable:
                continue
            try:
                msg, fds, _, _ = socket.recv_fds(control, 1 << 16, 4)
            except OSError:
                break
            if not msg:
                break
            request = json.loads(msg)
            op = request.get("op")
            if op == "spawn":
                if len(fds) != 1:
                    for fd in fds:
                        os.close(fd)
                    _reply(control, {"error": "spawn needs exactly one descriptor"})
                    continue
                child_sock = socket.socket(fileno=fds[0])
                pid = os.fork()
                if pid == 0:
                    control.close()
                    _become_worker(child_sock, request.get("limits") or {}, empty_dir, child_sock.fileno(),
                                   read_paths, request.get("role", "serve"))
                child_sock.close()
                children[pid] = None
                _reply(control, {"pid": pid})
            elif op == "status":
                _reap(children)
                pid = int(request.get("pid", 0))
                _reply(control, {"pid": pid, "status": children.get(pid), "known": pid in children})
            else:
                _reply(control, {"error": f"unknown op {op!r}"})
    finally:
        for pid, status in children.items():
            if status is None:
                _kill_group(pid)
        _reap(children)
        try:
            os.chmod(empty_dir, 0o755)
            os.rmdir(empty_dir)
        except OSError:
            pass


def _reply(control: socket.socket, message: dict) -> None:
    # The control socket is SOCK_SEQPACKET: one datagram per message, no framing needed.
    control.send(json.dumps(message).encode())


def _reap(children: dict) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children[pid] = status
        if len(children) > 4096:  # forget the oldest finished workers
            for old in [p for p, s in children.items() if s is not None][:1024]:
                del children[old]


if __name__ == "__main__":  # pragma: no cover - started by host.py
    main(int(sys.argv[1]), json.loads(sys.argv[2])["readable"])
