"""The hint wrapper and privileged access."""

from __future__ import annotations

import gymnasium as gym
import pytest
from testkit import GUESS_SOURCE

from spade_gym import HintWrapper, SpadeEnv, privileged
from spade_gym.env import HintMode
from spade_gym.errors import ConfigError, SpadeError


def test_hint_appended_to_first_observation(benign_suite):
    env = gym.make(benign_suite["NumberHunt"], hint=True)
    obs, info = env.reset(seed=2)
    assert obs.endswith("\n\nHINT: Think step by step about the hidden rule.")
    assert info["hint"] == "Think step by step about the hidden rule."
    obs, *_ = env.step("\\boxed{5}")
    assert "HINT" not in obs
    env.close()


def test_hint_in_info_only(benign_suite):
    env = gym.make(benign_suite["NumberHunt"], hint="info")
    obs, info = env.reset(seed=2)
    assert "HINT" not in obs and info["hint"]
    env.close()


def test_program_hint_method_wins_over_card(benign_suite):
    env = gym.make(benign_suite["EmojiTrail"], hint=True)
    obs, info = env.reset(seed=4)
    assert info["hint"].startswith("The sequence has")
    assert obs.endswith(info["hint"])
    env.close()


def test_plain_env_has_no_hint_or_solution(benign_suite):
    env = gym.make(benign_suite["EmojiTrail"])
    obs, info = env.reset(seed=4)
    solution = privileged(env).solution()
    assert "hint" not in info and "HINT" not in obs
    assert all(solution not in str(v) for v in info.values())
    env.close()


def test_privileged_gives_solution_hint_and_card(benign_suite):
    env = gym.make(benign_suite["NumberHunt"])
    env.reset(seed=9)
    info = privileged(env)
    obs, reward, terminated, *_ = env.step("\\boxed{" + info.solution() + "}")
    assert reward == 1.0 and terminated
    assert info.hint() == info.card.hint
    env.close()


def test_privileged_refuses_other_envs():
    with pytest.raises(SpadeError):
        privileged(gym.make("CartPole-v1"))


def test_hint_wrapper_on_source_env_without_card():
    wrapped = HintWrapper(SpadeEnv(GUESS_SOURCE), where="observation")
    obs, info = wrapped.reset(seed=0)
    assert info["hint"] is None and "HINT" not in obs
    wrapped.close()


@pytest.mark.parametrize(("value", "mode"), [(False, HintMode.OFF), (None, HintMode.OFF), (True, HintMode.OBSERVATION),
                                             ("observation", HintMode.OBSERVATION), ("info", HintMode.INFO),
                                             (HintMode.INFO, HintMode.INFO)])
def test_hint_mode_parses_every_user_facing_value(value, mode):
    assert HintMode.parse(value) is mode
    assert bool(mode) == (mode is not HintMode.OFF)


@pytest.mark.parametrize("value", ["off", "Info", 1, 0, "", "yes"])
def test_hint_mode_refuses_other_values(value):
    with pytest.raises(ConfigError, match=r"hint must be False, True, 'observation' or 'info', got "):
        HintMode.parse(value)


def test_gym_make_takes_a_hint_mode(benign_suite):
    env = gym.make(benign_suite["NumberHunt"], hint=HintMode.INFO)
    obs, info = env.reset(seed=2)
    assert "HINT" not in obs and info["hint"] == "Think step by step about the hidden rule."
    env.close()
    plain = gym.make(benign_suite["NumberHunt"], hint=HintMode.OFF)
    obs, info = plain.reset(seed=2)
    assert "HINT" not in obs and "hint" not in info
    plain.close()
