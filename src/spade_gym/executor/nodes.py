"""What the sandbox enforces on a node, and whether a node may run units.

``spade-gym doctor`` shows :func:`collect` for this machine; ``doctor --ray`` and the Ray
executor run :func:`probe_task` on every node. :func:`assess` splits the protections in two:

* the **process layer** (required): program workers start, with their resource limits, no fork,
  no file writes and an empty environment. A node without it would run hostile programs
  with the driver's own rights, so the Ray executor refuses it unless told otherwise;
* **kernel hardening** (reported): Landlock, the seccomp allow-list, no_new_privs, dying with
  the sandbox, an identity per worker (a distinct uid needs root; Landlock ABI 6 scopes
  signals instead), no sockets, no signals to the host. A node may lack some; doctor says which.

Every unit's envelope also carries the node's spade-gym version and :func:`code_digest`: a node
running another release would give other verdicts, so the driver refuses its answers; a node
whose files differ within one version (a development checkout) gets a warning.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import socket
import sys
import time
from pathlib import Path

_PROBE = '''
class ProbeEnv:
    def __init__(self, max_turns=1, **kwargs):
        pass
    def reset(self, seed=None):
        return "probe", {}
    def solution(self):
        return ""
    def step(self, action):
        return "probe", 0.0, True, False, {}
'''

#: (key, what it means, required): the protections :func:`assess` reads from a :func:`collect` report.
PROTECTIONS: tuple[tuple[str, str, bool], ...] = (
    ("worker_processes", "programs run in sandbox worker processes", True),
    ("resource_limits", "worker resource limits (processes, file size, address space)", True),
    ("no_fork", "workers cannot fork", True),
    ("no_file_writes", "workers cannot write files", True),
    ("clean_environment", "workers start with an empty environment", True),
    ("landlock", "Landlock: file reads limited to the runtime", False),
    ("seccomp", "seccomp allow-list", False),
    ("no_new_privs", "no_new_privs", False),
    ("pdeathsig", "workers die with the sandbox (pdeathsig)", False),
    ("own_identity", "an identity per worker (distinct uid: needs root; or Landlock ABI 6 signal scoping)", False),
    ("no_sockets", "workers cannot open sockets", False),
    ("no_signal_host", "workers cannot signal the host", False),
)


def collect(read: list[str] | tuple[str, ...] = ()) -> dict:
    """Start a program's worker and a diagnostic worker on this machine; report what each found."""
    from spade_gym.sandbox import ProgramHandle, diagnose
    from spade_gym.sandbox.process import confine

    start = time.perf_counter()
    with ProgramHandle(_PROBE) as handle:
        first = time.perf_counter() - start
        confinement = handle.confinement
    start = time.perf_counter()
    ProgramHandle(_PROBE).close()
    warm = time.perf_counter() - start
    facts = diagnose(read=list(read))["facts"]
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "host_uid": os.geteuid(),
        "kernel_landlock_abi": confine.status()["landlock_abi"],
        "worker": confinement,
        "worker_can_fork": facts["fork"],
        "worker_can_write_files": facts["writes"],
        "worker_can_read": facts["reads"],
        "worker_can_open_sockets": facts["socket"],
        "worker_can_signal_host": facts["signal_parent"],
        "worker_environment": facts["environ"],
        "rlimits": facts["rlimits"],
        "first_env_start_s": round(first, 3),
        "warm_env_start_s": round(warm, 4),
    }


def _refused(value) -> bool:
    return isinstance(value, str) and value.startswith("refused")


def _limited(rlimits: dict, name: str, zero: bool) -> bool:
    pair = rlimits.get(name)
    if not isinstance(pair, list | tuple) or len(pair) != 2:
        return False
    return pair[0] == 0 if zero else pair[0] not in (-1, None)


