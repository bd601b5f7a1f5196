"""Reasoning Gym tasks as single-turn spade-gym environments (``spade/rg-<task>-v0``).

Why: the point of self-play is transfer, and transfer needs held-out tasks that no
designer wrote. `Reasoning Gym <https://github.com/open-thought/reasoning-gym>`_
(evaluated in the SPADE paper) offers ~100 procedurally generated tasks with their own
scorers. Wrapping each as a Gymnasium env with the spade-gym conventions (question as
observation, answer in ``\\boxed{}``, privileged solution for the oracle) lets the same
``spade-gym eval`` command, the same episode driver and the same agents cover them.

The package is an optional extra (``pip install 'spade-gym[reasoning-gym]'``) and takes
seconds to import, so it is imported only when this adapter is actually used — never by
``import spade_gym``. Reasoning Gym is trusted library code: its generators and scorers
run in-process, not in the sandbox that generated programs get.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from typing import Any

import gymnasium as gym

from spade_gym.agents.base import extract_boxed
from spade_gym.contract import MAX_ACTION_CHARS
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.wrappers import with_hint
from spade_gym.errors import ConfigError, RegistryError

#: Every adapter id starts with this; the rest is the task name and ``-v0``.
ID_PREFIX = "spade/rg-"
ENTRY_POINT = "spade_gym.adapters.reasoning_gym:make_rg_env"
#: Appended to every question: Reasoning Gym prompts ask for an answer in many styles,
#: the driver and the scorer read it from ``\boxed{}``.
ANSWER_INSTRUCTION = "Give your final answer inside \\boxed{}."
#: Registry entries that are not tasks on their own: ``composite`` mixes other tasks and
#: cannot be built without a configuration naming them.
NOT_TASKS = frozenset({"composite"})
#: Longest question accepted (characters); the largest stock tasks (codeio) stay far below.
MAX_OBSERVATION_CHARS = 200_000


class ReasoningGymUnavailable(ConfigError):
    """The ``reasoning-gym`` package is not installed."""


def _reasoning_gym():
    """The ``reasoning_gym`` module, imported on first use (it takes ~3 s)."""
    try:
        return importlib.import_module("reasoning_gym")
    except ImportError as exc:
        raise ReasoningGymUnavailable(
            f"Reasoning Gym tasks need the reasoning-gym package ({exc}); "
            "install it with: pip install 'spade-gym[reasoning-gym]'"
        ) from None


def _datasets() -> dict[str, tuple[type, type]]:
    _reasoning_gym()
    from reasoning_gym.factory import DATASETS

    return DATASETS


def env_id(task: str) -> str:
    """``leg_counting`` -> ``spade/rg-leg_counting-v0``."""
    return f"{ID_PREFIX}{task}-v0"


def task_of(env_id: str) -> str | None:
    """The task name of an adapter id, or None for any other id."""
    spec = gym.registry.get(env_id)
    if spec is None or spec.entry_point != ENTRY_POINT:
        return None
    return spec.kwargs["task"]


def available_tasks() -> list[str]:
    """Every Reasoning Gym task that can be built with its default configuration, sorted."""
    return sorted(name for name in _datasets() if name not in NOT_TASKS)


def category(task: str) -> str:
    """The task's Reasoning Gym category (``arithmetic``, ``games``, ...), from its module path
    (``reasoning_gym.<category>.<module>``), as Reasoning Gym itself derives it."""
    parts = _dataset_class(task).__module__.split(".")
    return parts[1] if len(parts) >= 3 else "other"


def _dataset_class(task: str) -> type:
    datasets = _datasets()
    if task not in datasets or task in NOT_TASKS:
        raise RegistryError(f"unknown Reasoning Gym task {task!r}; known tasks include "
                            f"{', '.join(available_tasks()[:8])}, ...")
    return datasets[task][0]


def register_reasoning_gym(tasks: Iterable[str] | None = None) -> list[str]:
    """Register ``spade/rg-<task>-v0`` for ``tasks`` (default: every available task); returns the ids.

    Cheap once ``reasoning_gym`` is imported: registration builds no dataset. Registering
    again is harmless. Raises :class:`ReasoningGymUnavailable` without the package and
    :class:`~spade_gym.errors.RegistryError` for an unknown task name.
    """
    names = available_tasks() if tasks is None else list(tasks)
    for task in names:
        _dataset_class(task)  # unknown names fail before anything is registered
    ids = []
    for task in names:
        rg_id = env_id(task)
        if rg_id not in gym.registry:
            gym.register(id=rg_id, entry_point=ENTRY_POINT, kwargs={"task": task}, disable_env_checker=False)
        ids.append(rg_id)
    return ids


def registered_ids() -> list[str]:
    """Adapter ids registered in this process, sorted."""
    return sorted(spec.id for spec in gym.registry.values() if spec.entry_point == ENTRY_POINT)


class ReasoningGymEnv(gym.Env[str, str]):
    """One Reasoning Gym task as a single-turn text environment.

    ``reset(seed=s)`` builds the item ``create_dataset(task, seed=s, size=1)[0]``, so a seed
    names the same question in any process. ``step(action)`` scores the ``\\boxed{}``
    content of ``action`` with the task's own ``score_answer`` (partial credit included)
    and ends the episode. The observation after the answer says only the score, never
    the reference answer.
    """

    metadata = {"render_modes": []}

    def __init__(self, task: str, config: dict[str, Any] | None = None):
        _dataset_class(task)
        self.task = task
        self.config = dict(config or {})
        for reserved in ("seed", "size"):
            if reserved in self.config:
                raise ConfigError(f"config must not set {reserved!r}: the episode seed chooses the item")
        self.category = category(task)
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        # A reasoning_gym ProceduralDataset; the package is an optional extra without type information.
        self._dataset: Any = None
        self._entry: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        item_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        self._dataset = _reasoning_gym().create_dataset(self.task, **self.config, seed=item_seed, size=1)
        self._entry = self._dataset[0]
        observation = f"{self._entry['question'].rstrip()}\n\n{ANSWER_INSTRUCTION}"
        return observation, {"task": self.task, "category": self.category, "item_seed": item_seed}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self._entry is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        answer = extract_boxed(str(action)[:MAX_ACTION_CHARS])
        info: dict[str, Any] = {"answer": answer}
        try:
            score = float(self._dataset.score_answer(answer, self._entry))
        except Exception as exc:  # a scorer choking on a malformed answer is a wrong answer
            score = 0.0
            info["scorer_error"] = f"{type(exc).__name__}: {exc}"
        info["score"] = score
        if answer is None:
            observation = "No answer found: put your final answer inside \\boxed{}. Score: 0."
        else:
            observation = f"Score: {score:g}."
        return observation, score, True, False, info

    # Privileged access, used through spade_gym.privileged(env) only.

    def _privileged_solution(self) -> str:
        """The entry's reference answer.

        Tasks scored by a validity check store no ``answer``; several of them keep an
        example solution in the metadata instead (``possible_answer``, ``example_answer``,
        ...), used then (JSON-encoded when it is not text, as their scorers parse JSON).
        Tasks with neither (``boxnet``, ``rush_hour``) give ``""``, which the oracle fails.
        """
        if self._entry is None:
            raise gym.error.ResetNeeded("call reset() before asking for the solution")
        answer = self._entry.get("answer")
        if answer is None:
            metadata = self._entry.get("metadata") or {}
            answer = next((v for k, v in metadata.items() if k.endswith("answer") and v is not None), None)
        if answer is None:
            return ""
        return answer if isinstance(answer, str) else json.dumps(answer)

    def _privileged_hint(self) -> str | None:
        return None


def make_rg_env(*, task: str, hint: Any = False, config: dict[str, Any] | None = None) -> gym.Env:
    """Entry point of every adapter id. ``hint=True`` is accepted so that eval's hint arm
    works uniformly; Reasoning Gym has no hints, so it changes nothing but ``info["hint"]``."""
    return with_hint(ReasoningGymEnv(task, config), hint)
