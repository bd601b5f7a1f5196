"""Registered ``spade/*`` environments as TRL ``environment_factory`` environments.

Any TRL user can then train an agent on a spade-gym suite with a plain ``GRPOTrainer``
(and TRL's own vLLM path)::

    from spade_gym.integrations.trl import environment_factory, task_dataset

    ids = ["spade/LetterFeedbackHunt-v0", "spade/AlienNumerals-v0"]
    trainer = GRPOTrainer(model=..., args=GRPOConfig(...), train_dataset=task_dataset(ids, seeds=64),
                          environment_factory=environment_factory(ids))

TRL's contract (``trl.GRPOTrainer``, ``environment_factory``): an environment object has a
``reset(**row)`` that returns the text appended to the user message, public methods that
are offered to the model as tools, and a ``get_reward()`` read once the rollout ends.

* **Games** get one tool, ``act(action)``: the text action of one turn; it returns the
  environment's next observation.
* **Tool-use environments** get their own tools (one method per declared tool, with its
  JSON-schema parameters) plus ``answer(answer)`` for the final ``<answer>``. TRL reads a
  factory's tools once, from a probe instance, so every id given to one factory must
  declare the same tools; ``environment_factory`` groups ids by kind and tool set and
  returns a dict factory (TRL routes each row by its ``environment`` column).

The reward is the episode outcome (the last reward if the episode terminated, else 0,
clamped to [-1, 1]) — what spade-gym's own self-play trains on.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from spade_gym.errors import SpadeError

__all__ = ["SpadeGameEnvironment", "environment_factory", "task_dataset", "tool_use_environment_class"]

_INSTRUCTIONS = ("Play the environment below by calling the `act` tool with your action for each turn "
                 "(answers usually go in \\boxed{...}). Keep going until the episode ends.\n\n")
_TOOL_USE_INSTRUCTIONS = ("Solve the task below with the tools provided; when you know the result, call "
                          "`answer` with it.\n\n")


class _Episode:
    """The state both environment flavours share: one gymnasium env and its outcome."""

    env_id: str = ""

    def __init__(self):
        self._env: gym.Env | None = None
        self._env_id: str | None = None
        self._outcome = 0.0
        self._done = False
        self._turns = 0

    def _start(self, env_id: str | None, seed) -> tuple[str, dict]:
        env_id = env_id or self.env_id
        if not env_id:
            raise SpadeError("no environment id: give the dataset row an `env_id` (see task_dataset)")
        if self._env is None or self._env_id != env_id:
            if self._env is not None:
                self._env.close()
            self._env, self._env_id = gym.make(env_id), env_id
        self._outcome, self._done, self._turns = 0.0, False, 0
        return self._env.reset(seed=None if seed is None else int(seed))

    def _send(self, action: str) -> str:
        if self._env is None:
            raise SpadeError("reset() first")
        if self._done:
            return "The episode is over; nothing more to do."
        observation, reward, terminated, truncated, _ = self._env.step(str(action))
        self._turns += 1
        if terminated or truncated:
            self._done = True
            self._outcome = max(-1.0, min(1.0, float(reward))) if terminated else 0.0
            return f"{observation}\n\n[episode over: reward {float(reward):g}]"
        return str(observation)

    def get_reward(self) -> float:
        """The episode outcome (TRL calls this once the rollout is complete)."""
        return self._outcome


class SpadeGameEnvironment(_Episode):
    """A spade-gym game as a TRL environment with one tool, ``act``."""

    def reset(self, env_id: str | None = None, seed: int | None = None, **_row) -> str:
        observation, _ = self._start(env_id, seed)
        return _INSTRUCTIONS + str(observation)

    def act(self, action: str) -> str:
        """Take one turn in the environment.

        Args:
            action: The action text for this turn, for example an answer written as \\boxed{42}.

        Returns:
            The environment's reply: the next observation, or the final result.
        """
        return self._send(action)


_JSON_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def _tool_method(name: str, schema: dict) -> Callable:
    """A method ``name(**arguments) -> str`` with the signature and docstring TRL reads."""
    parameters = schema.get("parameters") or {}
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    arg_lines = []
    for arg, spec in properties.items():
        if not arg.isidentifier():
            raise SpadeError(f"tool {name!r} has a parameter {arg!r} that is not a Python identifier")
        kind = _JSON_TYPES.get(str((spec or {}).get("type")), str)
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind))
        annotations[arg] = kind
        description = " ".join(str((spec or {}).get("description") or arg).split())
        arg_lines.append(f"    {arg}: {description}")

    def method(self, **arguments) -> str:
        from spade_gym import toolcalls

        arguments = {k: v for k, v in arguments.items() if v is not None or k in required}
        return self._send(toolcalls.format_call(name, arguments))

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    summary = " ".join(str(schema.get("description") or name).split())
    method.__doc__ = summary + ("\n\nArgs:\n" + "\n".join(arg_lines) if arg_lines else "") + \
        "\n\nReturns:\n    The tool's result."
    return method


def tool_use_environment_class(env_id: str, tools: list[dict]) -> type:
    """A TRL environment class for a tool-use env whose episodes declare ``tools``
    (OpenAI function schemas, as ``spade_gym.tools(env)`` returns them)."""
    namespace: dict[str, Any] = {"env_id": env_id}
    for tool in tools:
        function = tool.get("function", tool)
        name = function["name"]
        if not name.isidentifier() or name.startswith("_") or name in ("reset", "get_reward", "answer"):
            raise SpadeError(f"{env_id}: tool name {name!r} cannot be a method of a TRL environment")
        namespace[name] = _tool_method(name, function)

    def reset(self, env_id: str | None = None, seed: int | None = None, **_row) -> str:
        observation, _ = self._start(env_id, seed)
        return _TOOL_USE_INSTRUCTIONS + str(observation)

    def answer(self, answer: str) -> str:
        """Submit the final answer; this ends the episode.

        Args:
            answer: The result the task asks for.

        Returns:
            Whether the answer was correct.
        """
        from spade_gym import toolcalls

        return self._send(toolcalls.format_answer(answer))

    namespace.update(reset=reset, answer=answer)
    class_name = "".join(ch for ch in env_id.split("/")[-1].title() if ch.isalnum()) + "Environment"
    return type(class_name, (_Episode,), namespace)


def _kind_and_tools(env_id: str) -> tuple[str, list[dict]]:
    import spade_gym

    env = gym.make(env_id)
    try:
        _, info = env.reset(seed=0)
        if info.get("tools") is None:
            return "game", []
        return "tool-use", spade_gym.tools(env)
    finally:
        env.close()


def environment_factory(env_ids: list[str]) -> Callable | dict[str, Callable]:
    """What to pass as ``GRPOTrainer(environment_factory=...)`` for these ids.

    Games only: one factory (rows name their ``env_id``). With tool-use envs: a dict of
    factories, one per distinct tool set, and :func:`task_dataset` fills in each row's
    ``environment`` key accordingly.
    """
    groups = _groups(env_ids)
    if list(groups) == ["game"]:
        return SpadeGameEnvironment
    return {name: factory for name, (factory, _) in groups.items()}


def _groups(env_ids: list[str]) -> dict[str, tuple[Callable, list[str]]]:
    if not env_ids:
        raise SpadeError("no environment ids given")
    groups: dict[str, tuple[Callable, list[str]]] = {}
    signatures: dict[str, str] = {}
    for env_id in env_ids:
        kind, tools = _kind_and_tools(env_id)
        if kind == "game":
            groups.setdefault("game", (SpadeGameEnvironment, []))[1].append(env_id)
            continue
        signature = json.dumps(tools, sort_keys=True)
        name = signatures.get(signature)
        if name is None:
            name = signatures[signature] = env_id
            cls = tool_use_environment_class(env_id, tools)
            groups[name] = (cls, [])
        groups[name][1].append(env_id)
    return groups


def task_dataset(env_ids: list[str], *, seeds: int = 16, first_seed: int = 0) -> list[dict]:
    """Rows for ``train_dataset`` (``datasets.Dataset.from_list`` them): one per (id, seed),
    each with a ``prompt`` (the observation is appended by ``reset``), ``env_id`` and
    ``seed``, plus ``environment`` when :func:`environment_factory` returns a dict."""
    groups = _groups(env_ids)
    multi = list(groups) != ["game"]
    rows = []
    for name, (_, ids) in groups.items():
        for env_id in ids:
            for seed in range(first_seed, first_seed + seeds):
                row = {"prompt": [{"role": "user", "content": ""}], "env_id": env_id, "seed": seed}
                if multi:
                    row["environment"] = name
                rows.append(row)
    return rows
