"""BFCL's AST checking rules: does a reply's list of calls answer a BFCL question?

Written from BFCL's documented rules (the Berkeley Function Calling Leaderboard's AST
evaluation), so that ``spade/bfcl-*`` scores mean what BFCL's do, without running
BFCL's own evaluation code (which pulls in every model vendor's SDK):

* **Per call.** The function name must be the expected one (the name with ``.``
  replaced by ``_`` is accepted too, as BFCL accepts it from APIs that forbid dots);
  every required parameter is present; every given parameter is declared and expected;
  each value has the declared type (an integer is accepted for a float, as Python
  would convert it; arrays check their items' type one level deep); and each value is
  one of the possible answers. Strings are compared after dropping spaces and
  ``,./-_*^`` and ignoring case (``"April 1, 2024"`` equals ``"april 1 2024"``); lists
  compare their strings that way, element by element; dicts compare key by key.
  An expected parameter left out is fine only when ``""`` is among its possible
  answers (BFCL's mark for "optional").
* **Per question.** ``simple`` and ``multiple`` need exactly one call, the expected
  one; ``parallel`` needs exactly as many calls as expected, matched in any order;
  ``irrelevance`` needs no call at all; ``relevance`` at least one.

One deliberate difference: BFCL matches parallel calls greedily (each expected call
takes the first unmatched call that fits), which can reject a reply that a different
pairing would accept; here any perfect pairing counts. It never rejects what BFCL
accepts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spade_gym.toolcalls import ToolCall

#: The question kinds, by how a reply is checked.
MODES = ("simple", "multiple", "parallel", "irrelevance", "relevance")
#: BFCL's parameter types and the Python type a JSON value must have.
PYTHON_TYPES: dict[str, type] = {
    "string": str, "integer": int, "float": float, "boolean": bool,
    "array": list, "tuple": list, "dict": dict, "any": str,
}
#: Among a parameter's possible answers, this marks it as optional.
OPTIONAL = ""
_IGNORED_IN_STRINGS = re.compile(r"[ ,./\-_*^]")


@dataclass(frozen=True)
class Verdict:
    """Whether a reply is correct; if not, why (``error``) and a short tag (``error_type``)."""

    valid: bool
    error: str = ""
    error_type: str = ""


CORRECT = Verdict(True)


def standardize(text: str) -> str:
    """The form strings are compared in: no spaces or ``,./-_*^``, lower case, ``'`` as ``"``."""
    return _IGNORED_IN_STRINGS.sub("", text).lower().replace("'", '"')


def api_name(name: str) -> str:
    """A function name as APIs that forbid dots accept it (``math.factorial`` -> ``math_factorial``)."""
    return name.replace(".", "_")


def _std(value: Any) -> Any:
    return standardize(value) if isinstance(value, str) else value


def _answer_type(allowed: Sequence[Any]) -> type | None:
    """The type of the first possible answer that is not the optional mark."""
    return next((type(a) for a in allowed if a != OPTIONAL), None)


def _fail(error_type: str, error: str) -> Verdict:
    return Verdict(False, error, error_type)


# ----------------------------------------------------------------------------- values


def _item_types_ok(value: list, allowed: Sequence[Any], item_type: type) -> bool:
    """Arrays check their items one level deep, against at least one possible answer.

    An item may also have the type the possible answer's items have (BFCL writes some
    float arrays' answers as integers, and accepts integers there).
    """
    for answer in allowed:
        if not isinstance(answer, list):  # e.g. the optional mark: nothing to check items against
            return True
        answer_item_type = _answer_type(answer)
        if all(type(item) is item_type or type(item) is answer_item_type for item in value):
            return True
    return False


def _check_string(param: str, value: str, allowed: Sequence[Any]) -> Verdict:
    if standardize(value) in {standardize(a) for a in allowed if isinstance(a, str)}:
        return CORRECT
    return _fail("value_error:string", f"wrong value for {param!r}: {value!r}")


