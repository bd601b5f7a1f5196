"""The hint wrapper and the one explicit door to privileged information."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from spade_gym.env.hint_mode import HintMode, HintValue
from spade_gym.errors import SandboxError, SpadeError

#: How the hint is shown to the agent (the SPADE reference format).
HINT_TEMPLATE = "{observation}\n\nHINT: {hint}"
#: Where :class:`HintWrapper` puts the hint.
HINT_PLACES = (HintMode.OBSERVATION.value, HintMode.INFO.value)


def _spade_env(env: gym.Env):
    """The unwrapped env, if it offers privileged access (SpadeEnv and adapters like the
    Reasoning Gym one implement ``_privileged_solution``/``_privileged_hint``)."""
    base = env.unwrapped
    if not callable(getattr(base, "_privileged_solution", None)):
        raise SpadeError(f"{env!r} is not a spade-gym environment (its unwrapped env is {type(base).__name__})")
    return base


class PrivilegedInfo:
    """What only validators, oracles and the self-play loop may see about an episode.

    Deliberately not part of any observation or ``info`` dict: an agent that is
    handed a plain env cannot stumble on the answer.
    """

    def __init__(self, env: gym.Env):
        self._env = _spade_env(env)

    def solution(self) -> str:
        """The program's answer for the current state (for multi-turn games: the best next move)."""
        return self._env._privileged_solution()

    def hint(self) -> str | None:
        """The program's ``hint()`` for this episode if it defines one, else the card's hint."""
        return self._env._privileged_hint()

    @property
    def card(self):
        return self._env.card


def tools(env: gym.Env) -> list[dict]:
    """The tools of ``env``'s current episode as OpenAI function schemas (what ``reset`` also
    puts in ``info["tools"]``), ready for ``apply_chat_template(..., tools=...)`` or ``tools=``
    of a chat-completions request. Raises :class:`SpadeError` for a game, or before ``reset``."""
    base: Any = env.unwrapped
    if not hasattr(type(base), "tools") or not hasattr(base, "kind"):
        raise SpadeError(f"{env!r} is not a spade-gym environment (its unwrapped env is {type(base).__name__})")
    return base.tools


def privileged(env: gym.Env) -> PrivilegedInfo:
    """Explicit access to the solution and hint of ``env``'s current episode."""
    return PrivilegedInfo(env)


class HintWrapper(gym.Wrapper):
    """Gives the agent the privileged hint at the start of every episode.

    ``where="observation"`` appends it to the first observation (``"{obs}\\n\\nHINT: {hint}"``)
    and sets ``info["hint"]``; ``where="info"`` only sets ``info["hint"]``.
    Use ``gym.make(id, hint=True)`` (or ``hint="info"``) to get a wrapped env.
    """

    def __init__(self, env: gym.Env, where: str = "observation"):
        if where not in HINT_PLACES:
            raise ValueError(f"where must be one of {', '.join(map(repr, HINT_PLACES))}, got {where!r}")
        super().__init__(env)
        self.where = where
        self._privileged = PrivilegedInfo(env)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        if "error" in info:
            return obs, info
        try:
            hint = self._privileged.hint()
        except SandboxError as exc:
            # A program whose hint() fails has failed like any other: the episode ends
            # (truncated, error in info) instead of the exception reaching the caller.
            fail = getattr(self.env.unwrapped, "fail_episode", None)
            if fail is None:
                raise
            return fail(exc, "hint")
        info = dict(info)
        info["hint"] = hint
        if hint and self.where == "observation":
            obs = HINT_TEMPLATE.format(observation=obs, hint=hint)
        return obs, info


def hint_place(hint: HintValue) -> str | None:
    """Where ``gym.make(id, hint=...)`` puts the hint (``None``: nowhere), see :meth:`HintMode.parse`."""
    mode = HintMode.parse(hint)
    return mode.value if mode else None


def with_hint(env: gym.Env, hint: HintValue) -> gym.Env:
    """``env`` wrapped as ``hint`` asks (a :class:`HintMode`, or a user-facing value it parses)."""
    mode = HintMode.parse(hint)
    return HintWrapper(env, where=mode.value) if mode else env
