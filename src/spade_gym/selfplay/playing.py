"""Play stage of a self-play iteration: paired with/without-hint plays for regret, agent task groups,
and the designer rewards and frontier cards they decide. What it carries across iterations is in
the checkpointed :class:`RunState` (``outcomes``, ``plays``) and on the run suite's cards."""

from __future__ import annotations

import random
from dataclasses import dataclass

from spade_gym.agents import EpisodeSpec, play_episodes
from spade_gym.env.monitor import CONTRACT_ERROR_KIND
from spade_gym.errors import SpadeError
from spade_gym.registry import Suite, SuiteEntry
from spade_gym.registry.quarantine import mark_of
from spade_gym.selfplay.batch import assign_regret_plays, reserve_pool_tasks
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.distributed import Ranks
from spade_gym.selfplay.episode_rows import Record, episode_hung, episode_record, policy_tokens, training_rows
from spade_gym.selfplay.policy import TokenAgent, TokenPolicy, Trace
from spade_gym.selfplay.records import DesignResult, RunState
from spade_gym.selfplay.rewards import (
    centre_per_skill,
    check_groups,
    designer_reward,
    episode_outcome,
    group_key,
    invalid_reward,
    learning_potential,
    paired_regret,
    remember_plays,
    window_win_rate,
)
from spade_gym.selfplay.rows import TrainingRow

#: Outcomes remembered per environment for the learning-potential weights.
OUTCOME_MEMORY = 32

#: One no-hint regret play to train on: what the policy left of it, its outcome, its
#: environment, and whether it is dropped (its program hung, reward.step_timeout_penalty).
RegretEpisode = tuple[Record, float, str, bool]


@dataclass
class RegretPlays:
    """This rank's part of the iteration's regret plays (:meth:`PlayStage.measure_regret`)."""

    #: The no-hint plays to train on, one group per design this rank was given.
    groups: list[list[RegretEpisode]]
    #: (environment, outcome) of this rank's no-hint plays of intact designs, for the win rates.
    plays: list[tuple[str, float]]
    #: Seconds the environments took (reset and step) in these plays.
    env_seconds: float = 0.0


@dataclass
class AgentGroups:
    """The agent's share of an iteration's batch (:meth:`PlayStage.agent_groups`)."""

    #: The agent's training rows, padding slots included.
    rows: list[TrainingRow]
    #: Each trained episode's return.
    returns: list[float | None]
    #: Win (1.0) or loss of each pool task played on a seed-suite environment.
    suite_wins: list[float]
    #: The policy's generated tokens.
    tokens: int
    #: (environment, outcome) of every episode, for the learning-potential weights.
    outcomes: list[tuple[str, float]]
    #: (environment, outcome) of the pool tasks' episodes, for the win rates.
    task_plays: list[tuple[str, float]]
    #: The regret plays' groups trained as agent tasks.
    regret_groups_used: int
    #: Seconds the environments took (reset and step) in the pool tasks' episodes.
    env_seconds: float = 0.0


