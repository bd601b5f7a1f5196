"""Reasoning Gym tasks as single-turn spade-gym environments (``spade/rg-<task>-v0``).

Why: the point of self-play is transfer, and transfer needs held-out tasks that no
designer wrote. `Reasoning Gym <https://github.com/open-thought/reasoning-gym>`_
(evaluated in the SPADE paper) offers ~100 procedurally generated tasks with their own
scorers. Wrapping each as a Gymnasium env with the spade-gym conventions (question as
observation, answer in ``\\boxed{}``, privileged solution for the oracle) lets the same
``spade-gym eval`` command, the same episode driver and the same agents cover them.

**Levels.** Like a bundled environment, every task takes ``difficulty="easy" | "medium" |
"hard"`` (``gym.make("spade/rg-leg_counting-v0", difficulty="hard")``), mapped onto the
task's own configuration fields (:func:`level_config`, :func:`level_source` says where
each came from):

* ``hard`` is the reference's hard split where the task is in it: the configurations of
  the Reasoning Gym paper (arXiv:2505.24760, Appendix A.3, "hard" column) that the SPADE
  reference registers as ``rg:<task>-hard`` for its game evaluation (:data:`HARD_SPLIT`);
* every other (task, level) comes from the task's Reasoning Gym curriculum: each attribute
  at the start (easy), middle (medium) or end (hard) of its curriculum levels, read as
  Reasoning Gym's own ``generate_configuration`` reads a level (a range runs from the
  curriculum's first value up to the level's). Some curricula define levels their own
  dataset refuses or cannot generate; then every attribute steps down together, an eighth
  of the way at a time, to the nearest point whose first item builds, else the dataset's
  defaults.

``spade/rg-<task>-<level>-v0`` names a level as an id of its own (for ``spade-gym eval``,
whose episodes are ids), and ``@rg-hard`` names the reference's hard split (100 tasks);
see :func:`matching_ids`. Without ``difficulty`` a task keeps the dataset's default
configuration. Self-play can draw its agent tasks from these levels: :func:`agent_task_pool`.

The package is an optional extra (``pip install 'spade-gym[reasoning-gym]'``) and takes
seconds to import, so it is imported only when this adapter is actually used — never by
``import spade_gym``. Reasoning Gym is trusted library code: its generators and scorers
run in-process, not in the sandbox that generated programs get.
"""

from __future__ import annotations

import copy
import fnmatch
import importlib
import json
import threading
from collections.abc import Iterable
from typing import Any

import gymnasium as gym

from spade_gym.adapters.reasoning_gym_levels import (  # re-exported: see __all__
    CURRICULUM_POINTS,
    CURRICULUM_STEP,
    HARD_SPLIT,
    HARD_SPLIT_GROUPS,
    LEVELS,
    resolve_level,
)
from spade_gym.agents.base import extract_boxed
from spade_gym.contract import MAX_ACTION_CHARS
from spade_gym.env.hint_mode import HintValue
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.wrappers import with_hint
from spade_gym.errors import ConfigError, RegistryError

#: Every adapter id starts with this; the rest is the task name, optionally a level, and ``-v0``.
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
#: The named set of the reference's hard split (``--envs @rg-hard``).
HARD_SET = "rg-hard"

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


def env_id(task: str, difficulty: str | None = None) -> str:
    """``leg_counting`` -> ``spade/rg-leg_counting-v0``; with ``"hard"`` -> ``spade/rg-leg_counting-hard-v0``.

    Task names are snake_case, so a level suffix can never be mistaken for part of one."""
    if difficulty is None:
        return f"{ID_PREFIX}{task}-v0"
    return f"{ID_PREFIX}{task}-{_level(difficulty)}-v0"


def task_of(env_id: str) -> str | None:
    """The task name of an adapter id, or None for any other id."""
    spec = gym.registry.get(env_id)
    if spec is None or spec.entry_point != ENTRY_POINT:
        return None
    return spec.kwargs["task"]


def difficulty_of(env_id: str) -> str | None:
    """The level an adapter id is registered at (None: the dataset's defaults, or not an adapter id)."""
    spec = gym.registry.get(env_id)
    if spec is None or spec.entry_point != ENTRY_POINT:
        return None
    return spec.kwargs.get("difficulty")


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


def _level(difficulty: str) -> str:
    if difficulty not in LEVELS:
        raise ConfigError(f"unknown difficulty {difficulty!r}; choose one of {', '.join(LEVELS)}")
    return difficulty


