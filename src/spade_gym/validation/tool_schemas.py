"""What the tool-use checks need to know, as pure functions of plain data.

JSON Schema soundness of tool parameters (the subset chat APIs use), the ``tool_*`` methods
of a program read from its text, whether a method accepts exactly its declared parameters,
tool calls an agent might get wrong, and a solution's final answer. No sandbox here: the
checks in :mod:`spade_gym.validation.checks.tool_use` feed these what the host saw.
"""

from __future__ import annotations

import ast
import random
from typing import Any

from spade_gym import syntax, toolcalls
from spade_gym.contract import TOOL_METHOD_PREFIX, environment_class
from spade_gym.validation.messages import excerpt

#: JSON Schema types a tool parameter may have (the ones chat APIs accept).
SCHEMA_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
#: Schema keywords whose value must itself be a schema / a dict of schemas / a list of schemas.
_SUBSCHEMA = ("items", "additionalProperties", "not")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAX_SCHEMA_DEPTH = 16


# ----------------------------------------------------------------------------- schemas


def schema_problems(schema: Any, where: str, depth: int = 0) -> list[str]:
    """What is wrong with ``schema`` as a JSON Schema (the subset tool parameters use)."""
    if depth > _MAX_SCHEMA_DEPTH:
        return [f"{where}: nested more than {_MAX_SCHEMA_DEPTH} levels deep"]
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, dict):
        return [f"{where}: a schema must be an object (dict), got {type(schema).__name__}"]
    problems = []
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        unknown = [k for k in kinds if not isinstance(k, str) or k not in SCHEMA_TYPES]
        if unknown or not kinds:
            problems.append(f"{where}: 'type' {excerpt(kind, 40)} is not one of {', '.join(sorted(SCHEMA_TYPES))}")
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        problems.append(f"{where}: 'enum' must be a non-empty list")
    for key in ("description", "title"):
        if key in schema and not isinstance(schema[key], str):
            problems.append(f"{where}: '{key}' must be a string")
    if "required" in schema:
        required = schema["required"]
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            problems.append(f"{where}: 'required' must be a list of property names")
        elif len(set(required)) != len(required):
            problems.append(f"{where}: 'required' lists a name twice")
    for key in _SUBSCHEMA:
        if key in schema:
            problems += schema_problems(schema[key], f"{where}.{key}", depth + 1)
    for key in _SUBSCHEMA_MAPS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, dict):
                problems.append(f"{where}: '{key}' must be an object mapping names to schemas")
                continue
            for name, sub in value.items():
                problems += schema_problems(sub, f"{where}.{key}.{name}", depth + 1)
    for key in _SUBSCHEMA_LISTS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, list) or not value:
                problems.append(f"{where}: '{key}' must be a non-empty list of schemas")
                continue
            for i, sub in enumerate(value):
                problems += schema_problems(sub, f"{where}.{key}[{i}]", depth + 1)
    return problems


def parameters_problems(name: str, parameters: Any) -> list[str]:
    """A tool's ``parameters``: a JSON Schema of type object whose required names are properties."""
    where = f"the parameters of {name!r}"
    if not isinstance(parameters, dict):
        return [f"{where} must be a JSON Schema object, got {type(parameters).__name__}"]
    if parameters.get("type") != "object":
        return [f"{where} must have \"type\": \"object\" (got {excerpt(parameters.get('type'), 30)})"]
    problems = schema_problems(parameters, where)
    properties = parameters.get("properties", {})
    required = parameters.get("required", [])
    if isinstance(properties, dict) and isinstance(required, list):
        missing = [r for r in required if isinstance(r, str) and r not in properties]
        if missing:
            problems.append(f"{where}: 'required' names {', '.join(map(repr, missing))}, which 'properties' "
                            f"does not declare")
    return problems


# ----------------------------------------------------------------------------- methods


