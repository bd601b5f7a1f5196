"""The host side of the benchmark workers' protocol (BFCL's simulators, tau2's domains).

A benchmark whose trusted code runs with arguments a model chose runs it in a worker process
(:mod:`spade_gym.adapters._worker_loop` is the other side): one JSON request per line, then one
JSON reply per line within a deadline. The host trusts nothing the worker says: a reply that is
late, not JSON, not an object or a ``failure`` is raised as the benchmark's own failure class,
and a worker that is late or gone is killed (a late reply would be read as the next one's).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spade_gym.errors import SpadeError

#: The only environment variables a worker inherits (no secrets of the host's).
INHERITED_ENVIRONMENT = ("PATH", "PYTHONPATH", "HOME", "LANG", "LC_ALL", "VIRTUAL_ENV", "SYSTEMROOT", "TMPDIR")


def start_worker(script: Path) -> subprocess.Popen:
    """``python script`` with pipes for the protocol, stderr discarded, and a pared-down environment."""
    env = {k: v for k, v in os.environ.items() if k in INHERITED_ENVIRONMENT}
    return subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, text=True, encoding="utf-8", bufsize=1)


def end_worker(process: subprocess.Popen) -> None:
    """Kill the process, reap it, and close its pipes; an end that fails is nothing to report."""
    try:
        process.kill()
        process.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass
    for stream in (process.stdin, process.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


class WorkerClient:
    """One worker process, started on the first request (and again after it is killed).

    ``name`` is how failures speak of the worker ("BFCL's simulators"); ``failure`` is the
    exception they raise; ``spawn`` starts (or hands over) a worker process.
    """

    def __init__(self, spawn: Callable[[], subprocess.Popen], *, name: str, failure: type[SpadeError],
                 request_deadline: float) -> None:
        self._spawn = spawn
        self._name = name
        self._failure = failure
        self._process: subprocess.Popen | None = None
        self.request_deadline = request_deadline

    def request(self, payload: dict[str, Any], deadline: float | None = None) -> dict[str, Any]:
        """The worker's reply to ``payload`` (a JSON object), within ``deadline`` seconds (default: the env's)."""
        deadline = self.request_deadline if deadline is None else deadline
        if self._process is None or self._process.poll() is not None:
            self._process = self._spawn()
        process = self._process
        assert process.stdin is not None and process.stdout is not None, "a worker is started with both pipes"
        try:
            process.stdin.write(json.dumps(payload, ensure_ascii=False) + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], deadline)
            line = process.stdout.readline() if ready else None
        except (BrokenPipeError, OSError, ValueError) as exc:
            self.kill()
            raise self._failure(f"{self._name} stopped: {exc}") from None
        if not line:
            self.kill()  # a late answer would be read as the reply to the next request
            raise self._failure(f"{self._name} did not answer a {payload.get('op')!r} request within "
                                f"{deadline:g} s" if line is None else f"{self._name} stopped")
        return decode_reply(line, payload, self._name, self._failure)

    def kill(self) -> None:
        """End the worker process (after a failure: it may be hung or out of step)."""
        if self._process is not None:
            end_worker(self._process)
            self._process = None


def decode_reply(line: str, payload: dict[str, Any], name: str, failure: type[SpadeError]) -> dict[str, Any]:
    """The reply object a worker wrote as ``line``; ``failure`` where it is not one or reports one."""
    try:
        reply = json.loads(line)
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or "failure" in reply:
        reason = reply.get("failure") if isinstance(reply, dict) else repr(line[:200])
        raise failure(f"{name} failed a {payload.get('op')!r} request: {reason}")
    return reply
