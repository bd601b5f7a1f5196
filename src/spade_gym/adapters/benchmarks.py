"""The SPADE paper's reasoning benchmarks as environments: ``spade/aime-*``, ``spade/gpqa-*``, ``spade/lcb-*``.

Why: self-play is meant to transfer to reasoning that no designer wrote, and the paper
measures it on AIME, GPQA-Diamond and LiveCodeBench. As environments they run through
the same ``spade-gym eval`` command, driver and agents as the suite, Reasoning Gym and BFCL.

Common to the three (each family's module says how it poses and scores its questions):

* One question per episode, single-turn: the first observation is the question, one
  ``step`` scores the reply (reward 1.0 or 0.0) and ends the episode. The observation after
  it never shows the reference answer.
* Seed ``s`` poses question ``s % N`` of the data, in the data's order; seeds ``N .. 2N-1``
  pose every question again (a second *round*), up to as many rounds as the reference
  samples each question (:attr:`Family.samples`: AIME 64, GPQA 8, LiveCodeBench 1). ``spade-gym
  eval`` plays seeds ``0 .. episodes-1``, so ``--episodes N`` asks each question once and
  ``--episodes`` ``N x samples`` (or any larger number) plays the reference's protocol, whose
  success rate is the reference's pass@1 averaged over samples.
* Data comes from a file the user points at or from the hub (:mod:`~spade_gym.adapters.datafiles`).
* ``spade_gym.privileged(env).solution()`` is the reference answer as a reply (the oracle
  scores 1.0), or ``""`` where the data has none (LiveCodeBench ships no solutions).
"""

from __future__ import annotations

import fnmatch
import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import gymnasium as gym

from spade_gym.adapters.datafiles import BenchmarkDataUnavailable, DataSpec, Rows, load_rows
from spade_gym.contract import MAX_ACTION_CHARS
from spade_gym.env.hint_mode import HintValue
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.wrappers import with_hint
from spade_gym.errors import ConfigError, RegistryError

ENTRY_POINT = "spade_gym.adapters.benchmarks:make_benchmark_env"
#: The family modules, by id prefix (``spade/<family>-<variant>-v0``).
FAMILY_MODULES = {"aime": "spade_gym.adapters.aime", "gpqa": "spade_gym.adapters.gpqa",
                  "lcb": "spade_gym.adapters.livecodebench"}
#: Substrings that make a selection pattern consider these ids (as ``rg-`` does for Reasoning Gym).
MARKERS = tuple(f"{name}-" for name in FAMILY_MODULES)
MAX_OBSERVATION_CHARS = 400_000


class BenchmarkDataWarning(UserWarning):
    """A benchmark a glob pattern matched was left out: its data is not available here."""


@dataclass(frozen=True)
class Family:
    """One benchmark: its variants (each a data source), how it is reported, how often the reference samples it."""

    name: str
    skill: str
    samples: int
    variants: dict[str, DataSpec]
    env_class: Callable[..., gym.Env]
    #: Bumped when the scorer changes, so cached results of the old scorer are not reused.
    scorer_version: str = "1"

    def env_id(self, variant: str) -> str:
        return f"spade/{self.name}-{variant}-v0"

    def skill_of(self, variant: str) -> str:
        return f"{self.skill} {variant}"


def families() -> dict[str, Family]:
    """Every benchmark family, by name (imports the family modules, which import nothing heavy)."""
    return {name: importlib.import_module(module).FAMILY for name, module in FAMILY_MODULES.items()}


def family_of(env_id: str) -> tuple[Family, str] | None:
    """(family, variant) of a benchmark id, or None for any other id."""
    spec = gym.registry.get(env_id)
    if spec is None or spec.entry_point != ENTRY_POINT:
        return None
    return families()[spec.kwargs["family"]], spec.kwargs["variant"]


def register_benchmarks() -> list[str]:
    """Register every benchmark id (reads no data); returns them. Registering again is harmless."""
    ids = []
    for family in families().values():
        for variant in family.variants:
            benchmark_id = family.env_id(variant)
            if benchmark_id not in gym.registry:
                gym.register(id=benchmark_id, entry_point=ENTRY_POINT,
                             kwargs={"family": family.name, "variant": variant}, disable_env_checker=False)
            ids.append(benchmark_id)
    return sorted(ids)


