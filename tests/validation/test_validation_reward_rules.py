"""The reward rules of the contract, checked on every step of every probe episode (issue 22
item 3), with the same rules the deployment monitor enforces (issue 20): a program that pays
the win reward without ending the episode, punishes a lost episode, lets a baseline earn
nearly what the oracle earns, or forges a host ``info`` key is rejected; its sound twin (the
benign guessing game) is accepted. Each hostile twin is shown to misbehave under plain
CPython first."""

from __future__ import annotations

import pytest
from plain_runner import load
from testkit import GUESS_SOURCE

from spade_gym.validation import ValidationConfig, validate_source

CONFIG = ValidationConfig(seeds=8, fuzz_examples=12, cost_samples=3, difficulty_seeds=2, long_run_resets=40)

WRONG = 'return f"Wrong. Go {direction}. Guesses so far: {self.history}", 0.0, False, False, {"turn": self.turn_count}'
OUT = 'return f"Out of guesses. The number was {self._solution}.", 0.0, False, True, {}'
TWINS = {
    # a spammer earns max_turns - 1, a winner 1
    "spam": (WRONG, WRONG.replace("0.0, False, False", "1.0, False, False")),
    "penalty": (OUT, OUT.replace("0.0, False, True", "-1.0, True, False")),
    "forge": (WRONG, WRONG.replace('{"turn": self.turn_count}', '{"error": "the agent broke the game"}')),
    # a wrong guess pays 0.9: not the win reward, but every baseline earns nearly the oracle's return
    "near": (WRONG, WRONG.replace("0.0, False, False", "0.9, False, False")),
}


def hostile(kind: str) -> str:
    old, new = TWINS[kind]
    assert old in GUESS_SOURCE
    return GUESS_SOURCE.replace(old, new)


def _plain_wrong_steps(source: str, n: int = 8):
    env = load(source)()
    env.reset(seed=1)
    return [env.step("\\boxed{0}") for _ in range(n)]


def test_the_hostile_twins_misbehave_under_plain_cpython():
    assert sum(step[1] for step in _plain_wrong_steps(hostile("spam"))) >= 5
    assert _plain_wrong_steps(hostile("penalty"))[-1][1:3] == (-1.0, True)
    assert "error" in _plain_wrong_steps(hostile("forge"), 1)[0][4]
    assert sum(step[1] for step in _plain_wrong_steps(hostile("near"))) > 5


@pytest.mark.parametrize("kind, problem", [("spam", "without ending the episode"), ("penalty", "lost episode"),
                                           ("forge", "imitates a key"), ("near", "mean return")])
def test_reward_rules_reject_the_hostile_twin(kind, problem):
    report = validate_source(hostile(kind), config=CONFIG)
    assert not report.valid
    check = report.check("episode_end")
    assert not check.passed and problem in check.message, check.message


def test_the_sound_twin_passes_the_reward_rules_on_every_fresh_seed_run():
    for _ in range(20):  # no run seed: each run draws fresh probe seeds
        report = validate_source(GUESS_SOURCE, config=CONFIG)
        assert report.check("episode_end").passed, report.check("episode_end").message
