"""The tool-use text protocol: ``<tool_call>`` blocks and an ``<answer>``, parsed and written.

Tool-use environments, the agents that play them and the BFCL adapter all speak the
same action format, the one SPADE's reference tool-use environments use::

    <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>
    <answer>18 degrees</answer>

An action may hold several ``<tool_call>`` blocks (parallel calls) and at most one
answer is read (the first). This module is host-side and dependency-free: it parses
that text (never raising on any string: actions come from models, and a model's
garbage is a format error for the environment to report, not a crash), writes calls
back to it (from plain calls or from an OpenAI ``tool_calls`` reply), and turns the
``{name: {"description", "parameters"}}`` tool dict a program declares into OpenAI
function schemas for ``tools=``.

Parsing is linear in the length of the text (no backtracking regular expressions), so
a hostile action cannot stall the host. Every call's JSON is decoded by :func:`load_json`,
under caps on its length, its nesting depth and the digits of its integers: an action is
agent text, and without them a 5,000-digit integer raises Python's integer-conversion
error and a deep nest exhausts the recursion of whatever walks the arguments. A call over
a cap is a malformed call like any other (an error message, never an exception).
"""

from __future__ import annotations

import copy
import itertools
import json
import operator
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spade_gym.contract import MAX_ACTION_CHARS

__all__ = [
    "MAX_CALL_CHARS",
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "JsonLimitError",
    "ParsedAction",
    "ToolCall",
    "format_answer",
    "format_call",
    "format_calls",
    "load_json",
    "openai_tools",
    "parse_action",
    "solution_actions",
    "text_from_openai_tool_calls",
    "to_openai_tool_calls",
]

CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"
ANSWER_OPEN, ANSWER_CLOSE = "<answer>", "</answer>"
#: Qwen3-coder style calls (``<function=name><parameter=key>value</parameter></function>``)
#: inside a ``<tool_call>`` block, accepted as the reference parser accepts them.
_FUNCTION_OPEN, _FUNCTION_CLOSE = "<function=", "</function>"
_PARAM_OPEN, _PARAM_CLOSE = "<parameter=", "</parameter>"
#: Longest block content quoted back in an error message.
_QUOTE_CHARS = 80

#: Caps on a tool call's JSON (see :func:`load_json`). The longest call is the longest
#: action: no call an environment forwards is refused for its length alone.
MAX_CALL_CHARS = MAX_ACTION_CHARS
#: Deepest nesting of objects and arrays (the call object itself is level 1): far beyond
#: any tool's schema, far below the recursion limit, so code that walks the arguments
#: recursively (a tool, a checker, ``repr``) cannot exhaust it.
MAX_JSON_DEPTH = 64
#: Most digits of an integer: every integer below 10**308 converts to a float (JSON's
#: interoperable range, RFC 8259 section 6), and stays far below CPython's 4,300-digit
#: limit on converting between int and str.
MAX_INT_DIGITS = 308


class JsonLimitError(json.JSONDecodeError):
    """A tool call's JSON is over one of the caps (it is a ``ValueError``, as any bad JSON is)."""

    def __init__(self, message: str, text: str, position: int = 0):
        super().__init__(message, text, position)
        self.msg = message

    def __str__(self) -> str:  # without the "line 1 column 1 (char 0)" JSONDecodeError adds
        return self.msg


#: Every ASCII digit as "0" (UTF-8 bytes of other characters hold no ASCII digit), so that a
#: run of more digits than an integer may have is a plain substring search.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGIT_RUN = b"0" * (MAX_INT_DIGITS + 1)
#: A JSON string (possessive: linear time).
_JSON_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"')
#: Opening bracket -> 2, closing -> 0 (minus one: the change of depth); every other byte deleted.
_DEPTH_STEP = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def _bounded_int(digits: str) -> int:
    # json hands over the literal as written: an optional "-" and digits, no leading zeros
    if len(digits) - digits.startswith("-") > MAX_INT_DIGITS:
        raise JsonLimitError(f"an integer has more than {MAX_INT_DIGITS} digits", digits)
    return int(digits)


