"""Self-play on two ranks (``accelerate launch --multi_gpu --num_processes 2`` on CPU).

Each rank designs its own groups (different seeds), one writer registers all ranks'
designs (a program both ranks designed is registered once; the other copy shares its
reward), and the main process alone writes metrics.jsonl: one line per iteration.
The designs come from a loopback served designer, so they are valid without a trained model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("accelerate")

from fakes import FakeOpenAI  # noqa: E402

from spade_gym.registry import Suite  # noqa: E402
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS  # noqa: E402
from spade_gym.selfplay.warmstart import designer_completion  # noqa: E402

pytestmark = [pytest.mark.train, pytest.mark.slow]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_ranks_shard_register_once_and_log_once(tmp_path):
    server = FakeOpenAI()
    design = DEMO_DESIGNS[1]
    server.recorded = [designer_completion(design.source, design.hint)] * 40
    run_dir = tmp_path / "run"
    src = Path(__file__).resolve().parent.parent / "src"
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               OMP_NUM_THREADS="1", ACCELERATE_USE_CPU="true")
    try:
        proc = subprocess.run(
            # --multi_gpu is accelerate's torchrun launcher; with the preset's use_cpu the two
            # processes form a gloo (CPU) group. (--cpu alone starts one process without mpirun.)
            [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
             "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
             "--main_process_port", str(free_port()),
             "-m", "spade_gym.cli", "selfplay", "--preset", "cpu-test", "--output", str(run_dir),
             "--iterations", "2", "--designer", "openai", "--base-url", server.url, "--model", "designer-x",
             "--set", "warmstart.enabled=false", "--set", "num_generations=2", "--set", "paired_seeds=2",
             # OddOne's answer is one of six positions: on cpu-test's 4 validation seeds the same
             # answer winning 3 of them (distinct_solutions' limit) is a 1-in-10 event per rank
             "--set", "validation_seeds=8", "--json"],
            capture_output=True, text=True, timeout=1200, env=env)
    finally:
        server.close()
    assert proc.returncode == 0, proc.stderr[-4000:]
    seeds = [body.get("seed") for _, body in server.requests]
    assert len(seeds) == 4 and len(set(seeds)) == 4  # 2 ranks x 2 iterations, each its own draw
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2] and all(r["ranks"] == 2 for r in rows)
    # iteration 1: both ranks designed the same program twice -> registered once, the rest copies
    assert rows[0]["designed"] == 4 and rows[0]["registered"] == ["spade/OddOne-v0"]
    assert rows[0]["failed_checks"] == {"duplicate in batch": 3}
    # iteration 2: a copy of a registered program is not new, on either rank
    assert rows[1]["registered"] == [] and rows[1]["failed_checks"].get("novelty") == 4
    assert [e.id for e in Suite(run_dir / "suite").entries()] == ["spade/OddOne-v0"]
    summary = json.loads(proc.stdout)
    assert summary["registered"] == ["spade/OddOne-v0"] and summary["iterations"] == 2