def _check_list(param: str, value: list, allowed: Sequence[Any]) -> Verdict:
    candidates = [[_std(x) for x in a] if isinstance(a, list) else [] for a in allowed
                  if isinstance(a, list) or a == OPTIONAL]
    if [_std(x) for x in value] in candidates:
        return CORRECT
    return _fail("value_error:list", f"wrong value for {param!r}: {value!r}")


def _dict_matches(value: Mapping[str, Any], answer: Mapping[str, Any]) -> str | None:
    """None if ``value`` fits one possible dict answer (key -> possible values), else why not."""
    for key, item in value.items():
        if key not in answer:
            return f"unexpected key {key!r}"
        options = answer[key] if isinstance(answer[key], list) else [answer[key]]
        if _std(item) not in [_std(a) for a in options]:
            return f"wrong value for key {key!r}: {item!r}"
    for key, options in answer.items():
        if key not in value and OPTIONAL not in (options if isinstance(options, list) else [options]):
            return f"missing key {key!r}"
    return None


def _check_dict(param: str, value: dict, allowed: Sequence[Any]) -> Verdict:
    reason: str | None = "no possible answer"
    for answer in allowed:
        if isinstance(answer, Mapping):
            reason = _dict_matches(value, answer)
            if reason is None:
                return CORRECT
    return _fail("value_error:dict", f"wrong value for {param!r}: {reason}")


def _check_list_of_dicts(param: str, value: list, allowed: Sequence[Any]) -> Verdict:
    reason: str | None = "no possible answer"
    for answer in allowed:
        answer = [] if answer == OPTIONAL else answer
        if not isinstance(answer, list):
            continue
        if len(answer) != len(value):
            reason = f"{len(value)} items, expected {len(answer)}"
            continue
        reasons = [_dict_matches(v, a) if isinstance(v, Mapping) and isinstance(a, Mapping) else "not a dict"
                   for v, a in zip(value, answer)]
        reason = next((r for r in reasons if r is not None), None)
        if reason is None:
            return CORRECT
    return _fail("value_error:list_dict", f"wrong value for {param!r}: {reason}")


def check_value(param: str, value: Any, allowed: Sequence[Any], schema: Mapping[str, Any]) -> Verdict:
    """One argument against its declared schema and its possible answers."""
    declared = schema.get("type")
    # A JSON-Schema type union (``["string", "null"]``) is not a BFCL type: it must not
    # reach the dict lookup, where an unhashable key would raise.
    expected_type = PYTHON_TYPES.get(declared) if isinstance(declared, str) else None
    if expected_type is None:  # a type BFCL does not use: compare values only
        return CORRECT if value in allowed else _fail("value_error:others", f"wrong value for {param!r}: {value!r}")
    if expected_type is float and type(value) is int:
        try:
            value = float(value)
        except OverflowError:  # (parsed calls hold no such integer: toolcalls caps their digits)
            return _fail("value_error:others", f"wrong value for {param!r}: an integer beyond the float range")
    answer_type = _answer_type(allowed)
    # A possible answer of another type than declared is a variable name (BFCL writes
    # those as strings); a value of that type is compared as it stands.
    is_variable = answer_type is not None and answer_type is not expected_type and type(value) is answer_type
    raw_items = schema.get("items")
    items: Mapping[str, Any] = raw_items if isinstance(raw_items, Mapping) else {}
    item_type_name = items.get("type")
    item_type = (PYTHON_TYPES.get(item_type_name)
                 if declared in ("array", "tuple") and isinstance(item_type_name, str) else None)
    if not is_variable:
        if type(value) is not expected_type:
            return _fail("type_error", f"wrong type for {param!r}: expected {declared}, got {type(value).__name__}")
        # ``type(value) is expected_type`` holds from here; the isinstance tests restate it for the type checker.
        if item_type is not None and isinstance(value, list) and not _item_types_ok(value, allowed, item_type):
            return _fail("type_error:nested", f"wrong item type in {param!r}: expected {declared} of {item_type_name}")
        if isinstance(value, dict):
            return _check_dict(param, value, allowed)
        if isinstance(value, list) and item_type is dict:
            return _check_list_of_dicts(param, value, allowed)
        if isinstance(value, str):
            return _check_string(param, value, allowed)
        if isinstance(value, list):
            return _check_list(param, value, allowed)
    if value in allowed:
        return CORRECT
    return _fail("value_error:others", f"wrong value for {param!r}: {value!r}")