class PlayStage:
    def __init__(self, config: SelfPlayConfig, *, suite: Suite, seed_entries: list[SuiteEntry], state: RunState,
                 ranks: Ranks):
        self.config = config
        self.suite = suite
        #: With the run suite's valid programs, the agent's pool.
        self.seed_entries = seed_entries
        self.state = state  # its ``outcomes`` and ``plays``: what this stage remembers
        self.ranks = ranks

    def _play(self, policy: TokenPolicy, specs: list[EpisodeSpec], temperature: float, seed: int):
        agent = TokenAgent(policy, temperature=temperature, max_turn_tokens=self.config.max_turn_tokens,
                           max_episode_tokens=self.config.max_episode_tokens, seed=seed,
                           sample_unit=self.config.sample_unit)
        episodes = play_episodes(agent, specs, max_turns=self.config.max_turns,
                                 batch_size=self.config.play_concurrency)
        return episodes, agent

    def measure_regret(self, policy: TokenPolicy, designs: list[DesignResult], iteration: int, rng: random.Random,
                       *, capacity: int | None = None) -> RegretPlays:
        """Paired regret of every valid design (collective: every rank, designs or not).

        All ranks' valid designs are played together, spread over the ranks by episodes
        (:func:`assign_regret_plays`), not left to the rank that designed them: on 8 ranks
        a design-heavy rank would otherwise play everything while the others wait. Each
        rank plays its share, with and without the hint, in one call at one temperature;
        the outcomes are gathered, and each design's owner sets its regret.

        ``capacity``: the agent tasks this rank trains (its share of ``agent_groups``): a
        design's no-hint plays go, as one group, preferably to a rank with room for them.
        Returns this rank's no-hint groups, one per design it was given, to train on, and its
        no-hint plays for the win rates (:meth:`settle_designer_rewards`).
        """
        K = self.config.paired_seeds
        mine = [d for d in designs if d.valid]
        # Seeds come from the designer's own stream: a design is played on the same seeds
        # wherever it is played.
        offered = [[str(d.env_id), [rng.randrange(1_000_000_000) for _ in range(K)]] for d in mine]
        everyone = self.ranks.gather([[self.ranks.rank, capacity, offered]])
        world = len(everyone)
        capacities = [c if c is not None else (10**9 if world == 1 else 0) for _, c, _ in everyone]
        environments = [(env_id, list(seeds)) for _, _, items in everyone for env_id, seeds in items]
        play_seed = rng.randrange(2**31)
        if not environments:
            return RegretPlays([], [])
        plan = assign_regret_plays([(env_id, len(seeds)) for env_id, seeds in environments], capacities,
                                   whole_groups=self.config.regret_plays_trained)
        seeds_of = dict(environments)
        plain = [EpisodeSpec(env_id, seeds_of[env_id][k], hint=False)
                 for env_id, arm, k in plan[self.ranks.rank] if not arm]
        hinted = [EpisodeSpec(env_id, seeds_of[env_id][k], hint=True)
                  for env_id, arm, k in plan[self.ranks.rank] if arm]
        # Both arms in one call at one temperature: regret is what the hint is worth, not what
        # a colder arm is; one wave of turns, not two.
        temperature = self.config.regret_play_temperature
        played, agent = self._play(policy, plain + hinted, temperature, play_seed) if plain or hinted \
            else ([], None)
        results = []
        groups: dict[str, list[RegretEpisode]] = {}
        for index, episode in enumerate(played):
            spec = episode.spec
            outcome = episode_outcome(episode.rewards, episode.terminated)
            # A program that broke the contract while being played (see spade_gym.env.monitor) is
            # quarantined by the registry; its designer is charged as for an invalid design and
            # its plays train nobody.
            broken = episode.error.get("message") if isinstance(episode.error, dict) and \
                episode.error.get("kind") == CONTRACT_ERROR_KIND else None
            # A reset() or step() that overran its deadline: the program hung (reward.step_timeout_penalty).
            overran = episode_hung(episode)
            results.append([spec.env_id, bool(spec.hint), spec.seed, outcome, broken, overran])
            if not spec.hint:
                groups.setdefault(spec.env_id, []).append((episode_record(agent, index, policy, episode), outcome,
                                                           spec.env_id, overran and self._drop_hung_episodes))
        outcomes: dict[str, tuple[dict, dict]] = {env_id: ({}, {}) for env_id, _ in environments}
        broken_by: dict[str, str] = {}
        hung: set[str] = set()
        for env_id, hint, seed, outcome, broken, timed_out in self.ranks.gather(results):
            outcomes[env_id][0 if hint else 1][seed] = outcome
            if broken is not None:
                broken_by.setdefault(env_id, str(broken))
            if timed_out:
                hung.add(env_id)
        for design in mine:
            env_id = str(design.env_id)
            if env_id in broken_by:
                design.valid = False
                design.failed_check = "contract (deployment)"
                design.failure = broken_by[env_id]
                design.reward = invalid_reward(self.config.reward)
                continue
            design.step_timeout = env_id in hung
            hinted_out, plain_out = outcomes[env_id]
            design.regret = paired_regret(hinted_out, plain_out)
            design.win_rate_hint = mean_or_none(list(hinted_out.values()))
        # This rank's no-hint plays of intact designs: gathered with the agent's plays for the win rates.
        plain_plays = [(env_id, outcome) for env_id, hint, _, outcome, _, _ in results
                       if not hint and env_id not in broken_by]
        trained = [groups[env_id] for env_id in dict.fromkeys(e for e, arm, _ in plan[self.ranks.rank] if not arm)
                   if env_id not in broken_by]
        return RegretPlays(trained, plain_plays, env_seconds=sum((e.env_seconds for e in played), 0.0))

    def settle_designer_rewards(self, designs: list[DesignResult], iteration: int,
                                plays: list[tuple[str, float]]) -> None:
        """The designer's rewards, once the iteration's plays are in (collective: every rank).

        ``plays``: this rank's no-hint (environment, outcome) plays of the iteration, the regret
        plays' (:attr:`RegretPlays.plays`) then the agent tasks' (:attr:`AgentGroups.task_plays`);
        they join the run state's window. An environment's win rate is its no-hint outcomes over
        the last ``reward.win_rate_window`` iterations (all ranks: regret plays and agent tasks);
        it feeds the plateau term and the new environments' cards (the others' cards follow
        at the next iteration's start, :meth:`refresh_frontier`). Regret stays the paired
        one measured at design time. A design whose program hung in its regret plays earns
        ``reward.step_timeout_penalty`` when set; with ``reward.invalid_designs="drop"`` an
        invalid design's reward is None (its samples leave the designer's batch). The rewards
        (and per-skill advantages) are written on the designs' records.
        """
        config = self.config.reward
        plays = self.ranks.gather([[env_id, o] for env_id, o in plays])
        remember_plays(self.state.plays, iteration, [(e, o) for e, o in plays], config.plays_kept)
        since = iteration - config.win_rate_window + 1
        for design in designs:
            if not design.valid:
                continue
            env_id = str(design.env_id)
            design.win_rate = window_win_rate(self.state.plays, env_id, since)
            design.reward = designer_reward(True, regret=design.regret, win_rate=design.win_rate, config=config,
                                            step_timeout=design.step_timeout)
            entry = self.suite.get(env_id)
            self.suite.update_card(entry, stats={"regret": design.regret, "win_rate": design.win_rate,
                                                 "win_rate_hint": design.win_rate_hint, "iteration": iteration,
                                                 "paired_seeds": self.config.paired_seeds,
                                                 **self._window_stats(env_id, iteration)})
        self._share_duplicate_rewards(designs)
        if config.invalid_designs == "drop":
            for design in designs:
                if not design.valid and design.duplicate_of is None:
                    design.reward = None  # (admission charged the penalty)
        if config.skill_centring:
            everyone = self.ranks.gather([[self.ranks.rank, d.skill, d.reward] for d in designs])
            centred = centre_per_skill([(skill, reward) for _, skill, reward in everyone])
            mine = [a for (rank, _, _), a in zip(everyone, centred) if rank == self.ranks.rank]
            for design, advantage in zip(designs, mine):
                design.advantage = advantage

    def refresh_frontier(self) -> None:
        """Put each run-suite environment's window win rate on its card, where the frontier
        memory of the design prompts reads it (the main process writes; the rollout's start
        barrier, :meth:`~spade_gym.selfplay.rollout.SpadeRollout._start_iteration`, holds the
        other ranks until it has).

        Done at the start of an iteration from the committed state, so a resumed iteration
        designs from the same memory as the uninterrupted run did.
        """
        if self.ranks.is_main:
            for entry in self.suite.entries():
                window = self._window_stats(entry.id, self.state.iteration)
                if not window["win_rate_plays"]:
                    continue  # not played within the window: the card keeps its last measure
                stats = {**(entry.card.stats or {}), **window}
                if stats != entry.card.stats:
                    self.suite.update_card(entry, stats=stats)

    def _window_stats(self, env_id: str, iteration: int) -> dict:
        """The card's win rate: no-hint plays of the ``win_rate_window`` iterations up to ``iteration``
        (the state may remember more for delayed designer rewards)."""
        window = self.config.reward.win_rate_window
        since = iteration - window + 1
        plays = [p for p in self.state.plays.get(env_id, []) if p[0] >= since]
        return {"win_rate": window_win_rate(self.state.plays, env_id, since), "win_rate_plays": len(plays),
                "win_rate_window": window}

    def _share_duplicate_rewards(self, designs: list[DesignResult]) -> None:
        """A duplicate's reward is its original's, wherever (on whichever rank) that was played."""
        rewards = {(d.rank, d.index): d.reward for d in designs if d.valid}
        everything = {}
        for item in self.ranks.gather([[list(k), v] for k, v in rewards.items()]):
            everything[tuple(item[0])] = item[1]
        for design in designs:
            if design.duplicate_of is not None:
                design.reward = everything.get(tuple(design.duplicate_of), invalid_reward(self.config.reward))

    def agent_groups(self, policy: TokenPolicy, n_groups: int, regret_groups: list[list[RegretEpisode]],
                     iteration: int, rng: random.Random, *, n_tasks: int | None = None,
                     n_pool: int | None = None) -> AgentGroups:
        """The agent's share of the batch: ``n_groups`` GRPO groups of slots, ``n_tasks`` tasks
        (default: as many as fit), of which at least ``n_pool`` are pool tasks (default: this
        rank's ``floor(pool_task_share x n_tasks)``; the rollout passes its share of the
        iteration's, :func:`~spade_gym.selfplay.batch.reserve_pool_tasks`).

        Whole-episode samples: one task (G episodes of one environment and seed) per
        group. Per-turn samples: each task takes ``turn_samples`` groups (see
        :mod:`spade_gym.selfplay.turns`); slots no task fills are padding.
        """
        config = self.config
        G = config.num_generations
        per_task = config.turn_samples if config.sample_unit == "turn" else 1
        n_tasks = n_groups // per_task if n_tasks is None else min(n_tasks, n_groups // per_task)
        episodes: list[tuple[Record, float | None]] = []  # None: a hung episode, not trained
        keys: list[tuple[str, object]] = []
        outcomes: list[tuple[str, float]] = []
        task_plays: list[tuple[str, float]] = []
        suite_wins: list[float] = []
        used = 0
        tokens = 0
        env_seconds = 0.0
        if config.regret_plays_trained:
            # GRPO groups by position: a design's G no-hint plays (G seeds of one new environment)
            # form one group, normalised against each other. `reserved`: tasks the pool always gets.
            reserved = reserve_pool_tasks([n_tasks], config.pool_task_share)[0] if n_pool is None else n_pool
            for group in regret_groups[:max(0, n_tasks - reserved)]:
                for record, outcome, env_id, *dropped in group:
                    # a hung episode (reward.step_timeout_penalty): no loss, out of its group's baseline
                    hung = bool(dropped and dropped[0])
                    empty: Record = [] if config.sample_unit == "turn" else Trace([])
                    episodes.append((empty if hung else record, None if hung else outcome))
                    keys.append((env_id, "regret plays"))
                    outcomes.append((env_id, outcome))
                    tokens += policy_tokens(record)
                used += 1
        remaining = n_tasks - used
        if remaining > 0:
            pool = [e.id for e in self.seed_entries + self.suite.entries() if mark_of(e.card.sha256) is None]
            if not pool:
                raise SpadeError("the environment pool is empty: no seed suite and no valid program yet")
            tasks = self._sample_tasks(pool, remaining, rng)
            specs = [EpisodeSpec(env_id, seed) for env_id, seed in tasks for _ in range(G)]
            played, agent = self._play(policy, specs, config.agent_temperature, rng.randrange(2**31))
            tokens += agent.tokens
            env_seconds = sum((e.env_seconds for e in played), 0.0)
            seed_ids = {e.id for e in self.seed_entries}
            for index, episode in enumerate(played):
                reward = episode_outcome(episode.rewards, episode.terminated)
                if self._drop_hung_episodes and episode_hung(episode):
                    # the program hung, not the agent: no loss, out of its group's baseline
                    episodes.append(([] if agent.sample_unit == "turn" else Trace([]), None))
                else:
                    episodes.append((episode_record(agent, index, policy, episode), reward))
                keys.append(group_key(episode.spec.env_id, episode.spec.seed))
                outcomes.append((episode.spec.env_id, reward))
                task_plays.append((episode.spec.env_id, reward))
                if episode.spec.env_id in seed_ids:
                    suite_wins.append(1.0 if episode.won else 0.0)
        check_groups(keys, G)  # GRPO normalises by position: each group must be one task
        rows = training_rows(episodes, G, per_task, rng)
        # Slot groups no task fills (this rank's share is smaller than the largest, or n_groups
        # is not a multiple of turn_samples): padding.
        rows += [TrainingRow.padding()] * ((n_groups - n_tasks * per_task) * G)
        return AgentGroups(rows=rows, returns=[r for _, r in episodes], suite_wins=suite_wins, tokens=tokens,
                           outcomes=outcomes, task_plays=task_plays, regret_groups_used=used,
                           env_seconds=env_seconds)

    @property
    def _drop_hung_episodes(self) -> bool:
        """With ``reward.step_timeout_penalty`` set, an agent episode whose program hung is not
        trained on (the reference drops such trajectories): its reward is None, no loss."""
        return self.config.reward.step_timeout_penalty is not None

    def _sample_tasks(self, pool: list[str], n: int, rng: random.Random) -> list[tuple[str, int]]:
        """(environment, seed) tasks; "learning-potential" favours environments the agent wins
        about half the time (unplayed ones count as such), as the paper does."""
        if self.config.agent_task_sampling == "uniform":
            return [(rng.choice(pool), rng.randrange(1_000_000_000)) for _ in range(n)]
        weights = [learning_potential(self.state.outcomes.get(env_id, [])) for env_id in pool]
        return [(env_id, rng.randrange(1_000_000_000)) for env_id in rng.choices(pool, weights=weights, k=n)]

    def remember_outcomes(self, outcomes: list[tuple[str, float]]) -> None:
        """The iteration's agent outcomes, all ranks' (a collective), for the learning-potential weights."""
        for env_id, outcome in self.ranks.gather(outcomes):
            history = self.state.outcomes.setdefault(env_id, [])
            history.append(1.0 if outcome > 0 else 0.0)
            del history[:-OUTCOME_MEMORY]


def mean_or_none(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None

