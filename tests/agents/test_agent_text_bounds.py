"""Agent text is bounded before it is parsed: no action can make a sound env fail.

An action is whatever an agent (in RL training: a policy being optimised) sends. Without
caps a 5,000-digit integer in a ``<tool_call>`` raises CPython's int/str conversion error
inside the tool-use base class, ``\\boxed{1e999999999}`` makes the ``math_verify``
stand-in build a billion-digit Fraction, and many unclosed ``<answer>`` openers make the
base class's regular expression quadratic: each ended the episode as a *program failure*
(``info["error"]``), turning the designer's sound environment into a "broken" one.

Unit tests pin each cap; the property tests drive random and adversarial text through a
game that uses ``math_verify``, a bundled tool-use env and BFCL envs, and require every
step to come back in time without a failure.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spade_gym
from spade_gym.adapters.bfcl_checker import check_value
from spade_gym.contract import MAX_ACTION_CHARS
from spade_gym.sandbox.language.mathverify import MAX_DIGITS, MAX_ITEMS, parse, verify
from spade_gym.toolcalls import (
    MAX_CALL_CHARS,
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    JsonLimitError,
    ToolCall,
    load_json,
    parse_action,
    text_from_openai_tool_calls,
)

#: A step's wall-clock bound here: far above what a bounded step costs (milliseconds),
#: well below the sandbox's 5 s call deadline (past which a step is a program failure).
STEP_SECONDS = 2.5
TOOL_USE_ID = "spade/AccountProvisioning-v1"  # a bundled tool-use env (card.json "kind": "tool-use")
BIG = "1" * 5000  # past CPython's 4,300-digit int/str conversion limit

# A game that compares answers with the math_verify stand-in, against golds of each kind
# (an integer, a fraction, a set with a float item, a percentage).
MATH_GAME = r'''
import random
from math_verify import parse, verify


class BoxedSumEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.turn = 0
        self.a = self.b = 1

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.a, self.b = rng.randint(1, 99), rng.randint(1, 99)
        self.turn = 0
        return f"What is {self.a} + {self.b}? Answer in \\boxed{{}}.", {}

    def step(self, action):
        self.turn += 1
        answer = parse(action)
        for gold in (self.solution(), f"\\frac{{{self.a}}}{{{self.b}}}", "\\{1, 2\\sqrt{2}\\}", "12.5%"):
            if verify(parse(gold), answer):
                return "Correct!", 1.0, True, False, {}
        shown = [str(candidate)[:20] for candidate in answer]  # every candidate prints
        return f"Wrong: {shown}", 0.0, False, self.turn >= self.max_turns, {}

    def solution(self):
        return f"\\boxed{{{self.a + self.b}}}"
'''


def timed_step(env, action: str):
    start = time.perf_counter()
    result = env.step(action)
    elapsed = time.perf_counter() - start
    assert elapsed < STEP_SECONDS, f"a step took {elapsed:.2f} s on {action[:80]!r}"
    return result


def assert_no_failure(env, result, action: str) -> None:
    _, _, _, _, info = result
    assert "error" not in info, f"program failure on {action[:120]!r}: {info['error']}"
    failed = getattr(env.unwrapped, "episode_failed", None)
    assert failed is None, failed


# ----------------------------------------------------------------------------- tool-call JSON caps


def test_an_integer_over_the_digit_cap_is_a_malformed_call():
    parsed = parse_action('<tool_call>{"name": "f", "arguments": {"n": %s}}</tool_call>' % BIG)
    assert parsed.calls == () and len(parsed.errors) == 1
    assert f"more than {MAX_INT_DIGITS} digits" in parsed.errors[0]
    at_cap = "9" * MAX_INT_DIGITS
    assert parse_action('<tool_call>{"name": "f", "arguments": {"n": -%s}}</tool_call>' % at_cap).calls == (
        ToolCall("f", {"n": -int(at_cap)}),)
    assert float(int(at_cap)) < float("inf")  # every integer a call holds converts to a float
    assert parse_action('<tool_call>{"name": "f", "arguments": {"n": 1%s}}</tool_call>' % at_cap).errors


def test_digits_inside_strings_and_floats_are_not_integers():
    text = '{"name": "f", "arguments": {"s": "%s", "x": %s.5, "y": 1e999999999}}' % (BIG, BIG)
    data = load_json(text)
    assert data["arguments"]["s"] == BIG and data["arguments"]["y"] == float("inf")


def test_nesting_over_the_depth_cap_is_a_malformed_call():
    def call(depth: int) -> str:  # the call object is level 1, "arguments" level 2
        inner = "[" * (depth - 2) + "]" * (depth - 2)
        return '<tool_call>{"name": "f", "arguments": {"v": %s}}</tool_call>' % inner

    assert parse_action(call(MAX_JSON_DEPTH)).calls
    assert "levels deep" in parse_action(call(MAX_JSON_DEPTH + 1)).errors[0]
    objects = '{"a":' * 500 + "1" + "}" * 500
    assert parse_action('<tool_call>{"name": "f", "arguments": %s}</tool_call>' % objects).errors
    # many brackets that do not nest are fine
    wide = json.dumps({"name": "f", "arguments": {"rows": [[i] for i in range(500)]}})
    assert parse_action(f"<tool_call>{wide}</tool_call>").calls


def test_every_way_a_call_is_written_is_bounded():
    assert "refused" in parse_action('<tool_call>{"name": "f", "arguments": "{\\"n\\": %s}"}</tool_call>'
                                     % BIG).errors[0]
    # a qwen-style parameter over a cap is kept as the plain text it is written as
    xml = f"<tool_call><function=f><parameter=n>{BIG}</parameter></function></tool_call>"
    assert parse_action(xml).calls == (ToolCall("f", {"n": BIG}),)
    # an OpenAI reply's arguments over a cap reach the env as a malformed call, not a crash
    text = text_from_openai_tool_calls([{"function": {"name": "f", "arguments": '{"n": %s}' % BIG}}])
    assert parse_action(text).calls == () and parse_action(text).errors
    with pytest.raises(JsonLimitError, match="longer than"):
        load_json(" " * (MAX_CALL_CHARS + 1))
    assert isinstance(JsonLimitError("x", ""), json.JSONDecodeError)  # answered as bad JSON is


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _digits(value) -> int:
    if isinstance(value, dict):
        return max(map(_digits, value.values()), default=0)
    if isinstance(value, list):
        return max(map(_digits, value), default=0)
    return len(str(abs(value))) if type(value) is int else 0


_tricky_text = st.text(st.sampled_from('[]{}"\\ab9\u00e9\U0001f600\ud800\n') | st.characters(), max_size=12)
_json_leaves = (st.none() | st.booleans() | st.integers(-10 ** 400, 10 ** 400) | st.floats(allow_nan=False)
                | _tricky_text)
_json_trees = st.recursive(_json_leaves, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(_tricky_text, inner, max_size=3), max_leaves=8)


@settings(max_examples=300)
@given(_json_trees, st.integers(0, MAX_JSON_DEPTH + 6), st.booleans())
def test_the_bounded_decoder_agrees_with_json_loads_within_the_caps(tree, wrap, ascii_only):
    for level in range(wrap):  # nest the tree deeper, through lists and objects
        tree = [tree] if level % 2 else {"[{": tree}
    text = json.dumps(tree, ensure_ascii=ascii_only)
    if _depth(tree) > MAX_JSON_DEPTH or _digits(tree) > MAX_INT_DIGITS:
        with pytest.raises(JsonLimitError):
            load_json(text)
    else:
        assert load_json(text) == json.loads(text)


def test_the_bounded_decoder_is_linear_on_hostile_text():
    hostile = ["[" + ",".join(["1"] * 45_000) + "]", "[" * 99_000, '["' + '","'.join(["9" * 308] * 300) + '"]',
               "[" + ",".join(["[]"] * 30_000) + "]"]
    for text in hostile:
        # CPU time of this process: a busy machine slows the wall clock, not the work done
        start = time.process_time()
        try:
            load_json(text)
        except (ValueError, RecursionError):
            pass
        assert time.process_time() - start < 1.0


_tags = st.lists(st.sampled_from(["<answer>", "</answer>", "<tool_call>", "</tool_call>", "<", ">", "/", "a", "\n"])
                 | st.text(max_size=3), max_size=12).map("".join)


@settings(max_examples=300)
@given(_tags)
def test_the_base_class_finds_the_blocks_the_reference_regex_finds(text):
    import re

    from spade_gym.sandbox.language.tooluse import BASE_SOURCE

    namespace: dict = {}
    exec(BASE_SOURCE, namespace)  # plain Python: the base class's helper, outside the sandbox
    for tag in ("answer", "tool_call"):
        match = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.DOTALL)
        assert namespace["first_block"](text, f"<{tag}>", f"</{tag}>") == (match.group(1) if match else None)


def test_bfcl_checker_survives_an_integer_beyond_the_float_range():
    verdict = check_value("x", 10 ** 400, [1.0], {"type": "float"})
    assert not verdict.valid and verdict.error_type == "value_error:others"


# ----------------------------------------------------------------------------- math_verify caps


@pytest.mark.parametrize("answer", [
    "\\boxed{1e999999999}", "\\boxed{-1e-999999999}", "\\boxed{1E+000000000000000000099999}", "1e999999999",
    f"\\boxed{{1e{MAX_DIGITS}}}", "\\boxed{10^{999999999}}", "\\boxed{10^{10^{10}}}", "\\boxed{2^2^2^2^2}",
    "\\boxed{100000!}", "\\boxed{\\frac{1}{1e999999999}}", "\\boxed{\\frac{1e3000}{1e-3000}}",
    "\\boxed{\\frac{\\frac{\\frac{1}{2}}{3}}{4}}", f"\\boxed{{{BIG}/3}}", f"\\boxed{{{BIG}}}", f"0.{BIG}",
    "\\boxed{\\sqrt{" + "9" * 5000 + "}}", "\\frac{\\pi}{1e-400}", "\\frac{\\pi}{1e400}",
    "\\boxed{" + ",".join(["1"] * (MAX_ITEMS + 1)) + "}", "\\boxed{" + "{" * 9000 + "}" * 9000 + "}",
    "\\boxed{" * 2500, "1" * 19_000, "x" + "$" * 19_990 + "x",
])
def test_an_answer_over_the_caps_is_quick_and_matches_nothing(answer):
    start = time.perf_counter()
    candidates = parse(answer)
    assert verify("1", answer) is False
    assert time.perf_counter() - start < 1.0  # (unbounded: minutes, or the sandbox's deadline)
    for gold in ("999999999", "0", "65536", "0.25", "1e9"):
        assert verify(gold, candidates) is False
    for candidate in candidates:
        str(candidate)  # every value parse returns can be printed (no int/str conversion error)


def test_boxed_1e999999999_is_false_in_under_a_second():
    start = time.perf_counter()
    assert verify(parse("1"), parse("\\boxed{1e999999999}")) is False
    assert time.perf_counter() - start < 1.0


def test_answers_within_the_caps_still_compare():
    assert verify("1" * MAX_DIGITS, "\\boxed{" + "1" * MAX_DIGITS + "}")
    assert parse(f"\\boxed{{1e{MAX_DIGITS - 1}}}")[0] == 10 ** (MAX_DIGITS - 1)
    assert verify("602000000000000000000000", "\\boxed{6.02e23}")
    assert verify("1e-30", "\\boxed{0.000000000000000000000000000001}")
    assert verify("\\{3, 1\\}", "\\boxed{\\{1, 3\\}}") and verify("\\{1, 2\\sqrt{2}\\}", "\\{2.8284271, 1\\}")
    items = ",".join(str(i) for i in range(MAX_ITEMS - 1))
    assert verify("\\{" + items + "\\}", "\\boxed{\\{" + ",".join(reversed(items.split(","))) + "\\}}")


def test_parse_never_raises_on_odd_values():
    assert parse(10 ** 5000) == [] and parse(Fraction(1, 10 ** 5000)) == []
    assert parse(12) == [Fraction(12), "12"]
    assert verify(parse("\\sqrt{2}"), [Fraction(10 ** 3000)]) is False  # beyond the float range


# ----------------------------------------------------------------------------- through the environments


@pytest.fixture(scope="module")
def math_game():
    env = spade_gym.load_source(MATH_GAME)
    env.reset(seed=0)
    yield env
    env.close()


@pytest.fixture(scope="module")
def tool_use_env():
    env = gym.make(TOOL_USE_ID, max_turns=40)  # room for hostile steps and then the solution
    env.reset(seed=0)
    yield env
    env.close()


@pytest.fixture(scope="module")
def bfcl_env():
    pytest.importorskip("bfcl_eval")
    from spade_gym.adapters import bfcl

    bfcl.register_bfcl(["simple_python", "multiple"])
    env = gym.make(bfcl.env_id("multiple"))  # a third of its tasks take a float (checked with float())
    env.reset(seed=0)
    yield env
    env.close()


def test_a_huge_number_in_a_math_game_is_a_wrong_answer(math_game):
    math_game.reset(seed=1)
    for action in ("\\boxed{1e999999999}", f"\\boxed{{{BIG}/3}}", "\\boxed{10^{999999999}}"):
        result = timed_step(math_game, action)
        assert_no_failure(math_game, result, action)
        assert result[0].startswith("Wrong") and result[1] == 0.0
    result = timed_step(math_game, spade_gym.privileged(math_game).solution())
    assert result[:3] == ("Correct!", 1.0, True)


def test_a_5000_digit_integer_in_a_tool_call_is_a_malformed_call_and_the_episode_goes_on(tool_use_env):
    tool_use_env.reset(seed=3)
    solution = spade_gym.privileged(tool_use_env).solution()
    hostile = ['<tool_call>{"name": "get_user", "arguments": {"username": %s}}</tool_call>' % BIG,
               '<tool_call>{"name": "get_user", "arguments": {"username": %s}}</tool_call>' % ("[" * 900 + "]" * 900),
               "<answer>" * (MAX_ACTION_CHARS // len("<answer>")),
               "<tool_call>" * (MAX_ACTION_CHARS // len("<tool_call>"))]
    for action in hostile[:2]:
        result = timed_step(tool_use_env, action)
        assert_no_failure(tool_use_env, result, action)
        assert result[:4] == ("Format error: invalid tool call arguments.", -0.1, False, False)
    for action in hostile[2:]:
        result = timed_step(tool_use_env, action)
        assert_no_failure(tool_use_env, result, action)
        assert result[2:4] == (False, False)
    from spade_gym.toolcalls import solution_actions

    for action in solution_actions(solution):  # the same episode is still winnable
        result = timed_step(tool_use_env, action)
    assert result[:3] == ("Correct!", 1.0, True)


def test_bfcl_scores_an_integer_beyond_the_float_range_as_malformed(bfcl_env):
    from spade_gym.adapters import bfcl

    env = gym.make(bfcl.env_id("simple_python"))
    _, info = env.reset(seed=14)
    assert info["task_id"] == "simple_python_14"  # calculate_derivative(function, x_value: float)
    action = ('<tool_call>{"name": "calculate_derivative", "arguments": {"function": "3x**2 + 2x - 1", '
              '"x_value": 1%s}}</tool_call><answer>done</answer>' % ("0" * 400))
    _, reward, terminated, truncated, info = timed_step(env, action)
    assert (reward, terminated, truncated, info["reason_type"]) == (0.0, True, False, "malformed_call")
    assert "error" not in info


# ----------------------------------------------------------------------------- property tests


def _repeat(piece: str):
    return st.integers(1, MAX_ACTION_CHARS // len(piece)).map(lambda n: piece * n)


def _named(texts: dict[str, str]):
    """One of ``texts`` (drawn by name: the strategy's repr stays short)."""
    return st.sampled_from(sorted(texts)).map(texts.__getitem__)


# lengths around the caps (308 digits: the float range; 4,300: CPython's int/str limit), and any
_digit_runs = (st.sampled_from([309, 400, 1000, 4301, 5000, 20_000]) | st.integers(300, 20_000)).map(lambda n: "9" * n)
_numbers = st.one_of(_named({
    "exp": "1e999999999", "-exp": "-1e-999999999", "e4000": "1e4000", "e+0..9": "1E+0000000000000000000000000000009",
    "tiny": "1.5e-400", "nan": "NaN", "-inf": "-Infinity", "pow": "10^{999999999}", "tower": "10^{10^{10}}",
    "2^2^2": "2^2^2^2^2", "fact": "100000!", "frac-exp": "\\frac{1}{1e999999999}",
    "frac-nest": "\\frac{\\frac{1}{2}}{3}",
    "sqrt": "\\sqrt{" + "9" * 5000 + "}", "pi/tiny": "\\frac{\\pi}{1e-400}", "a/b": "1" * 4500 + "/3",
    "decimal": "0." + "3" * 5000, "percent": "12.5%",
}), _digit_runs, st.integers().map(str), st.floats().map(repr))
_nests = st.integers(1, 30_000).flatmap(lambda d: st.sampled_from([
    "[" * d + "]" * d, '{"a":' * d + "1" + "}" * d, "[" * d, "{" * d, "\\frac{" * d,
]))
_unicode = (st.text(max_size=40)
            | st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=4)
            | _named({"nul": "\x00", "nuls": "\x00" * 1000, "bom": "\ufeff", "rtl": "\u202e",
                      "emoji": "\U0001f600" * 100, "arabic-digits": "\u0663\u0664\u0665",
                      "fullwidth-digits": "\uff11\uff12\uff13"}))
