"""Plan episodes, play them through the shared driver, cache results.

The environments come from :mod:`~spade_gym.evaluation.selection`, the agent from
:mod:`~spade_gym.evaluation.agent_config`, the results file is :mod:`~spade_gym.evaluation.results`.

Why it is built this way:

* **One implementation of play.** Every episode goes through
  :func:`spade_gym.agents.play_episodes`, the driver the self-play loop uses, so an
  evaluation measures exactly what training optimises.
* **Paired arms.** Episode seeds derive from ``--seed`` alone (not from the arm), so the
  hint and no-hint runs face the same task instances and the hint gain can be paired.
* **Resumable.** Each finished episode is appended at once (flushed and fsynced: the
  results file is the run's journal) to a JSONL results file,
  keyed by (agent fingerprint, env id, seed, hint). A re-run — after a crash, a
  Ctrl-C, or with more episodes — plays only the keys it lacks. The fingerprint covers
  everything that changes outcomes (agent kind, model, sampling settings, turn cap),
  so a results file never mixes up two agents.
* **Beyond one machine.** With a Ray executor (:mod:`spade_gym.executor`), the pending
  episodes are cut into batches of ``concurrency`` in plan order, and each batch is a unit:
  the agent's settings, the episode specs and each env's program id in, the episode records
  out (:func:`play_unit`). A worker builds its own agent per batch and checks that each id
  names the same program there. A batch whose worker or node died is retried; one that
  failed on every attempt is recorded as an agent failure, which the next run replays.
  Agents that treat episodes independently (the oracle; a model served at temperature 0)
  give the records a local run gives; those that carry state across episodes (random,
  baselines, sampling) draw per batch, as a resumed local run draws per pending set.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from spade_gym.agents import Agent, Episode, EpisodeSpec, play_episodes
from spade_gym.errors import ConfigError, SpadeError
from spade_gym.evaluation.agent_config import AGENT_KINDS, AGENTS, AgentConfig, AgentKind
from spade_gym.evaluation.results import (
    DEFAULT_RESULTS_DIR,
    RecordKey,
    ResultsStore,
    default_results_path,
    episode_record,
    record_key,
)
from spade_gym.evaluation.selection import (
    BFCL_SKILL,
    REASONING_GYM_SKILL,
    EnvInfo,
    episode_seeds,
    select_envs,
    split_patterns,
)

#: The task a Ray worker runs for one batch of episodes (:func:`play_unit`).
PLAY_TASK = "spade_gym.evaluation.runner:play_unit"

#: Which hint settings each ``--hint/--no-hint/--both`` choice plays.
ARMS: dict[str, tuple[bool, ...]] = {"no-hint": (False,), "hint": (True,), "both": (False, True)}


class EvaluationError(SpadeError):
    """An evaluation ran but cannot be trusted (e.g. the agent failed on every episode)."""


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
                 arms: str = "no-hint", results_path: str | Path | None = None, trials: int = 1):
        if episodes < 1:
            raise ConfigError(f"episodes must be at least 1, got {episodes}")
        if trials < 1:
            raise ConfigError(f"trials must be at least 1, got {trials}")
        if arms not in ARMS:
            raise ConfigError(f"arms must be one of {', '.join(ARMS)}, got {arms!r}")
        if not envs:
            raise ConfigError("no environments to evaluate")
        self.config = config
        self.envs = list(envs)
        self.episodes = episodes
        self.seed = seed
        self.arms = arms
        #: Trials of each task on envs reported as pass^k (tau2); other envs ignore it.
        self.trials = trials
        self.fingerprint = config.fingerprint
        self.store = ResultsStore(results_path or default_results_path(self.fingerprint))
        self._env_info = {env.env_id: env for env in self.envs}
        self.specs = [EpisodeSpec(env.env_id, s, hint=hint, kwargs=env.kwargs)
                      for env in self.envs for s in env.seeds(seed, episodes, trials) for hint in ARMS[arms]]

    def _key(self, spec: EpisodeSpec) -> RecordKey:
        return self.fingerprint, spec.env_id, self._env_info[spec.env_id].program, spec.seed, spec.hint

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

    def run(self, *, on_record: Callable[[dict], None] | None = None, agent: Agent | None = None,
            executor=None) -> EvalRun:
        """Play what is pending and return every planned record.

        ``agent`` overrides building one from the config (tests, or an agent already in
        memory); the fingerprint still comes from the config. A built agent is created
        only when something is pending — a fully cached re-run never loads a model —
        and is closed afterwards. ``executor`` (a Ray one) plays the pending episodes as
        batches on its workers instead (see the module docstring); ``agent`` is then unused.
        """
        cached = self.store.load(self.fingerprint)
        todo = self.pending(cached)
        if todo and executor is not None and executor.name != "local":
            self._run_units(executor, todo, cached, on_record)
        elif todo:
            own_agent = agent is None
            player = agent if agent is not None else self.config.build()
            try:
                with self.store.open_for_append() as handle:
                    def store(episode: Episode) -> None:
                        record = episode_record(self.fingerprint, self._env_info[episode.spec.env_id], episode)
                        _append(handle, record)
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

    def units(self, todo: Sequence[EpisodeSpec]) -> list:
        """The pending episodes as units of work: batches of ``concurrency``, in plan order."""
        from spade_gym.executor import Unit
        from spade_gym.executor.suites import registered_suite_dirs

        if self.config.kind == "transformers":
            raise ConfigError("--agent transformers does not run on Ray yet (each worker would load the checkpoint): "
                              "serve it (e.g. vLLM) and use --agent openai")
        agent = dataclasses.asdict(self.config)
        suites = registered_suite_dirs()
        units = []
        size = self.config.concurrency
        for start in range(0, len(todo), size):
            batch = todo[start:start + size]
            specs = [[spec.env_id, spec.seed, spec.hint] for spec in batch]
            envs = {spec.env_id: dataclasses.asdict(self._env_info[spec.env_id]) for spec in batch}
            key = hashlib.sha256(json.dumps([self.fingerprint, specs, envs], sort_keys=True).encode()).hexdigest()
            units.append(Unit(key[:32], PLAY_TASK, {"agent": agent, "fingerprint": self.fingerprint,
                                                    "specs": specs, "envs": envs, "suites": suites}))
        return units

    def _run_units(self, executor, todo: Sequence[EpisodeSpec], cached: dict,
                   on_record: Callable[[dict], None] | None) -> None:
        from spade_gym.executor import run_journaled

        units = self.units(todo)
        by_key = {unit.key: unit for unit in units}
        with self.store.open_for_append() as handle:
            for outcome in run_journaled(executor, units):
                for record in self._unit_records(by_key[outcome.key].payload, outcome):
                    _append(handle, record)  # journaled before it is counted
                    cached[record_key(record)] = record
                    if on_record is not None:
                        on_record(record)

    def _unit_records(self, payload: dict, outcome) -> list[dict]:
        """One record per planned episode of the unit: the worker's, else an agent failure
        (replayed next run); records the unit did not plan are never written."""
        got: dict[tuple, dict] = {}
        for record in (outcome.result or {}).get("records", []) if outcome.ok else []:
            if isinstance(record, dict) and record.get("agent") == self.fingerprint:
                got.setdefault((record.get("env_id"), record.get("seed"), record.get("hint")), record)
        out = []
        for env_id, seed, hint in payload["specs"]:
            record = got.get((env_id, seed, hint))
            if record is None:
                why = outcome.error if not outcome.ok else "the worker returned no record for this episode"
                record = episode_record(self.fingerprint, self._env_info[env_id],
                                        Episode(EpisodeSpec(env_id, seed, hint=hint)))
                record["agent_error"] = f"executor: {why}"
            out.append(record)
        return out


def _append(handle, record: dict) -> None:
    handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
    handle.flush()
    os.fsync(handle.fileno())


def play_unit(payload: dict) -> dict:
    """The Ray task for one batch: build the agent, check each env is the driver's program, play."""
    from spade_gym.executor import ExecutorError
    from spade_gym.executor.suites import sync_suites

    sync_suites(payload.get("suites") or [])
    envs = {env_id: EnvInfo(**info) for env_id, info in payload["envs"].items()}
    for env_id, info in envs.items():
        here = select_envs([env_id], env_options=dict(info.kwargs))
        if len(here) != 1 or here[0].program != info.program:
            raise ExecutorError(f"{env_id} is another program on this node than on the driver "
                                f"({here[0].program[:12] if here else 'not registered'} vs {info.program[:12]})")
    config = AgentConfig(**payload["agent"])
    agent = config.build()
    try:
        specs = [EpisodeSpec(env_id, int(seed), hint=bool(hint), kwargs=envs[env_id].kwargs)
                 for env_id, seed, hint in payload["specs"]]
        episodes = play_episodes(agent, specs, max_turns=config.max_turns, batch_size=config.concurrency)
    finally:
        agent.close()
    return {"records": [episode_record(payload["fingerprint"], envs[e.spec.env_id], e) for e in episodes]}


#: What this module offered before environment selection, agent kinds and the results
#: file moved to modules of their own (re-exported so existing imports keep working).
__all__ = [
    "AGENTS", "AGENT_KINDS", "ARMS", "BFCL_SKILL", "DEFAULT_RESULTS_DIR", "REASONING_GYM_SKILL", "AgentConfig",
    "AgentKind", "EnvInfo", "EvalRun", "Evaluation", "EvaluationError", "ResultsStore", "default_results_path",
    "episode_record", "episode_seeds", "record_key", "select_envs", "split_patterns",
]
