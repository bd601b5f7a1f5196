"""Isolation beyond the language layer: what a worker may read, what one instance may
change for another, and which deadlines bind (issue 11 items 1, 6, 8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import GUESS_SOURCE

from spade_gym.errors import ProgramTimeout
from spade_gym.sandbox import Limits, ProgramHandle

SRC = Path(__file__).resolve().parents[2] / "src"
FAST = Limits(call_timeout=1.0, load_timeout=2.0, kill_grace=0.5)

# ----------------------------------------------------------------------------- item 1: secrets

_SCRIPT = """
import json, os, sys
from spade_gym.sandbox import diagnose
here = os.path.dirname(os.path.abspath(__file__))
paths = [os.path.join(here, ".env"), os.path.join(os.getcwd(), "cwd-secret.txt"),
         os.path.join(os.environ["EXTRA_DIR"], "extra-secret.txt")]
print(json.dumps(diagnose(read=paths)["facts"]["reads"]))
"""


def test_worker_cannot_read_secrets_next_to_the_host_script(tmp_path):
    """A world-readable ``.env`` beside the user's script, a file in the host's working
    directory and one in another ``sys.path`` entry are all out of a worker's reach."""
    script_dir, cwd, extra = tmp_path / "project", tmp_path / "cwd", tmp_path / "extra"
    for directory in (script_dir, cwd, extra):
        directory.mkdir()
    secrets = {script_dir / ".env": "API_KEY=sk-secret", cwd / "cwd-secret.txt": "x", extra / "extra-secret.txt": "y"}
    for path, text in secrets.items():
        path.write_text(text)
        path.chmod(0o644)
    (script_dir / "train.py").write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{extra}", EXTRA_DIR=str(extra))
    proc = subprocess.run([sys.executable, str(script_dir / "train.py")], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    reads = json.loads(proc.stdout.strip().splitlines()[-1])
    for path in secrets:
        assert reads[str(path)].startswith("refused"), (path, reads)


def test_worker_read_paths_hold_only_the_runtime():
    from spade_gym.sandbox.process.paths import package_dir, worker_read_paths

    paths = worker_read_paths()
    assert package_dir() in paths
    assert os.getcwd() not in paths and str(Path(os.getcwd()).parent) not in paths
    assert str(SRC) not in paths, "the directory above the package may hold anything"


# ----------------------------------------------------------------------------- item 6: a fresh world

WORLD = '''
import copy
import decimal
import sys
import numpy as np

class WorldEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        if seed == 0:  # the first instance changes everything it can reach
            decimal.getcontext().prec = 5
            decimal.DefaultContext.prec = 7
            np.set_printoptions(precision=2)
            np.seterr(all="raise")
            sys.setrecursionlimit(200)
            copy.dispatch_table[WorldEnv] = lambda obj: (WorldEnv, ())
            np.sctypeDict["zzz"] = np.int8
        seen = {
            "decimal_prec": decimal.getcontext().prec,
            "default_prec": decimal.DefaultContext.prec,
            "third": str(decimal.Decimal(1) / decimal.Decimal(3)),
            "np_precision": np.get_printoptions()["precision"],
            "np_divide": np.geterr()["divide"],
            "recursion": sys.getrecursionlimit(),
            "dispatch": WorldEnv in copy.dispatch_table,
            "sctype": "zzz" in np.sctypeDict,
        }
        return repr(sorted(seen.items())), {}

    def solution(self):
        return "x"

    def step(self, action):
        return "o", 0.0, True, False, {}
'''


def test_each_instance_sees_a_fresh_world():
    with ProgramHandle(WORLD, count=2) as handle:
        changed = handle.reset(seed=0, index=0).observation
        fresh = handle.reset(seed=1, index=1).observation
        again = handle.reset(seed=1, index=0).observation
    assert "('decimal_prec', 5)" in changed and "('np_precision', 2)" in changed
    assert "('recursion', 200)" in again, "an instance keeps its own settings"
    expected = {"decimal_prec": 28, "default_prec": 28, "np_precision": 8, "np_divide": "'warn'",
                "dispatch": False, "sctype": False, "third": "'0.3333333333333333333333333333'"}
    for key, value in expected.items():
        assert f"('{key}', {value})" in fresh, (key, fresh)
    assert "('recursion', 200)" not in fresh


# ----------------------------------------------------------------------------- item 8: deadlines

SHELL = '''
import time

{prelude}

class SlowEnv:
{body}
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        return "ready", {{}}

    def solution(self):
        return "1"

    def step(self, action):
{step}
        return "ok", 0.0, False, False, {{}}
'''


def _program(prelude="", body="    pass", step="        pass") -> str:
    return SHELL.format(prelude=prelude, body=body, step=step)


def test_descriptor_read_at_load_runs_inside_the_timed_region():
    prelude = "class Slow:\n    def __get__(self, obj, owner=None):\n        while True:\n            pass"
    start = time.monotonic()
    with pytest.raises(ProgramTimeout) as info:
        ProgramHandle(_program(prelude, body="    hint = Slow()"), limits=FAST)
    assert info.value.lineno is not None, "interrupted inside the worker, at the program's line"
    assert time.monotonic() - start < FAST.load_timeout + FAST.kill_grace + 2


SWALLOW_THEN_RETURN = """\
        end = time.monotonic() + 1.3
        while time.monotonic() < end:
            try:
                while time.monotonic() < end:
                    pass
            except BaseException:
                pass"""


def test_swallowed_interruptions_cannot_extend_a_call():
    """A step that swallows every interruption and returns 0.3 s past its deadline (still
    inside the kill grace) is a timeout, not a late success."""
    with ProgramHandle(_program(step=SWALLOW_THEN_RETURN), limits=FAST) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProgramTimeout):
            handle.step("x")


