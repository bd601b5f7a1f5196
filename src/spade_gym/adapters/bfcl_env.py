"""What BFCL's environments share: one task per seed, its functions as tools, an episode that ends.

Both :mod:`~spade_gym.adapters.bfcl` (the single-turn categories, and registration) and
:mod:`~spade_gym.adapters.bfcl_multi_turn` build on :class:`BfclToolEnv`; it sits below both, so
the multi-turn module needs nothing of the single-turn one and imports point one way: ``bfcl``
imports ``bfcl_multi_turn`` (to build and count its category), and both import this module.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import gymnasium as gym

from spade_gym.adapters.bfcl_data import MAX_OBSERVATION_CHARS
from spade_gym.contract import MAX_ACTION_CHARS, TOOL_USE_KIND
from spade_gym.env.spaces import UnicodeText
from spade_gym.errors import SpadeError

TaskT = TypeVar("TaskT")


class BfclToolEnv(gym.Env[str, str], Generic[TaskT]):
    """One BFCL category of ``tasks``: ``reset(seed=s)`` poses task ``s % size`` (a random one without a seed).

    Subclasses say what a task's functions look like as tools (:meth:`_tool_schemas`) and
    how an episode is played and scored.
    """

    metadata = {"render_modes": []}
    #: Agents treat it as a tool-use environment (``spade_gym.tools(env)``, native tool calling).
    kind = TOOL_USE_KIND

    def __init__(self, category: str, tasks: Sequence[TaskT], *, show_tools: bool) -> None:
        self.category = category
        self.tasks = tasks
        self.show_tools = bool(show_tools)
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self._task: TaskT | None = None
        self._tools: list[dict[str, Any]] | None = None
        self._done = False

    def _tool_schemas(self, task: TaskT) -> list[dict[str, Any]]:
        """The task's functions as OpenAI function schemas."""
        raise NotImplementedError

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The current task's functions as OpenAI function schemas (see :func:`spade_gym.tools`)."""
        if self._tools is None:
            raise SpadeError(f"{self!r} has no tools yet: call reset() first (each task declares its functions)")
        return copy.deepcopy(self._tools)

    def _pose(self, seed: int | None) -> tuple[int, TaskT]:
        """Seed the env (gymnasium's reset) and take the seed's task and its tools: ``(index, task)``."""
        super().reset(seed=seed)
        index = int(seed) if seed is not None else int(self.np_random.integers(0, len(self.tasks)))
        index %= len(self.tasks)
        task = self._task = self.tasks[index]
        self._tools = self._tool_schemas(task)
        self._done = False
        return index, task

    def _playing(self) -> TaskT:
        """The task of the episode under way; ``ResetNeeded`` before the first reset and after the end."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._done:
            raise gym.error.ResetNeeded("the episode is over: call reset() before step()")
        return self._task

    # Privileged access, used through spade_gym.privileged(env) only.

    def _privileged_hint(self) -> str | None:
        return None  # BFCL has no hints
