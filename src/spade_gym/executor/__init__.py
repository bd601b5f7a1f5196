"""One executor seam for work that outgrows one machine: a local pool by default, Ray on a cluster.

A caller turns its work into :class:`Unit` s (plain data: a spade-gym task function's dotted name
and a JSON payload), hands them to an :class:`Executor` and reads :class:`Outcome` s back as they
finish, in completion order. Both executors run the same JSON round trip
(:func:`~spade_gym.executor.base.run_unit`), so a unit's result is the same bytes locally and on
a cluster. Wrapping the run in :func:`run_journaled` with a :class:`Journal` makes it crash-proof:
each outcome is appended (fsynced) before it is counted, a unit whose worker or node died is
retried (``max_attempts``, then an outcome with ``error`` set: the machine's failure), a key is
never counted twice, and a new run over the same journal (``resume=True``) runs only what is missing.

* :class:`LocalExecutor` — threads in this process (``workers``, default twice the cores).
* :class:`~spade_gym.executor.ray_cluster.RayExecutor` — Ray tasks (``pip install 'spade-gym[ray]'``);
  each Ray worker process keeps its own sandbox fork server; nodes are probed first, and a node
  without the sandbox's process layer is refused unless ``allow_unprotected``
  (:mod:`spade_gym.executor.nodes`). :func:`executor_for` picks one from ``--ray`` / ``$SPADE_GYM_RAY``.

Wiring a command through the seam (how ``validate``, ``revalidate`` and ``import`` do it;
``generate`` runs its design requests and validations as single units from its target
threads, journaled per attempt: :mod:`spade_gym.generate.units`):

1. Validation work: build :class:`~spade_gym.executor.validation.Program` s and call
   :func:`~spade_gym.executor.validation.validate_batch` (``executor=``, ``output=`` for a
   journal, ``resume=``, ``on_done=`` for a progress bar); it returns the reports in input order.
   Work that enters a suite through the admission path passes an
   :class:`~spade_gym.executor.admission.ExecutorValidator` as ``validator=`` to
   ``Admission.admit_many`` / ``validate_all`` (``revalidate``, ``import``): only the validate
   step runs as units; prepare, judge and register stay on the driver.
2. Other work: write a task function ``def task(payload: dict) -> dict`` at module level in
   spade-gym (plain JSON in and out; build live objects, e.g. a backend or an agent, inside it),
   give each unit a key that names it across runs, and loop over ``run_journaled(...)``.
   A design request is one unit (prompt + designer settings in, the design text out).
3. Keep writes to a suite on the driver: units return data, the driver registers it under the
   suite's lock, so a cluster never writes a half card.
"""

from __future__ import annotations

import os

from spade_gym.executor.base import DEFAULT_ATTEMPTS, Executor, ExecutorError, Outcome, Unit, run_unit
from spade_gym.executor.journal import JOURNAL_FILE, Journal, run_journaled
from spade_gym.executor.local import LocalExecutor, default_workers

#: Environment variable that sends work to Ray like ``--ray``: an address, or 1/true/yes for the default.
RAY_ENV_VAR = "SPADE_GYM_RAY"
#: What ``--ray`` alone means: join ``$RAY_ADDRESS`` when it is set, else start Ray on this machine.
DEFAULT_RAY = "default"


def ray_address(option: str | None) -> str | None:
    """The Ray address a command was asked for: the ``--ray`` value, else ``$SPADE_GYM_RAY``;
    None: no Ray (the local pool); :data:`DEFAULT_RAY`: join ``$RAY_ADDRESS`` or start one here."""
    value = option if option is not None else os.environ.get(RAY_ENV_VAR)
    if value is None or not value.strip() or value.strip().lower() in ("0", "false", "no", "off"):
        return None
    value = value.strip()
    return DEFAULT_RAY if value.lower() in ("1", "true", "yes", "on", DEFAULT_RAY) else value


def executor_for(ray: str | None = None, *, workers: int | None = None, cpus_per_unit: float = 1.0,
                 max_attempts: int = DEFAULT_ATTEMPTS, unit_timeout: float | None = None,
                 allow_unprotected: bool = False, on_warning=None) -> Executor:
    """The executor a command runs on: :class:`LocalExecutor` when ``ray`` (see :func:`ray_address`)
    is None, else a :class:`~spade_gym.executor.ray_cluster.RayExecutor` on that address."""
    address = ray_address(ray)
    if address is None:
        return LocalExecutor(workers, max_attempts=max_attempts)
    from spade_gym.executor.ray_cluster import RayExecutor

    return RayExecutor(None if address == DEFAULT_RAY else address, cpus_per_unit=cpus_per_unit,
                       max_attempts=max_attempts, unit_timeout=unit_timeout, allow_unprotected=allow_unprotected,
                       on_warning=on_warning)


__all__ = [
    "DEFAULT_ATTEMPTS", "DEFAULT_RAY", "JOURNAL_FILE", "RAY_ENV_VAR", "Executor", "ExecutorError", "Journal",
    "LocalExecutor", "Outcome", "Unit", "default_workers", "executor_for", "ray_address", "run_journaled",
    "run_unit",
]
