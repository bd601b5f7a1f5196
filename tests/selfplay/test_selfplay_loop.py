"""The self-play loop end to end on CPU (the cpu-test preset: cpu-tiny cut down).

One iteration, then a resume to a second: the policy's weights change, metrics (TRL's
train metrics included) are written per iteration, the checkpoint resumes where it
stopped, programs the model itself designed are validated; the new valid one is
registered and ``gym.make``-able, its copies are not registered again, rejected designs
are kept with their reports, and the run directory's model cards are ours.
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

# A name belongs to the first suite that registers it in a process: each run here forgets the
# ids its run suite registered, as a fresh process would.
pytestmark = [pytest.mark.train, pytest.mark.slow, pytest.mark.usefixtures("forget_registered_ids")]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("selfplay") / "run"
    runner = CliRunner()
    import gymnasium as gym

    before = set(gym.registry)
    first = runner.invoke(main, ["selfplay", "--preset", "cpu-test", "--output", str(run_dir), "--iterations", "1",
                                 "--json"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    state_after_one = json.loads((run_dir / "checkpoint-1" / "spade_state.json").read_text())
    second = runner.invoke(main, ["selfplay", "--output", str(run_dir), "--resume", "--iterations", "2", "--json"],
                           catch_exceptions=False)
    assert second.exit_code == 0, second.output
    yield run_dir, state_after_one, json.loads(second.stdout)
    for env_id in set(gym.registry) - before:  # this run's suite, as a finished process would
        del gym.registry[env_id]


def test_metrics_written_per_iteration(run):
    run_dir, _, summary = run
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2]
    for row in rows:
        assert row["designed"] == 4
        assert row["tokens_designer"] > 0 and row["tokens_agent"] > 0
        assert isinstance(row["train_loss"], float) and "train_grad_norm" in row  # TRL's metrics reach the file
        for phase in ("design_s", "validate_s", "play_s", "update_s"):
            assert isinstance(row[phase], float) and row[phase] > 0, (phase, row[phase])  # every phase ran
    assert summary["iterations"] == 2


def test_policy_weights_change_exactly_when_there_is_signal(run):
    """GRPO moves the weights iff some group's rewards differ (beta=0, no weight decay):
    with identical rewards in every group the advantages, and so the update, are zero."""
    import torch
    from transformers import AutoModelForCausalLM

    run_dir, _, _ = run
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    signal = any(r["train_frac_reward_zero_std"] < 1 for r in rows)
    start = AutoModelForCausalLM.from_pretrained(run_dir / "warmstart").state_dict()
    final = AutoModelForCausalLM.from_pretrained(run_dir / "final").state_dict()
    changed = [name for name in start if not torch.equal(start[name], final[name])]
    assert bool(changed) == signal, (signal, changed[:3])


def test_checkpoint_resumes_where_it_stopped(run):
    run_dir, state_after_one, _ = run
    assert state_after_one["iteration"] == 1
    final_state = json.loads((run_dir / "checkpoint-2" / "spade_state.json").read_text())
    assert final_state["iteration"] == 2
    assert set(state_after_one["registered"]) <= set(final_state["registered"])
    trainer_state = json.loads((run_dir / "checkpoint-2" / "trainer_state.json").read_text())
    assert trainer_state["global_step"] == 2


def test_the_taught_program_is_registered_once(run):
    """The warm start taught one short program outside every suite: iteration 1 registers
    its reproduction, every later copy is refused as not new."""
    run_dir, _, summary = run
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert rows[0]["registered"] == ["spade/ModSum-v0"], rows[0]
    assert rows[1]["registered"] == []
    assert rows[1]["failed_checks"].get("novelty", 0) >= 1, rows[1]["failed_checks"]
    entries = Suite(run_dir / "suite").entries()
    assert [e.id for e in entries] == summary["registered"] == ["spade/ModSum-v0"]
    register_suite(run_dir / "suite")
    entry = entries[0]
    provenance = entry.card.provenance  # the designer model and the backend, nothing else
    assert provenance["designer"] == designer_label(provenance["model"], "self-play") and entry.card.hint
    assert {"regret", "win_rate", "win_rate_hint"} <= set(entry.card.stats)
    env = gym.make(entry.id)
    obs, _ = env.reset(seed=0)
    assert "modulo" in obs
    env.close()


def test_rejected_designs_are_kept_with_reports(run):
    run_dir, _, summary = run
    rejected = sorted((run_dir / "rejected").glob("*.report.json"))
    assert rejected and len(rejected) == len(list((run_dir / "rejected").glob("*.txt")))
    report = json.loads(rejected[-1].read_text())
    assert report["failed_check"] and report["failure"]


def test_model_cards_name_the_base_and_the_run(run):
    run_dir, _, _ = run
    for card in (run_dir / "final" / "README.md", run_dir / "README.md"):
        text = card.read_text()
        assert "[None]" not in text and "cpu-test" in text and "iterations: 2" in text


def test_report(run, tmp_path):
    run_dir, _, _ = run
    result = CliRunner().invoke(main, ["report", str(run_dir), "--out", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = (tmp_path / "summary.md").read_text()
    assert "| 1 | 4 |" in summary and "| 2 | 4 |" in summary


def test_existing_run_is_not_overwritten(run):
    run_dir, _, _ = run
    result = CliRunner().invoke(main, ["selfplay", "--preset", "cpu-test", "--output", str(run_dir)])
    assert result.exit_code == 1 and "not empty" in result.output


def test_resume_refuses_config_changes_and_names_them(run):
    run_dir, _, _ = run
    result = CliRunner().invoke(main, ["selfplay", "--output", str(run_dir), "--resume", "--set", "iterations=9"])
    assert result.exit_code == 1 and "would change it: iterations (2 -> 9)" in result.output, result.output
    result = CliRunner().invoke(main, ["selfplay", "--output", str(run_dir), "--resume", "--preset", "cpu-tiny"])
    assert result.exit_code == 1 and "agent_groups (1 -> 2)" in result.output and "more" in result.output


def test_resume_accepts_the_options_the_run_was_started_with(run):
    """The very --preset (and --set values) the run started with change nothing: no refusal."""
    from spade_gym.cli.selfplay_cmd import _refuse_changes_on_resume

    run_dir, _, _ = run
    _refuse_changes_on_resume(run_dir, "cpu-test", [])
    _refuse_changes_on_resume(run_dir, None, ["preset=cpu-test"])


def test_resume_needs_a_run(tmp_path):
    result = CliRunner().invoke(main, ["selfplay", "--output", str(tmp_path / "nothing"), "--resume"])
    assert result.exit_code == 1 and "nothing to resume" in result.output


def test_cpu_test_preset_runs_a_tool_use_iteration(tmp_path):
    """kind=tool-use: every design target is a tool-use skill, and the iteration trains end to end
    (the tiny model's designs are rejected, and kept with reports naming their tool-use skill)."""
    from spade_gym.generate.prompts import skill_by_name

    run_dir = tmp_path / "tools"
    result = CliRunner().invoke(main, ["selfplay", "--preset", "cpu-test", "--set", "kind=tool-use", "--set",
                                       "designer_targets=rotate", "--output", str(run_dir), "--iterations", "1",
                                       "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["iterations"] == 1 and summary["designed"] == 4
    reports = [json.loads(p.read_text()) for p in (run_dir / "rejected").glob("*.report.json")]
    assert len(reports) == summary["designed"] - summary["valid"]
    skills = {r["skill"] for r in reports} | {Suite(run_dir / "suite").entries()[i].card.skill
                                              for i in range(len(summary["registered"]))}
    assert skills and {skill_by_name(s).kind for s in skills} == {"tool-use"}, skills
    row = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    assert row["tokens_designer"] > 0 and isinstance(row["train_loss"], float)


def test_cpu_test_preset_trains_on_per_turn_samples(tmp_path):
    """sample_unit=turn: each agent task takes turn_samples GRPO groups; the iteration trains
    end to end through TRL with that fixed, group-aligned batch (padding slots included)."""
    run_dir = tmp_path / "turns"
    # per turn, max_episode_tokens bounds one turn's prompt plus reply (cpu-test's 96 bounds
    # the completion tokens of a whole episode: no first prompt fits in it; with the tiny
    # tokenizer the bundled environments' first prompts take up to ~1,400 tokens)
    result = CliRunner().invoke(main, ["selfplay", "--preset", "cpu-test", "--set", "sample_unit=turn", "--set",
                                       "turn_samples=3", "--set", "max_episode_tokens=2048", "--output", str(run_dir),
                                       "--iterations", "1", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    row = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    assert row["agent_samples"] == 1 * 3 * 4  # agent_groups x turn_samples x G
    assert 0 <= row["agent_padding_samples"] < row["agent_samples"]
    assert row["tokens_agent"] > 0 and isinstance(row["train_loss"], float)


def test_delayed_designs_are_trained_after_a_resume(tmp_path, monkeypatch, fresh_process_registry):
    """reward.designer_reward_delay=1 end to end through TRL: iteration 1's design samples go
    into checkpoint-1, and the resumed iteration 2 trains them (importance-corrected by the
    self-play trainer on this transformers path) on rewards scored with iteration 2's plays."""
    import spade_gym.validation.novelty as novelty
    from spade_gym.registry import bundled_suite_path
    from spade_gym.selfplay.rewards import RewardConfig, designer_reward, window_win_rate

    # Other runs in this process registered the taught program; here it is new (as in a fresh process).
    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])

    run_dir = tmp_path / "delayed"
    runner = CliRunner()
    first = runner.invoke(main, ["selfplay", "--preset", "cpu-test", "--set", "reward.designer_reward_delay=1",
                                 "--set", "reward.mode=paper", "--output", str(run_dir), "--iterations", "1",
                                 "--json"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    kept = json.loads((run_dir / "checkpoint-1" / "spade_state.json").read_text())["pending_designs"]
    samples = json.loads((run_dir / "checkpoint-1" / "spade_samples-rank0.json").read_text())
    assert [p["iteration"] for p in kept] == [p["iteration"] for p in samples] == [1] * 4
    assert all(len(p["logprobs"]) == len(p["completion_ids"]) for p in samples)
    assert any(p["env_id"] for p in kept)  # the taught program: scored by its plays, not the penalty
    second = runner.invoke(main, ["selfplay", "--output", str(run_dir), "--resume", "--iterations", "2", "--json"],
                           catch_exceptions=False)
    assert second.exit_code == 0, second.output
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["designer_trained_from"] for r in rows] == [None, 1]
    assert rows[0]["trained_designer_reward_mean"] is None  # nothing due at iteration 1: no designer loss
    state = json.loads((run_dir / "checkpoint-2" / "spade_state.json").read_text())
    assert [p["iteration"] for p in state["pending_designs"]] == [2] * 4
    config = RewardConfig(**json.loads((run_dir / "config.json").read_text())["reward"])
    expected = [designer_reward(False, config=config) if p["env_id"] is None else
                designer_reward(True, regret=p["regret"], config=config,
                                win_rate=window_win_rate(state["plays"], p["env_id"], since=1))
                for p, sample in zip(kept, samples) if sample["completion_ids"]]
    assert rows[1]["trained_designer_reward_mean"] == pytest.approx(sum(expected) / len(expected))


# ------------------------------------------------------------------ memory settings and recipe options

def _from_warm_start(run, target, **changes):
    """A new run directory that starts from the module run's warm start (its warmstart/ and
    config.json with ``changes``): ``--resume`` then runs its iterations from iteration 1."""
    import shutil

    run_dir, _, _ = run
    target.mkdir(parents=True)
    shutil.copytree(run_dir / "warmstart", target / "warmstart")
    config = json.loads((run_dir / "config.json").read_text())
    for key, value in changes.items():
        if isinstance(value, dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    (target / "config.json").write_text(json.dumps(config))
    return target


def _resume(run_dir, iterations: int) -> list[dict]:
    before = set(gym.registry)
    try:
        result = CliRunner().invoke(main, ["selfplay", "--output", str(run_dir), "--resume", "--iterations",
                                           str(iterations), "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    finally:
        for env_id in set(gym.registry) - before:  # a fresh process for the next run
            del gym.registry[env_id]
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


@pytest.fixture()
def novelty_against_the_bundled_suite(monkeypatch, fresh_process_registry):
    import spade_gym.validation.novelty as novelty
    from spade_gym.registry import bundled_suite_path

    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])


def test_token_budget_micro_batches_train_the_same_iteration(run, tmp_path, novelty_against_the_bundled_suite):
    """cpu-test's first iteration from the same warm start: as the preset batches it (one
    micro-batch of a rank's 8 samples), as TRL does with 8 micro-batches of one sample
    (per_device_train_batch_size=1), and with micro_batch_tokens + padding_free (8 micro-batches
    packed by length). The same designs, rewards and samples, finite losses and gradient norms
    of the same value; the same weights as TRL's 8 micro-batches. (Adam divides each gradient
    element by its own size, so float noise in near-zero elements moves a few weights by up to
    a step between 1 and 8 accumulation steps: TRL's own two batchings differ so too.) Designs
    sampled at 0.65: some valid, some not, so the designer's group has a signal and the update
    moves the weights (the run is seeded)."""
    import torch
    from transformers import AutoModelForCausalLM

    grpo = json.loads((run[0] / "config.json").read_text())["grpo"]
    runs = {"preset": {}, "trl": {"grpo": {**grpo, "per_device_train_batch_size": 1}},
            "packed": {"micro_batch_tokens": 2048, "padding_free": True}}
    rows = {name: _resume(_from_warm_start(run, tmp_path / name, designer_temperature=0.65, **changes), 1)[0]
            for name, changes in runs.items()}
    preset, packed = rows["preset"], rows["packed"]
    assert preset["train_frac_reward_zero_std"] < 1  # a group with different rewards: a real update
    for key in ("designed", "valid", "registered", "failed_checks", "designer_reward_mean", "agent_return_mean",
                "samples", "agent_samples", "tokens_designer", "tokens_agent"):
        assert packed[key] == preset[key], key
    # The first on-policy GRPO loss is zero up to float noise (the ratio is 1 and a group's
    # advantages sum to zero), so it compares on an absolute scale; the gradient norm is not.
    assert isinstance(packed["train_loss"], float) and packed["train_loss"] == pytest.approx(preset["train_loss"], abs=1e-6)
    assert isinstance(packed["train_grad_norm"], float)
    assert packed["train_grad_norm"] == pytest.approx(preset["train_grad_norm"], rel=1e-4)
    assert packed["micro_batch_tokens_max"] <= 2048 and packed["micro_batches_over_budget"] == 0
    weights = {name: AutoModelForCausalLM.from_pretrained(tmp_path / name / "final").state_dict() for name in runs}
    start = AutoModelForCausalLM.from_pretrained(tmp_path / "trl" / "warmstart").state_dict()
    assert any(not torch.equal(weights["trl"][k], start[k]) for k in start)  # the update moved the weights
    for key in start:
        torch.testing.assert_close(weights["packed"][key], weights["trl"][key], atol=1e-6, rtol=1e-4, msg=key)


def test_the_reference_recipe_options_run_end_to_end(run, tmp_path, novelty_against_the_bundled_suite):
    """Self-hint, designs every 2nd iteration, invalid designs dropped, the step-timeout penalty,
    scaled per-skill centred designer rewards and packed micro-batches, through TRL and a
    resume: iteration 1 designs (the policy also writes each hint; designs sampled at 0.65,
    some of them invalid, so some are dropped), iteration 2 does not; the resumed run ends as
    the same two iterations run without a stop do."""
    recipe = dict(designer_temperature=0.65, self_hint=True, self_hint_max_tokens=24, design_every=2,
                  micro_batch_tokens=2048, padding_free=True,
                  reward={"invalid_designs": "drop", "skill_centring": True, "scale_designer_rewards": True,
                          "step_timeout_penalty": -0.5})
    run_dir = _from_warm_start(run, tmp_path / "recipe", **recipe)
    _resume(run_dir, 1)
    rows = _resume(run_dir, 2)
    # the same two iterations without the stop: the options hold no state a checkpoint misses
    straight = _resume(_from_warm_start(run, tmp_path / "straight", **recipe), 2)
    keep = ("designed", "valid", "registered", "failed_checks", "regret_mean", "designer_reward_mean",
            "trained_designer_reward_mean", "dropped_designs", "designer_reward_scale", "agent_return_mean",
            "pool_size", "tokens_designer", "tokens_agent", "micro_batch_tokens_max")
    assert [{k: r.get(k) for k in keep} for r in rows] == [{k: r.get(k) for k in keep} for r in straight]
    assert [r["train_loss"] for r in rows] == pytest.approx([r["train_loss"] for r in straight], rel=1e-5, abs=1e-7)
    assert [r["iteration"] for r in rows] == [1, 2]
    assert [r["design_round"] for r in rows] == [True, False] and [r["designed"] for r in rows] == [4, 0]
    first, second = rows
    duplicates = first["failed_checks"].get("duplicate in batch", 0)
    assert first["dropped_designs"] == first["designed"] - first["valid"] - duplicates >= 1
    assert first["designer_reward_scale"] >= 1.0
    for row in rows:
        assert isinstance(row["train_loss"], float) and row["train_loss"] == row["train_loss"]  # finite, not NaN
        assert row["micro_batch_tokens_max"] > 0