def select(pattern: str) -> list[tuple[str, str, int, str]]:
    """``(env_id, skill, episodes, data identity)`` of the benchmark ids ``pattern`` matches whose data is here.

    ``episodes`` is questions x the reference's samples per question. A glob leaves out
    (with a :class:`BenchmarkDataWarning`) the benchmarks whose data cannot be found; an
    exact id raises :class:`~spade_gym.adapters.datafiles.BenchmarkDataUnavailable` instead.
    Loading the data here (not at the first episode) means a missing file fails before
    any model is started.
    """
    chosen = []
    for benchmark_id in register_benchmarks():
        if not fnmatch.fnmatchcase(benchmark_id, pattern):
            continue
        found = family_of(benchmark_id)
        assert found is not None, f"{benchmark_id} was just registered"
        family, variant = found
        try:
            rows = load_rows(family.variants[variant])
        except BenchmarkDataUnavailable as exc:
            if pattern == benchmark_id:
                raise
            warnings.warn(f"{benchmark_id} left out: {exc}", BenchmarkDataWarning, stacklevel=2)
            continue
        chosen.append((benchmark_id, family.skill_of(variant), len(rows) * family.samples,
                       f"{rows.identity}:scorer-{family.scorer_version}"))
    return chosen


class BenchmarkEnv(gym.Env[str, str]):
    """One benchmark variant as a single-turn environment (see the module docstring).

    Subclasses set :attr:`family` and implement :meth:`parse` (a data row -> a task),
    :meth:`pose` (the question), :meth:`score` (reward and info of a reply) and
    :meth:`reference` (the oracle's reply).
    """

    metadata = {"render_modes": []}
    family: ClassVar[Family]

    def __init__(self, variant: str, *, data_file: str | None = None):
        if variant not in self.family.variants:
            raise RegistryError(f"unknown {self.family.skill} variant {variant!r}; known: "
                                f"{', '.join(self.family.variants)}")
        self.variant = variant
        self.rows: Rows = load_rows(self.family.variants[variant], data_file)
        if not len(self.rows):
            raise ConfigError(f"{self.rows.origin} holds no {self.family.skill} questions")
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self._task: Any = None
        self._seed = 0
        self._done = False

    # -- what a family defines

    def parse(self, row: dict, index: int) -> Any:
        raise NotImplementedError

    def pose(self, task: Any, seed: int) -> str:
        raise NotImplementedError

    def score(self, task: Any, action: str, seed: int) -> tuple[float, dict[str, Any]]:
        raise NotImplementedError

    def reference(self, task: Any, seed: int) -> str:
        raise NotImplementedError

    def task_id(self, task: Any) -> str:
        return str(task.id)

    # -- the gymnasium interface

    @property
    def num_tasks(self) -> int:
        return len(self.rows)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        episode_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        if episode_seed < 0:
            raise ConfigError(f"seed must be >= 0, got {episode_seed}")
        index = episode_seed % self.num_tasks
        self._task = self.parse(self.rows[index], index)
        self._seed, self._done = episode_seed, False
        observation = self.pose(self._task, episode_seed)
        info = {"benchmark": self.family.name, "variant": self.variant, "task_id": self.task_id(self._task),
                "index": index, "num_tasks": self.num_tasks, "round": episode_seed // self.num_tasks}
        return observation[:MAX_OBSERVATION_CHARS], info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._done:
            raise gym.error.ResetNeeded("the episode is over: call reset() before step()")
        self._done = True
        reward, info = self.score(self._task, str(action)[:MAX_ACTION_CHARS], self._seed)
        info.setdefault("task_id", self.task_id(self._task))
        observation = info.pop("observation", None) or ("Correct." if reward >= 1.0 else "Incorrect. Score: 0.")
        return observation, float(reward), True, False, info

    # Privileged access, used through spade_gym.privileged(env) only.

    def _privileged_solution(self) -> str:
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before asking for the solution")
        return self.reference(self._task, self._seed)

    def _privileged_hint(self) -> str | None:
        return None


def make_benchmark_env(*, family: str, variant: str, hint: HintValue = False, **options: Any) -> gym.Env:
    """Entry point of every benchmark id: ``gym.make("spade/aime-2025-v0", data_file="aime25.jsonl")``.

    The benchmarks have no hints: ``hint=True`` (eval's hint arm) only sets ``info["hint"]``."""
    known = families()
    if family not in known:
        raise RegistryError(f"unknown benchmark family {family!r}; known: {', '.join(known)}")
    return with_hint(known[family].env_class(variant, **options), hint)
