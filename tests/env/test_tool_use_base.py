"""Tool-use programs in the SPADE reference format run unchanged in the sandbox.

Several programs written in the reference style (``class XEnv(ToolUseBaseEnv)``, no import;
or the reference's ``from tool_use_base_env import ToolUseBaseEnv``) are played under plain
CPython on a stand-in base class (``tests/support/tool_use_standin.py``) and in the sandbox: the
tasks, tool schemas, solutions and every step result must be identical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plain_runner import play_steps
from plain_tooluse_runner import solution_actions
from testkit import PROGRAMS, SUPPORT

from spade_gym.contract import GAME_KIND, TOOL_USE_KIND, program_kind
from spade_gym.errors import PolicyViolation, ProgramError, ProtocolError
from spade_gym.sandbox import ProgramHandle

TOOLUSE_DIR = PROGRAMS / "tooluse"
PROGRAM_PATHS = sorted(TOOLUSE_DIR.glob("*.py"))

#: Every path of the base class's step(): format error, bad JSON, JSON that is not an
#: object, arguments that are not an object, unknown tool, a tool called with a wrong
#: argument, a wrong answer; then the solution.
ODD_ACTIONS = [
    "hello",
    "<tool_call>{bad</tool_call>",
    "<tool_call>[1, 2]</tool_call>",
    '<tool_call>{"name": "nope", "arguments": {}}</tool_call>',
    '<tool_call>{"name": "factor", "arguments": {"unit": "parsec"}}</tool_call>',
    '<tool_call>{"name": "get_balance", "arguments": {"account_id": "nope"}}</tool_call>',
    '<tool_call>{"name": "transfer", "arguments": {"from_id": "x"}}</tool_call>',
    '<tool_call>{"name": "ls", "arguments": "not a dict"}</tool_call>',
    '<tool_call>{"name": "check_stock", "arguments": {"colour": "red"}}</tool_call>',
    "<answer>wrong</answer>",
]

SPECS = {
    # enough turns: the odd actions, then the solution wins
    "win": {"seeds": [0, 1, 7, 123], "before": ODD_ACTIONS[:3] + ["<answer>wrong</answer>"],
            "kwargs": {"max_turns": 20}},
    # every odd action, then truncation at max_turns reveals the solution
    "truncate": {"seeds": [2, 99], "before": ODD_ACTIONS, "kwargs": {"max_turns": 6}},
    # truncation on the very turn a tool is called, and on a wrong answer
    "truncate_on_call": {"seeds": [5], "before": [], "kwargs": {"max_turns": 1}},
}


def plain_tooluse_run(path, spec: dict) -> list:
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, str(SUPPORT / "plain_tooluse_runner.py"), str(path), json.dumps(spec)],
                          capture_output=True, text=True, env=env, timeout=120, cwd=str(SUPPORT))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def sandbox_tooluse_run(source: str, spec: dict) -> list:
    out = []
    with ProgramHandle(source, kwargs=spec.get("kwargs")) as handle:
        for seed in spec["seeds"]:
            obs, info = handle.reset(seed=seed)
            solution = handle.solution()
            out.append({"reset": [obs, info], "tools": handle.tools(), "solution": solution,
                        "steps": play_steps(handle, spec.get("before", []) + solution_actions(solution))})
    return json.loads(json.dumps(out))


@pytest.mark.parametrize("spec_name", sorted(SPECS))
@pytest.mark.parametrize("path", PROGRAM_PATHS, ids=lambda p: p.stem)
def test_same_run_as_plain_cpython(path, spec_name):
    spec = SPECS[spec_name]
    sandboxed = sandbox_tooluse_run(path.read_text(), spec)
    plain = plain_tooluse_run(path, spec)
    assert sandboxed == plain
    for record in sandboxed:
        last = record["steps"][-1]
        if spec_name == "win":
            assert last[:4] == ["Correct!", 1.0, True, False]
        else:
            assert last[3] is True and "Solution:\n" in last[0] and record["solution"] in last[0]


def test_step_paths_give_the_reference_observations():
    source = (TOOLUSE_DIR / "bank_ledger.py").read_text()
    with ProgramHandle(source, kwargs={"max_turns": 20}) as handle:
        handle.reset(seed=4)
        results = [handle.step(a) for a in ODD_ACTIONS]
    observations = [r[0] for r in results]
    assert results[0][:2] == ("Format error: use tools to call a function, or <answer>result</answer> to submit.",
                              -0.1)
    assert results[1][:2] == ("Format error: invalid tool call arguments.", -0.1)
    assert results[2][:2] == ("Format error: invalid tool call arguments.", -0.1)  # a list has no .get
    assert observations[3] == "Unknown tool 'nope'. Available: list_accounts, get_balance, transfer, freeze"
    assert observations[5] == "Tool result:\nError calling get_balance: 'no account nope'"
    assert observations[6].startswith("Tool result:\nError calling transfer: ")
    assert "missing 2 required positional arguments" in observations[6]
    assert observations[9] == "Incorrect. Keep using tools."
    assert all(r[2] is False and r[3] is False for r in results)


def test_call_history_records_successful_calls_only():
    source = (TOOLUSE_DIR / "bank_ledger.py").read_text() + (
        "\n\nclass HistoryBankEnv(BankLedgerEnv):\n"
        "    def tool_history(self):\n"
        "        return json.dumps([[c['name'], c['arguments']] for c in self._call_history])\n")
    with ProgramHandle(source) as handle:
        handle.reset(seed=1)
        handle.step('<tool_call>{"name": "list_accounts", "arguments": {}}</tool_call>')
        handle.step('<tool_call>{"name": "get_balance", "arguments": {"account_id": "missing"}}</tool_call>')
        obs = handle.step('<tool_call>{"name": "history", "arguments": {}}</tool_call>')[0]
    assert json.loads(obs.removeprefix("Tool result:\n")) == [["list_accounts", {}]]


def test_kind_is_read_from_the_base_class():
    for path in PROGRAM_PATHS:
        assert program_kind(path.read_text()) == TOOL_USE_KIND
    game = (PROGRAMS / "benign" / "guess_number.py").read_text()
    assert program_kind(game) == GAME_KIND
    via_helper = "class Base(ToolUseBaseEnv):\n    pass\n\nclass ShopEnv(Base):\n    pass\n"
    assert program_kind(via_helper) == TOOL_USE_KIND
    assert program_kind("class ShopEnv(Other):\n    pass\n") == GAME_KIND
    assert program_kind("this is not python (") == GAME_KIND


def test_a_game_has_no_tools():
    game = (PROGRAMS / "benign" / "guess_number.py").read_text()
    with ProgramHandle(game) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProtocolError, match="not a tool-use environment"):
            handle.tools()


def test_malformed_get_tools_is_reported():
    source = (TOOLUSE_DIR / "unit_converter.py").read_text() + (
        "\n\nclass BrokenToolsEnv(UnitConverterEnv):\n"
        "    def get_tools(self):\n"
        "        return [{'type': 'function', 'function': {'name': 3}}]\n")
    with ProgramHandle(source) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProtocolError, match="function name must be a non-empty string"):
            handle.tools()


def test_the_base_class_keeps_its_own_globals():
    """A program that rebinds ``json`` or ``re`` at module level does not break step()."""
    source = (TOOLUSE_DIR / "unit_converter.py").read_text() + "\njson = None\nre = 'shadowed'\n"
    with ProgramHandle(source) as handle:
        handle.reset(seed=0)
        solution = handle.solution()
        results = [handle.step(a) for a in solution_actions(solution)]
    assert results[-1][:3] == ("Correct!", 1.0, True)


def test_a_program_without_a_subclass_is_refused():
    with pytest.raises(ProtocolError, match="defines no environment class"):
        ProgramHandle("x = 1\n")


def test_base_class_is_not_a_way_out_of_the_sandbox():
    """The injected class has the program's privileges: its globals and internals stay unreachable."""
    source = (TOOLUSE_DIR / "unit_converter.py").read_text() + (
        "\n\nclass ProbeEnv(UnitConverterEnv):\n"
        "    def tool_probe(self, what=''):\n"
        "        if what == 'globals':\n"
        "            return str(type(self).__mro__[1].step.__globals__)\n"
        "        return str(ToolUseBaseEnv.step.__code__)\n")
    with pytest.raises(PolicyViolation):  # the policy refuses __mro__/__globals__/__code__ at compile time
        ProgramHandle(source)
    sneaky = (TOOLUSE_DIR / "unit_converter.py").read_text() + (
        "\n\nclass ProbeEnv(UnitConverterEnv):\n"
        "    def tool_probe(self, name=''):\n"
        "        return str(getattr(ToolUseBaseEnv.step, name))\n")
    with ProgramHandle(sneaky) as handle:
        handle.reset(seed=0)
        for name in ("__globals__", "__code__", "__builtins__"):
            obs = handle.step('<tool_call>{"name": "probe", "arguments": {"name": "%s"}}</tool_call>' % name)[0]
            assert obs.startswith("Tool result:\nError calling probe:") and "blocked" in obs, obs


