"""Self-play with a served designer: designs come from an OpenAI-compatible server (here a
loopback fake), only the agent trains, and regret still scores what the server designed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("trl")

from fakes import FakeOpenAI  # noqa: E402

from spade_gym.cli import main  # noqa: E402
from spade_gym.generate.prompts.skills import SKILLS  # noqa: E402
from spade_gym.registry import Suite  # noqa: E402
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS  # noqa: E402
from spade_gym.selfplay.warmstart import designer_completion  # noqa: E402

pytestmark = [pytest.mark.train, pytest.mark.slow]


def test_served_designer_designs_and_only_the_agent_trains(tmp_path):
    server = FakeOpenAI()
    design = DEMO_DESIGNS[1]
    broken = "```python\nclass BrokenEnv:\n    pass\n```\n<hint>none</hint>"
    server.recorded = [designer_completion(design.source, design.hint), broken] * 8
    try:
        run_dir = tmp_path / "run"
        result = CliRunner().invoke(main, [
            "selfplay", "--preset", "cpu-test", "--output", str(run_dir), "--iterations", "1",
            "--designer", "openai", "--base-url", server.url, "--model", "designer-x",
            "--set", "warmstart.enabled=false", "--set", "num_generations=2", "--set", "paired_seeds=2",
            # OddOne's answer is one of six positions: on cpu-test's 4 validation seeds the same
            # answer winning 3 of them (distinct_solutions' limit) is a 1-in-10 event
            "--set", "validation_seeds=8", "--json"], catch_exceptions=False)
    finally:
        server.close()
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    (_, request), *_ = server.requests
    assert request["model"] == "designer-x" and request["n"] == 2
    # the designer is asked for one skill of the catalogue, in chat messages
    prompt = " ".join(m["content"] for m in request["messages"])
    assert [m["role"] for m in request["messages"]][-1] == "user"
    assert any(skill in prompt for skill in SKILLS), prompt[:300]
    assert summary["designed"] == 2 and summary["valid"] == 1
    assert summary["registered"] == ["spade/OddOne-v0"]
    (entry,) = Suite(run_dir / "suite").entries()
    assert entry.card.provenance["designer"] == "designer-x (openai)"
    assert entry.card.provenance["model"] == "designer-x" and entry.card.provenance["backend"] == "openai"
    assert "regret" in entry.card.stats
    row = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    assert row["tokens_designer"] == 0  # nothing of the designer's is trained
    assert row["trained_regret_groups"] == 1  # the agent learns from its no-hint plays of the new env
    assert row["failed_checks"] and "train_loss" in row


def test_served_designer_needs_url_and_model(tmp_path):
    result = CliRunner().invoke(main, ["selfplay", "--output", str(tmp_path / "r"), "--designer", "openai",
                                       "--show-config"])
    assert result.exit_code == 1 and "--base-url URL --model NAME" in result.output
    result = CliRunner().invoke(main, ["selfplay", "--output", str(tmp_path / "r"), "--base-url", "http://x/v1",
                                       "--show-config"])
    assert result.exit_code == 1 and "add --designer openai" in result.output