_openers = st.sampled_from(["<answer>", "<tool_call>", "</answer>", "\\boxed{", "{", "[", "<function=",
                            "<parameter=", '"', "\\", "$"]).flatmap(_repeat)
_values = _numbers | _nests | _unicode.map(json.dumps) | _unicode


_NUMERIC = ("integer", "number", "float")


def _call(name: str, arguments: list[tuple[str, str]]) -> str:
    body = ", ".join(f"{json.dumps(key)}: {value}" for key, value in arguments)
    return '<tool_call>{"name": %s, "arguments": {%s}}</tool_call>' % (json.dumps(name), body)


def _call_of(tool: tuple[str, tuple[tuple[str, str], ...]]):
    """A call of ``tool`` (name, ((parameter, JSON type), ...)) with every parameter given: numbers
    where the schema says number (so they reach the program's or the checker's arithmetic)."""
    name, params = tool
    values = [(_numbers | _values) if kind in _NUMERIC else (_unicode.map(json.dumps) | _values) for _, kind in params]
    return st.tuples(*values).map(lambda drawn: _call(name, list(zip((key for key, _ in params), drawn))))


#: How often each kind of piece is drawn, for a game (answers in \boxed{}) and a tool-use env.
_GAME_MIX = ["boxed-number", "boxed-number", "boxed", "boxed", "value", "answer", "openers", "text", "call"]
_TOOL_MIX = ["call", "call", "call", "boxed", "answer", "value", "openers", "text"]


