"""The scripts in examples/ run as documented."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from testkit import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, tmp_path):
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip()
    assert "Traceback" not in proc.stderr


def test_validate_example_registers_a_valid_program():
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "validate_and_register.py")],
                          capture_output=True, text=True, timeout=300)
    assert re.search(r"^VALID: RemainderRiddleEnv passed all \d+ checks\.$", proc.stdout, re.M), proc.stdout
    assert "spade/RemainderRiddle-v0 -> I picked a number" in proc.stdout