def _deeper_than(text: str, limit: int) -> bool:
    """Whether valid JSON ``text`` nests objects/arrays more than ``limit`` levels.

    Read off the text by linear scans in C, without recursion and without walking the
    decoded value: with the strings taken out, the depth is the largest running sum of +1
    per opening bracket and -1 per closing one.
    """
    skeleton = _JSON_STRING.sub("", text).encode("utf-8", "surrogatepass")
    brackets = skeleton.translate(_DEPTH_STEP, _NOT_BRACKETS)
    return max(itertools.accumulate(map(operator.sub, brackets, itertools.repeat(1))), default=0) > limit


def load_json(text: str) -> Any:
    """``json.loads(text)`` for agent text, under the caps above.

    Raises :class:`JsonLimitError` (a ``json.JSONDecodeError``) for a text longer than
    :data:`MAX_CALL_CHARS`, an integer with more than :data:`MAX_INT_DIGITS` digits or
    nesting deeper than :data:`MAX_JSON_DEPTH`; ``json.JSONDecodeError`` or
    ``RecursionError`` for what ``json.loads`` refuses. A typical call costs one
    ``json.loads`` and three scans in C: integers are checked as they are decoded (before
    ``int()`` sees them) only when the text holds a long digit run, and the depth is
    measured only when the text holds more brackets than the cap.
    """
    if not isinstance(text, str):
        raise TypeError(f"JSON text must be a str, got {type(text).__name__}")
    text = str.__str__(text)  # a plain str: no subclass's methods run below
    if len(text) > MAX_CALL_CHARS:
        raise JsonLimitError(f"longer than {MAX_CALL_CHARS} characters", text)
    if len(text) > MAX_INT_DIGITS and _LONG_DIGIT_RUN in text.encode("utf-8", "surrogatepass").translate(
            _DIGITS_AS_ZERO):
        data = json.loads(text, parse_int=_bounded_int)
    else:
        data = json.loads(text)
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _deeper_than(text, MAX_JSON_DEPTH):
        raise JsonLimitError(f"nested more than {MAX_JSON_DEPTH} levels deep", text)
    return data


