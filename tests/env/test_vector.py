"""Vectorisation: sync, async (gymnasium defaults) and the batched vector entry point agree."""

from __future__ import annotations

import multiprocessing as mp

import gymnasium as gym
import pytest
from gymnasium.vector.utils.shared_memory import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym import UnicodeText
from spade_gym.env.vector import SpadeVectorEnv

ACTIONS = ["\\boxed{pomme}", "\\boxed{kiwi}", "nothing", "\\boxed{limón}", "\\boxed{trauben}", "\\boxed{さくらんぼ}"]


def rollout(env, steps=8):
    observations = []
    obs, _ = env.reset(seed=5)
    observations.append(tuple(obs))
    for t in range(steps):
        obs, rewards, terms, truncs, infos = env.step([ACTIONS[(t + i) % len(ACTIONS)] for i in range(env.num_envs)])
        observations.append((tuple(obs), tuple(rewards), tuple(terms), tuple(truncs)))
    env.close()
    return observations


@pytest.mark.parametrize("mode", ["sync", "async", "vector_entry_point"])
def test_make_vec_with_default_arguments(mode, benign_suite):
    env_id = benign_suite["EmojiTrail"]  # observations full of emoji, accents, CJK, newlines
    reference = rollout(gym.make_vec(env_id, num_envs=4, vectorization_mode="sync"))
    got = rollout(gym.make_vec(env_id, num_envs=4, vectorization_mode=mode))
    assert got == reference
    assert any(not o.isascii() for o in reference[0])


def test_default_mode_is_the_batched_vector_env(benign_suite):
    env = gym.make_vec(benign_suite["EmojiTrail"], num_envs=3)
    assert isinstance(env.unwrapped, SpadeVectorEnv)
    env.close()


def test_async_observations_are_not_stale(benign_suite):
    """gymnasium's Text shared memory returns the construction-time strings forever."""
    env = gym.make_vec(benign_suite["NumberHunt"], num_envs=2, vectorization_mode="async")
    first, _ = env.reset(seed=1)
    second, *_ = env.step(["\\boxed{1}", "\\boxed{2}"])
    assert first != second and all(o.startswith("Wrong") for o in second)
    env.close()


def test_batched_vector_env_autoresets_next_step(benign_suite):
    env = gym.make_vec(benign_suite["NumberHunt"], num_envs=2, num_workers=1)
    obs, _ = env.reset(seed=0)
    done_seen = False
    for _ in range(12):
        obs, rewards, terms, truncs, infos = env.step(["\\boxed{7}", "\\boxed{8}"])
        if done_seen:
            assert obs[0].startswith("Number Hunt")  # the step after the end is a reset
            break
        done_seen = bool(truncs[0] or terms[0])
    assert done_seen
    env.close()


def test_vector_worker_failure_truncates_its_episodes():
    source = '''
class FlakyEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.n = 0
    def reset(self, seed=None):
        self.seed = seed
        return "go", {}
    def solution(self):
        return "1"
    def step(self, action):
        if action == "crash":
            raise ZeroDivisionError("flaky")
        return "ok", 0.0, False, False, {}
'''
    env = SpadeVectorEnv(3, source=source, num_workers=1)
    env.reset(seed=0)
    obs, rewards, terms, truncs, infos = env.step(["fine", "crash", "fine"])
    assert list(truncs) == [False, True, False]
    assert obs[1].startswith("[The environment failed") and list(rewards) == [0.0, 0.0, 0.0]
    assert "flaky" in infos["error"]["message"][1] and infos["_error"].tolist() == [False, True, False]
    obs, *_ = env.step(["fine", "fine", "fine"])
    assert obs[1] == "go"  # autoreset
    env.close()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=4))
def test_shared_memory_roundtrip_any_unicode(values):
    space = UnicodeText(40)
    memory = create_shared_memory(space, n=len(values), ctx=mp.get_context())
    view = read_from_shared_memory(space, memory, n=len(values))
    for i, value in enumerate(values):
        write_to_shared_memory(space, i, value, memory)
    assert tuple(view) == tuple(values)
