"""Runs one LiveCodeBench submission against test inputs: every test in a confined process of its own.

Started by :mod:`spade_gym.adapters.livecodebench` as ``python -I _lcb_runner.py CONFINE_PY``; it
reads one JSON request per line on stdin and writes one JSON reply per line on stdout. This
process never runs submitted code. For each test it forks a child that, before any submitted
code exists in it, confines itself the way a sandbox worker does (the same functions of
``spade_gym/sandbox/process/confine.py``, loaded from ``CONFINE_PY`` so that nothing of spade-gym runs
here): its own session, ``PR_SET_PDEATHSIG`` and ``PR_SET_NO_NEW_PRIVS``, no inherited
descriptors but its stdio, an empty read-only working directory, an empty environment,
Landlock (reads only below the given paths, no writes, no TCP, no signals out), a uid of its
own under a root host, rlimits (address space, CPU, processes 0, file size = the output
limit, core 0) and the sandbox's seccomp allow-list (no ``execve``, ``fork``, sockets...).

Only then does the child run the submission as plain Python — ``input()``, ``sys.stdin``,
``open(0)``, ``print`` behave as in a terminal — with the test input on its stdin and its
stdout, stderr and (for LeetCode-style tests) the function's JSON result in anonymous
memory files, which the kernel caps at the output limit. The runner waits with a wall-clock
deadline, kills the child when it passes, and reports raw results: a status, what the
child wrote, how long it took. Whether the output is right is decided by the host.

Requests (``op``): ``start`` (code, mode ``stdin`` | ``call``, func_name, read_paths, limits)
checks the confinement once in a probe child and reports it; ``run`` (input, max_output)
runs one test.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import json
import os
import resource
import select
import signal
import sys
import tempfile
import time
import traceback
from typing import Any

#: The modules LiveCodeBench's own runner imports before a submission (its ``import_string``):
#: LeetCode-style solutions use ``List``, ``defaultdict``, ``heappush``... without importing them.
PRELUDE = "\n".join(
    [f"from {m} import *" for m in ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math",
                                    "random", "statistics", "itertools", "functools", "operator", "io", "sys",
                                    "json", "builtins", "typing")]
    + [f"import {m}" for m in ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math",
                               "random", "statistics", "itertools", "functools", "operator", "io", "sys", "json")]
    + ["sys.setrecursionlimit(6 * 10**5)"]) + "\n"

#: Modules a test process may import beyond the standard imports, loaded by the runner before it
#: forks (so a program's imports work even where a confined process cannot read the interpreter's
#: files, as under a root host whose Python lives in /root): the standard library, less the modules
#: whose import acts (prints, opens a browser, starts a GUI), and the third-party modules
#: competitive programs use.
PRELOADABLE = (frozenset(sys.stdlib_module_names)
               - {"antigravity", "this", "__hello__", "__phello__", "webbrowser", "turtle", "turtledemo", "tkinter",
                  "idlelib", "readline", "curses", "__main__"}
               | {"numpy", "sortedcontainers"})
#: Lazy imports of preloaded modules, made once here for the same reason.
WARM = {"datetime": ("_strptime",), "numpy": ("numpy.linalg", "numpy.fft", "numpy.random")}

#: Exit codes of a child (besides 0 and the signals the kernel sends).
EXIT_ERROR = 1  # the submission raised
EXIT_CONFINEMENT = 3  # confining failed: the submission never ran
STDERR_TAIL = 2_000
#: The whole environment a submission sees.
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                   "NUMEXPR_NUM_THREADS": "1"}
_FDS = {"stdin": 0, "stdout": 1, "stderr": 2, "result": 3}

_confine: Any = None  # spade_gym/sandbox/process/confine.py, loaded by main()


def _load_confine(path: str):
    spec = importlib.util.spec_from_file_location("_spade_confine", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def preload(code: str) -> list[str]:
    """Import what ``code`` imports (among :data:`PRELOADABLE`) into this process; returns the names.

    The code is only parsed (``ast``), never run, here."""
    names = {"datetime"}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    loaded = []
    for name in sorted(names):
        if name.split(".")[0] not in PRELOADABLE:
            continue
        for module in (name, *WARM.get(name, ())):
            try:
                importlib.import_module(module)
            except Exception:  # noqa: BLE001 - not a module (``from math import sqrt``), or not installed
                continue
            loaded.append(module)
    return loaded


def _confine_self(job: dict, empty_dir: str, parent: int, output_limit: int) -> dict:
    """Everything a sandbox worker does to itself before program code exists, in the same order."""
    c = _confine
    os.setsid()
    report = {"pdeathsig": c.prctl_checked(c.PR_SET_PDEATHSIG, signal.SIGKILL)}
    if os.getppid() != parent:  # the runner died before the death signal was armed
        os._exit(EXIT_CONFINEMENT)
    report["no_new_privs"] = c.prctl_checked(c.PR_SET_NO_NEW_PRIVS, 1)
    os.closerange(len(_FDS), 65536)
    os.chdir(empty_dir)
    os.environ.clear()
    # not secrets: numerical libraries a submission imports must not try to start threads
    os.environ.update(SINGLE_THREADED)
    report["landlock_abi"] = c.apply_landlock(job["read_paths"])
    report.update(c.isolate_identity(bool(job.get("drop_privileges", True))))
    limits = job["limits"]
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (output_limit, output_limit))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["max_open_files"], limits["max_open_files"]))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime) + 1 + int(limits["timeout"] + 0.999)
    _, cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
    report["seccomp"] = c.apply_seccomp()
    return report


def _fresh_stdio() -> None:
    """Stream objects on the child's own descriptors: the runner's may hold buffered protocol bytes."""
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", errors="replace", closefd=False)  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", closefd=False, buffering=1)  # type: ignore[misc]


def _submission(job: dict, test_input: str) -> int:
    """Run the submission once (in the confined child); returns the exit code."""
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    code = EXIT_ERROR
    try:
        exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
        program = compile(job["code"], "<solution>", "exec")
        try:
            exec(program, namespace)
        except SystemExit:  # sys.exit() ends a program normally, as in a terminal
            if job["mode"] != "call":
                code = 0
                return code
            raise
        if job["mode"] == "call":
            arguments = [json.loads(line) for line in test_input.split("\n")]
            solution = namespace.get("Solution")
            target = solution() if isinstance(solution, type) else None
            function = getattr(target, job["func_name"], None) if target is not None else None
            if function is None:
                function = namespace.get(job["func_name"])
            if not callable(function):
                raise NameError(f"no function {job['func_name']!r} (as a Solution method or at module level)")
            value = function(*arguments)
            with open(3, "w", encoding="utf-8", closefd=False) as result:
                json.dump(value, result)
        code = 0
    except BaseException:  # noqa: BLE001 - whatever the submission raised, it failed; say why on stderr
        traceback.print_exc(limit=6)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - a submission that closed its stdout
                pass
    return code


def _child(job: dict, test_input: str, fds: dict, empty_dir: str, parent: int, output_limit: int,
           probe: bool) -> None:
    """The forked child: never returns."""
    code = EXIT_CONFINEMENT
    try:
        for name, target in _FDS.items():
            os.dup2(fds[name], target)
        report = _confine_self(job, empty_dir, parent, output_limit)
        _fresh_stdio()
        if probe:
            os.write(3, json.dumps(report).encode())
            code = 0
        else:
            code = _submission(job, test_input)
    except BaseException:  # noqa: BLE001 - the child must never return into the runner
        try:
            os.write(2, traceback.format_exc()[-STDERR_TAIL:].encode("utf-8", "replace"))
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _read(fd: int, limit: int) -> str:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def _wait(pid: int, timeout: float) -> tuple[int, bool, float]:
    """(wait status, whether the deadline killed it, wall seconds)."""
    start = time.monotonic()
    deadline = start + timeout
    killed = False
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status, killed, time.monotonic() - start
            left = deadline - time.monotonic()
            if left <= 0 and not killed:
                for kill in (os.killpg, os.kill):  # its own group (setsid), or the process if not there yet
                    try:
                        kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                killed = True
                _, status = os.waitpid(pid, 0)
                return status, killed, time.monotonic() - start
            if pidfd is not None:
                select.select([pidfd], [], [], max(0.0, left))
            else:
                time.sleep(min(0.002, max(0.0, left)))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(name, 0)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _status(status: int, killed: bool, stderr: str) -> str:
    if killed:
        return "timeout"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return "timeout"
        if sig == signal.SIGXFSZ:
            return "output_limit"
        return "crashed"
    code = os.WEXITSTATUS(status)
    if code == 0:
        return "ok"
    if code == EXIT_CONFINEMENT:
        return "sandbox_error"
    last = stderr.strip().rsplit("\n", 1)[-1]
    if "MemoryError" in last:
        return "memory"
    if "[Errno 27]" in last:  # EFBIG: Python ignores SIGXFSZ, so a write past the output limit fails instead
        return "output_limit"
    return "error"


def run_once(job: dict, test_input: str, max_output: int, empty_dir: str, *, probe: bool = False) -> dict:
    fds = {"stdin": _memfd("stdin", test_input.encode("utf-8", "surrogatepass")),
           "stdout": _memfd("stdout"), "stderr": _memfd("stderr"), "result": _memfd("result")}
    parent = os.getpid()
    try:
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _child(job, test_input, fds, empty_dir, parent, max_output, probe)
        status, killed, seconds = _wait(pid, float(job["limits"]["timeout"]) + (5.0 if probe else 0.0))
        stderr = _read(fds["stderr"], STDERR_TAIL * 4)[-STDERR_TAIL:]
        reply = {"status": _status(status, killed, stderr), "seconds": round(seconds, 4),
                 "stdout": _read(fds["stdout"], max_output), "stderr": stderr,
                 "result": _read(fds["result"], max_output) or None}
        if probe:
            try:
                reply["confinement"] = json.loads(str(reply["result"] or "{}"))
            except ValueError:
                reply["confinement"] = {}
        return reply
    finally:
        for fd in fds.values():
            os.close(fd)


def main() -> None:
    global _confine
    _confine = _load_confine(sys.argv[1])
    exec(compile(PRELUDE, "<prelude>", "exec"), {})  # the standard imports, loaded before any fork
    # The protocol owns the real stdout; anything a module prints while it is loaded goes to stderr (the log).
    protocol_in = sys.stdin
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    empty_dir = tempfile.mkdtemp(prefix="spade-lcb-")
    os.chmod(empty_dir, 0o555)
    job: dict | None = None
    try:
        for line in protocol_in:
            try:
                request = json.loads(line)
                if request.get("op") == "start":
                    job = {key: request[key] for key in ("code", "mode", "func_name", "read_paths", "limits")}
                    job["drop_privileges"] = bool(request.get("drop_privileges", True))
                    preloaded = preload(job["code"])
                    reply = run_once(job, "", 1 << 16, empty_dir, probe=True)
                    reply["preloaded"] = preloaded
                elif request.get("op") == "run" and job is not None:
                    reply = run_once(job, str(request["input"]), int(request["max_output"]), empty_dir)
                else:
                    reply = {"failure": f"unexpected request {request.get('op')!r}"}
            except Exception as exc:  # noqa: BLE001 - a runner fault is reported, never fatal to the host
                reply = {"failure": f"{type(exc).__name__}: {exc}"}
            protocol_out.write(json.dumps(reply, ensure_ascii=False) + "\n")
            protocol_out.flush()
    finally:
        os.chmod(empty_dir, 0o755)
        os.rmdir(empty_dir)


if __name__ == "__main__":
    main()
