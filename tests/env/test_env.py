"""SpadeEnv: a sandboxed program as a gymnasium.Env."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from testkit import BENIGN_DIR, GUESS_SOURCE

import spade_gym
from spade_gym import SpadeEnv, UnicodeText, privileged
from spade_gym.env.spade_env import ERROR_OBSERVATION

BROKEN_STEP = '''
class BrokenEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
    def reset(self, seed=None):
        return "start", {}
    def solution(self):
        return "1"
    def step(self, action):
        raise RuntimeError("designer bug in step")
'''

NEVER_ENDS = '''
class EndlessEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
    def reset(self, seed=None):
        return "start", {}
    def solution(self):
        return "1"
    def step(self, action):
        return "again", 0.0, False, False, {}
'''


@pytest.mark.parametrize("path", sorted(BENIGN_DIR.glob("*.py")), ids=lambda p: p.stem)
def test_check_env_passes(path):
    with SpadeEnv(path.read_text()) as env:
        check_env(env, skip_render_check=True)


def test_registered_env_passes_check_env_with_render(benign_suite):
    env = gym.make(benign_suite["EmojiTrail"], render_mode="ansi")
    check_env(env.unwrapped)
    env.close()


def test_reset_seeds_the_program_deterministically():
    with SpadeEnv(GUESS_SOURCE) as a, SpadeEnv(GUESS_SOURCE) as b:
        obs_a = a.reset(seed=42)
        obs_b = b.reset(seed=42)
        assert obs_a == obs_b
        assert privileged(a).solution() == privileged(b).solution()
        # a seeded env then gives a reproducible sequence of fresh tasks
        a.reset(seed=7)
        b.reset(seed=7)
        for _ in range(3):
            a.reset()
            b.reset()
            assert privileged(a).solution() == privileged(b).solution()


def test_no_seed_gives_fresh_tasks():
    with SpadeEnv(GUESS_SOURCE) as env:
        solutions = set()
        for _ in range(12):
            env.reset()
            solutions.add(privileged(env).solution())
    assert len(solutions) > 6


def test_same_task_in_another_process(benign_suite):
    env_id = benign_suite["NumberHunt"]
    suite_dir = gym.spec(env_id).kwargs["env_dir"].rsplit("/", 1)[0]
    code = (
        "import json, gymnasium as gym, spade_gym\n"
        f"spade_gym.register_suite({suite_dir!r})\n"
        f"env = gym.make({env_id!r})\n"
        "obs, info = env.reset(seed=99)\n"
        "print(json.dumps([obs, env.step('\\\\boxed{100}')[0]]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    env = gym.make(env_id)
    obs, _ = env.reset(seed=99)
    assert json.loads(out) == [obs, env.step("\\boxed{100}")[0]]
    env.close()


def test_info_tells_turns_never_the_solution():
    with SpadeEnv(GUESS_SOURCE) as env:
        obs, info = env.reset(seed=3)
        solution = privileged(env).solution()
        assert info["turn"] == 0 and info["remaining_turns"] == env.max_turns
        _, _, _, _, info = env.step("\\boxed{1}")
        assert info["turn"] == 1 and info["remaining_turns"] == env.max_turns - 1
        assert solution not in json.dumps(info)


def test_program_failure_truncates_without_penalty():
    with SpadeEnv(BROKEN_STEP) as env:
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step("\\boxed{1}")
        assert (obs, reward, terminated, truncated) == (ERROR_OBSERVATION, 0.0, False, True)
        assert info["error"]["kind"] == "program" and "designer bug" in info["error"]["message"]
        assert info["error"]["lineno"] == 10
        # the caller's loop just goes on
        assert env.reset(seed=1)[0] == "start"


def test_program_failure_in_reset_keeps_the_loop_alive():
    source = BROKEN_STEP.replace('return "start", {}', 'raise ValueError("bad reset")')
    with SpadeEnv(source) as env:
        obs, info = env.reset(seed=0)
        assert obs == ERROR_OBSERVATION and info["error"]["where"] == "reset"
        assert env.step("x")[3] is True


def test_turn_limit_safety_net():
    with SpadeEnv(NEVER_ENDS) as env:
        env.reset(seed=0)
        for _ in range(env.max_turns + 1):
            assert env.step("x")[3] is False
        _, _, _, truncated, info = env.step("x")
        assert truncated and info["truncated_by"] == "spade-gym turn limit"


def test_render_ansi_is_the_transcript():
    with SpadeEnv(GUESS_SOURCE, render_mode="ansi") as env:
        env.reset(seed=1)
        env.step("\\boxed{10}")
        text = env.render()
        assert "Number Hunt" in text and "\\boxed{10}" in text and "Reward: 0" in text


def test_close_stops_the_worker():
    env = SpadeEnv(GUESS_SOURCE)
    env.reset(seed=0)
    env.close()
    assert not env._handle.alive


def test_load_source_is_a_gymnasium_env_with_kwargs():
    env = spade_gym.load_source((BENIGN_DIR / "inventory_dataclasses.py").read_text(), difficulty="hard")
    assert isinstance(env, gym.Env)
    obs, _ = env.reset(seed=0)
    assert obs.count("=") >= 9
    env.close()


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_unicode_text_contains_any_string(text):
    assert UnicodeText(300).contains(text)
    assert not UnicodeText(len(text) - 1).contains(text) if text else True


def test_unicode_text_samples_are_contained_and_varied():
    space = UnicodeText(200, seed=0)
    samples = [space.sample() for _ in range(200)]
    assert all(space.contains(s) for s in samples)
    assert len(set(samples)) > 50
    assert any("\\boxed{" in s for s in samples) and any(not s.isascii() for s in samples)