def _actions(tools: list[tuple[str, tuple[tuple[str, str], ...]]], mix: list[str]):
    """Random and adversarial action text, at most MAX_ACTION_CHARS long."""
    calls = (st.sampled_from(tools).flatmap(_call_of)
             | st.builds(lambda name, key, value: _call(name, [(key, value)]), _unicode, _unicode, _values))
    kinds = {
        "call": calls, "boxed": _values.map(lambda v: f"\\boxed{{{v}}}"),
        "boxed-number": _numbers.map(lambda v: f"\\boxed{{{v}}}"),
        "answer": _values.map(lambda v: f"<answer>{v}</answer>"), "value": _values, "openers": _openers,
        "text": st.text(max_size=200),
    }
    pieces = st.sampled_from(mix).flatmap(kinds.__getitem__)
    return st.lists(pieces, min_size=1, max_size=3).map(lambda parts: "".join(parts)[:MAX_ACTION_CHARS])


def _tools(env) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """(name, ((parameter, JSON type), ...)) of each of the episode's tools."""
    out = []
    for tool in spade_gym.tools(env):
        properties = tool["function"]["parameters"].get("properties", {})
        out.append((tool["function"]["name"], tuple((key, str(spec.get("type"))) for key, spec in properties.items())))
    return out


def _play(env, data, *, tools: bool) -> None:
    """One episode from a drawn seed (so the drawn actions depend on drawn data only), a few drawn actions."""
    env.reset(seed=data.draw(st.integers(0, 60), label="seed"))
    strategy = _actions(_tools(env), _TOOL_MIX) if tools else _actions([("f", (("x", "number"),))], _GAME_MIX)
    for _ in range(data.draw(st.integers(1, 3), label="steps")):
        action = data.draw(strategy, label="action")
        result = timed_step(env, action)
        assert_no_failure(env, result, action)
        if result[2] or result[3]:
            return


_PROPERTY = settings(max_examples=80, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large,
    HealthCheck.large_base_example])


@_PROPERTY
@given(data=st.data())
def test_no_agent_text_fails_a_math_verify_game(math_game, data):
    _play(math_game, data, tools=False)


@_PROPERTY
@given(data=st.data())
def test_no_agent_text_fails_a_tool_use_env(tool_use_env, data):
    _play(tool_use_env, data, tools=True)


@_PROPERTY
@given(data=st.data())
def test_no_agent_text_fails_a_bfcl_env(bfcl_env, data):
    _play(bfcl_env, data, tools=True)
