"""Deployment monitors (issue 20): programs that behave during validation and misbehave
outside it are stopped where they run. Each hostile program below passes the checks
validation could make on the seeds it draws; the monitor sees the breach on the first
episode where it happens (or, for the task screen, once the rate is implausible).
Every hostile program is first shown to misbehave under plain CPython."""

from __future__ import annotations

import pytest
from plain_runner import load

from spade_gym import load_source
from spade_gym.env.monitor import (
    CONTRACT_ERROR_KIND,
    ScreenTally,
    forged_key,
    screen_verdict,
    upper_tail_bound,
    wilson_upper,
)
from spade_gym.env.vector import SpadeVectorEnv

# A counting game that turns hostile in one way, chosen by the class attribute MODE.
TEMPLATE = '''
class CountEnv:
    MODE = "{mode}"

    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        self.seed = seed or 0
        self.answer = str(100 + self.seed % 800)
        self.turn = 0
        return "Guess the secret number.", {{}}

    def step(self, action):
        self.turn += 1
        if action.strip() == "\\\\boxed{{" + self.answer + "}}":
            return "Right.", 1.0, True, False, {{}}
        if self.turn >= self.max_turns:
            return "Out of attempts.", (-1.0 if self.MODE == "penalty" else 0.0), True, False, {{}}
        reward = {{"range": 5.0, "spam": 1.0}}.get(self.MODE, 0.0)
        info = {{"forge": {{"error": "the agent broke the game"}}, "forge2": {{"Program_Error ": 1}},
                 "forge3": {{"truncated_by": "x"}}}}.get(self.MODE, {{}})
        return "Wrong.", reward, False, False, info

    def solution(self):
        return "\\\\boxed{{" + self.answer + "}}"
'''


def _plain_first_step(mode: str):
    env = load(TEMPLATE.format(mode=mode))()
    env.reset(seed=3)
    return env.step("\\boxed{0}")


@pytest.mark.parametrize("mode, rule", [("range", "reward-range"), ("spam", "win-reward-without-end"),
                                        ("forge", "host-key"), ("forge2", "host-key"), ("forge3", "host-key")])
def test_a_step_breaking_the_contract_ends_the_episode_and_the_env(mode, rule):
    _, reward, terminated, truncated, info = _plain_first_step(mode)
    assert (reward, terminated) != (0.0, False) or info  # the breach is real under plain CPython
    seen = []
    env = load_source(TEMPLATE.format(mode=mode), on_violation=seen.append)
    try:
        env.reset(seed=3)
        obs, reward, terminated, truncated, info = env.step("\\boxed{0}")
        assert truncated and not terminated and reward == 0.0
        assert info["error"]["kind"] == CONTRACT_ERROR_KIND and info["error"]["rule"] == rule, info
        assert [v.rule for v in seen] == [rule]
        obs, info = env.reset(seed=4)  # the program is not what validation accepted: no more episodes
        assert info["error"]["kind"] == CONTRACT_ERROR_KIND and "stopped" in info["error"]["message"]
        assert env.step("\\boxed{1}")[3] is True
    finally:
        env.close()


def test_a_lost_episode_that_punishes_the_agent_is_a_violation():
    env = load(TEMPLATE.format(mode="penalty"))()
    env.reset(seed=3)
    rewards = [env.step("\\boxed{0}")[1] for _ in range(6)]
    assert rewards[-1] == -1.0
    sandboxed = load_source(TEMPLATE.format(mode="penalty"))
    try:
        sandboxed.reset(seed=3)
        for _ in range(5):
            assert sandboxed.step("\\boxed{0}")[:4] == ("Wrong.", 0.0, False, False)
        _, reward, terminated, truncated, info = sandboxed.step("\\boxed{0}")
        assert info["error"]["rule"] == "lost-episode-penalty" and reward == 0.0 and truncated
    finally:
        sandboxed.close()


