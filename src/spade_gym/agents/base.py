"""What an agent is, how it sees an observation, and how its answer is read.

The conventions follow the SPADE reference: the first user message frames the game
and asks for the answer in ``\\boxed{}``; each later observation is a new user message;
the action sent to the environment is the content of the (first complete)
``\\boxed{...}`` in the reply after any ``</think>``, or the whole reply when it has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from spade_gym.contract import MAX_ACTION_CHARS

#: First user message of every episode.
FIRST_TURN_TEMPLATE = (
    "You are playing a text game. Read the observation, reason step by step, and give your "
    "action (your answer or your command) inside \\boxed{{}}.\n\nObservation:\n{observation}"
)
_THINK_END = re.compile(r"</think>", re.IGNORECASE)
_SIMPLE_BOX = re.compile(r"\\boxed\{([^{}]*)\}")


def first_message(observation: str) -> dict:
    return {"role": "user", "content": FIRST_TURN_TEMPLATE.format(observation=observation)}


def followup_message(observation: str) -> dict:
    return {"role": "user", "content": observation}


def extract_boxed(text: str) -> str | None:
    """Content of the first complete ``\\boxed{...}`` (nested braces allowed), else None."""
    match = _SIMPLE_BOX.search(text)
    start = text.find("\\boxed{")
    if start < 0:
        return None
    if match is not None and match.start() == start:
        return match.group(1).strip()
    depth = 0
    for i in range(start + len("\\boxed{") - 1, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + len("\\boxed{"): i].strip()
    return None


def parse_action(reply: str) -> str:
    """The action sent to the environment for a model reply."""
    cuts = list(_THINK_END.finditer(reply))
    answer = reply[cuts[-1].end():] if cuts else reply
    boxed = extract_boxed(answer)
    if boxed is not None:
        return "\\boxed{" + boxed + "}"
    return answer.strip()[:MAX_ACTION_CHARS]


@dataclass
class ActRequest:
    """One episode asking for its next action."""

    messages: list[dict]
    observation: str
    turn: int
    env: Any  # the gymnasium env; oracle-style agents read privileged(env)
    episode_id: int = 0
    #: The episode's tools (OpenAI function schemas) for a tool-use environment, else None:
    #: agents pass them as ``tools=`` (see :mod:`spade_gym.agents.toolchat`).
    tools: list[dict] | None = None


@dataclass
class AgentReply:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Filled by training policies: token ids and log-probabilities of this turn.
    extra: dict = field(default_factory=dict)
    #: Native tool calls of the reply, OpenAI form (``{"id", "type", "function": {"name", "arguments"}}``).
    tool_calls: list[dict] | None = None


class Agent(Protocol):
    """Anything that answers a batch of episodes at once."""

    name: str

    def act(self, requests: list[ActRequest]) -> list[AgentReply]: ...

    def close(self) -> None: ...
