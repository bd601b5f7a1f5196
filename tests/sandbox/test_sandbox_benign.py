"""Programs in the SPADE reference style run unchanged and pose exactly the tasks plain CPython poses."""

from __future__ import annotations

import json

import pytest
from plain_runner import play_steps
from testkit import BENIGN_DIR, plain_run

from spade_gym.sandbox import ProgramHandle

SPEC = {
    "seeds": [0, 1, 7, 123, 2024],
    "actions": ["\\boxed{north}", "hello", "\\boxed{42}", "\\boxed{gem,map}", "", "\\boxed{east}"],
}


def sandbox_run(source: str, spec: dict) -> list:
    out = []
    with ProgramHandle(source, kwargs=spec.get("kwargs")) as handle:
        for seed in spec["seeds"]:
            obs, info = handle.reset(seed=seed)
            solution = handle.solution()
            out.append({"reset": [obs, info], "solution": solution, "steps": play_steps(handle, spec["actions"])})
    return json.loads(json.dumps(out))


@pytest.mark.parametrize("path", sorted(BENIGN_DIR.glob("*.py")), ids=lambda p: p.stem)
def test_same_tasks_as_plain_cpython(path):
    sandboxed = sandbox_run(path.read_text(), SPEC)
    plain = plain_run(path, SPEC)
    assert sandboxed == plain


def test_fresh_worker_gives_same_task(benign_sources):
    source = benign_sources["rng_instance"]
    with ProgramHandle(source) as a, ProgramHandle(source) as b:
        assert a.reset(seed=5) == b.reset(seed=5)
        assert a.solution() == b.solution()
        assert a.reset(seed=6) != b.reset(seed=5)


def test_instances_in_one_worker_do_not_share_random_state(benign_sources):
    """A vector env keeps several instances in one worker; interleaving must not change tasks."""
    source = benign_sources["guess_number"]  # seeds the *global* random module
    with ProgramHandle(source, count=2) as both, ProgramHandle(source) as alone:
        both.reset(seed=11, index=0)
        both.reset(seed=99, index=1)  # would reseed a shared global generator
        alone.reset(seed=11)
        for guess in ("\\boxed{10}", "\\boxed{150}", "\\boxed{77}"):
            assert both.step(guess, index=0) == alone.step(guess)
        assert both.solution(index=0) == alone.solution()


def test_kwargs_reach_the_program_and_unknown_ones_are_dropped(benign_sources):
    with ProgramHandle(benign_sources["inventory_dataclasses"], kwargs={"difficulty": "hard"}) as h:
        obs, _ = h.reset(seed=3)
        assert obs.count("=") >= 9  # hard -> 9 items
    with ProgramHandle(benign_sources["guess_number"], kwargs={"max_turns": 3, "colour": "red"}) as h:
        assert h.info["dropped_kwargs"] == []  # NumberHuntEnv takes **kwargs
        assert h.info["max_turns"] == 3


def test_load_info_describes_the_program(benign_sources):
    with ProgramHandle(benign_sources["injected_names"]) as h:
        assert h.info["class_name"] == "WalkerEnv"
        assert h.info["has_solution"] and not h.info["has_hint"]
        assert len(h.info["sha256"]) == 64


def test_numpy_methods_with_lazy_internal_imports():
    """ndarray.max(), str(ndarray)... import numpy internals from C code through the
    program's import hook; they must behave exactly as under plain CPython."""
    path = BENIGN_DIR.parent / "compat" / "numpy_methods.py"
    spec = {"seeds": [0], "actions": []}
    sandboxed = sandbox_run(path.read_text(), spec)
    assert "Error" not in sandboxed[0]["reset"][0] and "not allowed" not in sandboxed[0]["reset"][0]
    assert sandboxed == plain_run(path, spec)
