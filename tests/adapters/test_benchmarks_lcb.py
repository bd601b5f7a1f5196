"""LiveCodeBench envs (spade/lcb-*): fixture problems, the verdict rules, and hostile programs in the sandbox."""

from __future__ import annotations

import base64
import json
import os
import pickle
import socket
import subprocess
import sys
import time
import zlib

import gymnasium as gym
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from spade_gym import privileged
from spade_gym.adapters import datafiles
from spade_gym.adapters.benchmarks import register_benchmarks
from spade_gym.adapters.datafiles import BenchmarkDataError
from spade_gym.adapters.livecodebench import (
    CodeProblem,
    CodeTest,
    decode_tests,
    extract_program,
    judge,
    result_matches,
    stdout_matches,
)
from spade_gym.cli import main

SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
APPEND = "class Solution:\n    def append(self, nums, x):\n        return tuple(nums + [x])  # tuples count as lists\n"


def lcb_encoded(tests: list[dict]) -> str:
    """LiveCodeBench's encoding of private tests: base64(zlib(pickle(JSON text)))."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode()


LCB_ROWS = [
    {"question_id": "abc001_a", "question_title": "Sum", "platform": "atcoder", "difficulty": "easy",
     "question_content": "Read two integers A and B and print A+B.", "starter_code": "",
     "public_test_cases": json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]),
     "private_test_cases": lcb_encoded([{"input": "10 -4\n", "output": "6\n", "testtype": "stdin"},
                                        {"input": "1000000000000 1\n", "output": "1000000000001", "testtype": "stdin"}]),
     "metadata": "{}", "solution": SUM},
    {"question_id": "3001", "question_title": "Append", "platform": "leetcode", "difficulty": "easy",
     "question_content": "Return nums with x appended.",
     "starter_code": "class Solution:\n    def append(self, nums: List[int], x: int) -> List[int]:\n        ",
     "public_test_cases": json.dumps([{"input": "[1, 2]\n3", "output": "[1, 2, 3]", "testtype": "functional"}]),
     "private_test_cases": json.dumps([{"input": "[]\n0", "output": "[0]", "testtype": "functional"}]),
     "metadata": json.dumps({"func_name": "append"}), "solution": APPEND},
]


@pytest.fixture()
def lcb_dir(tmp_path, monkeypatch):
    (tmp_path / "lcb-v6.jsonl").write_text("".join(json.dumps(r) + "\n" for r in LCB_ROWS))
    monkeypatch.setenv(datafiles.DATA_DIR_ENV, str(tmp_path))
    register_benchmarks()
    return tmp_path


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```\n"


def test_oracle_programs_pass_and_wrong_programs_fail(lcb_dir):
    env = gym.make("spade/lcb-v6-v0", timeout=2.0)
    obs, info = env.reset(seed=0)
    assert "standard input" in obs and "```python" not in obs.split("Read two")[0]
    solution = privileged(env).solution()
    obs, reward, terminated, _, info = env.step(solution)
    assert (reward, terminated, info["tests"], info["tests_passed"]) == (1.0, True, 3, 3), info
    assert info["confinement"]["seccomp"] in (True, False) and "landlock_abi" in info["confinement"]
    env.reset(seed=0)
    obs, reward, _, _, info = env.step(fenced("a, b = map(int, input().split())\nprint(a - b)"))
    assert reward == 0.0 and info["failed"]["test"] == 0 and info["failed"]["reason"] == "wrong answer"
    env.reset(seed=0)
    # passes the public test only: the private ones decide
    obs, reward, _, _, info = env.step(fenced("input()\nprint(3)"))
    assert reward == 0.0 and info["failed"] == dict(info["failed"], test=1, public=False)
    assert "6" not in obs and "10 -4" not in obs  # a private test's input and output stay private
    obs, _ = env.reset(seed=1)
    assert "class Solution" in obs and "Solution()" in obs
    assert env.step(privileged(env).solution())[1] == 1.0
    env.reset(seed=1)
    assert env.step(fenced("class Solution:\n    def append(self, nums, x):\n        return nums"))[1] == 0.0
    env.reset(seed=1)
    assert env.step("I would rather not.")[1] == 0.0  # no program: the text itself fails to run
    env.close()


@pytest.mark.filterwarnings("ignore::spade_gym.adapters.benchmarks.BenchmarkDataWarning")  # v5: no file here
def test_eval_plays_livecodebench_from_its_file(lcb_dir, tmp_path):
    out = tmp_path / "lcb.json"
    result = CliRunner().invoke(main, ["eval", "--agent", "oracle", "--envs", "spade/lcb-*", "--episodes", "5",
                                       "--json", str(out)])
    assert result.exit_code == 0, result.output
    row = json.loads(out.read_text())["envs"][0]
    assert (row["skill"], row["no_hint"]["episodes"], row["no_hint"]["successes"]) == ("LiveCodeBench v6", 2, 2)


def test_private_tests_are_read_without_unpickling_objects():
    assert decode_tests(lcb_encoded([{"input": "1", "output": "2"}])) == [{"input": "1", "output": "2"}]
    hostile = base64.b64encode(zlib.compress(pickle.dumps(os.getcwd))).decode()
    assert pickle.loads(zlib.decompress(base64.b64decode(hostile))) is os.getcwd  # plain unpickling builds objects
    with pytest.raises(BenchmarkDataError, match="only text is read"):
        decode_tests(hostile)


def test_the_last_fenced_block_is_the_program():
    assert extract_program("```python\nprint(1)\n```\nbetter:\n```py\nprint(2)\n```") == "print(2)\n"
    assert extract_program("```\nprint(3)\n```") == "print(3)\n"
    assert extract_program("print(4)") == "print(4)"


@given(st.lists(st.lists(st.integers(-10**12, 10**12), min_size=1, max_size=5), min_size=1, max_size=5),
       st.sampled_from(["\n", "\r\n", " \n"]), st.booleans())
def test_output_matching_follows_livecodebench(rows, newline, trailing):
    expected = "\n".join(" ".join(map(str, r)) for r in rows) + "\n"
    produced = newline.join("  ".join(map(str, r)) + " " for r in rows) + ("\n\n" if trailing else "")
    assert stdout_matches(produced, expected)
    decimals = "\n".join(" ".join(f"{v}.000" for v in r) for r in rows)
    assert stdout_matches(decimals, expected)  # the same decimal numbers
    changed = [list(r) for r in rows]
    changed[-1][-1] += 1
    assert not stdout_matches("\n".join(" ".join(map(str, r)) for r in changed), expected)
    assert not stdout_matches(expected + "extra\n", expected)


def test_functional_results_compare_as_livecodebench_compares_them():
    assert result_matches("[1, 2]", "[1, 2]") and result_matches("5", "[5]")  # a forgotten wrapping list
    assert not result_matches("[2, 1]", "[1, 2]") and not result_matches(None, "1")
    assert not result_matches("1.0000001", "1.0")  # LiveCodeBench does no float tolerance here


# ----------------------------------------------------------------------------- hostile programs


def one_test(expected: str, test_input: str = "hello\n") -> CodeProblem:
    return CodeProblem("t", "t", "q", "", "stdin", None, (CodeTest(test_input, expected, True),), None)


def plain_python(code: str, stdin: str = "hello\n") -> subprocess.CompletedProcess:
    """Run a hostile program under plain CPython, deliberately, to show it does what its test says."""
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=30)


@pytest.fixture(scope="module")
def confinement():
    verdict = judge("print(input())", one_test("hello"), timeout=2.0)
    assert verdict["passed"], verdict  # the sound twin of every hostile program below
    return verdict["confinement"]


def test_a_program_reading_a_file_cannot(tmp_path, confinement):
    if not confinement["landlock_abi"]:
        pytest.skip("Landlock is not available on this machine: a program could read the host user's files")
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t-token")
    hostile = f"print(open({str(secret)!r}).read())"
    assert plain_python(hostile).stdout.strip() == "s3cr3t-token"  # plain CPython: it reads the file
    verdict = judge(hostile, one_test("s3cr3t-token"), timeout=2.0)
    assert not verdict["passed"] and verdict["failed"]["status"] == "error"
    assert "PermissionError" in verdict["failed"]["stderr"]
    # its twin, given the same text on stdin, passes: only the file access was stopped
    assert judge("print(input())", one_test("s3cr3t-token", "s3cr3t-token\n"), timeout=2.0)["passed"]


def test_a_program_that_loops_forever_is_killed_at_its_deadline():
    with pytest.raises(subprocess.TimeoutExpired):  # plain CPython: it does not end
        subprocess.run([sys.executable, "-c", "while True: pass"], timeout=1)
    start = time.monotonic()
    verdict = judge("while True:\n    pass\nprint('hello')", one_test("hello"), timeout=1.0)
    assert not verdict["passed"] and verdict["failed"]["status"] == "timeout"
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("what", ["write", "process", "network", "signal", "memory", "output"])
def test_hostile_programs_are_contained_and_score_zero(tmp_path, confinement, what):
    if what in ("process", "network", "signal") and not confinement["seccomp"]:
        pytest.skip("seccomp is not available on this machine")
    target = tmp_path / "written-by-the-program"
    victim = None
    if what == "write":
        hostile = f"open({str(target)!r}, 'w').write('x')\nprint('hello')"
    elif what == "process":
        hostile = f"import subprocess\nsubprocess.run(['touch', {str(target)!r}])\nprint('hello')"
    elif what == "network":
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        hostile = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5).sendall(b'x')\nprint('hello')"
    elif what == "signal":
        first = subprocess.Popen(["sleep", "60"])
        plain = plain_python(f"import os, signal\nos.kill({first.pid}, signal.SIGKILL)\nprint('hello')")
        assert plain.stdout.strip() == "hello" and first.wait(timeout=10) == -9  # plain CPython: it kills
        victim = subprocess.Popen(["sleep", "60"])
        hostile = f"import os, signal\nos.kill({victim.pid}, signal.SIGKILL)\nprint('hello')"
    elif what == "memory":
        hostile = "blob = bytearray(1 << 36)\nprint('hello')"
    else:
        hostile = "while True:\n    print('x' * 100000)"
    try:
        if what in ("write", "process"):
            plain = plain_python(hostile)
            assert plain.stdout.strip() == "hello" and target.exists(), plain.stderr  # plain CPython: it acts
            target.unlink()
        elif what == "network":
            assert plain_python(hostile).stdout.strip() == "hello"  # plain CPython: it connects
        start = time.monotonic()
        verdict = judge(hostile, one_test("hello"), timeout=2.0, memory_bytes=1 << 30)
        assert not verdict["passed"], (what, verdict)
        assert verdict["failed"]["status"] in {"write": ("error",), "process": ("error",), "network": ("error",),
                                               "signal": ("error",), "memory": ("memory", "crashed"),
                                               "output": ("output_limit", "error")}[what], verdict
        assert time.monotonic() - start < 15
        assert not target.exists()
        if victim is not None:
            assert victim.poll() is None  # the process it tried to kill lives on
    finally:
        if victim is not None:
            victim.kill()
            victim.wait()
        if what == "network":
            server.close()
