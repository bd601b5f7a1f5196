"""Resource attacks and hostile return values: always contained, host alive, worker replaced."""

from __future__ import annotations

import os
import time

import pytest
from hostile_shell import LOOP, SWALLOWING_LOOP, hostile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testkit import GUESS_SOURCE

from spade_gym.errors import (
    PolicyViolation,
    ProgramError,
    ProgramMemoryError,
    ProgramTimeout,
    ProtocolError,
    SandboxError,
)
from spade_gym.sandbox import Limits, ProgramHandle, diagnose
from spade_gym.sandbox.process.confine import WORKER_UID_BASE

FAST = Limits(call_timeout=1.0, load_timeout=2.0, kill_grace=0.5)



@pytest.mark.parametrize("where", ["prelude", "init", "reset", "step"])
def test_infinite_loops_time_out_everywhere(where):
    start = time.monotonic()
    if where in ("prelude", "init"):
        source = hostile(prelude=LOOP) if where == "prelude" else hostile(init=LOOP)
        with pytest.raises(ProgramTimeout):
            ProgramHandle(source, limits=FAST)
    else:
        with ProgramHandle(hostile(**{where: LOOP}), limits=FAST) as handle:
            if where == "step":
                handle.reset(seed=0)
                with pytest.raises(ProgramTimeout) as info:
                    handle.step("x")
            else:
                with pytest.raises(ProgramTimeout) as info:
                    handle.reset(seed=0)
            assert info.value.lineno is not None, "the line the loop was interrupted at"
    assert time.monotonic() - start < 15


def test_loop_that_swallows_the_interruption_is_killed():
    with ProgramHandle(hostile(step=SWALLOWING_LOOP), limits=FAST) as handle:
        handle.reset(seed=0)
        start = time.monotonic()
        with pytest.raises(ProgramTimeout):
            handle.step("x")
        assert time.monotonic() - start < FAST.call_timeout + FAST.kill_grace + 3
        # the next reset gets a fresh worker
        assert handle.reset(seed=0) == ("ready", {})
        assert handle.restarts == 1


def test_step_after_kill_requires_reset():
    with ProgramHandle(hostile(step=LOOP), limits=FAST) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProgramTimeout):
            handle.step("x")
        with pytest.raises(SandboxError, match="call reset"):
            handle.step("y")


def test_catastrophic_regex_in_c_code_is_killed():
    step = "import re\nre.match(r'(a+)+$', 'a' * 64 + 'b')"
    with ProgramHandle(hostile(prelude="import re", step=step.split("\n", 1)[1]), limits=FAST) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProgramTimeout):
            handle.step("x")


@pytest.mark.parametrize("bomb, errors", [
    ("x = bytearray(1 << 34)", ProgramMemoryError),
    ("x = [0] * (10 ** 10)", ProgramMemoryError),
    ("import numpy as np\nx = np.ones((1 << 17, 1 << 14))", ProgramMemoryError),
    # growth by doubling: which limit trips first (memory or the deadline) depends on the machine
    ("s = 'ab'\nwhile True:\n    s = s + s", (ProgramMemoryError, ProgramTimeout)),
])
def test_memory_bombs(bomb, errors):
    prelude = "import numpy as np" if "np." in bomb else ""
    body = bomb.replace("import numpy as np\n", "")
    with ProgramHandle(hostile(prelude=prelude, step=body), limits=FAST) as handle:
        handle.reset(seed=0)
        with pytest.raises(errors):
            handle.step("x")
        assert handle.reset(seed=0) == ("ready", {})


def test_recursion_bomb_is_a_program_error():
    prelude = "def down(n):\n    return down(n + 1)"
    with ProgramHandle(hostile(prelude=prelude, step="down(0)"), limits=FAST) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProgramError, match="RecursionError"):
            handle.step("x")


def test_raised_recursion_limit_is_capped():
    prelude = "import sys\ndef down(n):\n    return down(n + 1)"
    step = "sys.setrecursionlimit(10 ** 9)\ndown(0)"
    with ProgramHandle(hostile(prelude=prelude, step=step), limits=FAST) as handle:
        handle.reset(seed=0)
        with pytest.raises(SandboxError):  # RecursionError at the cap, never a hang
            handle.step("x")
        assert handle.reset(seed=0) == ("ready", {})


def test_print_flood_is_absorbed():
    step = "for i in range(200000):\n    print('spam' * 50, i)"
    with ProgramHandle(hostile(step=step)) as handle:
        handle.reset(seed=0)
        assert handle.step("x")[0] == "ok"


def test_oversized_observation_is_cut_with_a_visible_marker():
    """An echo of a 100k-character action must not cost the episode (issue 13 §3)."""
    step = "return 'Invalid guess: ' + action, 0.0, False, False, {}"
    with ProgramHandle(hostile(reset="return 'x' * 200000, {}", step=step)) as handle:
        obs, _ = handle.reset(seed=0)
        limit = Limits().max_observation_chars
        kept = obs.index("…")
        assert len(obs) == limit and obs == "x" * kept + f"… [truncated {200000 - kept} characters]"
        obs = handle.step("a" * 100_000)[0]
        assert len(obs) == limit and "[truncated " in obs and obs.startswith("Invalid guess: aaa")
    small = Limits(max_observation_chars=100)
    with ProgramHandle(hostile(reset="return 'y' * 101, {}"), limits=small) as handle:
        obs, _ = handle.reset(seed=0)
        assert obs == "y" * 73 + "… [truncated 28 characters]"  # 73 kept + 28 cut = 101
        assert len(obs) == 100