def tool_methods(source: str) -> tuple[ast.ClassDef | None, dict[str, ast.FunctionDef]]:
    """The environment class and the ``tool_*`` methods it has (its own first, then those it
    inherits from classes the program defines, in method-resolution order)."""
    tree = syntax.parse(source)
    env = environment_class(tree)
    if env is None:
        return None, {}
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    methods: dict[str, ast.FunctionDef] = {}
    order, seen = [env], set()
    while order:
        node = order.pop(0)
        if node.name in seen:
            continue
        seen.add(node.name)
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith(TOOL_METHOD_PREFIX):
                methods.setdefault(stmt.name, stmt)
        order += [classes[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
    return env, methods


def signature_problems(tool: str, method: ast.FunctionDef, parameters: dict) -> list[str]:
    """How ``method`` disagrees with the declared parameters of ``tool``."""
    args = method.args
    positional = args.posonlyargs + args.args
    if positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    with_default = {a.arg for a in positional[len(positional) - len(args.defaults):]} if args.defaults else set()
    with_default |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    names = [a.arg for a in positional + args.kwonlyargs]
    positional_only = {a.arg for a in args.posonlyargs}  # cannot be passed by name
    raw_properties, raw_required = parameters.get("properties"), parameters.get("required")
    properties: dict = raw_properties if isinstance(raw_properties, dict) else {}
    required = set(raw_required) if isinstance(raw_required, list) else set()
    declared = list(properties)
    where = f"{method.name} (line {method.lineno})"
    shown = f"its parameters are ({', '.join(names)}{', **' + args.kwarg.arg if args.kwarg else ''})"
    problems = []
    refused = [p for p in declared if (p not in names or p in positional_only) and args.kwarg is None]
    if refused:
        problems.append(f"{where} does not accept {', '.join(map(repr, refused))}, declared in the schema of "
                        f"{tool!r}; {shown}. Name the parameters exactly as the schema's properties.")
    needed = [n for n in names if n not in with_default and n not in declared]
    if needed:
        problems.append(f"{where} requires {', '.join(map(repr, needed))}, which the schema of {tool!r} does not "
                        f"declare (declared: {', '.join(map(repr, declared)) or 'nothing'}); every call would fail")
    optional = [n for n in names if n not in with_default and n in declared and n not in required]
    if optional:
        problems.append(f"{where} has no default for {', '.join(map(repr, optional))}, which the schema of "
                        f"{tool!r} leaves optional: list it in 'required', or give it a default")
    return problems


# ----------------------------------------------------------------------------- odd calls

#: Arguments of the wrong JSON type for each declared type.
_WRONG_TYPE: dict[str, Any] = {"string": 12345, "number": "twelve", "integer": "7", "boolean": "yes", "array": "a,b",
               "object": [1, 2], "null": 0}
#: Odd but legal values of each type (what careless agents send).
_ODD_VALUES: dict[str, list[Any]] = {"string": ["", " ", "Ünïcödé 漢字 🙂", "x" * 1000, "../../etc/passwd", "None"],
               "number": [0, -1, -0.5, 1e9, 3.14159], "integer": [0, -1, 10**9, 2**63],
               "boolean": [True, False], "array": [[], [""], list(range(50))], "object": [{}, {"k": "v"}]}


def odd_calls(tools: list[dict], rng: random.Random) -> list[str]:
    """Tool calls an agent might send, for every declared tool (see :data:`_ODD_VALUES`)."""
    calls: list[str] = []
    for tool in tools:
        function = tool["function"]
        name = function["name"]
        raw_parameters = function.get("parameters")
        parameters: dict = raw_parameters if isinstance(raw_parameters, dict) else {}
        raw_properties = parameters.get("properties")
        properties: dict = raw_properties if isinstance(raw_properties, dict) else {}
        types: dict[str, str] = {
            p: (s["type"] if isinstance(s, dict) and isinstance(s.get("type"), str) else "string")
            for p, s in properties.items()}
        typical: dict[str, Any] = {p: rng.choice(_ODD_VALUES.get(t, [""])) for p, t in types.items()}
        calls.append(toolcalls.format_call(name, {}))  # every argument missing
        calls.append(toolcalls.format_call(name, {**typical, "unexpected_argument": 1}))
        for p, t in types.items():
            calls.append(toolcalls.format_call(name, {**typical, p: _WRONG_TYPE.get(t, None)}))
            calls.append(toolcalls.format_call(name, {**typical, p: None}))
            for value in _ODD_VALUES.get(t, []):
                calls.append(toolcalls.format_call(name, {**typical, p: value}))
    calls.append(toolcalls.format_call("no_such_tool", {}))
    calls.append('<tool_call>{"name": "%s", "arguments": [1, 2]}</tool_call>' % (tools[0]["function"]["name"]
                                                                               if tools else "x"))
    calls.append('<tool_call>{"name": "x", "arguments": {"a": NaN, "b": Infinity}}</tool_call>')
    return calls


# ----------------------------------------------------------------------------- answers


def final_answer(solution: str | None) -> str | None:
    """The content of the last ``<answer>`` of a solution, or None."""
    if not solution:
        return None
    answers = [a for a in toolcalls.solution_actions(solution) if a.startswith(toolcalls.ANSWER_OPEN)]
    if not answers:
        return None
    return answers[-1][len(toolcalls.ANSWER_OPEN):-len(toolcalls.ANSWER_CLOSE)].strip()
