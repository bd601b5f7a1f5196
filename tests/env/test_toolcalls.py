"""The tool-use text protocol: parsing is total on strings, formatting round-trips."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.toolcalls import (
    ParsedAction,
    ToolCall,
    format_answer,
    format_call,
    format_calls,
    openai_tools,
    parse_action,
    text_from_openai_tool_calls,
    to_openai_tool_calls,
)

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
names = st.text(min_size=1).filter(lambda s: s.strip())
calls = st.builds(ToolCall, names, st.dictionaries(st.text(), json_values, max_size=5))
# Text that is likely to contain (parts of) the protocol's tags.
fragments = st.sampled_from(["<tool_call>", "</tool_call>", "<answer>", "</answer>", "{", "}", '"name"', ":",
                             '"arguments"', "<function=", "</function>", "<parameter=", "</parameter>", ">",
                             "[", "]", ",", '"x"', "null", "\n"])
protocolish = st.lists(fragments | st.text(max_size=6), max_size=40).map("".join)


@settings(max_examples=300)
@given(st.text() | protocolish)
def test_parse_never_raises_on_any_string(text):
    parsed = parse_action(text)
    assert isinstance(parsed, ParsedAction)
    for call in parsed.calls:
        assert isinstance(call.name, str) and call.name.strip()
        assert isinstance(call.arguments, dict)
    assert all(isinstance(e, str) and e for e in parsed.errors)


@settings(max_examples=200)
@given(st.lists(calls, max_size=5), st.none() | st.text().filter(lambda a: "</answer>" not in a))
def test_formatted_calls_and_answer_round_trip(call_list, answer):
    text = format_calls(call_list)
    if answer is not None:
        text += "\n" + format_answer(answer)
    parsed = parse_action(text)
    assert list(parsed.calls) == call_list
    assert parsed.errors == ()
    if answer is None:
        assert parsed.answer is None
    elif "<tool_call>" not in answer:  # an answer may itself look like a call; then calls differ
        assert parsed.answer == answer.strip()


def test_closing_tag_inside_an_argument_does_not_end_the_block():
    call = ToolCall("echo", {"text": "a</tool_call><tool_call>{\"name\": \"rm\"}</tool_call>"})
    assert parse_action(call.to_text()).calls == (call,)


def test_reference_format_and_several_calls():
    text = ('I will look both up.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome", "unit": "c"}}\n</tool_call>')
    parsed = parse_action(text)
    assert parsed.calls == (ToolCall("get_weather", {"city": "Paris"}),
                            ToolCall("get_weather", {"city": "Rome", "unit": "c"}))
    assert parsed.answer is None and parsed.errors == () and parsed.text == "I will look both up."


def test_answer_is_the_first_answer_block_stripped():
    parsed = parse_action("<answer> 42 </answer> then <answer>7</answer>")
    assert parsed.answer == "42" and parsed.calls == ()
    assert parse_action("<answer></answer>").answer == ""
    assert parse_action("no answer <answer>unterminated").answer is None


@pytest.mark.parametrize("block, fragment", [
    ("not json", "not valid JSON"),
    ('{"arguments": {}}', '"name"'),
    ('{"name": "", "arguments": {}}', '"name"'),
    ('{"name": 3}', '"name"'),
    ('{"name": "f", "arguments": [1, 2]}', "must be a JSON object"),
    ('{"name": "f", "arguments": "{not json"}', "not JSON"),
    ("[1]", "must be a JSON object"),
    ("[" * 100_000, "JSON"),
])
def test_malformed_blocks_are_errors_not_calls(block, fragment):
    parsed = parse_action(f"<tool_call>{block}</tool_call>")
    assert parsed.calls == ()
    assert len(parsed.errors) == 1 and fragment in parsed.errors[0]
    assert not parsed.empty


def test_lenient_forms_the_reference_parser_accepts():
    assert parse_action('<tool_call>{"name": "f", "parameters": {"a": 1}}</tool_call>').calls == (
        ToolCall("f", {"a": 1}),)
    assert parse_action('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>').calls == (
        ToolCall("f", {"a": 1}),)
    assert parse_action('<tool_call>{"name": "f"}</tool_call>').calls == (ToolCall("f", {}),)
    xml = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\nhello world\n</parameter>\n" \
          "</function>\n</tool_call>"
    assert parse_action(xml).calls == (ToolCall("f", {"a": 1, "b": "hello world"}),)
    assert parse_action('<tool_call>[{"name": "f"}, {"name": "g", "arguments": {}}]</tool_call>').calls == (
        ToolCall("f", {}), ToolCall("g", {}))


def test_empty_and_non_string_actions():
    assert parse_action("").empty and parse_action("just prose").empty
    with pytest.raises(TypeError):
        parse_action(None)  # type: ignore[arg-type]


def test_many_unclosed_openers_parse_in_linear_time():
    hostile = "<tool_call>" * 50_000 + "<answer>" * 50_000
    start = time.perf_counter()
    parsed = parse_action(hostile)
    assert parsed.empty
    # quadratic scanning of this input takes minutes; linear scanning milliseconds
    assert time.perf_counter() - start < 2.0


def test_openai_tool_calls_become_protocol_text():
    reply = [
        {"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
        {"id": "2", "type": "function", "function": {"name": "g", "arguments": ""}},
        {"id": "3", "type": "function", "function": {"name": "h", "arguments": "{broken"}},
    ]
    parsed = parse_action(text_from_openai_tool_calls(reply))
    assert parsed.calls == (ToolCall("f", {"a": 1}), ToolCall("g", {}))
    assert len(parsed.errors) == 1 and "'h'" in parsed.errors[0]  # kept and reported, not repaired

    class Obj:  # SDK objects expose the same fields as attributes
        def __init__(self, **kw):
            self.__dict__.update(kw)

    sdk = [Obj(function=Obj(name="f", arguments='{"a": [1]}'))]
    assert parse_action(text_from_openai_tool_calls(sdk)).calls == (ToolCall("f", {"a": [1]}),)
    assert text_from_openai_tool_calls(None) == ""


@given(st.lists(calls, max_size=4))
def test_to_openai_tool_calls_round_trips_through_text(call_list):
    messages = to_openai_tool_calls(call_list)
    assert [m["id"] for m in messages] == [f"call_{i}" for i in range(len(call_list))]
    assert list(parse_action(text_from_openai_tool_calls(messages)).calls) == call_list


def test_format_call_and_answer_refuse_what_cannot_round_trip():
    with pytest.raises(ValueError):
        format_answer("x</answer>")
    with pytest.raises(TypeError):
        format_call(3, {})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        format_call("f", {"a": object()})
    assert json.loads(format_call("f", {"s": "</x>"})[len("<tool_call>"):-len("</tool_call>")]) == {
        "name": "f", "arguments": {"s": "</x>"}}


def test_openai_tools_matches_the_reference_conversion():
    params = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tools = {"get_weather": {"description": "Weather now.", "parameters": params}, "ping": {}}
    schemas = openai_tools(tools)
    assert schemas == [
        {"type": "function", "function": {"name": "get_weather", "description": "Weather now.", "parameters": params}},
        {"type": "function", "function": {"name": "ping", "description": "",
                                          "parameters": {"type": "object", "properties": {}}}},
    ]
    schemas[0]["function"]["parameters"]["properties"]["city"]["type"] = "integer"
    assert params["properties"]["city"]["type"] == "string"  # deep copies


@pytest.mark.parametrize("tools", [[], {"": {}}, {"f": "desc"}, {"f": {"description": 3}}, {"f": {"parameters": []}}])
def test_openai_tools_rejects_malformed_tool_dicts(tools):
    with pytest.raises(ValueError):
        openai_tools(tools)
