"""Validating tool-use programs: the checks every program gets, played the tool-use way, and
the tool-use checks (schemas match their methods, tools are needed). Never accept on error."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from testkit import BENIGN_DIR, PROGRAMS
from tooluse_broken import BROKEN, SOUND, broken_source

from spade_gym.cli import main
from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.tool_schemas import (
    final_answer,
    odd_calls,
    parameters_problems,
    schema_problems,
    signature_problems,
    tool_methods,
)

VALID = PROGRAMS / "tooluse"
FAST = ValidationConfig(seeds=8, seed=1234)


def report_for(path, **kwargs):
    return validate_source(path.read_text(), config=FAST, **kwargs)


def report_for_broken(name, **kwargs):
    return validate_source(broken_source(name), config=FAST, **kwargs)


@pytest.mark.parametrize("name", ["bank_ledger", "file_organizer", "warehouse_steps"])
def test_sound_tool_use_programs_are_valid(name):
    report = report_for(VALID / f"{name}.py")
    assert report.valid, report.summary()
    names = [c.name for c in report.checks]
    assert "tool_schemas" in names and "tools_needed" in names
    assert report.details["kind"] == "tool-use" and report.details["tools"] >= 3
    solvability = next(c for c in report.checks if c.name == "solvability")
    # the privileged policy played the tool calls (a boxed answer wins no tool-use episode) on every seed
    assert solvability.passed and solvability.details["seeds"] > 0
    assert solvability.details["wins"] == solvability.details["seeds"]
    assert report.details["oracle_turns"] > 1, "a tool-use win takes tool calls before the answer"


def test_games_do_not_get_the_tool_use_checks():
    report = validate_source((BENIGN_DIR / "guess_number.py").read_text(), config=FAST)
    assert report.details["kind"] == "game"
    assert not {"tool_schemas", "tools_needed"} & {c.name for c in report.checks}


#: broken program -> (the check that must fail, text its message must contain)
EXPECTED = {
    "schema_mismatch": ("tool_schemas", "tool_get_balance (line 57) does not accept 'account'"),
    "answer_alone": ("tools_needed", "with no tool call, won"),
    "answer_second_turn": ("tools_needed", "with no tool call, won (in 32 of 32 probes)"),
    "answer_in_task": ("tools_needed", "appears in the task text"),
    "nondeterministic_tool": ("determinism", "list_accounts"),
    "solution_loses": ("solvability", "playing solution() one tool call, then the answer, per turn"),
    "same_task": ("diversity", "distinct task"),
    "hanging_tool": ("tool_calls", "line 75, in tool_split"),
}


def test_every_broken_program_has_its_expected_failure():
    assert sorted(EXPECTED) == sorted(BROKEN)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_broken_program_fails_its_check_with_seed_and_line(name):
    check_name, text = EXPECTED[name]
    report = report_for_broken(name)
    assert not report.valid
    failed = {c.name: c for c in report.checks if not c.passed}
    assert check_name in failed, report.summary()
    assert text in failed[check_name].message, failed[check_name].message
    assert "seed" in failed[check_name].message


def test_an_answer_the_task_states_is_fine_when_the_transfer_is_still_needed():
    """The answer in the task text, but _check_answer still requires the transfer: copying the
    number from the task without doing the work loses (issue 22 item 7), so tools_needed passes."""
    source = SOUND.read_text().replace(
        "f\"{owner_to}'s new balance as <answer>AMOUNT</answer>.\"",
        "f\"{owner_to}'s new balance ({self._expected_answer}) as <answer>AMOUNT</answer>.\"")
    check = validate_source(source, config=FAST).check("tools_needed")
    assert check.passed, check.message


def test_default_answer_check_means_the_tools_are_not_needed():
    report = report_for(VALID / "unit_converter.py")
    assert [c.name for c in report.checks if not c.passed] == ["tools_needed"]


def test_a_hint_with_the_answer_is_refused():
    source = (VALID / "file_organizer.py").read_text().replace(
        'return "List /home first; the report lives in the only folder there. Create the new folder before moving."',
        'return f"The answer is {self._expected_answer}"')
    report = validate_source(source, config=FAST)
    failed = {c.name: c for c in report.checks if not c.passed}
    assert "tools_needed" in failed and "contains the answer" in failed["tools_needed"].message


def test_a_failing_get_tools_is_reported_not_accepted():
    source = (VALID / "bank_ledger.py").read_text() + (
        "\n\nclass NoToolsEnv(BankLedgerEnv):\n"
        "    def get_tools(self):\n"
        "        raise RuntimeError('schemas unavailable')\n")
    report = validate_source(source, config=FAST)
    failed = {c.name: c for c in report.checks if not c.passed}
    assert not report.valid and "schemas unavailable" in failed["tool_schemas"].message


def test_a_validator_bug_in_a_tool_use_check_fails_the_program(monkeypatch):
    from spade_gym.validation import checks

    previous = checks.replace_check("tools_needed", lambda ctx: 1 / 0)
    try:
        report = report_for(VALID / "bank_ledger.py")
    finally:
        checks.restore_check(previous)
    assert not report.valid and "internal error" in next(c for c in report.checks if c.name == "tools_needed").message


def test_schema_rules():
    ok = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}},
          "required": ["a"]}
    assert parameters_problems("t", ok) == []
    assert parameters_problems("t", {"type": "string"})[0].endswith('must have "type": "object" (got \'string\')')
    assert "which 'properties' does not declare" in parameters_problems(
        "t", {"type": "object", "properties": {}, "required": ["x"]})[0]
    assert "is not one of" in parameters_problems("t", {"type": "object", "properties": {"a": {"type": "str"}}})[0]
    assert "'enum' must be a non-empty list" in schema_problems({"enum": []}, "x")[0]
    assert "must be an object (dict)" in schema_problems({"type": "object", "properties": {"a": 3}}, "x")[0]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                 max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_schema_checks_never_raise(value):
    assert isinstance(schema_problems(value, "x"), list)
    assert isinstance(parameters_problems("t", value), list)
    if isinstance(value, dict):
        assert isinstance(parameters_problems("t", {"type": "object", "properties": value}), list)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6), JSON, max_size=4))
def test_odd_calls_are_well_formed_for_any_declared_properties(properties):
    import random

    from spade_gym import toolcalls

    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object", "properties": properties}}}]
    calls = odd_calls(tools, random.Random(0))
    parsed = [toolcalls.parse_action(c) for c in calls]
    assert all(p.calls or p.errors for p in parsed)
    assert sum(bool(p.calls) and p.calls[0].name == "t" for p in parsed) >= 2 + 2 * len(properties)


def test_a_hanging_tool_names_the_call():
    report = report_for_broken("hanging_tool")
    failed = next(c for c in report.checks if c.name == "tool_calls")
    assert "did not return within its deadline" in failed.message and '"name": "split"' in failed.message


def test_signature_rules():
    source = (
        "class ShopEnv(ToolUseBaseEnv):\n"
        "    def tool_a(self, x, y=1):\n        return ''\n"
        "    def tool_b(self, **kwargs):\n        return ''\n"
        "    def tool_c(self, x):\n        return ''\n")
    _, methods = tool_methods(source)
    schema = {"type": "object", "properties": {"x": {}, "y": {}}, "required": ["x"]}
    assert signature_problems("a", methods["tool_a"], schema) == []
    assert signature_problems("b", methods["tool_b"], schema) == []  # **kwargs accepts every name
    (optional,) = signature_problems("c", methods["tool_c"], {"type": "object", "properties": {"x": {}}})
    assert "no default for 'x'" in optional
    assert signature_problems("c", methods["tool_c"], {"type": "object", "properties": {"x": {}},
                                                        "required": ["x"]}) == []


def test_final_answer():
    assert final_answer('<tool_call>{"name": "a", "arguments": {"t": "<answer>no</answer>"}}</tool_call>\n'
                        "<answer> 42 </answer>") == "42"
    assert final_answer("no answer") is None and final_answer(None) is None


def test_validate_and_import_recognise_tool_use_programs(tmp_path):
    runner = CliRunner()
    program = VALID / "bank_ledger.py"
    result = runner.invoke(main, ["validate", str(program), "--json"])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.output)
    assert report["details"]["kind"] == "tool-use"
    table = runner.invoke(main, ["validate", str(program), "--seed", str(report["details"]["run_seed"])])
    assert table.exit_code == 0 and "BankLedgerEnv, tool-use, seed" in " ".join(table.output.split())
    suite = tmp_path / "suite"
    result = runner.invoke(main, ["import", str(program), "--suite", str(suite), "--json", "--skill", "Data Retrieval"])
    assert result.exit_code == 0, result.output
    rows = json.loads(runner.invoke(main, ["list", "--suite", str(suite), "--json"]).output)
    assert [(r["kind"], r["skill"]) for r in rows] == [("tool-use", "Data Retrieval")]


def test_the_checks_of_each_kind():
    from spade_gym.validation import CHECK_NAMES, TOOL_USE_CHECK_NAMES

    assert set(TOOL_USE_CHECK_NAMES) - set(CHECK_NAMES) == {"tool_schemas", "tool_calls", "tools_needed"}
    assert set(CHECK_NAMES) <= set(TOOL_USE_CHECK_NAMES)
    report = report_for(VALID / "warehouse_steps.py")
    assert [c.name for c in report.checks] == list(TOOL_USE_CHECK_NAMES)
