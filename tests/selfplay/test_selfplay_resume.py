"""Exact resume: a run killed with SIGKILL at a random moment and resumed ends where an
uninterrupted run ends — same designs, rewards, registered programs, agent pool, and
weights within tolerance. Designs come from a loopback served designer that answers by
the request's seed, so a replayed iteration asks for, and gets, the same designs."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from fakes import FakeOpenAI  # noqa: E402

from spade_gym.selfplay.demo_designs import DEMO_DESIGNS  # noqa: E402
from spade_gym.selfplay.warmstart import designer_completion  # noqa: E402

pytestmark = [pytest.mark.train, pytest.mark.slow]

ITERATIONS = 3


class SeededDesigner(FakeOpenAI):
    """Replies chosen by the request's seed: the same request gets the same designs."""

    def completion(self, body: dict) -> dict:
        options = [designer_completion(d.source, d.hint) for d in DEMO_DESIGNS]
        options.append("```python\nclass NothingEnv:\n    pass\n```\n<hint>x</hint>")
        rng = random.Random(body.get("seed"))
        texts = [rng.choice(options) for _ in range(body.get("n", 1))]
        return {"id": "x", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                            for i, t in enumerate(texts)], "usage": {}}


def command(run_dir: Path, url: str, *extra: str, iterations: int = ITERATIONS) -> list[str]:
    return [sys.executable, "-m", "spade_gym.cli", "selfplay", "--output", str(run_dir), "--iterations",
            str(iterations), *extra]


def start_args(url: str) -> list[str]:
    return ["--preset", "cpu-test", "--designer", "openai", "--base-url", url, "--model", "designer-x",
            "--set", "warmstart.enabled=false", "--set", "num_generations=2", "--set", "paired_seeds=2"]


def environment() -> dict:
    src = Path(__file__).resolve().parents[2] / "src"
    return dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")


def outcome(run_dir: Path, iterations: int = ITERATIONS) -> dict:
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    keep = ("iteration", "designed", "valid", "registered", "failed_checks", "regret_mean", "designer_reward_mean",
            "agent_return_mean", "pool_size", "trained_regret_groups", "tokens_agent")
    state = json.loads((run_dir / f"checkpoint-{iterations}" / "spade_state.json").read_text())
    return {"metrics": [{k: r.get(k) for k in keep} for r in rows], "registered": state["registered"],
            "outcomes": state["outcomes"], "plays": state["plays"], "card_stats": state.get("card_stats")}


def weights(run_dir: Path):
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(run_dir / "final").state_dict()


def test_kill_and_resume_matches_an_uninterrupted_run(tmp_path):
    import torch

    server = SeededDesigner()
    try:
        straight = tmp_path / "straight"
        started = time.monotonic()
        subprocess.run(command(straight, server.url, *start_args(server.url)), env=environment(), check=True,
                       capture_output=True, timeout=1500)
        duration = time.monotonic() - started

        killed = tmp_path / "killed"
        delay = random.uniform(0.35, 0.8) * duration
        proc = subprocess.Popen(command(killed, server.url, *start_args(server.url)), env=environment(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its sandbox workers, mid-whatever
        proc.wait()
        resumed = subprocess.run(command(killed, server.url, "--resume"), env=environment(), capture_output=True,
                                 text=True, timeout=1500)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
    finally:
        server.close()
    note = f"killed after {delay:.0f} s of a {duration:.0f} s run"
    assert outcome(killed) == outcome(straight), note
    a, b = weights(straight), weights(killed)
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-5), (name, note)


def test_resume_from_a_checkpoint_several_iterations_back(tmp_path):
    """save_steps=2: a run that lost its last checkpoint resumes two iterations back and
    replays them exactly, though those iterations had registered programs, refreshed the
    committed programs' cards (which the design prompts read) and logged metrics."""
    import shutil

    import torch

    server = SeededDesigner()
    try:
        straight = tmp_path / "straight"
        subprocess.run(command(straight, server.url, *start_args(server.url), "--set", "save_steps=2",
                               "--set", "save_total_limit=null", iterations=4),
                       env=environment(), check=True, capture_output=True, timeout=1500)
        assert sorted(p.name for p in straight.glob("checkpoint-*")) == ["checkpoint-2", "checkpoint-4"]
        straight_requests = [body for _, body in server.requests]
        lost = tmp_path / "lost"
        shutil.copytree(straight, lost)
        shutil.rmtree(lost / "checkpoint-4")  # killed before iteration 4's checkpoint
        del server.requests[:]
        resumed = subprocess.run(command(lost, server.url, "--resume", iterations=4), env=environment(),
                                 capture_output=True, text=True, timeout=1500)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        replayed = [body for _, body in server.requests]
    finally:
        server.close()
    assert outcome(lost, 4) == outcome(straight, 4)
    # iterations 3 and 4 asked for the same designs with the same prompts (the frontier memory included)
    assert replayed == straight_requests[-len(replayed):] and len(replayed) == 2
    a, b = weights(straight), weights(lost)
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-5), name
