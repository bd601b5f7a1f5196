"""LiveCodeBench code generation as ``spade/lcb-<release>-v0`` (v5, v6: LiveCodeBench's release_v5/v6).

Scored as LiveCodeBench scores it: the reply's program (its last fenced code block, else
the whole reply) runs against every test of the problem, public then private, and passes
only if every test does (reward 1.0). Two kinds of test, as in LiveCodeBench:

* **stdin** (AtCoder, Codeforces): the program reads the test input on stdin and writes
  its answer on stdout; the output matches when, line by line after stripping, each line
  is equal, or is the same list of decimal numbers (LiveCodeBench's ``Decimal`` rule).
* **functional** (LeetCode): the test calls ``Solution().<func_name>(*args)``, the arguments
  being the input's lines read as JSON; the result matches when it equals the expected JSON
  value (tuples count as lists), or the first item of an expected list.

Both kinds get LiveCodeBench's standard imports before the program (``from collections
import *``...) and a time limit per test (6 s, LiveCodeBench's default; ``timeout=`` changes it).

**The program is untrusted and runs in spade-gym's sandbox.** Each test runs in a process of
its own, confined by the sandbox's process layer (:mod:`spade_gym.sandbox.process.confine`: Landlock,
seccomp allow-list, a uid of its own under root, rlimits, no environment, an empty read-only
directory) before the program exists in it — see :mod:`spade_gym.adapters._lcb_runner`. The
program runs as plain Python there (not under the language layer, which would refuse
``sys.stdin``, ``input`` or ``open(0)``): the process layer is the boundary. A program that
loops past its deadline is killed; one that crashes, exhausts memory, floods its output or
tries to read or write a file, open a socket or start a process fails its test and scores 0;
the host only ever reads what the program printed, and decides the verdict itself. The
confinement that took effect is reported in ``info["confinement"]``; where the kernel lacks
Landlock a program can read files the host's user can, so such scores are not proof against
a hostile model (``spade-gym doctor`` shows what this machine has).

Rows: LiveCodeBench's own format (``question_content``, ``starter_code``,
``public_test_cases``, ``private_test_cases`` — JSON, or LiveCodeBench's compressed encoding,
read without unpickling anything but text — and ``metadata`` with ``func_name``), or
``question`` + ``tests`` (``[{"input", "output"}]``, optional ``testtype`` and ``func_name``).
A ``solution`` field (a reference program) becomes the oracle's reply; LiveCodeBench ships
none, so its oracle replies ``""``. Hub source: livecodebench/code_generation_lite, release_vN
being its files test.jsonl .. testN.jsonl, read through ``datasets``' JSON builder.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import re
import zlib
from typing import Any

from spade_gym.adapters.benchmarks import BenchmarkEnv, Family
from spade_gym.adapters.datafiles import BenchmarkDataError, DataSpec, HubSource, first_field
from spade_gym.adapters.livecodebench_judge import (  # re-exported: see __all__
    DEFAULT_MEMORY_BYTES,
    DEFAULT_TIMEOUT,
    CodeProblem,
    CodeTest,
    judge,
    result_matches,
    stdout_matches,
)
from spade_gym.errors import SandboxError

_HUB_FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl")
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)


# ----------------------------------------------------------------------------- data


class _TextOnly(pickle.Unpickler):
    """LiveCodeBench pickles its private tests as one JSON string: unpickle text, never an object."""

    def find_class(self, module, name):
        raise BenchmarkDataError(f"LiveCodeBench test data holds a pickled {module}.{name}; only text is read")


def decode_tests(value: Any) -> list[dict]:
    """Test cases from JSON text, a list, or LiveCodeBench's base64(zlib(pickle(JSON text))) encoding."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    text = str(value).strip()
    if not text:
        return []
    if text[0] in "[{":
        decoded = json.loads(text)
    else:
        try:
            payload = _TextOnly(io.BytesIO(zlib.decompress(base64.b64decode(text, validate=False)))).load()
        except (ValueError, zlib.error, pickle.UnpicklingError, EOFError) as exc:
            raise BenchmarkDataError(f"undecodable LiveCodeBench test cases ({type(exc).__name__}: {exc})") from None
        if isinstance(payload, bytes):
            payload = payload.decode("utf-8")
        decoded = json.loads(payload) if isinstance(payload, str) else payload
    if not isinstance(decoded, list):
        raise BenchmarkDataError("LiveCodeBench test cases must be a list")
    return decoded


def extract_program(reply: str) -> str:
    """The last fenced code block of a reply (any language tag), else the whole reply."""
    blocks = _FENCE.findall(reply)
    if blocks:
        return blocks[-1][1]
    return reply.strip()


# ----------------------------------------------------------------------------- the environment

INSTRUCTION_STDIN = "Read the input from standard input and write the answer to standard output."
INSTRUCTION_CALL = ("Complete the starter code below; each test calls the method on `Solution()` with the test's "
                    "arguments.")
INSTRUCTION_FORMAT = ("Answer with the complete Python program in one ```python code block (not inside "
                      "\\boxed{}); the last code block of your reply is the one tested.")
SOLUTION_FIELDS = ("solution", "gold_solution", "canonical_solution", "reference_solution")


