"""``ToolUseBaseEnv``: the base class of tool-use programs, inside the sandbox.

SPADE's second setting writes an environment as ``class FileOrganizerEnv(ToolUseBaseEnv):``
without importing the base class: the reference loader puts it in the program's namespace.
The program implements ``reset(seed)`` (state, ``self._tools``, ``self._expected_answer``),
one ``tool_<name>(**kwargs) -> str`` method per tool and ``solution()``; the base class
owns ``step()`` (the ``<answer>`` / ``<tool_call>`` text protocol), turn counting and
``get_tools()``.

Why the base class is program text and not a host class: whatever the program can reach
must stay inside the language layer. The base class is therefore compiled under the same
language rules as the program and built with the program's own guards, so its
methods run with exactly the program's privileges (none) and the program's classes keep
the inline attribute fast path (their whole MRO is "program-owned"). Each program
instance gets a fresh copy of the class, so class-level state never leaks between the
instances of a vector env. The base class has its own globals: a program that rebinds
``json`` or ``re`` does not break ``step()``.

The behaviour follows the SPADE reference's base class step for step (see
``docs/tool-use.md`` for the few deliberate differences). Two of them bound what an agent
can send, so that no action makes a sound program fail: a ``<tool_call>`` is decoded by
:func:`spade_gym.toolcalls.load_json` (caps on length, depth and integer digits; a call
over a cap is answered as invalid JSON is, where the reference raises on a 5,000-digit
integer), and the ``<answer>`` / ``<tool_call>`` blocks are found with ``str.find`` (the
same blocks the reference's ``re.search(r"<answer>(.*?)</answer>")`` finds, without its
quadratic time on many unclosed openers).
"""

from __future__ import annotations

import json
import re
from typing import Any

from spade_gym import syntax
from spade_gym.contract import TOOL_USE_BASE_CLASS, TOOL_USE_BASE_MODULE
from spade_gym.errors import PolicyViolation
from spade_gym.sandbox.language.rules import GUARD_NAMES, SpadeRules
from spade_gym.toolcalls import load_json

#: The file name the base class's frames carry: tracebacks shown to a designer keep
#: program frames only, so an error inside ``step()`` points at the program's own line.
BASE_FILENAME = "<spade-tool-use-base>"

#: Most tools a program may declare, and the longest tool name (the OpenAI API's limit).
MAX_TOOLS = 128
MAX_TOOL_NAME_CHARS = 64

# The reference's behaviour, written for the sandbox's language rules (no dunder names except
# ``__init__``; attribute reads go through the guards like any program code).
BASE_SOURCE = '''
def first_block(text, open_tag, close_tag):
    """The content of the leftmost-shortest open...close block, or None: what
    re.search(open + "(.*?)" + close, text, re.DOTALL) finds, in linear time."""
    start = text.find(open_tag)
    if start < 0:
        return None
    end = text.find(close_tag, start + len(open_tag))
    if end < 0:  # no closer after the first opener means none after any later one
        return None
    return text[start + len(open_tag):end]


class ToolUseBaseEnv:
    """Base environment for tool-use tasks: the agent calls tools with
    <tool_call>{"name": ..., "arguments": {...}}</tool_call> and submits <answer>...</answer>."""

    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._tools = {}
        self._state = {}
        self._call_history = []
        self._expected_answer = None
        self.reset()

    def reset(self, seed=None):
        raise NotImplementedError("Subclass must implement reset()")

    def solution(self):
        raise NotImplementedError("Subclass must implement solution()")

    def get_tools(self):
        tools = []
        for name, info in self._tools.items():
            tools.append({
                "type": "function",
                "function": {
                    "name": name,
                    "description": info.get("description", ""),
                    "parameters": info.get("parameters", {"type": "object", "properties": {}}),
                },
            })
        return tools

    def execute_tool(self, name, arguments):
        method = getattr(self, f"tool_{name}", None)
        if method is None:
            return {"output": f"Unknown tool '{name}'", "returncode": 1}
        try:
            result = method(**arguments)
            self._call_history.append({"name": name, "arguments": arguments, "result": str(result)})
            return {"output": str(result), "returncode": 0}
        except Exception as e:
            return {"output": f"Error calling {name}: {e}", "returncode": 1}

    def step(self, action):
        self.turn_count += 1
        truncated = self.turn_count >= self.max_turns

        answer_match = first_block(action, "<answer>", "</answer>")
        if answer_match is not None:
            answer = answer_match.strip()
            if self._check_answer(answer):
                return ("Correct!", 1.0, True, False, {})
            if truncated:
                return (f"Wrong answer. Solution:\\n{self.solution()}", 0.0, False, True, {})
            return (self._incorrect_answer_feedback(), 0.0, False, False, {})

        tc_match = first_block(action, "<tool_call>", "</tool_call>")
        if tc_match is None:
            if truncated:
                return (f"Time up. Solution:\\n{self.solution()}", 0.0, False, True, {})
            return ("Format error: use tools to call a function, or <answer>result</answer> to submit.",
                    -0.1, False, False, {})

        try:
            call = json.loads(tc_match)
            tool_name = call.get("name", "")
            arguments = call.get("arguments", {})
            if not isinstance(arguments, dict):
                arguments = {}
        except (json.JSONDecodeError, AttributeError, RecursionError):
            if truncated:
                return (f"Time up. Solution:\\n{self.solution()}", 0.0, False, True, {})
            return ("Format error: invalid tool call arguments.", -0.1, False, False, {})

        method = getattr(self, f"tool_{tool_name}", None)
        if method is None:
            avail = ", ".join(self._tools.keys())
            if truncated:
                return (f"Time up. Solution:\\n{self.solution()}", 0.0, False, True, {})
            return (f"Unknown tool '{tool_name}'. Available: {avail}", 0.0, False, False, {})

        try:
            result = method(**arguments)
            self._call_history.append({"name": tool_name, "arguments": arguments, "result": str(result)})
        except Exception as e:
            result = f"Error calling {tool_name}: {e}"

        obs = f"Tool result:\\n{result}"
        if truncated:
            obs += f"\\n\\nTime up. Solution:\\n{self.solution()}"
            return (obs, 0.0, False, True, {})
        return (obs, 0.0, False, False, {})

    def _obs_suffix(self):
        return ""

    def _incorrect_answer_feedback(self):
        base = "Incorrect. Keep using tools."
        msgs = getattr(self, "_user_messages", None)
        idx = getattr(self, "_current_msg", None)
        if isinstance(msgs, (list, tuple)) and isinstance(idx, int) and 0 <= idx < len(msgs):
            return (
                f"{base} Not all steps are complete \\u2014 you are still on step "
                f"{idx + 1}/{len(msgs)}: \\"{msgs[idx]}\\" Complete this step with the "
                f"tools before submitting <answer>done</answer>."
            )
        return base

    def _check_answer(self, answer):
        a = str(answer).strip()
        e = str(self._expected_answer).strip()
        if a.lower() == e.lower():
            return True
        try:
            a_clean = a.replace("$", "").replace(",", "").strip()
            e_clean = e.replace("$", "").replace(",", "").strip()
            return abs(float(a_clean) - float(e_clean)) < 0.01
        except (ValueError, TypeError):
            return False

    def close(self):
        pass
'''

