"""Self-play rewards and configuration (no torch needed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.errors import ConfigError
from spade_gym.selfplay import (
    RewardConfig,
    apply_overrides,
    designer_reward,
    episode_outcome,
    load_preset,
    paired_regret,
    plateau,
)
from spade_gym.selfplay.rewards import check_groups, group_key


def test_regret_pairs_seeds():
    with_hint = {1: 1.0, 2: 1.0, 3: 0.0}
    without = {1: 0.0, 2: 1.0, 4: 1.0}  # seed 3 and 4 were played in one arm only
    assert paired_regret(with_hint, without) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="both with and without"):
        paired_regret({1: 1.0}, {2: 0.0})


def test_invalid_programs_get_the_fixed_penalty():
    assert designer_reward(False) == -1.0
    assert designer_reward(False, config=RewardConfig(invalid_penalty=-0.25)) == -0.25


def test_pure_regret_and_floor():
    assert designer_reward(True, regret=-0.3) == pytest.approx(-0.3)
    assert designer_reward(True, regret=-0.3, config=RewardConfig(floor=True)) == 0.0
    with pytest.raises(ValueError):
        designer_reward(True, regret=None)


def test_plateau_shape():
    assert plateau(0.5) == 1.0 and plateau(0.4) == 1.0 and plateau(0.6) == 1.0
    assert plateau(0.15) == pytest.approx(0.0) and plateau(0.85) == pytest.approx(0.0)
    assert plateau(0.275) == pytest.approx(0.5) and plateau(0.0) == 0.0 and plateau(1.0) == 0.0


def test_paper_blend():
    config = RewardConfig(mode="paper")
    # regret 0.15 saturates the regret term; win rate 0.5 is on the plateau
    assert designer_reward(True, regret=0.15, win_rate=0.5, config=config) == pytest.approx(1.0)
    assert designer_reward(True, regret=0.075, win_rate=0.275, config=config) == pytest.approx(0.4 * 0.5 + 0.6 * 0.5)
    assert designer_reward(True, regret=-0.2, win_rate=0.9, config=config) == 0.0
    with pytest.raises(ValueError, match="win rate"):
        designer_reward(True, regret=0.1, config=config)


@given(st.floats(-1, 1), st.floats(0, 1))
def test_paper_blend_is_bounded(regret, win_rate):
    value = designer_reward(True, regret=regret, win_rate=win_rate, config=RewardConfig(mode="paper"))
    assert 0.0 <= value <= 1.0


def test_episode_outcome():
    assert episode_outcome([0.0, 0.0, 1.0], terminated=True) == 1.0
    assert episode_outcome([0.0, 1.0], terminated=False) == 0.0  # truncated: no outcome
    assert episode_outcome([2.5], terminated=True) == 1.0  # clamped
    assert episode_outcome([], terminated=True) == 0.0


def test_groups_must_be_contiguous():
    keys = [group_key("spade/A-v0", 1)] * 2 + [group_key("spade/B-v0", 7)] * 2
    check_groups(keys, 2)
    with pytest.raises(ValueError, match="mixes"):
        check_groups(keys[1:] + keys[:1], 2)
    with pytest.raises(ValueError, match="groups of"):
        check_groups(keys[:3], 2)


def test_presets_and_overrides():
    config = load_preset("cpu-tiny")
    assert config.batch_size == (config.designer_groups + config.agent_groups) * config.num_generations
    changed = apply_overrides(config, ["iterations=7", "reward.mode=paper", "warmstart.epochs=3", "grpo.bf16=false"])
    assert changed.iterations == 7 and changed.reward.mode == "paper" and changed.warmstart.epochs == 3
    assert changed.grpo["bf16"] is False
    for bad in (["nope=1"], ["reward.nope=1"], ["iterations"], ["num_generations=1"]):
        with pytest.raises(ConfigError):
            apply_overrides(config, bad)
    with pytest.raises(ConfigError, match="unknown preset"):
        load_preset("gpu-giant")
    assert load_preset("qwen3-8b").grpo["use_vllm"] is True


def test_floor_is_refused_where_it_would_do_nothing():
    import pytest

    with pytest.raises(ValueError, match="regret' only"):
        RewardConfig(mode="paper", floor=True)
    assert designer_reward(True, regret=-0.5, config=RewardConfig(floor=True)) == 0.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.floats(-1, 1)), max_size=20))
def test_skill_centring_zeroes_each_skills_mean(items):
    from spade_gym.selfplay.rewards import centre_per_skill

    centred = centre_per_skill(items)
    for skill in {s for s, _ in items}:
        assert sum(c for (s, _), c in zip(items, centred) if s == skill) == pytest.approx(0, abs=1e-9)
    # within a skill the order of rewards is kept
    assert all((a[1] - b[1]) * (ca - cb) >= -1e-12 for a, ca in zip(items, centred) for b, cb in zip(items, centred)
               if a[0] == b[0])


def test_plays_are_remembered_for_the_window_only():
    from spade_gym.selfplay.rewards import remember_plays, window_win_rate

    plays: dict = {}
    remember_plays(plays, 1, [("x", 1.0), ("y", 0.0)], window=2)
    remember_plays(plays, 2, [("x", 0.0)], window=2)
    assert window_win_rate(plays, "x") == 0.5 and window_win_rate(plays, "y") == 0.0
    remember_plays(plays, 3, [("x", 0.0)], window=2)
    assert window_win_rate(plays, "x") == 0.0 and window_win_rate(plays, "y") is None and "y" not in plays
    with pytest.raises(ValueError, match="win_rate_window"):
        RewardConfig(win_rate_window=0)


def test_window_win_rate_since_an_iteration():
    from spade_gym.selfplay.rewards import remember_plays, window_win_rate

    config = RewardConfig(win_rate_window=2, designer_reward_delay=3)
    assert config.plays_kept == 4  # a delayed design's plays from its own iteration on
    plays: dict = {}
    for iteration, outcome in enumerate([0.0, 1.0, 1.0, 1.0], start=1):
        remember_plays(plays, iteration, [("x", outcome)], config.plays_kept)
    assert window_win_rate(plays, "x") == 0.75 and window_win_rate(plays, "x", since=3) == 1.0
    with pytest.raises(ValueError, match="designer_reward_delay"):
        RewardConfig(designer_reward_delay=-1)


def test_delayed_designer_rewards_need_an_importance_correction():
    """Delayed design samples are off-policy: on its vLLM path TRL corrects them, which needs its
    correction on and per token (a program's sequence-level ratio would mask them all)."""
    for name in ("qwen3-8b", "qwen3-4b-tools"):
        preset = load_preset(name)
        assert preset.reward.designer_reward_delay == 4
        preset.validate()
    config = load_preset("cpu-test")
    config.reward = RewardConfig(designer_reward_delay=2)
    config.validate()  # the transformers path: the self-play trainer corrects them
    config.grpo = {"use_vllm": True, "vllm_importance_sampling_correction": False}
    config.designer_temperature = config.agent_temperature = config.temperature
    with pytest.raises(ConfigError, match="vllm_importance_sampling_correction"):
        config.validate()
    config.grpo = {"use_vllm": True}
    with pytest.raises(ConfigError, match="token_truncate"):
        config.validate()
    config.grpo["vllm_importance_sampling_mode"] = "token_truncate"
    config.validate()
    config.designer, config.designer_base_url, config.designer_model = "openai", "http://x", "m"
    config.grpo = {}
    config.validate()  # a served designer is not trained: nothing is delayed
