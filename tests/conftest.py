"""Shared fixtures and helpers for the test-suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
PROGRAMS = TESTS / "programs"
BENIGN_DIR = PROGRAMS / "benign"

sys.path.insert(0, str(TESTS))


def plain_run(path: Path, spec: dict) -> list:
    """Run a trusted test program under plain CPython (PYTHONHASHSEED=0) and return its results."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run(
        [sys.executable, str(TESTS / "plain_runner.py"), str(path), json.dumps(spec)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="session")
def benign_sources() -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted(BENIGN_DIR.glob("*.py"))}


GUESS_SOURCE = (BENIGN_DIR / "guess_number.py").read_text()
