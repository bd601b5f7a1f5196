"""Self-play on two ranks.

The whole loop under ``accelerate launch --multi_gpu --num_processes 2`` on CPU (slow): each
rank designs its share of the groups (different seeds), one writer registers all ranks'
designs (a program both ranks designed is registered once; the other copy shares its
reward), and the main process alone writes metrics.jsonl: one line per iteration. The
designs come from a loopback served designer, so they are valid without a trained model.

One iteration on 1 and on 2 faked ranks (tests/support/selfplay_rank_worker.py: a gloo group as
accelerate makes it on CPU, the vLLM stand-in in server mode behind a fake weight push):
the global batch is the same on both; regret plays are spread over the ranks by episodes;
no rank generates before the main process's weight push ended; the configured timeout
reaches the process group; object collectives are bounded.
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

pytestmark = [pytest.mark.train]

WORKER = Path(__file__).resolve().parents[1] / "support" / "selfplay_rank_worker.py"


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_ranks(scenario: str, out_dir: Path, world: int, timeout: int = 300) -> list[dict]:
    """Start ``world`` worker processes (one per rank) and return each one's report."""
    out_dir.mkdir(parents=True, exist_ok=True)
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", OMP_NUM_THREADS="1")
    port = str(free_port())
    procs = [subprocess.Popen([sys.executable, str(WORKER), scenario, str(out_dir), str(rank), str(world), port],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
             for rank in range(world)]
    logs = [p.communicate(timeout=timeout)[0] for p in procs]
    for proc, log in zip(procs, logs):
        assert proc.returncode == 0, log[-4000:]
    return [json.loads((out_dir / f"rank{rank}.json").read_text()) for rank in range(world)]


@pytest.fixture(scope="module")
def iterations(tmp_path_factory):
    root = tmp_path_factory.mktemp("ranks")
    return {world: run_ranks("iteration", root / f"world{world}", world) for world in (1, 2)}


def test_the_global_batch_is_the_same_on_one_and_two_ranks(iterations):
    """designer_groups=2, agent_groups=3, G=4: 8 designs and 20 trained samples per iteration
    on 1 rank and on 2 (before: per rank, so 2 ranks designed 16 and trained 40)."""
    one, two = iterations[1], iterations[2]
    assert one[0]["designed"] == two[0]["designed"] == 8
    assert sum(r["my_designs"] for r in two) == 8 and [r["my_designs"] for r in two] == [4, 4]
    trained = {world: sum(r["rows"] - r["padding"] for r in reports) for world, reports in iterations.items()}
    assert trained == {1: 20, 2: 20}
    # every rank gets the same number of slots (TRL's per-device batch); the smaller share pads
    assert [r["rows"] for r in two] == [12, 12] and sum(r["padding"] for r in two) == 4
    assert two[0]["samples"] == 24 and one[0]["samples"] == 20
    roles = {world: sum(r["roles"].count("designer") for r in reports) for world, reports in iterations.items()}
    assert roles == {1: 8, 2: 8}


def test_regret_plays_are_spread_over_the_ranks_by_episodes(iterations):
    """One valid design (rank 0's): its 4 no-hint plays (a training group) on one rank, its 4
    with-hint plays on the other; before, rank 0 played all 8 and rank 1 none."""
    two = iterations[2]
    assert two[0]["valid"] == 1 and two[0]["regret_mean"] == two[1]["regret_mean"]
    assert sorted(r["regret_episodes"] for r in two) == [4, 4]
    assert sum(r["regret_hinted"] for r in two) == 4
    assert sum(r["trained_regret_groups"] for r in two[:1]) == 1
    assert iterations[1][0]["regret_episodes"] == 8


def test_no_rank_generates_before_the_weight_push_ends(iterations):
    """The main process's fake push takes 3 s, longer than any request; the other rank
    enters the rollout at once (as TRL's non-main ranks do) and must wait for it."""
    main, other = iterations[2]
    assert main["push_end"] is not None and other["push_end"] is None
    assert other["first_request"] >= main["push_end"], other["first_request"] - main["push_end"]
    assert main["first_request"] >= main["push_end"]


def test_the_configured_timeout_reaches_the_process_group(tmp_path):
    """grpo.ddp_timeout=3: a rank waiting for a late one gives up after ~3 s with a message
    naming the timeout (with accelerate's default, 30 minutes, it would wait 9 s and pass)."""
    late, waiting = run_ranks("timeout", tmp_path, 2, timeout=120)
    assert waiting["error"] and "grpo.ddp_timeout" in waiting["error"] and "3 s" in waiting["error"]
    assert waiting["waited_s"] < 7


def test_object_collectives_are_bounded_on_every_rank(tmp_path):
    reports = run_ranks("bound", tmp_path, 2, timeout=120)
    assert [r["small"] for r in reports] == [[0, 1], [0, 1]]
    for report in reports:  # both raise at the same collective: none is left waiting
        assert report["error"] and "rank 1 sent" in report["error"] and "bound" in report["error"]


@pytest.mark.slow
def test_two_ranks_shard_register_once_and_log_once(tmp_path):
    server = FakeOpenAI()
    design = DEMO_DESIGNS[1]
    server.recorded = [designer_completion(design.source, design.hint)] * 40
    run_dir = tmp_path / "run"
    src = Path(__file__).resolve().parents[2] / "src"
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
             # global sizes: one design group and one agent task per rank
             "--set", "designer_groups=2", "--set", "agent_groups=2",
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
