"""The Ray executor: units run as Ray tasks on every node of a cluster (the ``ray`` extra).

Each task is :func:`~spade_gym.executor.base.run_unit` in a Ray worker process: JSON text in,
JSON text out. The sandbox runs inside that worker, which starts a fork server of its own
on its first unit and keeps it for the next (Ray reuses worker processes). Ray's own task
retries are off: the shared :class:`~spade_gym.executor.base.Dispatcher` retries a unit
whose worker or node died, a bounded number of times, and every answer is checked first
(the node's spade-gym version; a node without the sandbox's process layer refuses).

Nodes are probed when the executor starts (:func:`probe_nodes`). When every node passes, Ray
schedules the tasks (new nodes that join get work, each checked by its first unit); once a
node is refused, tasks are pinned to the least-loaded node that passed.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from spade_gym import __version__
from spade_gym.executor.base import DEFAULT_ATTEMPTS, Attempt, Dispatcher, ExecutorError, Unit, run_unit
from spade_gym.executor.nodes import code_digest

#: Object store of a Ray started here: units and results are small JSON texts.
LOCAL_OBJECT_STORE_BYTES = 256 * 1024 * 1024
#: Seconds a node probe may take (its first sandbox start included).
PROBE_TIMEOUT = 300.0
#: How often the driver re-reads the cluster's nodes (new CPUs widen the window, dead nodes leave).
REFRESH_SECONDS = 10.0


def import_ray():
    try:
        import ray
    except ImportError:
        raise ExecutorError("--ray needs the ray package: pip install 'spade-gym[ray]'") from None
    return ray


def connect(address: str | None = None, *, num_cpus: int | None = None,
            object_store_memory: int = LOCAL_OBJECT_STORE_BYTES) -> bool:
    """Join or start Ray; True when this call started (and so owns) the connection.

    ``address``: None joins ``$RAY_ADDRESS`` when it is set, else starts a local Ray on this
    machine's cores, as does ``"local"``; anything else (``"auto"``, ``"ray://head:10001"``,
    ``"head:6379"``) is a cluster to join. A session this process already has is used as it is.
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if address is None and os.environ.get("RAY_ADDRESS"):
        address = os.environ["RAY_ADDRESS"]
    try:
        if address in (None, "local"):
            ray.init(address="local", num_cpus=num_cpus or os.cpu_count() or 1,
                     object_store_memory=object_store_memory, **quiet)
        else:
            ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
    except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; the user needs one line
        raise ExecutorError(f"cannot {'start' if address in (None, 'local') else f'join {address}'} "
                            f"Ray: {type(exc).__name__}: {exc}") from None
    return True


def alive_nodes() -> dict[str, float]:
    """Node id -> CPUs of every live node that can run tasks."""
    ray = import_ray()
    return {n["NodeID"]: float(n.get("Resources", {}).get("CPU", 0.0)) for n in ray.nodes()
            if n.get("Alive") and n.get("Resources", {}).get("CPU", 0.0) > 0}


