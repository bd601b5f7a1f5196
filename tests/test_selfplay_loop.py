"""The self-play loop end to end on CPU (the cpu-test preset: cpu-tiny cut down).

One iteration, then a resume to a second: the policy's weights change, metrics are
written per iteration, the checkpoint resumes exactly where it stopped, and programs
the model itself designed go through validation; valid ones are gym.make-able.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from click.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("trl")

from spade_gym.cli import main  # noqa: E402
from spade_gym.registry import Suite, designer_label, register_suite  # noqa: E402

pytestmark = [pytest.mark.train, pytest.mark.slow]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("selfplay") / "run"
    runner = CliRunner()
    first = runner.invoke(main, ["selfplay", "--preset", "cpu-test", "--output", str(run_dir), "--iterations", "1",
                                 "--json"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    state_after_one = json.loads((run_dir / "checkpoint-1" / "spade_state.json").read_text())
    second = runner.invoke(main, ["selfplay", "--output", str(run_dir), "--resume", "--iterations", "2", "--json"],
                           catch_exceptions=False)
    assert second.exit_code == 0, second.output
    return run_dir, state_after_one, json.loads(second.stdout)


def test_metrics_written_per_iteration(run):
    run_dir, _, summary = run
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2]
    for row in rows:
        assert row["designed"] == 4 and 0 <= row["valid"] <= 4
        assert row["tokens_designer"] > 0 and row["tokens_agent"] > 0
        for phase in ("design_s", "validate_s", "play_s", "update_s"):
            assert row[phase] >= 0
    assert summary["iterations"] == 2


def test_policy_weights_changed(run):
    import torch
    from transformers import AutoModelForCausalLM

    run_dir, _, _ = run
    start = AutoModelForCausalLM.from_pretrained(run_dir / "warmstart").state_dict()
    final = AutoModelForCausalLM.from_pretrained(run_dir / "final").state_dict()
    changed = [name for name in start if not torch.equal(start[name], final[name])]
    assert changed, "GRPO updates left every weight untouched"


def test_checkpoint_resumes_where_it_stopped(run):
    run_dir, state_after_one, _ = run
    assert state_after_one["iteration"] == 1
    final_state = json.loads((run_dir / "checkpoint-2" / "spade_state.json").read_text())
    assert final_state["iteration"] == 2 and final_state["skill_cursor"] == state_after_one["skill_cursor"] + 1
    trainer_state = json.loads((run_dir / "checkpoint-2" / "trainer_state.json").read_text())
    assert trainer_state["global_step"] == 2


def test_model_designed_programs_were_validated_and_registered(run):
    run_dir, _, summary = run
    assert summary["designed"] == 8
    # After the warm start the tiny model reproduces a suite program at low temperature;
    # small sampling deviations break some copies, so validity is partial, not total.
    assert summary["valid"] >= 1
    entries = Suite(run_dir / "suite").entries()
    assert {e.id for e in entries} == set(summary["registered"])
    register_suite(run_dir / "suite")
    for entry in entries:
        provenance = entry.card.provenance  # the designer model and the backend, nothing else
        assert provenance["designer"] == designer_label(provenance["model"], "self-play")
        assert "regret" in entry.card.stats
        env = gym.make(entry.id)
        obs, _ = env.reset(seed=0)
        assert obs
        env.close()


def test_report(run, tmp_path):
    run_dir, _, _ = run
    result = CliRunner().invoke(main, ["report", str(run_dir), "--out", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = (tmp_path / "summary.md").read_text()
    assert "| 1 | 4 |" in summary and "| 2 | 4 |" in summary
    if (tmp_path / "curves.png").exists():  # matplotlib is optional
        assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"


def test_existing_run_is_not_overwritten(run):
    run_dir, _, _ = run
    result = CliRunner().invoke(main, ["selfplay", "--preset", "cpu-test", "--output", str(run_dir)])
    assert result.exit_code == 1 and "not empty" in result.output


def test_resume_needs_a_run(tmp_path):
    result = CliRunner().invoke(main, ["selfplay", "--output", str(tmp_path / "nothing"), "--resume"])
    assert result.exit_code == 1 and "nothing to resume" in result.output
