"""benchmarks/gpu_smoke.sh --dry-run: the one-GPU smoke test's checks, on CPU with TRL's
transformers generation (the GPU run, with vLLM colocated, cannot run here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

pytestmark = [pytest.mark.train, pytest.mark.slow]

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_smoke.sh"


def test_the_gpu_smoke_script_dry_run_passes_its_checks(tmp_path):
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, PYTHON=sys.executable,
               PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    proc = subprocess.run(["bash", str(SCRIPT), "--dry-run", str(tmp_path / "smoke")], capture_output=True, text=True,
                          env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    checks = {line["check"]: line for line in lines if "check" in line}
    assert set(checks) == {"iterations", "distinct completions per group", "generation changes after a weight update",
                           "log-probabilities match the trainer's recompute", "tokens per second",
                           "padding-free passes match the padded ones"}
    assert all(c["ok"] for c in checks.values()), checks
    summary = lines[-1]
    assert summary["path"] == "transformers-cpu" and summary["failed"] == 0
    assert (tmp_path / "smoke" / "run" / "metrics.jsonl").read_text().count("\n") == 2


def test_the_script_is_one_file_and_refuses_a_missing_gpu(tmp_path):
    """Without --dry-run on a machine with no GPU it says so (and suggests --dry-run)."""
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, PYTHON=sys.executable, CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    proc = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "smoke")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode != 0 and "use --dry-run" in proc.stderr