SWALLOW_FOREVER = """\
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass"""


@pytest.mark.parametrize("how", ["step", "batch"])
def test_caller_timeout_is_a_hard_bound(how):
    limits = Limits(call_timeout=8.0, kill_grace=2.0)
    with ProgramHandle(_program(step=SWALLOW_FOREVER), limits=limits) as handle:
        handle.reset(seed=0)
        start = time.monotonic()
        with pytest.raises(ProgramTimeout):
            if how == "step":
                handle.step("x", timeout=0.4)
            else:
                handle.batch([{"i": 0, "action": "x"}], timeout=0.4)
        assert time.monotonic() - start < 3.0, "bounded by timeout=0.4, not by the 8 s call limit"
        assert not handle.alive


def test_timeout_bounds_a_restart_too():
    with ProgramHandle(GUESS_SOURCE) as handle:
        handle._worker.kill()
        start = time.monotonic()
        handle.reset(seed=1, timeout=30)  # restarts the worker inside the budget
        assert handle.restarts == 1 and time.monotonic() - start < 30
        with pytest.raises(ProgramTimeout, match="budget was spent"):
            handle.reset(seed=1, timeout=0)


# ----------------------------------------------------------------------------- item 9: seccomp, signals


def test_seccomp_is_an_allow_list_and_signals_reach_only_the_worker():
    from spade_gym.sandbox import diagnose

    report = diagnose(Limits(drop_privileges=False), signal_pids=[os.getpid(), 1])
    if not report["hello"]["confinement"]["seccomp"]:
        pytest.skip("seccomp is not available on this machine")
    facts = report["facts"]
    assert facts["getpriority"].startswith("refused"), "a harmless call outside the list is refused"
    assert facts["fork"].startswith("refused") and facts["socket"].startswith("refused")
    assert all(v.startswith("refused") for v in facts["signals"].values()), facts["signals"]


def _run_bpf(prog: list[bytes], arch: int, nr: int, arg0: int = 0) -> int:
    """A tiny classic-BPF interpreter for the filter's instruction subset."""
    import struct

    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0 & 0xFFFFFFFFFFFFFFFF, 0, 0, 0, 0, 0)
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = struct.unpack("=HBBI", prog[pc])
        if code == 0x20:
            acc = struct.unpack_from("=I", data, k)[0]
            pc += 1
        elif code == 0x15:
            pc += 1 + (jt if acc == k else jf)
        elif code == 0x35:
            pc += 1 + (jt if acc >= k else jf)
        elif code == 0x05:
            pc += 1 + k
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected BPF opcode {code:#x}")


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_seccomp_program_allows_the_list_and_self_signals_only(arch):
    from spade_gym.sandbox.process import confine

    prog = confine.seccomp_program(arch, 4242)
    audit = confine._AUDIT_ARCH[arch]
    allow, eperm = 0x7FFF0000, 0x00050000 | 1
    for name, nr in confine._ALLOWED_SYSCALLS[arch].items():
        assert _run_bpf(prog, audit, nr) == allow, name
    kill, tgkill = confine._SELF_SIGNAL_SYSCALLS[arch]["kill"], confine._SELF_SIGNAL_SYSCALLS[arch]["tgkill"]
    assert _run_bpf(prog, audit, kill, 4242) == allow
    assert _run_bpf(prog, audit, kill, 0) == allow
    assert _run_bpf(prog, audit, kill, 4243) == eperm
    assert _run_bpf(prog, audit, kill, -1) == eperm
    assert _run_bpf(prog, audit, tgkill, 4242) == allow and _run_bpf(prog, audit, tgkill, 1) == eperm
    denied = {"x86_64": {"socket": 41, "clone": 56, "execve": 59, "ptrace": 101, "pidfd_open": 434,
                         "pidfd_getfd": 438, "clone3": 435, "getpriority": 140, "x32_read": 0x40000000},
              "aarch64": {"socket": 198, "clone": 220, "execve": 221, "ptrace": 117, "pidfd_open": 434,
                          "pidfd_getfd": 438, "clone3": 435, "getpriority": 141}}[arch]
    for name, nr in denied.items():
        assert _run_bpf(prog, audit, nr) == eperm, name
    assert _run_bpf(prog, 0x40000003, 0) == 0x80000000, "a foreign architecture kills the process"


# ----------------------------------------------------------------------------- reported, not silent (issue 12 item 5)


def test_worker_hello_reports_each_protection_and_doctor_shows_it():
    with ProgramHandle(GUESS_SOURCE) as handle:
        confinement = handle.confinement
    assert set(confinement) >= {"pdeathsig", "no_new_privs", "landlock_abi", "seccomp", "uid_isolation", "uid"}
    assert type(confinement["no_new_privs"]) is bool and type(confinement["pdeathsig"]) is bool
    assert type(confinement["landlock_abi"]) is int and type(confinement["seccomp"]) is bool
    if sys.platform == "linux":
        assert confinement["no_new_privs"] and confinement["pdeathsig"], confinement

    from spade_gym.cli.doctor_cmd import collect

    report = collect()
    assert report["worker"]["seccomp"] == confinement["seccomp"]
    assert report["worker"]["landlock_abi"] == confinement["landlock_abi"]
    assert all(v.startswith("refused") for v in report["worker_can_write_files"].values())
