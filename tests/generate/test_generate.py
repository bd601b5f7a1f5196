"""The generation pipeline end to end: real HTTP client path, repair, rejection, replay, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest
from attacks import program
from click.testing import CliRunner
from fakes import FakeOpenAI
from testkit import BENIGN_DIR

from spade_gym.cli import main
from spade_gym.generate.backends import ReplayBackend
from spade_gym.generate.pipeline import GenerateConfig, GenerationPipeline, describe_program
from spade_gym.registry import Suite, register_suite
from spade_gym.validation import ValidationConfig

SOUND = (BENIGN_DIR / "unicode_story.py").read_text()
# The same game with a bug the validator catches: the winning move is never accepted.
BROKEN = SOUND.replace("self.position += 1", "self.position += 0")
HOSTILE = program("import os\nreturn os.environ.get('HOME', ''), {}", "import os")


def completion(code: str, hint: str = "Name the fruits in the order shown.") -> str:
    return f"Let me design this.\n```python\n{code}```\n<hint>{hint}</hint>"


FAST = ValidationConfig(seeds=6)


@pytest.fixture
def server():
    fake = FakeOpenAI()
    yield fake
    fake.close()


def run_cli(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def test_http_designer_with_repair_and_rejection(server, tmp_path, monkeypatch):
    monkeypatch.setenv("SPADE_TEST_KEY", "sk-test")
    server.recorded = [completion(BROKEN), completion(SOUND), completion(HOSTILE), "no code at all, sorry"]
    suite = tmp_path / "suite"
    log = tmp_path / "log.jsonl"
    result = run_cli(["generate", "--backend", "openai", "--base-url", server.url, "--model", "designer-x",
                      "--api-key-env", "SPADE_TEST_KEY", "-n", "2", "--attempts", "2", "--concurrency", "1",
                      "--suite", str(suite), "--skill", "Memory Recall", "--log", str(log), "--json",
                      "--seed", "3"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["n_accepted"] == 1 and summary["n_rejected"] == 1
    assert summary["failures_by_check"] == {"solvability": 1, "static": 1, "parse": 1}

    # the accepted program is registered with its provenance and can be made at once
    (entry,) = Suite(suite).entries()
    assert entry.read_source().strip() == SOUND.strip()
    card = entry.card
    assert card.skill == "Memory Recall" and card.hint == "Name the fruits in the order shown."
    assert card.provenance["backend"] == "openai" and card.provenance["model"] == "designer-x"
    assert card.provenance["attempts"] == 2 and card.provenance["prompt_version"].startswith("spade-designer")
    assert card.validation["valid"] is True and card.difficulty_levels == ["easy", "medium", "hard"]
    env = gym.make(entry.id)
    assert env.reset(seed=1)[0].startswith("Répète")
    env.close()

    # the repair request carried the validator's summary of what was wrong
    repair_messages = server.requests[1][1]["messages"]
    assert repair_messages[-2]["role"] == "assistant" and "solvability" in repair_messages[-1]["content"]
    headers = {k.lower(): v for k, v in server.requests[0][0].items()}
    assert headers.get("authorization") == "Bearer sk-test"

    # rejected programs are kept with their reports, never registered
    rejected = sorted((tmp_path / "rejected").glob("*.py"))
    assert len(rejected) == 2
    assert all(p.with_suffix(".report.json").exists() for p in rejected)

    # every request and result is in the log
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    header, records = lines[0], lines[1:]
    assert header["event"] == "run" and header["settings"]["attempts"] == 2 and header["settings"]["seed"] == 3
    assert header["designer"] == {"model": "designer-x", "backend": "openai"}
    assert [r["attempt"] for r in records] == [1, 2, 1, 2]
    assert [r.get("accepted") for r in records] == [False, True, False, False]
    assert all("completion" in r and "messages" in r for r in records)


def test_replaying_a_log_reproduces_the_run(server, tmp_path):
    server.recorded = [completion(BROKEN), completion(SOUND)]
    first = tmp_path / "first"
    log = tmp_path / "log.jsonl"
    run_cli(["generate", "--backend", "openai", "--base-url", server.url, "--model", "m", "-n", "1",
             "--attempts", "2", "--suite", str(first), "--log", str(log), "--skill", "Pattern Recognition"])
    again = tmp_path / "again"
    result = run_cli(["generate", "--backend", "replay", "--model", str(log), "--suite", str(again), "--json",
                      "--log", str(tmp_path / "replay.jsonl"), "--attempts", "2"])
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["n_accepted"] == 1
    assert [e.card.sha256 for e in Suite(again).entries()] == [e.card.sha256 for e in Suite(first).entries()]
    assert Suite(again).entries()[0].card.skill == "Pattern Recognition"


def test_tagged_replay_list_sets_targets(tmp_path):
    lines = [{"completion": completion(SOUND), "skill": "Memory Recall", "multi_turn": True},
             {"completion": completion((BENIGN_DIR / "numpy_grid.py").read_text(), "Sum the diagonals first."),
              "skill": "Mathematical Reasoning", "multi_turn": False}]
    log = tmp_path / "designs.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli(["generate", "--backend", "replay", "--model", str(log), "--suite", str(tmp_path / "s"),
                      "--designer", "a careful human", "--json"])
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["n_accepted"] == 2
    cards = {e.card.skill: e.card for e in Suite(tmp_path / "s").entries()}
    assert set(cards) == {"Memory Recall", "Mathematical Reasoning"}
    assert cards["Memory Recall"].provenance["designer"] == "a careful human (replay)"
    assert cards["Memory Recall"].multi_turn is True and cards["Mathematical Reasoning"].multi_turn is False


def test_duplicate_of_a_suite_env_is_rejected_as_not_novel(tmp_path):
    log = tmp_path / "designs.jsonl"
    renamed = SOUND.replace("EmojiTrailEnv", "FruitChainEnv").replace("trail", "chain")
    log.write_text("".join(json.dumps({"completion": completion(c), "skill": "Memory Recall"}) + "\n"
                           for c in (SOUND, renamed)))
    backend = ReplayBackend(log)
    config = GenerateConfig(n=2, skills=("Memory Recall",), attempts=1, concurrency=1)
    summary = GenerationPipeline(backend, tmp_path / "s", config, validation_config=FAST).run()
    assert [r.accepted for r in summary.results] == [True, False]
    assert summary.results[1].failures == ["novelty"]


def test_describe_program_prefers_docstrings():
    assert describe_program('"""A maze."""\nclass AEnv:\n    pass\n') == "A maze."
    assert describe_program("class AEnv:\n    pass\n", "Find the exit. Then leave.") == "Find the exit."


@pytest.mark.train
def test_transformers_backend_path(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from spade_gym.generate.tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny", [SOUND, "<hint>think</hint>"], vocab_size=512)
    result = run_cli(["generate", "--backend", "transformers", "--model", str(model_dir), "-n", "1",
                      "--attempts", "1", "--max-tokens", "32", "--suite", str(tmp_path / "s"), "--json"])
    summary = json.loads(result.output[result.output.index("{"):])
    # a tiny untrained model cannot design anything; the path still runs end to end
    assert summary["n_rejected"] == 1 and summary["failures_by_check"] in ({"parse": 1}, {"static": 1})


def test_ctrl_c_keeps_everything_accepted(server, tmp_path):
    server.recorded = [completion(SOUND.replace("EmojiTrailEnv", f"EmojiTrail{i}Env").replace("🍎", "🍏" * (i + 1)))
                       for i in range(40)]  # more than a busy machine gets through before the interrupt
    server.delay = 0.4
    suite = tmp_path / "suite"
    script = Path(sys.executable).with_name("spade-gym")
    proc = subprocess.Popen([str(script), "generate", "--backend", "openai", "--base-url", server.url, "--model",
                             "m", "-n", "40", "--attempts", "1", "--concurrency", "2", "--suite", str(suite)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(Suite(suite).entries()) < 1:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=120)
    entries = Suite(suite).entries_or_raise()
    assert 1 <= len(entries) < 40, output
    for entry in entries:
        entry.read_source()
    assert not [p for p in suite.iterdir() if p.name.startswith(".tmp-")]
    assert "Interrupted" in output
    assert register_suite(suite)
    assert os.path.exists(suite)
