"""Failures while closing are reported, never swallowed: the work already done is kept, and
whoever reads the result learns what failed."""

from __future__ import annotations

import gymnasium as gym
import pytest
from testkit import GUESS_SOURCE

from spade_gym.agents import EpisodeSpec, RandomAgent, play_episodes
from spade_gym.env.spaces import UnicodeText
from spade_gym.sandbox import ProgramHandle
from spade_gym.validation import ValidationConfig, validate_source


class CloseFails(gym.Env):
    """A one-turn text env whose close() raises."""

    observation_space = UnicodeText(100)
    action_space = UnicodeText(100)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return "Say anything.", {}

    def step(self, action):
        return "Done.", 0.0, True, False, {}

    def close(self):
        raise OSError("the log disk is full")


def test_a_failing_env_close_keeps_the_episodes_and_warns():
    specs = [EpisodeSpec("test/CloseFails-v0", seed, make=CloseFails) for seed in (1, 2)]
    with pytest.warns(RuntimeWarning, match="OSError: the log disk is full"):
        episodes = play_episodes(RandomAgent(seed=0), specs)
    assert [e.spec.seed for e in episodes] == [1, 2] and all(len(e.turns) == 1 for e in episodes)


def test_a_failing_worker_close_is_listed_in_the_validation_report(monkeypatch):
    real_close = ProgramHandle.close

    def close_then_fail(self):
        real_close(self)
        raise RuntimeError("socket already gone")

    monkeypatch.setattr(ProgramHandle, "close", close_then_fail)
    report = validate_source(GUESS_SOURCE, config=ValidationConfig(seeds=4, seed=3))
    assert report.checks, report.summary()
    assert any("closing a probe worker failed: RuntimeError: socket already gone" in w for w in report.warnings)
