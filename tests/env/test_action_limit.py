"""The action-length limit: one definition (the contract), read by every agent and environment.

Agents once cut their actions at 4,000 characters while environments accepted 100,000: a
tool call with longer arguments reached the environment cut mid-JSON, as a malformed call.
"""

from __future__ import annotations

import ast
import json

from testkit import ROOT

from spade_gym import contract, toolcalls
from spade_gym.agents.base import AgentReply, parse_action
from spade_gym.agents.toolchat import plan


def test_the_limit_is_defined_once_in_the_contract():
    definitions = []
    for path in (ROOT / "src" / "spade_gym").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) else [])
            if any(isinstance(t, ast.Name) and t.id == "MAX_ACTION_CHARS" for t in targets):
                definitions.append(str(path.relative_to(ROOT)))
    assert definitions == ["src/spade_gym/contract.py"]


def test_a_long_native_tool_call_reaches_the_environment_whole():
    arguments = {"text": "a" * 6_000}  # longer than the agents' old 4,000-character cut
    reply = AgentReply("", tool_calls=[{"id": "c1", "type": "function",
                                        "function": {"name": "write", "arguments": json.dumps(arguments)}}])
    (action,), _ = plan(reply)
    parsed = toolcalls.parse_action(action.action)
    assert not parsed.errors
    assert [(c.name, c.arguments) for c in parsed.calls] == [("write", arguments)]


def test_an_unboxed_reply_is_cut_at_the_contract_limit_only():
    assert parse_action("x" * 6_000) == "x" * 6_000
    assert parse_action("y" * (contract.MAX_ACTION_CHARS + 50)) == "y" * contract.MAX_ACTION_CHARS
