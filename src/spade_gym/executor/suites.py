"""The suites a unit sees: the driver's registered suites, made the worker's.

Novelty (validation) and ``gym.make`` (evaluation) read the registered suites, so a unit names
the driver's (the bundled suite left out: every node has its own, and the node probe checks its
version), and the worker registers them before it runs. A Ray worker lives on across runs, so
registrations of folders the unit does not name are dropped. The folders must be on every node
(a shared file system).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from spade_gym.executor.base import ExecutorError


def _bundled() -> str:
    from spade_gym.registry.registration import bundled_suite_path

    return os.path.normpath(str(bundled_suite_path().resolve()))


def registered_suite_dirs() -> list[str]:
    """Suite folders with registered environments, the bundled one left out (each node has its own)."""
    from spade_gym.registry.registration import registered_entries

    bundled = _bundled()
    dirs = dict.fromkeys(os.path.normpath(os.path.dirname(os.path.normpath(d))) for _, d in registered_entries())
    return sorted(d for d in dirs if d != bundled)


def sync_suites(wanted: Sequence[str]) -> None:
    """Make this process's registered suites the driver's: register ``wanted``, and drop the
    registrations of any other folder (a Ray worker lives on across runs). A no-op in the driver."""
    import gymnasium as gym

    from spade_gym.registry import register_suite
    from spade_gym.registry.registration import registered_entries

    wanted = [os.path.normpath(d) for d in wanted]
    if registered_suite_dirs() == sorted(wanted):
        return
    for directory in wanted:
        if not os.path.isdir(directory):
            raise ExecutorError(f"suite folder {directory} is not on this node (a cluster needs the suites on a "
                                f"shared file system)")
        register_suite(directory)
    keep = {*wanted, _bundled()}
    for env_id, env_dir in registered_entries():
        if os.path.normpath(os.path.dirname(os.path.normpath(env_dir))) not in keep:
            del gym.registry[env_id]
