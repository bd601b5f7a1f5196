"""Choose environments, plan episodes, play them through the shared driver, cache results.

Why it is built this way:

* **One implementation of play.** Every episode goes through
  :func:`spade_gym.agents.play_episodes`, the driver the self-play loop uses, so an
  evaluation measures exactly what training optimises.
* **Paired arms.** Episode seeds derive from ``--seed`` alone (not from the arm), so the
  hint and no-hint runs face the same task instances and the hint gain can be paired.
* **Resumable.** Each finished episode is appended at once to a JSONL results file,
  keyed by (agent fingerprint, env id, seed, hint). A re-run — after a crash, a
  Ctrl-C, or with more episodes — plays only the keys it lacks. The fingerprint covers
  everything that changes outcomes (agent kind, model, sampling settings, turn cap),
  so a results file never mixes up two agents.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from spade_gym.agents import Agent, Episode, EpisodeSpec, play_episodes
from spade_gym.errors import ConfigError, RegistryError, SpadeError
from spade_gym.registry import Card, registered_entries
from spade_gym.registry.suite import CARD_FILE

#: Which hint settings each ``--hint/--no-hint/--both`` choice plays.
ARMS: dict[str, tuple[bool, ...]] = {"no-hint": (False,), "hint": (True,), "both": (False, True)}
#: Where results go when neither a results file nor a JSON report is named.
DEFAULT_RESULTS_DIR = ".spade-eval"
#: Skill shown for Reasoning Gym tasks (with the task's category in parentheses).
REASONING_GYM_SKILL = "Reasoning Gym"
#: Skill shown for BFCL categories (with the category in parentheses).
BFCL_SKILL = "BFCL"


class EvaluationError(SpadeError):
    """An evaluation ran but cannot be trusted (e.g. the agent failed on every episode)."""


# ----------------------------------------------------------------------------- environments


@dataclass(frozen=True)
class EnvInfo:
    """An environment chosen for evaluation.

    ``graded`` marks environments whose reward is a partial-credit score (Reasoning Gym
    scorers give e.g. 0.75 for an answer that merely contains the reference): there,
    only full credit counts as a success. ``tasks`` is set for a fixed benchmark (BFCL):
    its episodes are its first tasks in order, each once (seed ``i`` is task ``i``),
    rather than hashed seeds that could draw a task twice.
    """

    env_id: str
    skill: str
    graded: bool = False
    tasks: int | None = None

    def seeds(self, seed: int, episodes: int) -> list[int]:
        """The task seeds of ``episodes`` episodes of this env."""
        if self.tasks is not None:
            return list(range(min(episodes, self.tasks)))
        return episode_seeds(seed, episodes)


def split_patterns(patterns: str | Sequence[str]) -> list[str]:
    """``"spade/*, spade/rg-*"`` -> ``["spade/*", "spade/rg-*"]``; a bare ``Name*`` means ``spade/Name*``."""
    items = patterns.split(",") if isinstance(patterns, str) else [p for group in patterns for p in group.split(",")]
    out = []
    for item in (p.strip() for p in items):
        if item:
            out.append(item if "/" in item else f"spade/{item}")
    if not out:
        raise ConfigError("no environment pattern given; pass e.g. --envs 'spade/*'")
    return out


def select_envs(patterns: str | Sequence[str]) -> list[EnvInfo]:
    """Registered environments whose id matches any glob pattern, sorted by id.

    Suite environments are always candidates. Reasoning Gym tasks are candidates only for
    patterns that mention ``rg-``, BFCL categories only for patterns that mention ``bfcl-``
    (they are registered on demand then): ``spade/*`` means "the generated suite", not
    "the suite plus a hundred held-out benchmarks".
    """
    wanted = split_patterns(patterns)
    suite = {env_id: env_dir for env_id, env_dir in registered_entries()}
    rg_ids: list[str] = []
    if any("rg-" in p for p in wanted):
        from spade_gym.adapters.reasoning_gym import register_reasoning_gym

        rg_ids = register_reasoning_gym()
    bfcl_ids: list[str] = []
    if any("bfcl-" in p for p in wanted):
        from spade_gym.adapters.bfcl import register_bfcl

        bfcl_ids = register_bfcl()
    chosen: dict[str, EnvInfo] = {}
    for pattern in wanted:
        for env_id, env_dir in suite.items():
            if env_id not in chosen and fnmatch.fnmatchcase(env_id, pattern):
                chosen[env_id] = EnvInfo(env_id, _card_skill(env_dir))
        if "rg-" in pattern:
            for env_id in rg_ids:
                if env_id not in chosen and fnmatch.fnmatchcase(env_id, pattern):
                    chosen[env_id] = EnvInfo(env_id, _rg_skill(env_id), graded=True)
        if "bfcl-" in pattern:
            for env_id in bfcl_ids:
                if env_id not in chosen and fnmatch.fnmatchcase(env_id, pattern):
                    chosen[env_id] = _bfcl_env_info(env_id)
    if not chosen:
        hint = "" if suite else " (no suite environments are registered; pass --suite DIR or set $SPADE_GYM_SUITES)"
        raise RegistryError(f"no registered environment matches {', '.join(wanted)}{hint}; see `spade-gym list`")
    return [chosen[k] for k in sorted(chosen)]


def _card_skill(env_dir: str) -> str:
    try:
        return Card.load(Path(env_dir) / CARD_FILE).skill or "unknown"
    except RegistryError:  # a card edited after registration: still evaluate, under "unknown"
        return "unknown"


def _rg_skill(env_id: str) -> str:
    from spade_gym.adapters.reasoning_gym import category, task_of

    task = task_of(env_id)
    assert task is not None, f"{env_id} was listed among the reasoning-gym ids"
    return f"{REASONING_GYM_SKILL} ({category(task)})"


def _bfcl_env_info(env_id: str) -> EnvInfo:
    from spade_gym.adapters.bfcl import category_of, num_tasks

    category = category_of(env_id)
    assert category is not None, f"{env_id} was listed among the BFCL ids"
    return EnvInfo(env_id, f"{BFCL_SKILL} ({category})", tasks=num_tasks(category))


# ----------------------------------------------------------------------------- agents

_T = TypeVar("_T")


def _setting(value: _T | None, option: str, config: "AgentConfig") -> _T:
    """A setting the agent kind needs; ``AgentConfig`` checks it on creation, this catches later edits."""
    if value is None:
        raise ConfigError(f"--agent {config.kind} needs {option}")
    return value


def _oracle(config: "AgentConfig") -> Agent:
    from spade_gym.agents import OracleAgent

    return OracleAgent()


def _random(config: "AgentConfig") -> Agent:
    from spade_gym.agents import RandomAgent

    return RandomAgent(seed=config.seed)


def _openai(config: "AgentConfig") -> Agent:
    from spade_gym.agents.llm import OpenAIAgent

    return OpenAIAgent(_setting(config.base_url, "--base-url", config), _setting(config.model, "--model", config),
                       api_key_env=config.api_key_env, temperature=config.temperature,
                       max_tokens=_setting(config.tokens_per_turn, "--max-tokens", config),
                       concurrency=config.concurrency)


def _transformers(config: "AgentConfig") -> Agent:
    from spade_gym.agents.llm import TransformersAgent

    return TransformersAgent(_setting(config.model, "--model", config), temperature=config.temperature,
                             max_tokens=_setting(config.tokens_per_turn, "--max-tokens", config),
                             batch_size=config.concurrency, seed=config.seed)


def _baselines(config: "AgentConfig") -> Agent:
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

    build: Callable[["AgentConfig"], Agent]
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


# ----------------------------------------------------------------------------- episodes and results


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


def record_key(record: dict) -> tuple[str, str, int, bool]:
    return record["agent"], record["env_id"], int(record["seed"]), bool(record["hint"])


def episode_record(fingerprint: str, env: EnvInfo, episode: Episode) -> dict:
    """The JSON line stored for one finished episode.

    ``success`` is the driver's win (terminated with its best, positive reward), without
    an environment error, and with full credit on graded envs. ``agent_error`` holds the
    first failure of the agent itself (e.g. an unreachable server): such episodes say
    nothing about the agent's skill, so a re-run plays them again.
    """
    final_reward = episode.turns[-1].reward if episode.turns else 0.0
    success = episode.won and episode.error is None and (not env.graded or final_reward >= 1.0)
    agent_errors = [t.reply.extra["error"] for t in episode.turns if t.reply.extra.get("error")]
    return {"agent": fingerprint, **episode.to_dict(), "final_reward": final_reward, "success": success,
            "agent_error": agent_errors[0] if agent_errors else None}


class ResultsStore:
    """An append-only JSONL file of episode records, shared by runs and agents.

    Appending one line per episode (flushed at once) means an interrupted run loses at
    most the episodes in flight. A torn last line from a crash is skipped on reading,
    and the next append starts on a fresh line.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def load(self, fingerprint: str) -> dict[tuple[str, str, int, bool], dict]:
        """The latest record per key for ``fingerprint`` (later lines replace earlier ones)."""
        records: dict[tuple[str, str, int, bool], dict] = {}
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return records
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read results file {self.path}: {exc}") from None
        for line in lines:
            try:
                record = json.loads(line)
                key = record_key(record)
            except (ValueError, KeyError, TypeError):
                continue  # torn or foreign line
            if key[0] == fingerprint:
                records[key] = record
        return records

    def open_for_append(self):
        """A text handle positioned after a complete line."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            needs_newline = self.path.exists() and self.path.stat().st_size > 0 and not self._ends_with_newline()
            handle = open(self.path, "a", encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write results file {self.path}: {exc.strerror or exc}") from None
        if needs_newline:
            handle.write("\n")
        return handle

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as handle:
            handle.seek(-1, 2)
            return handle.read(1) == b"\n"


def default_results_path(fingerprint: str, json_path: str | Path | None = None) -> Path:
    """Next to the JSON report (``report.json`` -> ``report.episodes.jsonl``) if there is one,
    else ``.spade-eval/<fingerprint>.jsonl`` in the working directory."""
    if json_path is not None:
        return Path(json_path).with_suffix(".episodes.jsonl")
    return Path(DEFAULT_RESULTS_DIR) / f"{fingerprint}.jsonl"


@dataclass
class EvalRun:
    """What :meth:`Evaluation.run` produced: one record per planned episode, in plan order."""

    records: list[dict]
    played: int
    reused: int
    results_path: Path

    @property
    def agent_errors(self) -> int:
        return sum(r["agent_error"] is not None for r in self.records)


class Evaluation:
    """``episodes`` seeds x every env x the chosen arms, for one agent, cached in ``results_path``.

    Use :attr:`specs` and :meth:`pending` to size a progress display, then :meth:`run`.
    """

    def __init__(self, config: AgentConfig, envs: Sequence[EnvInfo], *, episodes: int, seed: int = 0,
                 arms: str = "no-hint", results_path: str | Path | None = None):
        if episodes < 1:
            raise ConfigError(f"episodes must be at least 1, got {episodes}")
        if arms not in ARMS:
            raise ConfigError(f"arms must be one of {', '.join(ARMS)}, got {arms!r}")
        if not envs:
            raise ConfigError("no environments to evaluate")
        self.config = config
        self.envs = list(envs)
        self.episodes = episodes
        self.seed = seed
        self.arms = arms
        self.fingerprint = config.fingerprint
        self.store = ResultsStore(results_path or default_results_path(self.fingerprint))
        self._env_info = {env.env_id: env for env in self.envs}
        self.specs = [EpisodeSpec(env.env_id, s, hint=hint)
                      for env in self.envs for s in env.seeds(seed, episodes) for hint in ARMS[arms]]

    def _key(self, spec: EpisodeSpec) -> tuple[str, str, int, bool]:
        return self.fingerprint, spec.env_id, spec.seed, spec.hint

    def completed(self, cached: dict | None = None) -> list[dict]:
        """Usable records of planned episodes already in the results file."""
        cached = self.store.load(self.fingerprint) if cached is None else cached
        return [rec for spec in self.specs
                if (rec := cached.get(self._key(spec))) is not None and rec.get("agent_error") is None]

    def pending(self, cached: dict | None = None) -> list[EpisodeSpec]:
        """Planned episodes without a usable record (missing, or ended by an agent failure)."""
        cached = self.store.load(self.fingerprint) if cached is None else cached
        return [spec for spec in self.specs
                if (rec := cached.get(self._key(spec))) is None or rec.get("agent_error") is not None]

    def run(self, *, on_record: Callable[[dict], None] | None = None, agent: Agent | None = None) -> EvalRun:
        """Play what is pending and return every planned record.

        ``agent`` overrides building one from the config (tests, or an agent already in
        memory); the fingerprint still comes from the config. A built agent is created
        only when something is pending — a fully cached re-run never loads a model —
        and is closed afterwards.
        """
        cached = self.store.load(self.fingerprint)
        todo = self.pending(cached)
        if todo:
            own_agent = agent is None
            player = agent if agent is not None else self.config.build()
            try:
                with self.store.open_for_append() as handle:
                    def store(episode: Episode) -> None:
                        record = episode_record(self.fingerprint, self._env_info[episode.spec.env_id], episode)
                        handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
                        handle.flush()
                        cached[record_key(record)] = record
                        if on_record is not None:
                            on_record(record)

                    play_episodes(player, todo, max_turns=self.config.max_turns,
                                  batch_size=self.config.concurrency, on_episode=store)
            finally:
                if own_agent:
                    player.close()
        records = [cached[self._key(spec)] for spec in self.specs]
        return EvalRun(records, played=len(todo), reused=len(self.specs) - len(todo),
                       results_path=self.store.path)
