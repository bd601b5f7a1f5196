"""What a BFCL agent is shown and what a right reply is: JSON schemas, the observation, the oracle.

Why a module of its own: the single-turn and multi-turn environments present functions
the same way, and the task filtering checks each task's own possible answer with the
same oracle the environments' privileged solution uses.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from typing import Any

from spade_gym.adapters.bfcl_checker import OPTIONAL, Verdict, api_name, check
from spade_gym.adapters.bfcl_data import CATEGORIES, BfclTask
from spade_gym.toolcalls import ToolCall, openai_tools

#: BFCL's types -> JSON Schema types, for the OpenAI function schemas agents are given.
JSON_SCHEMA_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}
PROTOCOL_INSTRUCTION = (
    "To call functions, reply with one block per call:\n"
    '<tool_call>{"name": "<function name>", "arguments": {<the arguments as a JSON object>}}</tool_call>\n'
    "Make every call the request needs (several blocks in one reply for several calls). "
    "When you have made them all, or if none of the functions fits the request, reply "
    "without any <tool_call> block."
)


def json_schema(node: Any) -> Any:
    """A BFCL parameter schema as JSON Schema (``dict`` -> ``object``, ``float`` -> ``number``, ...)."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            out[key] = JSON_SCHEMA_TYPES.get(value, value)
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: json_schema(spec) for name, spec in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = json_schema(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def shown_names(functions: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """BFCL name -> the name agents see: dots as ``_``, unless that would merge two functions."""
    names = [f["name"] for f in functions]
    api = [api_name(n) for n in names]
    if len(set(api)) != len(api) or set(api) & (set(names) - set(api)):
        return {n: n for n in names}
    return dict(zip(names, api))


def tool_schemas(task: BfclTask) -> list[dict[str, Any]]:
    """The task's functions as OpenAI function schemas (the shown names, JSON Schema types)."""
    names = shown_names(task.functions)
    return openai_tools({
        names[f["name"]]: {"description": f.get("description", ""),
                           "parameters": json_schema(f.get("parameters") or {"type": "dict", "properties": {}})}
        for f in task.functions
    })


def render_observation(task: BfclTask, tools: list[dict[str, Any]], *, show_tools: bool = True) -> str:
    messages = task.messages
    if len(messages) == 1 and messages[0].get("role") == "user":
        conversation = str(messages[0].get("content", ""))
    else:
        conversation = "\n\n".join(f"{str(m.get('role', 'user')).capitalize()}: {m.get('content', '')}"
                                   for m in messages)
    parts = [conversation.strip()]
    if show_tools:
        schemas = json.dumps(tools, indent=1, ensure_ascii=False)
        parts.append("Available functions (OpenAI function schemas):\n" + schemas)
    parts.append(PROTOCOL_INSTRUCTION)
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------- the oracle


def _first_allowed(options: Any) -> Any:
    options = options if isinstance(options, list) else [options]
    return next((o for o in options if o != OPTIONAL), OPTIONAL)


def _concrete_dict(answer: Mapping[str, Any]) -> dict[str, Any]:
    """One concrete dict from a possible dict answer (key -> possible values)."""
    out = {}
    for key, options in answer.items():
        options = options if isinstance(options, list) else [options]
        if OPTIONAL not in options:
            out[key] = _first_allowed(options)
    return out


def _concrete_value(options: list[Any], schema: Mapping[str, Any]) -> Any:
    value = _first_allowed(options)
    raw_items = schema.get("items")
    items: Mapping[str, Any] = raw_items if isinstance(raw_items, Mapping) else {}
    if schema.get("type") == "dict" and isinstance(value, Mapping):
        return _concrete_dict(value)
    if items.get("type") == "dict" and isinstance(value, list):
        return [_concrete_dict(v) if isinstance(v, Mapping) else v for v in value]
    return value


def reference_calls(task: BfclTask) -> list[ToolCall]:
    """One of the possible answers, as calls (under the names agents are shown)."""
    names = shown_names(task.functions)
    declared = {f["name"]: f.get("parameters") or {} for f in task.functions}
    calls = []
    for entry in task.ground_truth:
        name, expected = next(iter(entry.items()))
        parameters = declared.get(name, {})
        properties = parameters.get("properties") or {}
        required = set(parameters.get("required") or ())
        arguments = {}
        for param, options in expected.items():
            options = options if isinstance(options, list) else [options]
            if param not in required and OPTIONAL in options:
                continue  # optional: leaving it out is a possible answer
            arguments[param] = _concrete_value(options, properties.get(param) or {})
        calls.append(ToolCall(names.get(name, name), arguments))
    return calls


# ----------------------------------------------------------------------------- the environment


def reference_verdict(category: str, task: BfclTask) -> Verdict:
    """The verdict on the task's own possible answer (by construction right, unless the data is not)."""
    mode = CATEGORIES[category]
    if mode in ("irrelevance", "relevance"):
        return Verdict(True)
    return check(mode, task.functions, reference_calls(task), task.ground_truth)