@dataclass(frozen=True)
class ToolCall:
    """One call: a tool name and its keyword arguments (a JSON object)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_text(self) -> str:
        """This call as a ``<tool_call>`` block."""
        return format_call(self.name, self.arguments)


@dataclass(frozen=True)
class ParsedAction:
    """What an action text says.

    ``calls`` are the well-formed ``<tool_call>`` blocks in order; ``errors`` has one
    message per block that was not a valid call (bad JSON, no name, arguments not an
    object); ``answer`` is the stripped content of the first ``<answer>`` block, or None;
    ``text`` is the action with the ``<tool_call>`` blocks removed, stripped.
    """

    calls: tuple[ToolCall, ...] = ()
    answer: str | None = None
    errors: tuple[str, ...] = ()
    text: str = ""

    @property
    def empty(self) -> bool:
        """True when the action holds no call, no answer and no attempted call."""
        return not self.calls and self.answer is None and not self.errors


def _blocks(text: str, open_tag: str, close_tag: str) -> list[tuple[int, int, str]]:
    """``(start, end, content)`` of each ``open ... close`` block, leftmost-shortest, in order.

    The same blocks as ``re.finditer(open(.*?)close, re.DOTALL)``, found with ``str.find``
    so that many unclosed openers cost linear rather than quadratic time.
    """
    found: list[tuple[int, int, str]] = []
    position = 0
    while True:
        start = text.find(open_tag, position)
        if start < 0:
            return found
        close = text.find(close_tag, start + len(open_tag))
        if close < 0:  # no closer after this opener means none after any later opener either
            return found
        found.append((start, close + len(close_tag), text[start + len(open_tag):close]))
        position = close + len(close_tag)


def _quote(content: str) -> str:
    content = content.strip()
    return repr(content if len(content) <= _QUOTE_CHARS else content[:_QUOTE_CHARS] + "...")


def _call_from_object(data: Any) -> ToolCall | str:
    """A decoded JSON call object as a ToolCall, or the reason it is not one."""
    if not isinstance(data, dict):
        return f"a tool call must be a JSON object, got {type(data).__name__}"
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        return 'a tool call needs a non-empty string "name"'
    arguments = data.get("arguments", data.get("parameters", {}))
    if isinstance(arguments, str):  # some servers send arguments as a JSON-encoded string
        try:
            arguments = load_json(arguments) if arguments.strip() else {}
        except JsonLimitError as exc:
            return f'the "arguments" of {name!r} are refused: {exc}'
        except (ValueError, RecursionError):
            return f'the "arguments" of {name!r} are a string that is not JSON'
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return f'the "arguments" of {name!r} must be a JSON object, got {type(arguments).__name__}'
    return ToolCall(name, arguments)


def _parse_function_block(content: str) -> ToolCall | str:
    """A ``<function=name><parameter=key>value</parameter>...</function>`` block."""
    start = content.find(_FUNCTION_OPEN)
    name_end = content.find(">", start)
    body_end = content.find(_FUNCTION_CLOSE, name_end + 1) if name_end >= 0 else -1
    if name_end < 0 or body_end < 0:
        return "unterminated <function=...> block"
    name = content[start + len(_FUNCTION_OPEN):name_end].strip()
    if not name:
        return "a <function=...> block needs a name"
    arguments: dict[str, Any] = {}
    for _, _, param in _blocks(content[name_end + 1:body_end], _PARAM_OPEN, _PARAM_CLOSE):
        key_end = param.find(">")
        if key_end < 0:
            return f"malformed <parameter=...> in the call of {name!r}"
        raw = param[key_end + 1:].strip()
        try:
            value: Any = load_json(raw)
        except (ValueError, RecursionError):
            value = raw  # plain text values are written unquoted in this format
        arguments[param[:key_end].strip()] = value
    return ToolCall(name, arguments)


def _parse_block(content: str) -> list[ToolCall | str]:
    """The calls (or error messages) in one ``<tool_call>`` block's content."""
    if content.lstrip().startswith(_FUNCTION_OPEN):
        return [_parse_function_block(content)]
    try:
        data = load_json(content)
    except JsonLimitError as exc:
        return [f"tool call refused ({exc}): {_quote(content)}"]
    except (ValueError, RecursionError) as exc:
        reason = str(exc).split("\n")[0] if isinstance(exc, ValueError) else "nested too deeply"
        return [f"tool call is not valid JSON ({reason}): {_quote(content)}"]
    if isinstance(data, list) and data:  # a JSON list of calls in one block
        return [_call_from_object(item) for item in data]
    return [_call_from_object(data)]


def parse_action(text: str) -> ParsedAction:
    """Read the tool calls and the answer out of an action text. Never raises on a ``str``."""
    if not isinstance(text, str):
        raise TypeError(f"an action must be a str, got {type(text).__name__}")
    calls: list[ToolCall] = []
    errors: list[str] = []
    kept: list[str] = []
    position = 0
    for start, end, content in _blocks(text, CALL_OPEN, CALL_CLOSE):
        kept.append(text[position:start])
        position = end
        for result in _parse_block(content):
            if isinstance(result, ToolCall):
                calls.append(result)
            else:
                errors.append(result)
    kept.append(text[position:])
    answers = _blocks(text, ANSWER_OPEN, ANSWER_CLOSE)
    answer = answers[0][2].strip() if answers else None
    return ParsedAction(tuple(calls), answer, tuple(errors), "".join(kept).strip())


def solution_actions(text: str) -> list[str]:
    """A tool-use ``solution()`` as the actions that play it, one per turn.

    Each ``<tool_call>`` block and each ``<answer>`` block, exactly as written, in text
    order; anything between them (numbering, prose) is dropped. The oracle agent and the
    validator play solutions this way, so a program is judged on what it wrote, not on a
    re-serialisation of it.
    """
    if not isinstance(text, str):
        raise TypeError(f"a solution must be a str, got {type(text).__name__}")
    spans = [(start, end) for start, end, _ in _blocks(text, CALL_OPEN, CALL_CLOSE)]
    calls_at = [start for start, _ in spans]
    for start, end, _ in _blocks(text, ANSWER_OPEN, ANSWER_CLOSE):
        # an <answer> written inside a call's arguments belongs to that call
        if not any(s < start < e for s, e in zip(calls_at, (e for _, e in spans))):
            spans.append((start, end))
    return [text[start:end] for start, end in sorted(spans)]