_base_code = None


def base_code():
    """The base class compiled under the language rules (once per process; code is immutable)."""
    global _base_code
    if _base_code is None:
        tree = syntax.parse(BASE_SOURCE, BASE_FILENAME)
        errors: list[str] = []
        SpadeRules(errors, [], {}).visit(tree)
        if errors:  # a change of the rules that rejects the base class must fail loudly, not run it
            raise PolicyViolation("the tool-use base class does not pass the sandbox policy:\n" + "\n".join(errors))
        _base_code = syntax.compile_tree(tree, BASE_FILENAME)
    return _base_code


def install(namespace: dict, surfaces: dict) -> type:
    """Build a fresh ``ToolUseBaseEnv`` with the guards of ``namespace`` and put it there.

    Also makes ``from tool_use_base_env import ToolUseBaseEnv`` work (the reference
    loader registers that module too) by adding a surface to this instance's ``surfaces``.
    """
    from spade_gym.sandbox.language.surfaces import SafeModule

    base_globals = {name: namespace[name] for name in ("__builtins__", "__name__", *GUARD_NAMES)}
    # json.loads is the bounded decoder (its refusals are JSONDecodeErrors, answered as bad JSON)
    base_globals["json"] = SafeModule("json", {"loads": load_json, "JSONDecodeError": json.JSONDecodeError})
    exec(base_code(), base_globals)
    base = base_globals[TOOL_USE_BASE_CLASS]
    namespace[TOOL_USE_BASE_CLASS] = base
    surfaces[TOOL_USE_BASE_MODULE] = SafeModule(TOOL_USE_BASE_MODULE, {TOOL_USE_BASE_CLASS: base})
    return base


# ----------------------------------------------------------------------------- tool schemas

_TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


def check_tool_list(value: Any) -> list[dict]:
    """The shape ``get_tools()`` must return: OpenAI function schemas. Returns ``value``.

    Used on both sides of the process boundary: the worker names the fault for the
    designer, the host re-checks (nothing a worker says is trusted). Only the shape is
    checked here; whether ``parameters`` is a sound JSON Schema matching the tool method
    is the validator's business (``validation`` reports it with the line to fix).
    Raises ValueError naming the first fault.
    """
    if not isinstance(value, list):
        raise ValueError(f"get_tools() must return a list of tool schemas, got {type(value).__name__}")
    if len(value) > MAX_TOOLS:
        raise ValueError(f"get_tools() returned {len(value)} tools; the limit is {MAX_TOOLS}")
    names = set()
    for position, tool in enumerate(value):
        where = f"get_tools()[{position}]"
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
            raise ValueError(f'{where} must be {{"type": "function", "function": {{...}}}}')
        function = tool["function"]
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: the function name must be a non-empty string, got {name!r:.60}")
        if len(name) > MAX_TOOL_NAME_CHARS:
            raise ValueError(f"{where}: the tool name is {len(name)} characters; the limit is {MAX_TOOL_NAME_CHARS}")
        if name in names:
            raise ValueError(f"{where}: tool {name!r} is declared twice")
        names.add(name)
        if not isinstance(function.get("description", ""), str):
            raise ValueError(f"{where}: the description of {name!r} must be a string")
        if not isinstance(function.get("parameters", {}), dict):
            raise ValueError(f"{where}: the parameters of {name!r} must be a JSON Schema object (a dict)")
    return value


def valid_tool_name(name: str) -> bool:
    """Names the chat APIs accept for functions (letters, digits, ``_``, ``.``, ``-``)."""
    return bool(_TOOL_NAME.fullmatch(name)) and len(name) <= MAX_TOOL_NAME_CHARS