def test_program_error_in_solution_during_truncation_is_a_program_failure():
    source = (TOOLUSE_DIR / "unit_converter.py").read_text() + (
        "\n\nclass NoSolutionEnv(UnitConverterEnv):\n"
        "    def solution(self):\n"
        "        raise RuntimeError('no solution today')\n")
    with ProgramHandle(source, kwargs={"max_turns": 1}) as handle:
        handle.reset(seed=0)
        with pytest.raises(ProgramError, match="no solution today") as caught:
            handle.step("hello")
    assert caught.value.lineno is not None  # the program's own line, not the base class's


def test_solution_actions_keeps_blocks_as_written_in_order():
    from spade_gym.toolcalls import solution_actions

    text = ('1. <tool_call>{"name": "a", "arguments": {}}</tool_call> -> ok\n'
            '2. <tool_call>{"name": "b", "arguments": {"note": "<answer>x</answer>"}}</tool_call>\n'
            'ANSWER: <answer>42</answer>')
    assert solution_actions(text) == [
        '<tool_call>{"name": "a", "arguments": {}}</tool_call>',
        '<tool_call>{"name": "b", "arguments": {"note": "<answer>x</answer>"}}</tool_call>',
        "<answer>42</answer>",
    ]
    assert solution_actions("no script at all") == []


@settings(max_examples=200, deadline=None)
@given(calls=st.lists(st.tuples(st.text(min_size=1, max_size=8), st.dictionaries(st.text(max_size=5), st.text(max_size=8),
                                                                                   max_size=3)), max_size=5),
       answer=st.text(max_size=20).filter(lambda a: "</answer>" not in a),
       noise=st.text(max_size=30))
def test_solution_actions_round_trips_written_scripts(calls, answer, noise):
    from spade_gym import toolcalls

    script = [toolcalls.format_call(name, arguments) for name, arguments in calls] + [toolcalls.format_answer(answer)]
    text = noise.replace("<", "") + "\n".join(script)
    assert toolcalls.solution_actions(text) == script
