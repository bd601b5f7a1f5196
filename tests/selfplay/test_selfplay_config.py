"""``selfplay --set``: every override is checked against the config's types and choices
and refused with one line, never a traceback (and never silently accepted)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.cli import main
from spade_gym.errors import ConfigError
from spade_gym.selfplay.overrides import apply_overrides
from spade_gym.selfplay.presets import load_preset

REFUSED = {
    "iterations=abc": "expected a whole number",
    "iterations=1.5": "expected a whole number",
    "reward.mode=bogus": "choose one of regret, paper",
    "designer_prompt=huge": "choose one of full, compact",
    "warmstart.enabled=maybe": "expected true or false",
    "temperature=nan": "expected a finite number",
    "temperature=0": "must be > 0",
    "iteratons=3": "did you mean iterations",
    "reward=3": "is a section",
    "nosuch.field=1": "not a config section",
    "skills=Juggling": "Juggling",
    "iterations": "expected KEY=VALUE",
}


@pytest.mark.parametrize("override", sorted(REFUSED))
def test_bad_override_is_one_line_error(override, tmp_path):
    result = CliRunner().invoke(main, ["selfplay", "--output", str(tmp_path / "r"), "--set", override,
                                       "--show-config"])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # a clean exit, not an escaped exception
    assert REFUSED[override] in result.output
    assert "Traceback" not in result.output


def test_good_overrides_take_their_type():
    config = apply_overrides(load_preset("cpu-test"), [
        "iterations=5", "reward.mode=paper", "reward.regret_scale=0.2", "temperature=0.7", "regret_temperature=null",
        "skills=Logical Deduction", "grpo.bf16=false", "warmstart.epochs=3"])
    assert config.iterations == 5 and isinstance(config.iterations, int)
    assert config.reward.mode == "paper" and config.reward.regret_scale == 0.2
    assert config.temperature == 0.7 and config.regret_temperature is None
    assert config.skills == ("Logical Deduction",) and config.grpo["bf16"] is False
    assert config.warmstart.epochs == 3


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(["iterations", "temperature", "reward.mode", "warmstart.enabled", "paired_seeds",
                            "reward.regret_scale", "designer_targets"]),
       value=st.text(max_size=12))
def test_any_value_is_typed_or_refused_cleanly(key, value):
    try:
        config = apply_overrides(load_preset("cpu-test"), [f"{key}={value}"])
    except ConfigError:
        return
    section, _, name = key.rpartition(".")
    got = getattr(getattr(config, section) if section else config, name)
    expected = type(getattr(getattr(load_preset("cpu-test"), section) if section else load_preset("cpu-test"), name))
    assert isinstance(got, expected) or (expected is float and isinstance(got, (int, float)))


def test_floor_with_the_paper_blend_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["selfplay", "--output", str(tmp_path / "r"), "--set", "reward.mode=paper",
                                       "--set", "reward.floor=true", "--show-config"])
    assert result.exit_code == 1 and "applies to mode 'regret' only" in result.output


def test_kind_chooses_the_skills():
    from spade_gym.generate.prompts import skill_by_name

    games = apply_overrides(load_preset("cpu-test"), ["kind=game"]).skill_names()
    tools = apply_overrides(load_preset("cpu-test"), ["kind=tool-use"]).skill_names()
    mix = apply_overrides(load_preset("cpu-test"), ["kind=mix"]).skill_names()
    assert {skill_by_name(s).kind for s in games} == {"game"}
    assert {skill_by_name(s).kind for s in tools} == {"tool-use"}
    assert [skill_by_name(s).kind for s in mix[:4]] == ["game", "tool-use", "game", "tool-use"]
    with pytest.raises(ConfigError, match="not tool-use ones"):
        apply_overrides(load_preset("cpu-test"), ["kind=tool-use", "skills=Logical Deduction"])


def test_tool_use_gpu_presets_design_tool_use_environments():
    from spade_gym.generate.prompts import skill_by_name

    for size in ("4b", "8b", "30b-a3b"):
        tools, games = load_preset(f"qwen3-{size}-tools"), load_preset(f"qwen3-{size}")
        assert tools.kind == "tool-use" and tools.preset == f"qwen3-{size}-tools"
        assert {skill_by_name(s).kind for s in tools.skill_names()} == {"tool-use"}
        # everything but the kind is the game recipe
        assert (tools.model, tools.temperature, tools.grpo, tools.sharding, tools.vllm_tensor_parallel) == \
            (games.model, games.temperature, games.grpo, games.sharding, games.vllm_tensor_parallel)


def test_removed_hint_temperature_is_refused_with_its_replacement():
    """A config.json from before regret's arms shared one temperature."""
    from spade_gym.selfplay.config import SelfPlayConfig

    data = load_preset("qwen3-4b").to_dict()
    data.pop("regret_temperature")
    assert SelfPlayConfig.from_dict({**data, "hint_temperature": None}).regret_temperature is None
    with pytest.raises(ConfigError, match="hint_temperature=0.3 is no longer a setting.*regret_temperature"):
        SelfPlayConfig.from_dict({**data, "hint_temperature": 0.3})


def test_checkpoints_every_few_iterations_on_gpu():
    for name in ("qwen3-4b", "qwen3-8b", "qwen3-4b-tools"):
        config = load_preset(name)
        assert config.save_steps > 1 and config.save_total_limit == 2
    assert load_preset("cpu-test").save_steps == 1
    config = apply_overrides(load_preset("cpu-test"), ["save_steps=3", "save_total_limit=null"])
    assert (config.save_steps, config.save_total_limit) == (3, None)


@pytest.mark.parametrize("override, message", [
    ("save_steps=0", "save_steps must be >= 1"),
    ("save_total_limit=1", "save_total_limit must be >= 2"),
    ("grpo.save_steps=4", "set save_steps=4 instead"),
    ("grpo.save_strategy=epoch", "a checkpoint is what commits an iteration"),
])
def test_checkpoint_settings_are_checked(override, message):
    with pytest.raises(ConfigError, match=message):
        apply_overrides(load_preset("cpu-test"), [override])