def test_a_sound_program_runs_many_episodes_without_a_violation():
    env = load_source(TEMPLATE.format(mode="sound"), screen_baseline=(0, 90))
    try:
        for seed in range(40):
            env.reset(seed=seed)
            for action in ("\\boxed{1}", "\\boxed{2}", f"\\boxed{{{100 + seed}}}"):
                _, _, terminated, truncated, info = env.step(action)
                assert "error" not in info, info
                if terminated or truncated:
                    break
            assert terminated
        assert env.monitor.violation is None
    finally:
        env.close()


def test_the_vector_env_monitors_each_sub_env():
    vec = SpadeVectorEnv(3, source=TEMPLATE.format(mode="spam"), num_workers=1)
    try:
        vec.reset(seed=0)
        _, rewards, terminations, truncations, infos = vec.step(["\\boxed{100}", "\\boxed{0}", "\\boxed{0}"])
        assert list(rewards) == [1.0, 0.0, 0.0] and list(terminations) == [True, False, False]
        assert list(truncations) == [False, True, True]
        assert list(infos["error"]["kind"][1:]) == [CONTRACT_ERROR_KIND] * 2  # gymnasium batches dict infos
    finally:
        vec.close()


# ----------------------------------------------------------------------------- the task screen

SCREEN = '''
class CodeEnv:
    def __init__(self, max_turns=4, **kwargs):
        self.max_turns = max_turns
        self.resets = 0

    def reset(self, seed=None):
        self.resets += 1
        self.code = str(1000 + (seed or 0) * 7919 % 9000)
        self.t = 0
        # validation-aware: the code is on the screen only for seeds validators rarely draw,
        # or once the env has been reset many times (validation resets a few times)
        rare = {rare}
        late = self.resets > {late}
        spelled = "-".join(self.code)
        return "Crack the code." + (f" (It is {{spelled}}.)" if rare or late else ""), {{}}

    def step(self, action):
        self.t += 1
        if "\\\\boxed{{" + self.code + "}}" in action:
            return "Open.", 1.0, True, False, {{}}
        return "Locked.", 0.0, self.t >= self.max_turns, False, {{}}

    def solution(self):
        return "\\\\boxed{{" + self.code + "}}"
'''


@pytest.mark.parametrize("rare, late", [("seed is not None and seed < 1000", "10**9"), ("False", "20")])
def test_a_screen_that_starts_naming_the_answer_is_caught(rare, late):
    source = SCREEN.format(rare=rare, late=late)
    plain = load(source)()
    assert "It is" in plain.reset(seed=5)[0] or late != "10**9"
    tally = ScreenTally()
    env = load_source(source, screen_baseline=(0, 96))
    env.monitor.tally = tally
    env.monitor.screen_sample_rate = 1.0  # every reset watched (the default watches an eighth)
    try:
        ended = None
        for seed in range(80):
            _, info = env.reset(seed=seed)
            if "error" in info:
                ended = (seed, info["error"])
                break
        assert ended is not None and ended[1]["rule"] == "screen-leak", ended
        # against 0 of 96 at validation: seven revealing episodes in a row suffice; a leak that starts
        # after 20 resets takes longer to stand out from the validated rate, but does
        assert ended[0] < 10 if late == "10**9" else 20 <= ended[0] < 60, ended
    finally:
        env.close()


def test_a_multiple_choice_screen_that_always_named_its_answer_is_not_flagged():
    assert screen_verdict(revealed=500, episodes=500, baseline=(96, 96)) is None
    assert screen_verdict(revealed=2, episodes=2, baseline=(0, 96)) is None  # too few to mean anything
    assert screen_verdict(revealed=4, episodes=4, baseline=(0, 96)) is None  # could be validation's bad luck
    assert screen_verdict(revealed=7, episodes=7, baseline=(0, 96)) is not None
    assert screen_verdict(revealed=60, episodes=100, baseline=(8, 16)) is None  # a 50% screen stays a 50% screen


