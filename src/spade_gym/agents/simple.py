"""Reference agents: the oracle (upper bound) and random play (lower bound)."""

from __future__ import annotations

import random

from spade_gym import toolcalls
from spade_gym.agents.base import ActRequest, AgentReply
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.wrappers import privileged
from spade_gym.validation.observations import observation_candidates


class OracleAgent:
    """The privileged policy the validator proves solvability with; it wins every sound
    environment. Games: ``\\boxed{<solution()>}`` every turn, re-reading the solution each
    time. Tool-use environments: ``solution()`` read at the start of the episode and played
    one action (one tool call, then the answer) per turn."""

    name = "oracle"

    def __init__(self) -> None:
        self._scripts: dict[int, list[str]] = {}

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        return [self._one(r) for r in requests]

    def _one(self, request: ActRequest) -> AgentReply:
        if request.tools is None:
            return AgentReply("\\boxed{" + privileged(request.env).solution() + "}")
        if request.turn == 0 or request.episode_id not in self._scripts:
            self._scripts[request.episode_id] = toolcalls.solution_actions(privileged(request.env).solution())
        script = self._scripts[request.episode_id]
        # one action per turn: each reply is a single call, so the turn index is the script position
        return AgentReply(script[min(request.turn, len(script) - 1)] if script else "")

    def close(self) -> None:
        self._scripts.clear()


class RandomAgent:
    """What a model that ignores the task would do. Games: a random candidate copied from the
    observation (a boxed example or a token), or a sample of the action space. Tool-use
    environments: a call of a random tool with random arguments of the declared types, or a
    random token as the answer."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.space = UnicodeText(200, seed=seed)

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        replies = []
        for r in requests:
            if r.tools is not None:
                replies.append(AgentReply(self._tool_action(r)))
            elif self.rng.random() < 0.8:
                replies.append(AgentReply("\\boxed{" + self.rng.choice(observation_candidates(r.observation)) + "}"))
            else:
                replies.append(AgentReply(self.space.sample()))
        return replies

    def _tool_action(self, request: ActRequest) -> str:
        words = observation_candidates(request.observation)
        if not request.tools or self.rng.random() < 0.2:
            return toolcalls.format_answer(self.rng.choice(words).replace("</answer>", ""))
        function = self.rng.choice(request.tools)["function"]
        properties = (function.get("parameters") or {}).get("properties") or {}
        arguments = {name: self._value(schema if isinstance(schema, dict) else {}, words)
                     for name, schema in properties.items()}
        return toolcalls.format_call(function["name"], arguments)

    def _value(self, schema: dict, words: list[str]):
        kind = schema.get("type")
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.rng.choice(schema["enum"])
        if kind == "integer":
            return self.rng.randint(0, 100)
        if kind == "number":
            return round(self.rng.uniform(0, 100), 2)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "array":
            return [self.rng.choice(words)]
        return self.rng.choice(words)

    def close(self) -> None:
        pass