# ----------------------------------------------------------------------------- calls


def check_call(function: Mapping[str, Any], call: ToolCall, expected: Mapping[str, Sequence[Any]]) -> Verdict:
    """One call against one function's BFCL declaration and its expected arguments."""
    name = function["name"]
    if call.name not in (name, api_name(name)):
        return _fail("wrong_func_name", f"called {call.name!r}, expected {name!r}")
    parameters = function.get("parameters") or {}
    declared = parameters.get("properties") or {}
    for param in parameters.get("required") or ():
        if param not in call.arguments:
            return _fail("missing_required", f"missing required parameter {param!r} of {name!r}")
    for param, value in call.arguments.items():
        if param not in declared or param not in expected:
            return _fail("unexpected_param", f"unexpected parameter {param!r} for {name!r}")
        verdict = check_value(param, value, expected[param], declared[param])
        if not verdict.valid:
            return verdict
    for param, allowed in expected.items():
        if param not in call.arguments and OPTIONAL not in allowed:
            return _fail("missing_optional", f"parameter {param!r} of {name!r} is needed here")
    return CORRECT


def _function(functions: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any]:
    for function in functions:
        if function["name"] == name:
            return function
    raise KeyError(f"the expected function {name!r} is not among the question's functions")


def _expected_calls(ground_truth: Sequence[Mapping[str, Any]]) -> list[tuple[str, Mapping[str, Sequence[Any]]]]:
    return [next(iter(entry.items())) for entry in ground_truth]


def _perfect_matching(fits: list[list[bool]]) -> list[int] | None:
    """For square ``fits[i][j]`` (expected i accepts call j): a call per expected, all distinct, or None."""
    owner: dict[int, int] = {}  # call -> expected

    def place(i: int, seen: set[int]) -> bool:
        for j, ok in enumerate(fits[i]):
            if ok and j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    if not all(place(i, set()) for i in range(len(fits))):
        return None
    match = [0] * len(fits)
    for j, i in owner.items():
        match[i] = j
    return match


def check(mode: str, functions: Sequence[Mapping[str, Any]], calls: Sequence[ToolCall],
          ground_truth: Sequence[Mapping[str, Any]] = ()) -> Verdict:
    """A reply's calls against one BFCL question.

    ``functions`` are the question's BFCL declarations, ``ground_truth`` its possible
    answers (a list of ``{function name: {parameter: [possible values]}}``; empty for
    ``irrelevance`` and ``relevance``).
    """
    if mode == "irrelevance":
        if calls:
            return _fail("irrelevance", f"called {calls[0].name!r}, but no function fits this request")
        return CORRECT
    if mode == "relevance":
        return CORRECT if calls else _fail("relevance", "no function called, but the request needs one")
    if mode not in MODES:
        raise ValueError(f"unknown BFCL check mode {mode!r}; expected one of {', '.join(MODES)}")
    expected = _expected_calls(ground_truth)
    if len(calls) != len(expected):
        return _fail("wrong_count", f"{len(calls)} calls, expected {len(expected)}")
    if mode in ("simple", "multiple"):
        name, arguments = expected[0]
        return check_call(_function(functions, name), calls[0], arguments)
    verdicts = [[check_call(_function(functions, name), call, arguments) for call in calls]
                for name, arguments in expected]
    if _perfect_matching([[v.valid for v in row] for row in verdicts]) is not None:
        return CORRECT
    # Report the first expected call that no call fits, with the closest miss's reason.
    for (name, _), row in zip(expected, verdicts):
        if not any(v.valid for v in row):
            closest = next((v for v in row if v.error_type != "wrong_func_name"), row[0])
            return _fail("parallel:no_match", f"no call matches the expected call of {name!r} ({closest.error})")
    return _fail("parallel:no_match", "the calls fit the expected ones only by reusing a call")