def test_statistics_helpers():
    assert wilson_upper(0, 0) == 1.0
    assert 0.0 < wilson_upper(0, 96) < 0.12
    assert wilson_upper(96, 96) == pytest.approx(1.0)
    assert upper_tail_bound(1, 100, 0.5) == 1.0
    assert upper_tail_bound(90, 100, 0.1) < 1e-50


@pytest.mark.parametrize("key, forged", [("error", True), ("program_error", True), (" ERROR", True),
                                         ("Truncated_By", True), ("program_reward_out_of_range", True), ("ｅｒｒｏｒ", True),
                                         ("reward_out_of_range", False),  # the host's own mark
                                         ("errors_seen", False), ("turn", False), ("score", False)])
def test_forged_host_keys(key, forged):
    assert (forged_key({key: 1}) is not None) is forged


# ----------------------------------------------------------------------------- quarantine


def test_a_registered_program_that_breaks_the_contract_is_quarantined(tmp_path):
    import gymnasium as gym
    from click.testing import CliRunner
    from testkit import build_suite

    from spade_gym.cli import main
    from spade_gym.errors import QuarantinedError, SuiteWarning
    from spade_gym.registry import register_suite
    from spade_gym.registry.quarantine import mark_of

    source = TEMPLATE.format(mode="spam").replace("CountEnv", "SpamCountEnv")
    (entry,) = build_suite(tmp_path / "suite", {"spam": source})
    register_suite(tmp_path / "suite")
    env = gym.make(entry.id)
    try:
        env.reset(seed=1)
        with pytest.warns(SuiteWarning, match="quarantined"):
            info = env.step("\\boxed{0}")[4]
        assert info["error"]["rule"] == "win-reward-without-end"
    finally:
        env.close()
    assert mark_of(entry.card.sha256)["rule"] == "win-reward-without-end"
    with pytest.raises(QuarantinedError, match="quarantined"):
        gym.make(entry.id)
    with pytest.raises(QuarantinedError):
        gym.make_vec(entry.id, num_envs=2)
    listed = CliRunner().invoke(main, ["quarantine", "list"])
    assert entry.card.sha256[:12] in listed.output and entry.id in listed.output
    released = CliRunner().invoke(main, ["quarantine", "release", entry.card.sha256[:12]])
    assert released.exit_code == 0, released.output
    gym.make(entry.id).close()


def test_a_card_with_a_screen_baseline_turns_the_screen_monitor_on(tmp_path):
    """What gym.make builds: the card's validated screen rate is the monitor's baseline."""
    import gymnasium as gym
    from testkit import card_for

    from spade_gym.errors import QuarantinedError, SuiteWarning
    from spade_gym.registry import Suite, register_suite

    source = SCREEN.format(rare="seed is not None and seed < 1000", late="10**9").replace("CodeEnv", "LeakyCodeEnv")
    suite = Suite(tmp_path / "suite")
    entry = suite.add(source, card_for(source, name="LeakyCode", validation={"screen_reveals": [0, 16]}))
    register_suite(suite.path)
    env = gym.make(entry.id)
    env.unwrapped.monitor.screen_sample_rate = 1.0
    try:
        with pytest.warns(SuiteWarning, match="screen-leak"):
            for seed in range(40):
                if "error" in env.reset(seed=seed)[1]:
                    break
        assert env.unwrapped.monitor.violation.rule == "screen-leak"
    finally:
        env.close()
    with pytest.raises(QuarantinedError):
        gym.make(entry.id)


def test_the_screen_check_watches_a_random_share_of_resets():
    env = load_source(TEMPLATE.format(mode="sound").replace("CountEnv", "SampledCountEnv"), screen_baseline=(0, 96))
    env.monitor.tally = tally = ScreenTally()
    try:
        for seed in range(400):
            env.reset(seed=seed)
        watched = tally.add(env.monitor.program, False)[0] - 1
        assert 20 <= watched <= 90, watched  # an eighth of 400 is 50; a program cannot tell which
    finally:
        env.close()
