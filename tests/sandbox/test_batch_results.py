"""A batch's results are typed (``Ok`` / ``Failed``) from the handle to every consumer, and a
batch that fails as a whole is a ``BatchFailed`` that names the calls it carried."""

from __future__ import annotations

import pickle
import random

import pytest

from spade_gym.errors import ProgramError, SandboxError, WorkerCrashed
from spade_gym.sandbox import ProgramHandle
from spade_gym.sandbox.call_results import Failed, Ok
from spade_gym.sandbox.wire import protocol
from spade_gym.sandbox.wire.replies import ResetResult, StepResult
from spade_gym.validation.baselines.zoo import FixedActions
from spade_gym.validation.episodes import BatchFailed, InFlight, Job, play

PICKY = '''
class PickyEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        self.seed = seed
        return f"task {seed}", {"seed": seed}

    def step(self, action):
        if action == "boom":
            raise ValueError("no boom here")
        return f"got {action}", 0.0, False, False, {}

    def solution(self):
        return "calm"
'''


def test_a_failed_call_is_failed_with_its_error_and_the_others_ok():
    with ProgramHandle(PICKY, count=2) as handle:
        results = handle.batch([protocol.Reset(0, 7), protocol.Reset(1, 8), protocol.Step(0, "calm"),
                                protocol.Step(1, "boom"), protocol.Solution(0)], timeout=30)
    assert [type(r) for r in results] == [Ok, Ok, Ok, Failed, Ok]
    first_reset, _, calm, boom, solution = results
    assert isinstance(first_reset, Ok) and first_reset.value == ResetResult("task 7", {"seed": 7})
    assert isinstance(calm, Ok) and calm.value == StepResult("got calm", 0.0, False, False, {})
    assert isinstance(boom, Failed) and isinstance(boom.error, ProgramError)
    assert "no boom here" in boom.error.message and boom.error.lineno == 12
    assert isinstance(solution, Ok) and solution.value == "calm"


def test_a_batch_that_fails_as_a_whole_names_its_calls_in_flight(monkeypatch):
    def crash(self, items, timeout=None):
        raise WorkerCrashed("the worker died (signal 9)", lineno=3)

    with ProgramHandle(PICKY, count=2) as handle:
        jobs = [Job(seed, "actions", FixedActions(random.Random(0), ["calm"]), first_solution=False)
                for seed in (11, 12)]
        real = ProgramHandle.batch
        calls = [0]

        def second_batch_crashes(self, items, timeout=None):
            calls[0] += 1
            return (crash if calls[0] == 2 else real)(self, items, timeout)

        monkeypatch.setattr(ProgramHandle, "batch", second_batch_crashes)
        with pytest.raises(BatchFailed) as raised:
            play(handle, jobs, max_steps=3, slots=2, timeout_for=lambda n: 30.0)
    failed = raised.value
    assert failed.in_flight == (InFlight(11, "step", "calm"), InFlight(12, "step", "calm"))
    # the batch's own error, as every SandboxError consumer reads it
    assert isinstance(failed, SandboxError) and isinstance(failed.error, WorkerCrashed)
    assert (failed.kind, failed.message, failed.lineno) == ("crash", "the worker died (signal 9)", 3)
    copy = pickle.loads(pickle.dumps(failed))
    assert copy.in_flight == failed.in_flight and copy.kind == "crash"


def test_the_validator_names_the_calls_in_flight_when_a_batch_fails(monkeypatch):
    from testkit import GUESS_SOURCE

    from spade_gym.validation import ValidationConfig, validate_source

    real = ProgramHandle.batch

    def crash_on_steps(self, items, timeout=None):
        if any(isinstance(item, protocol.Step) for item in items):
            self.close()
            raise WorkerCrashed("the worker died (signal 9)")
        return real(self, items, timeout)

    monkeypatch.setattr(ProgramHandle, "batch", crash_on_steps)
    report = validate_source(GUESS_SOURCE, config=ValidationConfig(seeds=4, seed=3, checks=("static", "load",
                                                                                          "non_triviality")))
    failure = report.failures[0]
    assert not report.valid and failure.details["kind"] == "crash", report.summary()
    assert "the worker died (signal 9)" in failure.message
    assert "(the calls in flight: seed " in failure.message and " step " in failure.message, failure.message
    assert failure.details["actions"], failure.details
