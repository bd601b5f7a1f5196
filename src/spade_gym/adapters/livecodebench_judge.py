"""Running a LiveCodeBench program against a problem's tests in spade-gym's sandbox, and the verdict.

Why a module of its own: this is the part that touches untrusted code. The program never
runs here: :class:`_Runner` starts :mod:`spade_gym.adapters._lcb_runner` in a process of its
own (no host environment, no inherited descriptors, its own session), which runs every test
in a child confined by the sandbox's process layer and reports raw results; the verdict
(:func:`stdout_matches`, :func:`result_matches`, stop at the first failure) is computed here,
by the host, from what the program printed. See :mod:`spade_gym.adapters.livecodebench`.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from spade_gym.errors import SandboxError

RUNNER = Path(__file__).with_name("_lcb_runner.py")
#: LiveCodeBench's default time limit per test (seconds).
DEFAULT_TIMEOUT = 6.0
DEFAULT_MEMORY_BYTES = 2 << 30
MAX_OPEN_FILES = 32
#: Extra seconds the host gives the runner per test (fork, confinement, reading the output).
RUNNER_GRACE = 10.0
#: Output a test may produce: twice the expected output and 64 KiB more, at least 1 MiB, at most 64 MiB.
MIN_OUTPUT, MAX_OUTPUT = 1 << 20, 64 << 20
#: The runner's whole environment: nothing from the host (no secrets), fixed hashing, one thread.
RUNNER_ENV = {"PYTHONHASHSEED": "0", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
              "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
STATUS_WORDS = {"ok": "wrong answer", "error": "runtime error", "timeout": "time limit exceeded",
                "memory": "memory limit exceeded", "output_limit": "output limit exceeded",
                "crashed": "crashed"}


@dataclass(frozen=True)
class CodeTest:
    input: str
    output: str
    public: bool


@dataclass(frozen=True)
class CodeProblem:
    id: str
    title: str
    question: str
    starter_code: str
    mode: str  # "stdin" or "call"
    func_name: str | None
    tests: tuple[CodeTest, ...]
    solution: str | None


# ----------------------------------------------------------------------------- verdicts


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(item) for item in line.split()]
    except (InvalidOperation, ValueError):
        return None


def stdout_matches(produced: str, expected: str) -> bool:
    """LiveCodeBench's rule: the same number of stripped lines, each equal or the same decimals."""
    got, want = _lines(produced), _lines(expected)
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a == b:
            continue
        da, db = _decimals(a), _decimals(b)
        if da is None or db is None or da != db:
            return False
    return True


def result_matches(result_json: str | None, expected: str) -> bool:
    """LiveCodeBench's rule for functional tests (tuples already came back as JSON lists)."""
    if result_json is None:
        return False
    try:
        value, want = json.loads(result_json), json.loads(expected)
    except ValueError:
        return False
    return value == want or (isinstance(want, list) and bool(want) and value == want[0])


# ----------------------------------------------------------------------------- running a program


def _read_paths() -> list[str]:
    """What a test process may read: the interpreter's standard library and the site-packages
    holding numpy and the other vetted modules (a program may import them), not spade-gym itself."""
    from spade_gym.sandbox.process.paths import package_dir, worker_read_paths

    return [p for p in worker_read_paths() if p != package_dir()]


