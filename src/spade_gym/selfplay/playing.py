"""Play stage of a self-play iteration: paired with/without-hint plays for regret, and agent task groups."""

from __future__ import annotations

import random

from spade_gym.agents import EpisodeSpec, play_episodes
from spade_gym.errors import SpadeError
from spade_gym.selfplay.policy import TokenAgent, TokenPolicy, Trace
from spade_gym.selfplay.records import DesignResult, RolloutStage
from spade_gym.selfplay.rewards import (
    check_groups, designer_reward, episode_outcome, group_key, learning_potential, paired_regret,
)

#: Outcomes remembered per environment for the learning-potential weights.
OUTCOME_MEMORY = 32


class PlayStage(RolloutStage):
    def _play(self, policy: TokenPolicy, specs: list[EpisodeSpec], temperature: float, seed: int):
        agent = TokenAgent(policy, temperature=temperature, max_turn_tokens=self.config.max_turn_tokens,
                           max_episode_tokens=self.config.max_episode_tokens, seed=seed)
        episodes = play_episodes(agent, specs, max_turns=self.config.max_turns, batch_size=32)
        self.env_seconds += sum(e.env_seconds for e in episodes)
        return episodes, agent

    def _measure_regret(self, policy: TokenPolicy, designs: list[DesignResult], iteration: int,
                        rng: random.Random) -> list[list[tuple[Trace, float, str]]]:
        """Paired regret of each valid design; returns the no-hint plays, one group per design."""
        valid = [d for d in designs if d.valid]
        K = self.config.paired_seeds
        if not valid:
            self._share_duplicate_rewards(designs)  # collective: every rank takes part
            return []
        ids = {id(d): str(d.env_id) for d in valid}
        seeds = {ids[id(d)]: [rng.randrange(1_000_000_000) for _ in range(K)] for d in valid}
        plain = [EpisodeSpec(env_id, s, hint=False) for env_id in seeds for s in seeds[env_id]]
        hinted = [EpisodeSpec(env_id, s, hint=True) for env_id in seeds for s in seeds[env_id]]
        without, plain_agent = self._play(policy, plain, self.config.agent_temperature, rng.randrange(2**31))
        hint_temperature = self.config.hint_temperature
        with_hint, _ = self._play(policy, hinted, self.config.agent_temperature if hint_temperature is None
                                  else hint_temperature, rng.randrange(2**31))
        outcomes: dict[str, tuple[dict, dict]] = {env_id: ({}, {}) for env_id in seeds}
        groups: dict[str, list[tuple[Trace, float, str]]] = {env_id: [] for env_id in seeds}
        for index, episode in enumerate(without):
            outcome = episode_outcome(episode.rewards, episode.terminated)
            outcomes[episode.spec.env_id][1][episode.spec.seed] = outcome
            trace = plain_agent.traces.get(index) or _empty_trace(policy, episode)
            groups[episode.spec.env_id].append((trace, outcome, episode.spec.env_id))
        for episode in with_hint:
            outcomes[episode.spec.env_id][0][episode.spec.seed] = episode_outcome(episode.rewards, episode.terminated)
        for design in valid:
            hinted_out, plain_out = outcomes[ids[id(design)]]
            design.regret = paired_regret(hinted_out, plain_out)
            design.win_rate = _mean(list(plain_out.values()))
            design.win_rate_hint = _mean(list(hinted_out.values()))
            design.reward = designer_reward(True, regret=design.regret, win_rate=design.win_rate,
                                            config=self.config.reward)
            entry = self.suite.get(ids[id(design)])
            self.suite.update_card(entry, stats={"regret": design.regret, "win_rate": design.win_rate,
                                                 "win_rate_hint": design.win_rate_hint, "iteration": iteration,
                                                 "paired_seeds": K})
        self._share_duplicate_rewards(designs)
        return [groups[ids[id(d)]] for d in valid]

    def _share_duplicate_rewards(self, designs: list[DesignResult]) -> None:
        """A duplicate's reward is its original's, wherever (on whichever rank) that was played."""
        rewards = {(d.rank, d.index): d.reward for d in designs if d.valid}
        everything = {}
        for item in self.ranks.gather([[list(k), v] for k, v in rewards.items()]):
            everything[tuple(item[0])] = item[1]
        for design in designs:
            if design.duplicate_of is not None:
                design.reward = everything.get(tuple(design.duplicate_of), designer_reward(False, config=self.config.reward))

    def _agent_groups(self, policy: TokenPolicy, n_groups: int, regret_groups, iteration: int,
                      rng: random.Random) -> dict:
        config = self.config
        G = config.num_generations
        samples: list[tuple[Trace, float]] = []
        keys: list[tuple[str, object]] = []
        outcomes: list[tuple[str, float]] = []
        suite_wins: list[float] = []
        used = 0
        if config.train_on_regret_plays and G == config.paired_seeds:
            # GRPO groups by position: a design's G no-hint plays (G seeds of one new environment)
            # form one group, normalised against each other.
            for group in regret_groups[:n_groups]:
                for trace, outcome, env_id in group:
                    samples.append((trace, outcome))
                    keys.append((env_id, "regret plays"))
                    outcomes.append((env_id, outcome))
                used += 1
        remaining = n_groups - used
        tokens = 0
        if remaining > 0:
            pool = [e.id for e in self.seed_entries] + [e.id for e in self.suite.entries()]
            if not pool:
                raise SpadeError("the environment pool is empty: no seed suite and no valid program yet")
            tasks = self._sample_tasks(pool, remaining, rng)
            specs = [EpisodeSpec(env_id, seed) for env_id, seed in tasks for _ in range(G)]
            episodes, agent = self._play(policy, specs, config.agent_temperature, rng.randrange(2**31))
            tokens = agent.tokens
            seed_ids = {e.id for e in self.seed_entries}
            for index, episode in enumerate(episodes):
                reward = episode_outcome(episode.rewards, episode.terminated)
                trace = agent.traces.get(index) or _empty_trace(policy, episode)
                samples.append((trace, reward))
                keys.append(group_key(episode.spec.env_id, episode.spec.seed))
                outcomes.append((episode.spec.env_id, reward))
                if episode.spec.env_id in seed_ids:
                    suite_wins.append(1.0 if episode.won else 0.0)
        check_groups(keys, G)  # GRPO normalises by position: each group must be one task
        tokens += sum(sum(t.env_mask) for t, _ in samples[:used * G])
        return {"samples": samples, "suite_wins": suite_wins, "tokens": tokens, "outcomes": outcomes,
                "regret_groups_used": used}

    def _sample_tasks(self, pool: list[str], n: int, rng: random.Random) -> list[tuple[str, int]]:
        """(environment, seed) tasks; "learning-potential" favours environments the agent wins
        about half the time (unplayed ones count as such), as the paper does."""
        if self.config.agent_task_sampling == "uniform":
            return [(rng.choice(pool), rng.randrange(1_000_000_000)) for _ in range(n)]
        weights = [learning_potential(self.state.outcomes.get(env_id, [])) for env_id in pool]
        return [(env_id, rng.randrange(1_000_000_000)) for env_id in rng.choices(pool, weights=weights, k=n)]

    def _remember_outcomes(self, outcomes: list[tuple[str, float]]) -> None:
        for env_id, outcome in self.ranks.gather(outcomes):
            history = self.state.outcomes.setdefault(env_id, [])
            history.append(1.0 if outcome > 0 else 0.0)
            del history[:-OUTCOME_MEMORY]


def _empty_trace(policy: TokenPolicy, episode) -> Trace:
    """The env failed before the first turn: an empty, unrewarded sample."""
    return Trace(policy.chat_ids([{"role": "user", "content": episode.first_observation or "-"}]))


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None