def _dumps(data: Any) -> str:
    # "</" only occurs inside JSON strings; writing it "<\/" (a valid JSON escape) keeps a
    # "</tool_call>" inside an argument from closing the block early.
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def format_call(name: str, arguments: Mapping[str, Any] | None = None) -> str:
    """One ``<tool_call>`` block; ``parse_action`` reads back exactly this call.

    Raises TypeError for a non-string name or arguments that are not JSON-serialisable.
    """
    if not isinstance(name, str):
        raise TypeError(f"a tool name must be a str, got {type(name).__name__}")
    return f"{CALL_OPEN}{_dumps({'name': name, 'arguments': dict(arguments or {})})}{CALL_CLOSE}"


def format_calls(calls: Iterable[ToolCall | Mapping[str, Any]]) -> str:
    """Several calls, one block per line. Each call is a ToolCall or ``{"name", "arguments"}``."""
    lines = []
    for call in calls:
        if isinstance(call, ToolCall):
            lines.append(format_call(call.name, call.arguments))
        else:
            lines.append(format_call(call["name"], call.get("arguments")))
    return "\n".join(lines)


def format_answer(answer: Any) -> str:
    """``<answer>...</answer>``. Raises ValueError if the answer itself contains ``</answer>``."""
    answer = str(answer)
    if ANSWER_CLOSE in answer:
        raise ValueError("an answer cannot contain '</answer>'")
    return f"{ANSWER_OPEN}{answer}{ANSWER_CLOSE}"


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def text_from_openai_tool_calls(tool_calls: Iterable[Any] | None) -> str:
    """An OpenAI chat reply's ``tool_calls`` (dicts or SDK objects) as protocol text.

    Arguments arrive as a JSON string. A string that is not a JSON object is kept as a
    string, so that the environment reports the model's malformed call instead of this
    function silently repairing or dropping it.
    """
    blocks = []
    for tool_call in tool_calls or ():
        function = _field(tool_call, "function") or {}
        name = _field(function, "name")
        arguments = _field(function, "arguments")
        if isinstance(arguments, str):
            try:
                decoded = load_json(arguments) if arguments.strip() else {}
            except (ValueError, RecursionError):
                decoded = arguments
            arguments = decoded if isinstance(decoded, dict) else arguments
        blocks.append(f"{CALL_OPEN}{_dumps({'name': name if isinstance(name, str) else '', 'arguments': arguments})}"
                      f"{CALL_CLOSE}")
    return "\n".join(blocks)


def to_openai_tool_calls(calls: Iterable[ToolCall], *, id_prefix: str = "call_") -> list[dict[str, Any]]:
    """Calls as an assistant message's ``tool_calls`` (arguments JSON-encoded, ids numbered)."""
    return [
        {"id": f"{id_prefix}{i}", "type": "function",
         "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
        for i, call in enumerate(calls)
    ]


def openai_tools(tools: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``{name: {"description", "parameters"}}`` as OpenAI function schemas, in dict order.

    A missing description becomes ``""`` and missing parameters an empty object schema, as
    the reference base class does. The schemas are deep copies. Raises ValueError for a
    tool dict that is not of that shape.
    """
    if not isinstance(tools, Mapping):
        raise ValueError(f"tools must be a dict of name -> spec, got {type(tools).__name__}")
    schemas = []
    for name, spec in tools.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"a tool name must be a non-empty string, got {name!r}")
        if not isinstance(spec, Mapping):
            raise ValueError(f"tool {name!r}: the spec must be a dict, got {type(spec).__name__}")
        description = spec.get("description", "")
        parameters = spec.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(description, str):
            raise ValueError(f"tool {name!r}: the description must be a string")
        if not isinstance(parameters, Mapping):
            raise ValueError(f"tool {name!r}: the parameters must be a JSON Schema object (a dict)")
        schemas.append({"type": "function", "function": {
            "name": name, "description": description, "parameters": copy.deepcopy(dict(parameters))}})
    return schemas