class LiveCodeBenchEnv(BenchmarkEnv):
    """``timeout`` (seconds per test) and ``memory_bytes`` (per test process) are LiveCodeBench's limits."""

    def __init__(self, variant: str, *, data_file: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 memory_bytes: int = DEFAULT_MEMORY_BYTES):
        super().__init__(variant, data_file=data_file)
        if not (0 < float(timeout) <= 600):
            raise BenchmarkDataError(f"timeout must be in (0, 600] seconds, got {timeout}")
        self.timeout = float(timeout)
        self.memory_bytes = int(memory_bytes)

    def parse(self, row: dict, index: int) -> CodeProblem:
        origin = self.rows.origin
        question = first_field(row, ("question_content", "question", "prompt", "problem"), what="question",
                               origin=origin, index=index)
        try:
            if "public_test_cases" in row or "private_test_cases" in row:
                raw = [(t, True) for t in decode_tests(row.get("public_test_cases"))]
                raw += [(t, False) for t in decode_tests(row.get("private_test_cases"))]
            else:
                raw = [(t, True) for t in decode_tests(first_field(row, ("tests", "test_cases"), what="tests",
                                                                   origin=origin, index=index))]
            metadata = row.get("metadata") or {}
            metadata = json.loads(metadata) if isinstance(metadata, str) and metadata.strip() else metadata
        except (ValueError, BenchmarkDataError) as exc:
            raise BenchmarkDataError(f"{origin}, row {index + 1}: {exc}") from None
        if not raw:
            raise BenchmarkDataError(f"{origin}, row {index + 1}: the problem has no tests")
        tests, kinds = [], set()
        for case, public in raw:
            if not isinstance(case, dict) or "input" not in case or "output" not in case:
                raise BenchmarkDataError(f"{origin}, row {index + 1}: a test must have an input and an output")
            kinds.add(str(case.get("testtype", "stdin")))
            tests.append(CodeTest(str(case["input"]), str(case["output"]), public))
        mode = "call" if "functional" in kinds else "stdin"
        func_name = (metadata.get("func_name") if isinstance(metadata, dict) else None) or row.get("func_name")
        if mode == "call" and not func_name:
            raise BenchmarkDataError(f"{origin}, row {index + 1}: functional tests need a func_name (metadata)")
        solution = next((row[k] for k in SOLUTION_FIELDS if isinstance(row.get(k), str) and row[k].strip()), None)
        return CodeProblem(str(row.get("question_id") or row.get("id") or index), str(row.get("question_title") or ""),
                           str(question).strip(), str(row.get("starter_code") or ""), mode, func_name, tuple(tests),
                           solution)

    def pose(self, task: CodeProblem, seed: int) -> str:
        parts = [task.question, ""]
        if task.mode == "call" or task.starter_code.strip():
            parts += [INSTRUCTION_CALL if task.mode == "call" else INSTRUCTION_STDIN,
                      "```python\n" + task.starter_code.rstrip() + "\n```"]
        else:
            parts.append(INSTRUCTION_STDIN)
        parts += ["", INSTRUCTION_FORMAT]
        return "\n".join(parts)

    def score(self, task: CodeProblem, action: str, seed: int) -> tuple[float, dict[str, Any]]:
        program = extract_program(action)
        if not program.strip():
            return 0.0, {"observation": "No program found: answer with a ```python code block. Score: 0.",
                         "tests": len(task.tests), "tests_passed": 0}
        try:
            verdict = judge(program, task, timeout=self.timeout, memory_bytes=self.memory_bytes)
        except SandboxError as exc:
            # the runner failed, not the program: an environment error, not a wrong answer
            return 0.0, {"error": f"{type(exc).__name__}: {exc}", "tests": len(task.tests), "tests_passed": 0}
        if verdict["passed"]:
            verdict["observation"] = f"All {verdict['tests']} tests passed."
        else:
            failed = verdict["failed"]
            verdict["observation"] = (f"Failed test {failed['test'] + 1} of {verdict['tests']} "
                                      f"({'public' if failed['public'] else 'private'}): {failed['reason']}. Score: 0.")
        return (1.0 if verdict["passed"] else 0.0), verdict

    def reference(self, task: CodeProblem, seed: int) -> str:
        return f"```python\n{task.solution.rstrip()}\n```" if task.solution else ""


def _hub(release: int) -> HubSource:
    return HubSource("json", data_files=tuple(f"hf://datasets/livecodebench/code_generation_lite/{name}"
                                              for name in _HUB_FILES[:release]))


FAMILY = Family(
    name="lcb", skill="LiveCodeBench", samples=1, env_class=LiveCodeBenchEnv,
    variants={"v5": DataSpec("lcb-v5", _hub(5)), "v6": DataSpec("lcb-v6", _hub(6))},
)
LiveCodeBenchEnv.family = FAMILY


__all__ = [
    "DEFAULT_MEMORY_BYTES", "DEFAULT_TIMEOUT", "FAMILY", "CodeProblem", "CodeTest", "LiveCodeBenchEnv", "decode_tests",
    "extract_program", "judge", "result_matches", "stdout_matches",
]