# ----------------------------------------------------------------------------- levels

_resolved: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
_resolving = threading.Lock()


def _builds(task: str, config: dict[str, Any]) -> bool:
    """Whether the dataset accepts ``config`` and generates its first item from it."""
    try:
        _reasoning_gym().create_dataset(task, **copy.deepcopy(config), seed=0, size=1)[0]
    except Exception:  # a curriculum level its own dataset refuses: try the next one down
        return False
    return True


def _resolved_level(task: str, level: str) -> tuple[dict[str, Any], str]:
    _dataset_class(task)
    key = (task, _level(level))
    with _resolving:  # checking a curriculum point builds a dataset: once per process
        if key not in _resolved:
            _resolved[key] = resolve_level(task, key[1], _builds)
        config, source = _resolved[key]
    return copy.deepcopy(config), source


def level_config(task: str, difficulty: str | None) -> dict[str, Any]:
    """The dataset configuration fields of ``task`` at ``difficulty`` (``{}`` for None: the defaults)."""
    if difficulty is None:
        return {}
    return _resolved_level(task, difficulty)[0]


def level_source(task: str, difficulty: str) -> str:
    """Where ``task``'s configuration at ``difficulty`` comes from, in words."""
    return _resolved_level(task, difficulty)[1]


# ----------------------------------------------------------------------------- registration


def register_reasoning_gym(tasks: Iterable[str] | None = None, *, levels: Iterable[str] = ()) -> list[str]:
    """Register ``spade/rg-<task>-v0`` for ``tasks`` (default: every available task); returns the ids.

    ``levels`` also registers ``spade/rg-<task>-<level>-v0`` for each level (after the plain
    ids, in the same task order). Cheap once ``reasoning_gym`` is imported: registration
    builds no dataset. Registering again is harmless. Raises :class:`ReasoningGymUnavailable`
    without the package and :class:`~spade_gym.errors.RegistryError` for an unknown task name.
    """
    names = available_tasks() if tasks is None else list(tasks)
    chosen_levels = [_level(level) for level in levels]
    for task in names:
        _dataset_class(task)  # unknown names fail before anything is registered
    ids = []
    for level in (None, *chosen_levels):
        for task in names:
            rg_id = env_id(task, level)
            if rg_id not in gym.registry:
                kwargs: dict[str, Any] = {"task": task} if level is None else {"task": task, "difficulty": level}
                gym.register(id=rg_id, entry_point=ENTRY_POINT, kwargs=kwargs, disable_env_checker=False)
            ids.append(rg_id)
    return ids


def registered_ids() -> list[str]:
    """Adapter ids registered in this process, sorted."""
    return sorted(spec.id for spec in gym.registry.values() if spec.entry_point == ENTRY_POINT)


def hard_split_ids() -> list[str]:
    """``spade/rg-<task>-hard-v0`` of the reference's hard split, registered; in the reference's order."""
    return register_reasoning_gym(HARD_SPLIT, levels=("hard",))[len(HARD_SPLIT):]


#: Named sets of ids, as ``--envs @<name>`` spells them.
NAMED_SETS = {HARD_SET: hard_split_ids}
#: Episodes per id the reference plays of a named set (its game evaluation: 8 per task). A set is
#: played as a fixed benchmark: seeds 0..n-1, so ``--episodes`` beyond n adds nothing, and one
#: ``spade-gym eval --episodes <large>`` can cover it alongside AIME, GPQA and LiveCodeBench.
SET_EPISODES = {HARD_SET: 8}


def set_episodes(pattern: str) -> int | None:
    """Episodes per id of the named set ``pattern`` (``@rg-hard``), None for any other pattern."""
    return SET_EPISODES.get(pattern[1:]) if pattern.startswith("@") else None


def matching_ids(pattern: str) -> list[str]:
    """The adapter ids a selection pattern means, registered on demand.

    ``@rg-hard`` is the reference's hard split. A glob over ids matches the plain ids
    (the dataset defaults), and the level ids only of the levels it names (``-hard``...):
    ``spade/rg-*`` stays "every task once", ``spade/rg-*-hard-v0`` is every task at its hard level.
    """
    if pattern.startswith("@"):
        name = pattern[1:]
        if name not in NAMED_SETS:
            raise ConfigError(f"unknown set {pattern!r}; named sets: {', '.join('@' + n for n in NAMED_SETS)}")
        return NAMED_SETS[name]()
    named = [level for level in LEVELS if f"-{level}" in pattern]
    ids = register_reasoning_gym(levels=named)
    return [i for i in ids if fnmatch.fnmatchcase(i, pattern)]


