"""The design half of a self-play iteration, without a model: which designs are accepted,
registered once, rejected (and kept) — the decisions the designer's reward rests on."""

from __future__ import annotations

import random

import pytest

from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.selfplay.presets import load_preset
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS
from spade_gym.selfplay.progress import Progress
from spade_gym.selfplay.rewards import learning_potential
from spade_gym.selfplay.rollout import DesignResult, SpadeRollout
from spade_gym.selfplay.warmstart import designer_completion

MOD_SUM = DEMO_DESIGNS[0]


def design(text: str, index: int) -> DesignResult:
    return DesignResult("Mathematical Reasoning", False, text, index=index)


@pytest.fixture()
def rollout(tmp_path, monkeypatch):
    # Other tests in this process register run suites holding the demo programs; the
    # registered suites seen here are the bundled one only, so the outcome is this test's.
    import spade_gym.validation.novelty as novelty

    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])
    config = load_preset("cpu-test")
    config.validation_seeds = 4
    return SpadeRollout(config, tmp_path / "run", Suite(bundled_suite_path()).entries(), _state())


def _state():
    from spade_gym.selfplay.rollout import RunState

    return RunState()


def validate(rollout, designs):
    with Progress(enabled=False).phase("validating") as phase:
        rollout._validate_and_register(designs, 1, "test-model", random.Random(0), phase)
    return designs


def test_design_without_a_hint_is_rejected_and_kept(rollout):
    no_hint_source = MOD_SUM.source[:MOD_SUM.source.index("    def hint(self):")] + MOD_SUM.source[MOD_SUM.source.index("    def step(self"):]
    assert "def hint" not in no_hint_source
    text = f"```python\n{no_hint_source}\n```\n"  # no <hint> either
    (result,) = validate(rollout, [design(text, 0)])
    assert not result.valid and result.failed_check == "hint"
    assert result.reward == rollout.config.reward.invalid_penalty
    assert Suite(rollout.suite.path).entries() == []
    kept = sorted(p.name for p in rollout.rejected_dir.iterdir())
    assert kept == ["iter0001-rank0-000.report.json", "iter0001-rank0-000.txt"]


def test_copy_of_a_bundled_program_is_not_new(rollout):
    entry = Suite(bundled_suite_path()).entries()[0]
    renamed = "# designed in self-play\n" + entry.read_source().replace(entry.card.class_name, "FreshNameEnv")
    (result,) = validate(rollout, [design(designer_completion(renamed, entry.card.hint), 0)])
    assert not result.valid and result.failed_check == "novelty", result.failure
    assert rollout.suite.entries() == []


def test_copies_within_a_batch_register_once(rollout):
    original = designer_completion(MOD_SUM.source, MOD_SUM.hint)
    commented = designer_completion("# a comment makes the text differ\n" + MOD_SUM.source.replace(
        "self.mod = 7", "self.mod = 7  # default modulus"), MOD_SUM.hint)
    first, second = validate(rollout, [design(original, 0), design(commented, 1)])
    assert first.valid and first.env_id == "spade/ModSum-v0"
    assert not second.valid and second.duplicate_of == (0, 0)
    assert [e.id for e in rollout.suite.entries()] == ["spade/ModSum-v0"]
    # the next iteration's copy is not new either
    (again,) = validate(rollout, [design(original, 0)])
    assert not again.valid and again.failed_check == "novelty"


def test_learning_potential_prefers_the_frontier():
    assert learning_potential([1.0, 0.0] * 4) > learning_potential([1.0] * 7 + [0.0])
    assert learning_potential([1.0, 0.0]) > learning_potential([0.0] * 8) > 0
    assert learning_potential([]) == learning_potential([1.0, 0.0])  # unplayed counts as the frontier


# ---------------------------------------------------------------- the designer's reward and the frontier

def _registered_design(rollout):
    (result,) = validate(rollout, [design(designer_completion(MOD_SUM.source, MOD_SUM.hint), 0)])
    assert result.valid
    result.regret, result.win_rate_hint = 0.1, 1.0  # as the paired plays would have measured them
    return result


def test_win_rate_is_measured_over_the_last_k_iterations(rollout):
    """The plateau term and the cards (the frontier memory) read the environment's no-hint
    outcomes of the last reward.win_rate_window iterations, regret plays and agent tasks alike,
    not only the new environment's own paired plays."""
    import dataclasses

    from spade_gym.selfplay.rewards import designer_reward, plateau

    rollout.config.reward = dataclasses.replace(rollout.config.reward, mode="paper", win_rate_window=2)
    new = _registered_design(rollout)
    env_id = str(new.env_id)
    # iteration 1: its 4 paired no-hint plays lose, the agent tasks of the same iteration win 4 times
    rollout.regret_plays = [(env_id, 0.0)] * 4
    rollout._settle_designer_rewards([new], 1, [(env_id, 1.0)] * 4)
    assert new.win_rate == 0.5  # the paired plays alone would say 0.0
    assert new.reward == designer_reward(True, regret=0.1, win_rate=0.5, config=rollout.config.reward)
    assert plateau(0.5) == 1.0 and new.reward > designer_reward(True, regret=0.1, win_rate=0.0,
                                                                 config=rollout.config.reward)

    def card():
        return Suite(rollout.suite.path).get(env_id).card.stats

    assert card()["win_rate"] == 0.5 and card()["regret"] == 0.1 and card()["win_rate_plays"] == 8
    # iteration 2: agent tasks win twice more; the card follows (written from the committed
    # state when the next iteration starts), regret stays the design-time one
    rollout.regret_plays = []
    rollout._settle_designer_rewards([], 2, [(env_id, 1.0)] * 2)
    rollout._refresh_frontier()
    assert card()["win_rate"] == 0.6 and card()["regret"] == 0.1 and card()["win_rate_plays"] == 10
    # iteration 3: iteration 1 leaves the 2-iteration window
    rollout._settle_designer_rewards([], 3, [(env_id, 0.0)] * 2)
    rollout._refresh_frontier()
    assert card()["win_rate"] == 0.5 and card()["win_rate_plays"] == 4
    assert rollout.state.to_dict()["plays"][env_id] == [[2, 1.0], [2, 1.0], [3, 0.0], [3, 0.0]]


def test_designer_advantage_is_centred_per_skill(rollout):
    """reward.skill_centring: the designer's advantage is its reward minus the mean reward of
    the iteration's designs of its skill (the reference's baseline), not GRPO's per-group one."""
    import dataclasses

    new = _registered_design(rollout)
    broken = [DesignResult("Mathematical Reasoning", False, "no program", index=1, reward=-1.0),
              DesignResult("Spatial Reasoning", False, "no program", index=2, reward=-1.0),
              DesignResult("Spatial Reasoning", False, "no program", index=3, reward=0.5)]
    rollout.regret_plays = [(str(new.env_id), 1.0)] * 4
    rollout._settle_designer_rewards([new, *broken], 1, [])
    assert all(d.advantage is None for d in [new, *broken])  # off: TRL's per-group normalisation
    rollout.config.reward = dataclasses.replace(rollout.config.reward, skill_centring=True)
    rollout._settle_designer_rewards([new, *broken], 2, [])
    maths = (new.reward - 1.0) / 2
    assert new.advantage == pytest.approx(new.reward - maths)
    assert broken[0].advantage == pytest.approx(-1.0 - maths)
    assert [d.advantage for d in broken[1:]] == pytest.approx([-0.75, 0.75])
