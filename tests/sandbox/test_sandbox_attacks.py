"""The attack corpus: each escape works under plain exec and is stopped by the sandbox."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from attacks import CANARY_VAR, ESCAPES, NEEDS_PACKAGE, PLAIN_EXEC_EXEMPT, program

from spade_gym.errors import PolicyViolation, ProgramError, SandboxError
from spade_gym.sandbox import ProgramHandle

CANARY = "canary-7f3a9c"


@pytest.fixture(scope="module")
def plain_results(tmp_path_factory) -> dict[str, str]:
    """Every attack run once under plain exec, each in its own empty directory."""
    attacks = []
    for name, (prelude, body, _kind) in ESCAPES.items():
        directory = tmp_path_factory.mktemp(f"plain-{name}")
        attacks.append({"name": name, "source": program(body, prelude), "dir": str(directory)})
    env = dict(os.environ, PYTHONHASHSEED="0", **{CANARY_VAR: CANARY})
    runner = Path(__file__).resolve().parents[1] / "support" / "plain_attack_runner.py"
    proc = subprocess.run([sys.executable, str(runner)], input=json.dumps(attacks), capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", sorted(set(ESCAPES) - PLAIN_EXEC_EXEMPT))
def test_attack_escapes_plain_exec(name, plain_results):
    """The attack is real: without the sandbox it gets out."""
    package = NEEDS_PACKAGE.get(name)
    if package and importlib.util.find_spec(package) is None:
        pytest.skip(f"the plain-exec proof of {name} needs {package}")
    assert plain_results[name].startswith("ESCAPED"), plain_results[name]


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_attack_contained_by_sandbox(name, tmp_path, monkeypatch):
    prelude, body, kind = ESCAPES[name]
    monkeypatch.setenv(CANARY_VAR, CANARY)
    monkeypatch.chdir(tmp_path)
    source = program(body, prelude)
    if kind == "policy":
        with pytest.raises(PolicyViolation) as info:
            ProgramHandle(source)
        assert info.value.lineno is not None, "policy errors must carry the program line"
        assert f"Line {info.value.lineno}" in str(info.value)
    else:
        handle = None
        with pytest.raises(SandboxError) as info:
            handle = ProgramHandle(source)  # module-level attacks fail while loading
            handle.reset(seed=0)
        assert isinstance(info.value, ProgramError), repr(info.value)
        assert "ESCAPED" not in str(info.value)
        assert CANARY not in str(info.value) and CANARY not in str(info.value.details)
        if handle is not None:
            # the worker survives a refused access: the program can be reset again
            with pytest.raises(ProgramError):
                handle.reset(seed=1)
            handle.close()
    assert list(tmp_path.iterdir()) == [], "nothing may be created on disk"


def test_policy_errors_name_every_violation_with_lines():
    source = "import os\nimport socket\nx = ().__class__.__mro__\n"
    with pytest.raises(PolicyViolation) as info:
        ProgramHandle(source)
    text = str(info.value)
    assert 'Line 1: import of "os"' in text
    assert 'Line 2: import of "socket"' in text
    assert "Line 3" in text and "__mro__" in text
    assert info.value.lineno == 1


def test_runtime_refusal_names_the_attribute():
    source = program("import random\nreturn random._inst, {}", "import random")
    with ProgramHandle(source) as handle, pytest.raises(ProgramError) as info:
        handle.reset(seed=0)
    assert "_inst" in str(info.value) and "in the sandbox" in str(info.value)
    assert info.value.lineno is not None