def skill_label(env_id: str) -> str:
    """The skill an id is reported under: its Reasoning Gym category, and for a level id the level
    (the hard split's tasks under the reference's four groups, as its table reports them)."""
    task = task_of(env_id)
    if task is None:
        raise RegistryError(f"{env_id} is not a Reasoning Gym id")
    level = difficulty_of(env_id)
    if level is None:
        return f"Reasoning Gym ({category(task)})"
    if level == "hard" and task in HARD_SPLIT_GROUPS:
        return f"Reasoning Gym hard ({HARD_SPLIT_GROUPS[task]})"
    return f"Reasoning Gym {level} ({category(task)})"


def agent_task_pool(tasks: Iterable[str] | None = None, levels: Iterable[str] = LEVELS) -> list[str]:
    """Ids self-play's agent can draw its tasks from: every task of ``tasks`` (default: all) at
    every level of ``levels``, registered in this process.

    Why ids, not a schedule of their own: self-play samples agent tasks from its pool by
    learning potential (environments the agent wins about half the time first). With a
    task's levels side by side in the pool, that sampling is the curriculum: it moves to
    the harder level of a task as the agent masters the easier one, per task, from the
    outcomes it already records. Every process (rank) that plays them calls this once.
    """
    names = available_tasks() if tasks is None else list(tasks)
    chosen = list(levels)
    if not chosen:
        raise ConfigError("agent_task_pool needs at least one level")
    return register_reasoning_gym(names, levels=chosen)[len(names):]


# ----------------------------------------------------------------------------- the environment


class ReasoningGymEnv(gym.Env[str, str]):
    """One Reasoning Gym task as a single-turn text environment.

    ``reset(seed=s)`` builds the item ``create_dataset(task, **config, seed=s, size=1)[0]``,
    so a seed names the same question in any process. ``difficulty`` sets ``config`` to the
    level's configuration (:func:`level_config`); ``config`` entries override single fields.
    ``step(action)`` scores the ``\\boxed{}`` content of ``action`` with the task's own
    ``score_answer`` (partial credit included) and ends the episode. The observation after
    the answer says only the score, never the reference answer.
    """

    metadata = {"render_modes": []}

    def __init__(self, task: str, config: dict[str, Any] | None = None, difficulty: str | None = None):
        _dataset_class(task)
        self.task = task
        self.difficulty = None if difficulty is None else _level(difficulty)
        self.config = {**level_config(task, self.difficulty), **dict(config or {})}
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
        self._dataset = _reasoning_gym().create_dataset(self.task, **copy.deepcopy(self.config),
                                                        seed=item_seed, size=1)
        self._entry = self._dataset[0]
        observation = f"{self._entry['question'].rstrip()}\n\n{ANSWER_INSTRUCTION}"
        return observation, {"task": self.task, "category": self.category, "item_seed": item_seed,
                             "difficulty": self.difficulty}

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


def make_rg_env(*, task: str, hint: HintValue = False, config: dict[str, Any] | None = None,
                difficulty: str | None = None) -> gym.Env:
    """Entry point of every adapter id: ``gym.make("spade/rg-<task>-v0", difficulty="hard")``.

    ``hint=True`` is accepted so that eval's hint arm works uniformly; Reasoning Gym has no
    hints, so it changes nothing but ``info["hint"]``."""
    return with_hint(ReasoningGymEnv(task, config, difficulty), hint)


__all__ = [
    "ANSWER_INSTRUCTION", "CURRICULUM_POINTS", "CURRICULUM_STEP", "ENTRY_POINT", "HARD_SET", "HARD_SPLIT",
    "HARD_SPLIT_GROUPS", "ID_PREFIX", "LEVELS", "MAX_OBSERVATION_CHARS", "NAMED_SETS", "NOT_TASKS", "SET_EPISODES",
    "ReasoningGymEnv", "ReasoningGymUnavailable", "agent_task_pool", "available_tasks",
    "category", "difficulty_of", "env_id", "hard_split_ids", "level_config", "level_source", "make_rg_env",
    "matching_ids", "register_reasoning_gym", "registered_ids", "set_episodes", "skill_label", "task_of",
]
