"""Shared fixtures for the test-suite; the paths and helpers they use are in tests/support/testkit.py."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Wall-clock health checks and deadlines measure the machine, not the code: on a loaded 2-core CI
# runner one slow draw of a large strategy (e.g. nested JSON for the BFCL checker) failed a test
# that asserts a property, not a speed. Speed is benchmark territory (benchmarks/).
settings.register_profile("spade-gym", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("spade-gym")

# Quarantine marks written by deployment monitors during the tests stay in a folder of the
# test run's own, never in the user's cache (subprocesses the tests start inherit it).
if "SPADE_GYM_QUARANTINE_DIR" not in os.environ:
    import tempfile

    os.environ["SPADE_GYM_QUARANTINE_DIR"] = tempfile.mkdtemp(prefix="spade-gym-quarantine-")


sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from testkit import (  # noqa: E402  (after the path)
    BENIGN_DIR,
    TOOLUSE_DIR,
    build_suite,
)


@pytest.fixture(scope="session")
def benign_sources() -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted(BENIGN_DIR.glob("*.py"))}


@pytest.fixture(scope="session")
def benign_suite(tmp_path_factory):
    """The benign corpus as a registered suite; returns {stem-ish name: id}."""
    from spade_gym.registry import register_suite

    directory = tmp_path_factory.mktemp("benign-suite")
    entries = build_suite(directory)
    register_suite(directory)
    return {entry.card.name: entry.id for entry in entries}


@pytest.fixture(scope="session")
def tool_use_suite(tmp_path_factory):
    """The tool-use test programs as a registered suite; returns (directory, {name: id})."""
    from spade_gym.registry import register_suite

    directory = tmp_path_factory.mktemp("tool-use-suite")
    entries = build_suite(directory, {p.stem: p.read_text() for p in sorted(TOOLUSE_DIR.glob("*.py"))},
                          skill="Data Retrieval")
    register_suite(directory)
    return directory, {entry.card.name: entry.id for entry in entries}


@pytest.fixture()
def fresh_process_registry(monkeypatch):
    """The registry as a fresh process has it: ids other test modules registered from their own
    suites are hidden for the test (and restored after it), and the ids the test registers are
    forgotten. A name belongs to the first suite that registers it in a process, and novelty
    compares with every registered suite, so tests that register or validate variants of the
    test programs must not see each other's suites."""
    import gymnasium as gym

    from spade_gym.registry import bundled_suite_path

    bundled = str(bundled_suite_path())
    for env_id, spec in list(gym.registry.items()):
        env_dir = spec.kwargs.get("env_dir") if isinstance(spec.kwargs, dict) else None
        if env_id.startswith("spade/") and env_dir is not None and not str(env_dir).startswith(bundled):
            monkeypatch.delitem(gym.registry, env_id)
    before = set(gym.registry)
    yield
    for env_id in set(gym.registry) - before:
        del gym.registry[env_id]


@pytest.fixture()
def forget_registered_ids():
    """Ids a test registers (some deliberately broken or refused) must not leak into tests
    that play every registered environment. Use with ``pytestmark = pytest.mark.usefixtures(...)``."""
    import gymnasium as gym

    before = set(gym.registry)
    yield
    for env_id in set(gym.registry) - before:
        del gym.registry[env_id]


