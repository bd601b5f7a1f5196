"""Which agent an evaluation plays, built from a registry of agent kinds, and its fingerprint."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from spade_gym.agents import Agent
from spade_gym.errors import ConfigError

_T = TypeVar("_T")


def _setting(value: _T | None, option: str, config: AgentConfig) -> _T:
    """A setting the agent kind needs; ``AgentConfig`` checks it on creation, this catches later edits."""
    if value is None:
        raise ConfigError(f"--agent {config.kind} needs {option}")
    return value


def _oracle(config: AgentConfig) -> Agent:
    from spade_gym.agents import OracleAgent

    return OracleAgent()


def _random(config: AgentConfig) -> Agent:
    from spade_gym.agents import RandomAgent

    return RandomAgent(seed=config.seed)


def _openai(config: AgentConfig) -> Agent:
    from spade_gym.agents.llm import OpenAIAgent

    return OpenAIAgent(_setting(config.base_url, "--base-url", config), _setting(config.model, "--model", config),
                       api_key_env=config.api_key_env, temperature=config.temperature,
                       max_tokens=_setting(config.tokens_per_turn, "--max-tokens", config),
                       concurrency=config.concurrency)


def _transformers(config: AgentConfig) -> Agent:
    from spade_gym.agents.llm import TransformersAgent

    return TransformersAgent(_setting(config.model, "--model", config), temperature=config.temperature,
                             max_tokens=_setting(config.tokens_per_turn, "--max-tokens", config),
                             batch_size=config.concurrency, seed=config.seed)


def _baselines(config: AgentConfig) -> Agent:
    from spade_gym.agents.baselines import BaselinesAgent

    try:
        return BaselinesAgent(config.model, seed=config.seed)
    except ValueError as exc:
        raise ConfigError(f"--agent baselines --model: {exc}") from None


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent ``spade-gym eval`` can build, and what it needs.

    ``model`` says what ``--model`` means for this kind (None: it takes no model);
    ``seeded`` kinds sample, so their seed changes outcomes.
    """

    build: Callable[[AgentConfig], Agent]
    model: str | None = None
    needs_base_url: bool = False
    seeded: bool = False
    default_max_tokens: int | None = None


#: The agent kinds ``spade-gym eval`` knows, by name.
AGENTS: dict[str, AgentKind] = {
    "transformers": AgentKind(_transformers, model="a checkpoint path or hub id", seeded=True,
                              default_max_tokens=512),
    "openai": AgentKind(_openai, model="the served model name", needs_base_url=True, default_max_tokens=2048),
    "oracle": AgentKind(_oracle),
    "random": AgentKind(_random, seeded=True),
    # The validator's shortcut zoo; --model optionally names one baseline.
    "baselines": AgentKind(_baselines, seeded=True),
}
AGENT_KINDS = tuple(AGENTS)


@dataclass(frozen=True)
class AgentConfig:
    """Which agent plays, and every setting that changes its outcomes.

    ``max_turns`` (a cap on top of each env's own limit) belongs here although the driver
    applies it: it changes results, so it must be part of the fingerprint.
    ``base_url``, ``api_key_env`` and ``concurrency`` change how, not what, is played.
    """

    kind: str
    model: str | None = None
    temperature: float = 0.6
    max_tokens: int | None = None
    max_turns: int | None = None
    seed: int = 0
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8

    def __post_init__(self) -> None:
        agent = AGENTS.get(self.kind)
        if agent is None:
            raise ConfigError(f"unknown agent {self.kind!r}; choose one of {', '.join(AGENTS)}")
        if agent.model is not None and not self.model:
            raise ConfigError(f"--agent {self.kind} needs --model ({agent.model})")
        if agent.needs_base_url and not self.base_url:
            raise ConfigError(f"--agent {self.kind} needs --base-url, e.g. http://localhost:8000/v1")
        if self.concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.max_turns is not None and self.max_turns < 1:
            raise ConfigError(f"max_turns must be at least 1, got {self.max_turns}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1, got {self.max_tokens}")

    @property
    def uses_model(self) -> bool:
        return AGENTS[self.kind].model is not None

    @property
    def tokens_per_turn(self) -> int | None:
        return self.max_tokens or AGENTS[self.kind].default_max_tokens

    def settings(self) -> dict[str, Any]:
        """What determines outcomes, and so the fingerprint (irrelevant settings left out)."""
        out: dict[str, Any] = {"kind": self.kind, "max_turns": self.max_turns}
        if self.uses_model:
            out.update(model=self.model, temperature=self.temperature, max_tokens=self.tokens_per_turn)
        elif self.model:  # the baselines' --model picks one script: it decides the outcomes and the label
            out["model"] = self.model
        if AGENTS[self.kind].seeded:
            out["seed"] = self.seed
        return out

    @property
    def fingerprint(self) -> str:
        """Readable and unique: ``<kind>[-<model name>]-<8 hex digits of the settings hash>``."""
        digest = hashlib.sha256(json.dumps(self.settings(), sort_keys=True).encode()).hexdigest()[:8]
        parts = [self.kind]
        if self.model:
            parts.append(re.sub(r"[^A-Za-z0-9._-]+", "_", self.model.rstrip("/").rsplit("/", 1)[-1])[:40])
        return "-".join(parts + [digest])

    def build(self) -> Agent:
        """The agent itself; model agents import their heavy dependencies only here."""
        return AGENTS[self.kind].build(self)
