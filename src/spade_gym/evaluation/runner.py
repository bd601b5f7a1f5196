"""Plan episodes, play them through the shared driver, cache results.

The environments come from :mod:`~spade_gym.evaluation.selection`, the agent from
:mod:`~spade_gym.evaluation.agent_config`, the results file is :mod:`~spade_gym.evaluation.results`.

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

import json
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


#: What this module offered before environment selection, agent kinds and the results
#: file moved to modules of their own (re-exported so existing imports keep working).
__all__ = [
    "AGENTS", "AGENT_KINDS", "ARMS", "BFCL_SKILL", "DEFAULT_RESULTS_DIR", "REASONING_GYM_SKILL", "AgentConfig",
    "AgentKind", "EnvInfo", "EvalRun", "Evaluation", "EvaluationError", "ResultsStore", "default_results_path",
    "episode_record", "episode_seeds", "record_key", "select_envs", "split_patterns",
]