class _Runner:
    """One runner process for one submission; every reply awaited with a deadline."""

    def __init__(self, start: dict, budget: float):
        from spade_gym.sandbox.process import confine

        self._log = tempfile.TemporaryFile(prefix="spade-lcb-runner-")
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-s", "-P", str(RUNNER), confine.__file__], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._log, env=RUNNER_ENV, cwd="/", close_fds=True,
                start_new_session=True)
        except OSError as exc:
            self._log.close()
            raise SandboxError(f"could not start the LiveCodeBench runner: {exc}") from None
        self._buffer = b""
        self.hello = self.call(start, budget)

    def call(self, request: dict, budget: float, max_bytes: int = MAX_OUTPUT * 8) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write((json.dumps(request) + "\n").encode("utf-8", "surrogatepass"))
            self.process.stdin.flush()
        except OSError as exc:
            raise SandboxError(f"the LiveCodeBench runner stopped ({exc}){self._tail()}") from None
        deadline = time.monotonic() + budget
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SandboxError(f"the LiveCodeBench runner did not answer within {budget:.0f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise SandboxError(f"the LiveCodeBench runner exited{self._tail()}")
            self._buffer += chunk
            if len(self._buffer) > max_bytes:
                raise SandboxError("the LiveCodeBench runner sent an over-long reply")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            raise SandboxError("the LiveCodeBench runner sent a malformed reply") from None
        if not isinstance(reply, dict):
            raise SandboxError(f"the LiveCodeBench runner sent {type(reply).__name__}, not an object")
        if "failure" in reply:
            raise SandboxError(f"the LiveCodeBench runner failed: {reply['failure']}")
        return reply

    def _tail(self) -> str:
        try:
            self._log.seek(0)
            text = self._log.read().decode("utf-8", "replace")[-1500:]
        except OSError:
            return ""
        return f":\n{text}" if text.strip() else ""

    def close(self) -> None:
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.process.poll() is None:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                self.process.wait()
            if self.process.stdout is not None:
                self.process.stdout.close()
            self._log.close()


def judge(program: str, problem: CodeProblem, *, timeout: float = DEFAULT_TIMEOUT,
          memory_bytes: int = DEFAULT_MEMORY_BYTES, drop_privileges: bool = True) -> dict[str, Any]:
    """Run ``program`` on ``problem``'s tests in the sandbox, in order, until one fails; the verdict.

    Returns ``passed`` (all tests), ``tests_passed``, ``tests``, ``confinement`` and, on a failure,
    ``failed`` (index, public or not, status). Raises :class:`~spade_gym.errors.SandboxError` when
    the runner itself fails (the program is not to blame).
    """
    start = {"op": "start", "code": program, "mode": problem.mode, "func_name": problem.func_name,
             "read_paths": _read_paths(), "drop_privileges": drop_privileges,
             "limits": {"timeout": timeout, "memory_bytes": memory_bytes, "max_open_files": MAX_OPEN_FILES}}
    runner = _Runner(start, timeout + RUNNER_GRACE + 5.0)
    verdict: dict[str, Any] = {"tests": len(problem.tests), "tests_passed": 0,
                               "confinement": runner.hello.get("confinement", {})}
    try:
        if runner.hello.get("status") != "ok":
            raise SandboxError(f"the LiveCodeBench runner could not confine a test process "
                               f"({runner.hello.get('status')}): {runner.hello.get('stderr', '')[-500:]}")
        seconds = 0.0
        for index, test in enumerate(problem.tests):
            max_output = min(MAX_OUTPUT, max(MIN_OUTPUT, 2 * len(test.output.encode("utf-8")) + (64 << 10)))
            reply = runner.call({"op": "run", "input": test.input, "max_output": max_output},
                                timeout + RUNNER_GRACE)
            status = str(reply.get("status"))
            seconds += float(reply.get("seconds") or 0.0)
            if status == "sandbox_error":
                raise SandboxError(f"the LiveCodeBench runner could not confine a test process: "
                                   f"{str(reply.get('stderr', ''))[-500:]}")
            if status == "ok":
                if problem.mode == "call":
                    good = result_matches(reply.get("result"), test.output)
                else:
                    good = stdout_matches(str(reply.get("stdout", "")), test.output)
                if good:
                    verdict["tests_passed"] += 1
                    continue
            verdict["failed"] = {"test": index, "public": test.public, "status": status,
                                 "reason": STATUS_WORDS.get(status, status),
                                 # a public test's error message helps; a private test's input stays private
                                 "stderr": str(reply.get("stderr", ""))[-1000:] if test.public else ""}
            break
        verdict["seconds"] = round(seconds, 3)
    finally:
        runner.close()
    verdict["passed"] = verdict["tests_passed"] == len(problem.tests)
    return verdict
