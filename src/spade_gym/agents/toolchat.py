"""The conversation of a tool-use episode: native tool calls in, text-protocol actions out.

A tool-use environment (``info["tools"]`` on reset) takes actions in the text protocol of
:mod:`spade_gym.toolcalls`. Chat models call tools natively: an OpenAI-compatible server
returns ``tool_calls``; a local model writes Qwen-style ``<tool_call>`` blocks that its
chat template taught it. This module is the one translation between the two, shared by
every agent and the episode driver:

* the episode starts with the task as the user message (the tools travel separately, as
  ``tools=`` of the request or of ``apply_chat_template``), as in the SPADE reference;
* a reply becomes actions: an ``<answer>`` is read first (the environment reads it first
  too); else every tool call, native or written, becomes one action — one environment step
  each, in order; else the text itself goes to the environment (which answers with a
  format error);
* the assistant turn is recorded with its ``tool_calls`` and each call's result goes back
  as a ``tool`` message with the call's id; an answer's or a plain text's result goes back
  as a user message.

Messages are kept in the OpenAI chat format (arguments as JSON strings); the transformers
backend converts them for chat templates.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from spade_gym import toolcalls
from spade_gym.agents.base import AgentReply
from spade_gym.contract import MAX_ACTION_CHARS

_THINK_END = re.compile(r"</think>", re.IGNORECASE)


def first_message(observation: str) -> dict:
    """The task, as the user's first message (the tool schemas go in ``tools=``)."""
    return {"role": "user", "content": observation}


def after_thinking(text: str) -> str:
    cuts = list(_THINK_END.finditer(text))
    return text[cuts[-1].end():] if cuts else text


@dataclass(frozen=True)
class PlannedCall:
    """One action of a reply, and the id of the tool call it answers (None: not a tool call)."""

    action: str
    call_id: str | None = None


def native_calls(reply: AgentReply) -> list[dict]:
    """The reply's tool calls in OpenAI form (``[{"id", "type", "function": {"name", "arguments"}}]``)."""
    calls = []
    for position, call in enumerate(reply.tool_calls or ()):
        if not isinstance(call, dict):
            continue
        raw = call.get("function")
        function: dict = raw if isinstance(raw, dict) else {}
        arguments = function.get("arguments", "{}")
        if not isinstance(arguments, str):
            try:
                arguments = json.dumps(arguments, ensure_ascii=False)
            except (TypeError, ValueError):
                arguments = str(arguments)
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{position}"
        calls.append({"id": call_id, "type": "function",
                      "function": {"name": str(function.get("name") or ""), "arguments": arguments}})
    return calls


def plan(reply: AgentReply, *, id_prefix: str = "call_") -> tuple[list[PlannedCall], dict]:
    """The actions a reply sends to a tool-use environment, and the assistant message to record."""
    text = reply.text or ""
    answer_part = after_thinking(text)
    calls = native_calls(reply)
    if toolcalls.ANSWER_OPEN in answer_part and toolcalls.parse_action(answer_part).answer is not None:
        # The environment reads an answer before any call; calls in the same reply are not run
        # (and not recorded, so no call is left without its tool message).
        return [PlannedCall(answer_part.strip()[:MAX_ACTION_CHARS])], {"role": "assistant", "content": text}
    if not calls:
        parsed = toolcalls.parse_action(answer_part)
        if not parsed.calls:
            # plain text, or only malformed blocks: the environment reports the format error
            return [PlannedCall(answer_part.strip()[:MAX_ACTION_CHARS])], {"role": "assistant", "content": text}
        # written calls are recorded as calls (the text keeps only what surrounds them), as a
        # chat template would have parsed them; blocks that do not parse are dropped
        calls = toolcalls.to_openai_tool_calls(parsed.calls, id_prefix=id_prefix)
        content = toolcalls.parse_action(text).text
    else:
        content = toolcalls.parse_action(text).text if toolcalls.CALL_OPEN in text else text
    actions = [PlannedCall(toolcalls.text_from_openai_tool_calls([call])[:MAX_ACTION_CHARS], call["id"])
               for call in calls]
    return actions, {"role": "assistant", "content": content, "tool_calls": calls}


def result_message(planned: PlannedCall, observation: str) -> dict:
    """How the environment's answer to one action goes back to the model."""
    if planned.call_id is not None:
        return {"role": "tool", "tool_call_id": planned.call_id, "content": observation}
    return {"role": "user", "content": observation}