def assess(report: dict | None, error: str | None = None) -> dict:
    """Which :data:`PROTECTIONS` a :func:`collect` report shows, and the verdict for running units.

    ``error`` is why no report could be made (the sandbox did not start): then nothing is present.
    """
    has: dict[str, bool] = dict.fromkeys((key for key, _, _ in PROTECTIONS), False)
    if report is not None and error is None:
        worker = report.get("worker") or {}
        rlimits = report.get("rlimits") or {}
        writes = report.get("worker_can_write_files") or {}
        landlock = int(worker.get("landlock_abi") or 0)
        has.update(
            worker_processes=True,
            resource_limits=all(_limited(rlimits, n, z) for n, z in
                                (("RLIMIT_NPROC", True), ("RLIMIT_FSIZE", True), ("RLIMIT_AS", False))),
            no_fork=_refused(report.get("worker_can_fork")),
            no_file_writes=bool(writes) and all(_refused(v) for v in writes.values()),
            clean_environment=not report.get("worker_environment"),
            landlock=landlock > 0,
            seccomp=bool(worker.get("seccomp")),
            no_new_privs=bool(worker.get("no_new_privs")),
            pdeathsig=bool(worker.get("pdeathsig")),
            own_identity=str(worker.get("uid_isolation", "")).startswith("distinct") or landlock >= 6,
            no_sockets=_refused(report.get("worker_can_open_sockets")),
            no_signal_host=_refused(report.get("worker_can_signal_host")),
        )
    missing_process = [text for key, text, required in PROTECTIONS if required and not has[key]]
    lacks = [text for key, text, required in PROTECTIONS if not required and not has[key]]
    process_layer = not missing_process
    if error is not None:
        summary = f"no sandbox on this node: {error}"
    elif not process_layer:
        summary = "the process layer is missing: " + "; ".join(missing_process)
    else:
        summary = "process layer present" + (f"; lacks: {'; '.join(lacks)}" if lacks else "; every protection active")
    return {"process_layer": process_layer, "has": has, "missing_process_layer": missing_process, "lacks": lacks,
            "summary": summary}


@functools.cache
def code_digest() -> str:
    """sha256 of spade-gym's code and bundled suite as installed here: equal digests, equal verdicts."""
    import spade_gym
    from spade_gym.registry.registration import bundled_suite_path

    package = Path(spade_gym.__file__).resolve().parent
    bundled = bundled_suite_path().resolve()
    files = {("pkg", p.relative_to(package).as_posix()): p for p in package.rglob("*.py")
             if "__pycache__" not in p.parts}
    for pattern in ("*/env.py", "*/card.json"):
        files.update({("suite", p.relative_to(bundled).as_posix()): p for p in bundled.glob(pattern)})
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(f"{name[0]}:{name[1]}\0".encode())
        digest.update(hashlib.sha256(files[name].read_bytes()).digest())
    return digest.hexdigest()


def node_id() -> str:
    """This process's Ray node id, or ``"local"`` outside a Ray worker."""
    ray = sys.modules.get("ray")
    if ray is not None and getattr(ray, "is_initialized", lambda: False)():
        try:
            return str(ray.get_runtime_context().get_node_id())
        except Exception:  # noqa: BLE001 - outside a worker context
            pass
    return "local"


def describe_node(read: list[str] | tuple[str, ...] = ()) -> dict:
    """Everything ``doctor --ray`` shows for one node: where it is, what it runs, what it enforces."""
    from spade_gym import __version__

    try:
        report, error = collect(read), None
    except Exception as exc:  # noqa: BLE001 - a node without a sandbox is a finding, not a crash
        report, error = None, f"{type(exc).__name__}: {exc}"[:500]
    return {"node": node_id(), "hostname": socket.gethostname(), "cpus": os.cpu_count(),
            "python": sys.version.split()[0], "spade_gym": __version__, "digest": code_digest(),
            "report": report, "error": error, "assessment": assess(report, error)}


def probe_task(payload: dict) -> dict:
    """The unit ``doctor --ray`` and the Ray executor send to every node."""
    return describe_node(payload.get("read") or ())


@functools.cache
def worker_state() -> dict:
    """This worker process's node verdict, probed once (its first unit pays ~0.5 s, which
    starts the fork server the units need anyway)."""
    node = describe_node()
    return {"digest": node["digest"], "version": node["spade_gym"], **node["assessment"]}