def probe_nodes(read: list[str] | tuple[str, ...] = (), timeout: float = PROBE_TIMEOUT) -> dict[str, dict]:
    """:func:`~spade_gym.executor.nodes.describe_node` on every live node, by node id (a node that
    does not answer gets ``{"error": ...}``). Probes take no CPU, so a busy cluster answers too."""
    import json

    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ray = import_ray()
    remote = ray.remote(max_retries=0)(run_unit)
    unit = Unit("probe", "spade_gym.executor.nodes:probe_task", {"read": list(read)})
    refs = {node: remote.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False))
            .remote(unit.task, unit.wire(), None) for node in alive_nodes()}
    out: dict[str, dict] = {}
    deadline = time.monotonic() + timeout
    for node, ref in refs.items():
        try:
            envelope = json.loads(ray.get(ref, timeout=max(1.0, deadline - time.monotonic())))
            out[node] = envelope["result"] if envelope.get("ok") else {"node": node, "error": envelope.get("error")}
        except Exception as exc:  # noqa: BLE001 - a dead or stuck node is a finding
            out[node] = {"node": node, "error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}
    return out


def node_verdict(node: dict, allow_unprotected: bool) -> str | None:
    """Why a probed node must not run units, or None when it may."""
    if node.get("error") and not node.get("assessment"):
        return f"it did not answer the probe ({node['error']})"
    if node.get("spade_gym") != __version__:
        return (f"it runs spade-gym {node.get('spade_gym')}, the driver {__version__}: install the same "
                f"spade-gym everywhere")
    assessment = node.get("assessment") or {}
    if not assessment.get("process_layer") and not allow_unprotected:
        return f"{assessment.get('summary', 'no sandbox')} (pass --allow-unprotected-nodes to use it anyway)"
    return None


class RayExecutor(Dispatcher):
    """Units as Ray tasks, ``cpus_per_unit`` CPUs each, on the nodes that pass the probe."""

    name = "ray"

    def __init__(self, address: str | None = None, *, cpus_per_unit: float = 1.0, num_cpus: int | None = None,
                 max_attempts: int = DEFAULT_ATTEMPTS, unit_timeout: float | None = None,
                 allow_unprotected: bool = False, window_factor: float = 2.0, on_warning=None):
        super().__init__(max_attempts=max_attempts, unit_timeout=unit_timeout)
        if cpus_per_unit <= 0:
            raise ExecutorError(f"cpus_per_unit must be positive, got {cpus_per_unit}")
        self._ray = import_ray()
        self._owns = connect(address, num_cpus=num_cpus)
        self.cpus_per_unit = cpus_per_unit
        self.allow_unprotected = allow_unprotected
        self.window_factor = window_factor
        self.digest = code_digest()
        self._remote = self._ray.remote(max_retries=0)(run_unit)
        self._warn = on_warning or (lambda message: None)
        #: Node id -> CPUs of the nodes allowed to run units; refused ones, with why.
        self.allowed: dict[str, float] = {}
        self.refused: dict[str, str] = {}
        self._differs: set[str] = set()
        self._state_lock = threading.RLock()
        try:
            self._admit_nodes()
        except BaseException:
            self.close()
            raise
        #: Units in flight per pinned node, and where each pinned task went.
        self._load: dict[str, int] = dict.fromkeys(self.allowed, 0)
        self._pinned_at: dict[Any, str] = {}
        self._refreshed = time.monotonic()

    def _admit_nodes(self) -> None:
        """Probe every node; keep those that may run units, warn about what the others lack."""
        self.probes = probe_nodes()
        self._alive = alive_nodes()
        for node, report in self.probes.items():
            reason = node_verdict(report, self.allow_unprotected)
            if reason is not None:
                self.refused[node] = reason
                self._warn(f"node {node[:12]} refused: {reason}")
                continue
            self.allowed[node] = self._alive.get(node, 0.0)
            self._check_envelope({"version": report.get("spade_gym"), "digest": report.get("digest"), "node": node})
            assessment = report.get("assessment") or {}
            if not assessment.get("process_layer"):
                self._warn(f"node {node[:12]} runs programs without the sandbox's process layer "
                           f"(--allow-unprotected-nodes): {assessment.get('summary')}")
            elif assessment.get("lacks"):
                self._warn(f"node {node[:12]} lacks: {'; '.join(assessment['lacks'])}")
        if not self.allowed:
            reasons = "; ".join(f"node {n[:12]}: {why}" for n, why in self.refused.items())
            raise ExecutorError(f"no Ray node may run units: {reasons or 'the cluster has no node with CPUs'}")

    @property
    def pinned(self) -> bool:
        """Whether tasks are pinned to allowed nodes (some node was refused)."""
        return bool(self.refused)

    def _window(self) -> int:
        cpus = sum(self.allowed.values()) if self.pinned else sum(self._alive.values())
        return max(1, int(self.window_factor * cpus / self.cpus_per_unit))

    def _submit(self, attempt: Attempt) -> Any:
        # generate runs one unit per call from several threads: the node loads are shared
        with self._state_lock:
            return self._submit_locked(attempt)

    def _submit_locked(self, attempt: Attempt) -> Any:
        cpus = attempt.unit.cpus
        options: dict[str, Any] = {"num_cpus": self.cpus_per_unit if cpus is None else cpus}
        guard: dict[str, Any] = {"require_process_layer": not self.allow_unprotected}
        if self.pinned:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            node = max(self.allowed, key=lambda n: self.allowed[n] / self.cpus_per_unit - self._load.get(n, 0))
            self._load[node] = self._load.get(node, 0) + 1
            attempt.node = guard["node"] = node
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node, soft=False)
        ref = self._remote.options(**options).remote(attempt.unit.task, attempt.unit.wire(), guard)
        if attempt.node:
            self._pinned_at[ref] = attempt.node
        return ref

    def _release(self, ref: Any) -> None:
        with self._state_lock:
            node = self._pinned_at.pop(ref, None)
            if node is not None:
                self._load[node] = max(0, self._load.get(node, 0) - 1)

    def _wait(self, handles: list, timeout: float):
        ray = self._ray
        ready, rest = ray.wait(handles, num_returns=1, timeout=timeout)
        if ready and rest:
            more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        out: list[tuple[Any, str | None, BaseException | None]] = []
        for ref in ready:
            self._release(ref)
            try:
                out.append((ref, ray.get(ref), None))
            except Exception as exc:  # noqa: BLE001 - a dead worker or node: the loop retries the unit
                out.append((ref, None, exc))
                self._refreshed = 0.0  # re-read the nodes: one may have died
        self._maybe_refresh()
        return out

    def _maybe_refresh(self) -> None:
        if time.monotonic() - self._refreshed < REFRESH_SECONDS:
            return
        self._refreshed = time.monotonic()
        live = self._alive = alive_nodes()
        for node in list(self.allowed):
            if node not in live:
                del self.allowed[node]
                self._warn(f"node {node[:12]} left the cluster; its units are retried elsewhere")
        if not self.allowed and self.pinned:
            raise ExecutorError("every Ray node that may run units has left the cluster")

    def _check_envelope(self, envelope: dict) -> str | None:
        if envelope.get("version") != __version__:
            return f"it runs spade-gym {envelope.get('version')}, the driver {__version__}"
        node = str(envelope.get("node"))
        if envelope.get("digest") != self.digest and node not in self._differs:
            self._differs.add(node)
            self._warn(f"node {node[:12]}'s spade-gym files differ from the driver's (digest "
                       f"{str(envelope.get('digest'))[:12]} vs {self.digest[:12]}): its reports may differ")
        return None

    def _refuse(self, node: str, reason: str) -> None:
        if node not in self.refused:
            self.refused[node] = reason
            self._warn(f"node {node[:12]} refused: {reason}")
        self.allowed.pop(node, None)
        if not self.allowed:
            raise ExecutorError(f"no Ray node may run units: the last one (node {node[:12]}) was refused: {reason}")

    def _cancel(self, ref: Any) -> None:
        self._release(ref)
        try:
            self._ray.cancel(ref, force=True)
        except Exception:  # noqa: BLE001 - already finished or gone: its answer is never read anyway
            pass

    def close(self) -> None:
        if getattr(self, "_owns", False):
            self._owns = False
            try:
                self._ray.shutdown()
            except Exception:  # noqa: BLE001 - shutting down is best effort
                pass