def test_oversized_exception_message_is_cut():
    with ProgramHandle(hostile(step="raise ValueError('E' * 10_000_000)")) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProgramError) as info:
            handle.step("x")
        assert len(str(info.value)) < 6000 and "more characters cut" in str(info.value)


HOSTILE_RETURNS = {
    "obs_not_str": ("return 42, 0.0, False, False, {}", "observation must be a str"),
    "four_tuple": ("return 'o', 0.0, False, {}", "must return (observation, reward"),
    "reward_nan": ("return 'o', float('nan'), False, False, {}", "must be finite"),
    "reward_inf": ("return 'o', float('inf'), False, False, {}", "must be finite"),
    "reward_text": ("return 'o', 'one', False, False, {}", "reward must be a number"),
    "flag_int": ("return 'o', 0.0, 1, False, {}", "terminated must be a bool"),
    "info_list": ("return 'o', 0.0, False, False, []", "info must be a dict"),
    "info_cycle": ("d = {}\nd['self'] = d\nreturn 'o', 0.0, False, False, d", "nested more than 32"),
    "info_huge": ("return 'o', 0.0, False, False, {'k': 'v' * 100000}", "bytes as JSON"),
    "generator": ("return (x for x in range(5))", "must return (observation, reward"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_RETURNS))
def test_hostile_return_values(name):
    step, message = HOSTILE_RETURNS[name]
    with ProgramHandle(hostile(step=step)) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProtocolError, match=message.replace("(", r"\(")):
            handle.step("x")


def test_hostile_dunder_methods_in_results_run_under_the_deadline():
    prelude = "class Evil(float):\n    def __float__(self):\n        while True:\n            pass"
    with ProgramHandle(hostile(prelude=prelude, step="return 'o', Evil(1.0), False, False, {}"),
                       limits=FAST) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProgramTimeout):
            handle.step("x")


def test_str_subclass_observation_is_copied_to_plain_str():
    prelude = "class Sly(str):\n    def __len__(self):\n        return 0"
    with ProgramHandle(hostile(prelude=prelude, reset="return Sly('hello'), {}")) as handle:
        obs, _ = handle.reset(seed=0)
        assert type(obs) is str and obs == "hello"


def test_process_layer_confinement():
    """What a program that escaped the language layer would find in its worker."""
    report = diagnose()
    facts = report["facts"]
    assert facts["environ"] == [], "no inherited environment (secrets)"
    assert facts["fork"].startswith("refused")
    assert all(v.startswith("refused") for v in facts["writes"].values())
    assert facts["rlimits"]["RLIMIT_FSIZE"] == [0, 0]
    assert facts["rlimits"]["RLIMIT_AS"][0] == Limits().memory_bytes
    assert facts["cwd_entries"] in ([], "error: Permission denied")
    if os.geteuid() == 0:
        assert facts["uid"] >= WORKER_UID_BASE and facts["gid"] == facts["uid"]
        assert report["hello"]["confinement"]["uid_isolation"] == "distinct uid per worker"


def test_secret_in_host_environment_is_not_inherited(monkeypatch):
    monkeypatch.setenv("SPADE_TEST_API_KEY", "sk-should-never-leak")
    from spade_gym.sandbox.process.host import Zygote

    Zygote.shutdown()  # a zygote started after the secret was set
    assert "SPADE_TEST_API_KEY" not in diagnose()["facts"]["environ"]


def test_many_handles_open_at_once():
    handles = [ProgramHandle(GUESS_SOURCE) for _ in range(24)]
    try:
        observations = {h.reset(seed=i)[0] for i, h in enumerate(handles)}
        assert len(observations) == 1  # same text, different hidden numbers
        assert len({h.solution() for h in handles}) > 10
    finally:
        for h in handles:
            h.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=st.text(max_size=3000))
def test_arbitrary_actions_never_break_the_host(action):
    handle = _shared_handle()
    handle.reset(seed=len(action))
    try:
        obs, reward, terminated, truncated, info = handle.step(action)
    except SandboxError:
        return  # reported, contained
    assert isinstance(obs, str) and isinstance(reward, float)


_HANDLE = []


def _shared_handle() -> ProgramHandle:
    if not _HANDLE:
        _HANDLE.append(ProgramHandle(GUESS_SOURCE))
    return _HANDLE[0]


def test_policy_violation_is_reported_not_raised_by_the_worker():
    with pytest.raises(PolicyViolation) as info:
        ProgramHandle("import socket\nclass XEnv:\n    pass\n")
    assert info.value.lineno == 1


def test_cpu_seconds_limit():
    """A busy loop longer than the CPU budget is stopped by the CPU limit, not only the deadline."""
    from spade_gym.errors import ProgramCPULimit

    limits = Limits(call_timeout=30.0, cpu_seconds_per_episode=1, kill_grace=1.0)
    with ProgramHandle(hostile(step="x = 0\nwhile True:\n    x += 1"), limits=limits) as handle:
        handle.reset(seed=0)
        start = time.monotonic()
        with pytest.raises(ProgramCPULimit):
            handle.step("x")
        assert time.monotonic() - start < 20
        assert handle.reset(seed=0) == ("ready", {})
