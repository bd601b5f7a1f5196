"""``tools_needed`` (issue 22 item 7): an answer the task states is fine when the answer alone
loses — a state-modification task names its target and still needs the tool calls."""

from __future__ import annotations

from testkit import PROGRAMS

from spade_gym.validation import ValidationConfig, validate_source

FUEL = (PROGRAMS / "tooluse_state" / "fuel_tank.py").read_text()
CONFIG = ValidationConfig(seeds=8, fuzz_examples=8, cost_samples=2, difficulty_seeds=2, long_run_resets=16)


def test_a_stated_answer_that_needs_the_state_change_is_accepted():
    report = validate_source(FUEL, config=CONFIG)
    check = report.check("tools_needed")
    assert check.passed, check.message


def test_the_same_task_without_the_state_check_is_still_rejected():
    """Its twin that accepts the stated number without the refuel: copying the task wins."""
    lazy = FUEL.replace("return (self._state[\"fuel\"][self._car] == self._needed) and super()._check_answer(answer)",
                        "return super()._check_answer(answer)")
    assert lazy != FUEL
    check = validate_source(lazy, config=CONFIG).check("tools_needed")
    assert not check.passed and "with no tool call, won" in check.message and "task text" in check.message
