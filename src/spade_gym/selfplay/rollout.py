"""One self-play iteration's rollouts: the function TRL's ``GRPOTrainer`` calls.

TRL hands ``rollout_func`` this rank's batch of prompt slots — ``num_generations``
consecutive slots per GRPO group — and trains on whatever token sequences it returns.
The slots' dataset content is a placeholder: what each group *is* is decided here. The
first ``designer_groups`` groups are design requests; the rest are agent tasks:

1. **Design**: sample ``num_generations`` programs per designer prompt (through TRL's
   generation path, :mod:`spade_gym.selfplay.generation`); parse and validate them in
   parallel in the sandbox. Designs without a hint are rejected (hint regret would be
   noise), and so are copies of any registered program or of another design in the
   same batch (all ranks' designs together).
2. **Register**: one writer (the main process) registers the accepted programs into the
   run's suite; every rank then makes them ``gym.make``-able.
3. **Regret**: each rank plays its own valid designs ``paired_seeds`` times *with* and
   *without* the hint on the same seeds. The designer reward is paired regret (or the
   configured blend); invalid programs get the fixed penalty.
4. **Agent**: agent groups are first the no-hint regret plays (on-policy episodes of
   fresh environments, one group per design when ``paired_seeds == num_generations``),
   then (environment, seed) tasks drawn from the pool with a learning-potential weight
   (environments near 50% success first). Environment tokens are masked (``env_mask``).

Every random choice of an iteration comes from ``(seed, rank, iteration)``, so a resumed
run replays an interrupted iteration exactly.
"""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from spade_gym.agents import EpisodeSpec, play_episodes
from spade_gym.contract import program_kind
from spade_gym.generate.designer_output import parse_designer_output
from spade_gym.errors import DesignerOutputError, SpadeError
from spade_gym.generate.pipeline import describe_program, suite_memory
from spade_gym.generate.prompts import build_design_messages, skill_by_name
from spade_gym.registry import Card, Suite, SuiteEntry, designer_label, register_suite
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.distributed import Ranks
from spade_gym.selfplay.generation import make_generator
from spade_gym.selfplay.policy import TokenAgent, TokenPolicy, Trace
from spade_gym.selfplay.rewards import (
    check_groups, designer_reward, episode_outcome, group_key, learning_potential, paired_regret,
)
from spade_gym.selfplay.warmstart import compact_design_messages

#: Outcomes remembered per environment for the learning-potential weights.
OUTCOME_MEMORY = 32


@dataclass
class RunState:
    """What the loop carries from one iteration to the next (saved with every checkpoint)."""

    iteration: int = 0
    #: Ids registered up to this checkpoint: on resume, anything else in the suite was
    #: registered by an iteration that never reached its checkpoint, and is rolled back.
    registered: list[str] = field(default_factory=list)
    #: Recent agent outcomes per environment (all ranks), for learning-potential sampling.
    outcomes: dict[str, list[float]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"iteration": self.iteration, "registered": list(self.registered), "outcomes": self.outcomes}

    @classmethod
    def from_dict(cls, data: dict) -> "RunState":
        return cls(iteration=int(data["iteration"]), registered=list(data.get("registered", [])),
                   outcomes={k: [float(x) for x in v] for k, v in data.get("outcomes", {}).items()})


@dataclass
class DesignResult:
    skill: str
    multi_turn: bool
    text: str
    rank: int = 0
    index: int = 0
    valid: bool = False
    env_id: str | None = None
    failed_check: str | None = None
    failure: str | None = None
    regret: float | None = None
    win_rate: float | None = None
    win_rate_hint: float | None = None
    reward: float = 0.0
    #: A valid program sampled twice in one batch: the copy shares the original's reward
    #: (same program, same reward — anything else is noise in GRPO's advantage) but is not
    #: registered or counted twice.
    duplicate_of: tuple[int, int] | None = None


class SpadeRollout:
    """The ``rollout_func``; one call is one self-play iteration's sampling on this rank."""

    def __init__(self, config: SelfPlayConfig, run_dir: Path, seed_entries: list[SuiteEntry], state: RunState,
                 *, ranks: Ranks | None = None, progress=None):
        from spade_gym.selfplay.progress import Progress

        self.config = config
        self.run_dir = Path(run_dir)
        self.suite = Suite(self.run_dir / "suite")
        self.suite.path.mkdir(parents=True, exist_ok=True)
        self.rejected_dir = self.run_dir / "rejected"
        self.seed_entries = seed_entries
        self.state = state
        self.ranks = ranks or Ranks()
        self.progress = progress or Progress(enabled=False)
        self.skills = config.skill_names()
        #: (skill, multi_turn) targets in turn (a tool-use task always takes several turns);
        #: "warmstart" uses the pairs the warm start taught.
        self.targets: list[tuple[str, bool | None]] = [
            (skill, True if skill_by_name(skill).kind == "tool-use" else None) for skill in self.skills]
        if config.designer_targets == "warmstart":
            from spade_gym.selfplay.warmstart import warm_start_targets

            self.targets = list(warm_start_targets(seed_entries, config)) or self.targets
        self.last_metrics: dict = {}
        self.last_designs: list[DesignResult] = []
        self.rollout_finished = 0.0
        self.env_seconds = 0.0

    # ------------------------------------------------------------------ TRL entry point

    def __call__(self, prompts: list, trainer) -> dict:
        config = self.config
        G = config.num_generations
        if len(prompts) % G:
            raise SpadeError(f"{len(prompts)} prompt slots do not split into groups of {G}")
        groups = len(prompts) // G
        served = config.designer == "openai"
        # Trained design groups take slots; a served designer's designs take none.
        n_design = 0 if served else min(config.designer_groups, groups)
        generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
        policy = TokenPolicy(generator, trainer.processing_class)
        model_name = str(config.designer_model) if config.designer == "openai" else \
            str(getattr(trainer.model, "name_or_path", "") or config.model)
        iteration = self.state.iteration + 1
        rng = random.Random(f"selfplay:{config.seed}:{self.ranks.rank}:{iteration}")
        timings = {}
        started = time.monotonic()
        # One generation session per iteration: one ZeRO-3 gather / one vLLM wake-up.
        with generator.session():
            n_designs = (config.designer_groups if served else n_design) * G
            with self.progress.phase(f"iteration {iteration}: designing", total=n_designs) as phase:
                if served:
                    designs, design_samples, prompt_ids = self._design_served(config.designer_groups, iteration,
                                                                              rng, phase), [], []
                else:
                    designs, design_samples, prompt_ids = self._design(policy, n_design, iteration, rng, phase)
            timings["design_s"] = time.monotonic() - started
            t = time.monotonic()
            with self.progress.phase(f"iteration {iteration}: validating", total=len(designs)) as phase:
                self._validate_and_register(designs, iteration, model_name, rng, phase)
            timings["validate_s"] = time.monotonic() - t
            t = time.monotonic()
            self.env_seconds = 0.0
            with self.progress.phase(f"iteration {iteration}: playing", total=None):
                regret_groups = self._measure_regret(policy, designs, iteration, rng)
                agent = self._agent_groups(policy, groups - n_design, regret_groups, iteration, rng)
            timings["play_s"] = time.monotonic() - t
            timings["play_env_s"] = self.env_seconds

        out: dict[str, list] = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [],
                                "spade_reward": [], "spade_role": []}
        pad_id = policy.tokenizer.pad_token_id
        train_designer = iteration > config.designer_training_delay

        def add(prompt, ids, logprobs, mask, reward, role):
            if not ids:
                # Nothing was generated (the env failed before the first turn): TRL needs one
                # token per sample, so a padding token stands in, masked out of the loss.
                ids, logprobs, mask = [pad_id], [0.0], [0]
            out["prompt_ids"].append(prompt)
            out["completion_ids"].append(ids)
            out["logprobs"].append(logprobs)
            out["env_mask"].append(mask)
            out["spade_reward"].append(reward)
            out["spade_role"].append(role)

        for group, samples in enumerate(design_samples):
            for design, sample in zip(designs[group * G:(group + 1) * G], samples):
                # Before the designer's training starts (the paper's delay), designs are
                # still sampled and scored but carry no loss.
                mask = [1 if train_designer else 0] * len(sample.completion_ids)
                add(prompt_ids[group], sample.completion_ids, sample.logprobs, mask, design.reward, "designer")
        for trace, reward in agent["samples"]:
            add(trace.prompt_ids, trace.completion_ids, trace.logprobs, trace.env_mask, reward, "agent")

        self._remember_outcomes(agent["outcomes"])
        valid = [d for d in designs if d.valid]
        regrets = [d.regret for d in valid if d.regret is not None]
        local = {
            "designed": len(designs),
            "valid": len(valid),
            "failed_checks": _count([d.failed_check for d in designs if d.failed_check]),
            "regrets": regrets,
            "returns_with_hint": [d.win_rate_hint for d in valid if d.win_rate_hint is not None],
            "returns_without_hint": [d.win_rate for d in valid if d.win_rate is not None],
            "designer_rewards": [d.reward for d in designs],
            "agent_returns": [r for _, r in agent["samples"]],
            "suite_wins": agent["suite_wins"],
            "registered": [d.env_id for d in valid],
            "trained_regret_groups": agent["regret_groups_used"],
            "tokens_designer": sum(len(s.completion_ids) for g in design_samples for s in g),
            "tokens_agent": agent["tokens"],
            **timings,
        }
        self.last_metrics = _merge_rank_metrics(self.ranks.gather([local]), iteration,
                                                pool_size=len(self.seed_entries) + len(self.suite.entries()))
        self.last_designs = designs
        self.state.iteration = iteration
        self.rollout_finished = time.monotonic()
        m = self.last_metrics
        self.progress.log(f"iteration {iteration}: {m['valid']}/{m['designed']} designs valid, "
                          f"regret {_fmt(m['regret_mean'])}, agent return {_fmt(m['agent_return_mean'])}")
        return out

    # ------------------------------------------------------------------ design

    def _design(self, policy: TokenPolicy, n_groups: int, iteration: int, rng: random.Random, phase):
        config = self.config
        designs: list[DesignResult] = []
        samples: list = []
        prompt_ids: list[list[int]] = []
        all_entries = self.seed_entries + self.suite.entries()
        for group in range(n_groups):
            # Targets rotate over all ranks' groups: rank r takes the r-th block of this iteration.
            cursor = ((iteration - 1) * self.ranks.world + self.ranks.rank) * n_groups + group
            skill, multi_turn = self.targets[cursor % len(self.targets)]
            if multi_turn is None:
                multi_turn = rng.random() < config.multi_turn_ratio
            if config.designer_prompt == "compact":
                messages = compact_design_messages(skill, multi_turn)
            else:
                memory = suite_memory(all_entries, skill, k=config.memory_k, rng=rng)
                messages = build_design_messages(skill, multi_turn=multi_turn, memory=memory, rng=rng)
            ids = policy.chat_ids(messages)
            group_samples = policy.sample([ids] * config.num_generations, max_new_tokens=config.max_program_tokens,
                                          temperature=config.designer_temperature, seed=rng.randrange(2**31))
            phase.advance(len(group_samples))
            prompt_ids.append(ids)
            samples.append(group_samples)
            designs += [DesignResult(skill, multi_turn, policy.decode(s.completion_ids), rank=self.ranks.rank,
                                     index=len(designs) + i) for i, s in enumerate(group_samples)]
        return designs, samples, prompt_ids

    def _design_served(self, n_groups: int, iteration: int, rng: random.Random, phase) -> list[DesignResult]:
        """Designs from the served model (not trained on: they carry no tokens of the policy)."""
        config = self.config
        backend = self._served_backend()
        designs: list[DesignResult] = []
        all_entries = self.seed_entries + self.suite.entries()
        for group in range(n_groups):
            cursor = ((iteration - 1) * self.ranks.world + self.ranks.rank) * n_groups + group
            skill, multi_turn = self.targets[cursor % len(self.targets)]
            if multi_turn is None:
                multi_turn = rng.random() < config.multi_turn_ratio
            # Regret decides the memory: the suite's programs nearest the agent's frontier
            # (by the regret and win rates self-play recorded on their cards) are shown.
            memory = suite_memory(all_entries, skill, k=config.memory_k, rng=rng)
            messages = build_design_messages(skill, multi_turn=multi_turn, memory=memory, rng=rng)
            completions = backend.complete(messages, n=config.num_generations, temperature=config.designer_temperature,
                                           max_tokens=config.max_program_tokens, seed=rng.randrange(2**31))
            phase.advance(len(completions))
            designs += [DesignResult(skill, multi_turn, c.text, rank=self.ranks.rank, index=len(designs) + i)
                        for i, c in enumerate(completions)]
        return designs

    def _served_backend(self):
        if getattr(self, "_backend", None) is None:
            from spade_gym.generate.backends import make_backend

            self._backend = make_backend("openai", model=self.config.designer_model,
                                         base_url=self.config.designer_base_url,
                                         api_key_env=self.config.designer_api_key_env)
        return self._backend

    # ------------------------------------------------------------------ validate and register

    def _validate_and_register(self, designs: list[DesignResult], iteration: int, model_name: str,
                               rng: random.Random, phase) -> None:
        from spade_gym.validation import ValidationConfig, validate_source

        config = self.config
        # Fresh probe seeds every iteration (a designer must not learn the validator's seeds),
        # drawn from the iteration's RNG so a resumed run replays the same verdicts.
        vconfig = ValidationConfig(seeds=config.validation_seeds, seed=rng.randrange(2**31),
                                   fuzz_seed=rng.randrange(1_000_000))
        parsed: list = []
        for design in designs:
            try:
                parsed.append(parse_designer_output(design.text))
            except DesignerOutputError as exc:
                parsed.append(None)
                design.failed_check, design.failure = "parse", str(exc)

        def check(item):
            design, out = item
            if out is None:
                return None
            try:
                return validate_source(out.code, hint=out.hint, suite=self.suite, config=vconfig)
            finally:
                phase.advance(1)

        with ThreadPoolExecutor(max_workers=4) as pool:
            reports = list(pool.map(check, zip(designs, parsed)))
        from spade_gym.validation.novelty import check_novelty

        novelty_suites = self._novelty_suites()
        candidates = []
        for design, out, report in zip(designs, parsed, reports):
            if report is None:
                continue
            if not report.valid:
                failed = [c for c in report.checks if not c.passed and not c.skipped]
                design.failed_check = failed[0].name if failed else "validation"
                design.failure = failed[0].message if failed else report.summary()
                continue
            details = report.details
            hint = out.hint or details.get("hint")
            if config.require_hint and not (hint and str(hint).strip()):
                design.failed_check = "hint"
                design.failure = ("no hint: neither a <hint> nor a hint() method, so the with-hint and "
                                  "without-hint plays would be identical and regret pure noise")
                continue
            verdict = check_novelty(out.code, suites=novelty_suites, code_threshold=config.novelty_threshold)
            if not verdict.novel:
                design.failed_check, design.failure = "novelty", verdict.reason
                continue
            backend = "self-play" if config.designer == "policy" else "openai"
            card = Card.from_report(
                report, skill=design.skill, hint=hint, kind=program_kind(out.code),
                description=describe_program(out.code, details.get("first_observation")),
                multi_turn=bool(details.get("multi_turn", design.multi_turn)),
                # the designer model and the backend, nothing else
                provenance={"designer": designer_label(model_name, backend), "backend": backend,
                            "model": model_name, "preset": config.preset, "iteration": iteration,
                            "requested_multi_turn": design.multi_turn, "designer_prompt": config.designer_prompt},
            )
            candidates.append({"rank": design.rank, "index": design.index, "code": out.code,
                               "card": json.loads(card.dumps())})
        self._keep_rejected(designs, parsed, reports, iteration)
        decisions = self._register(candidates)
        register_suite(self.suite.path)
        by_key = {(d.rank, d.index): d for d in designs}
        for decision in decisions:
            mine = by_key.get((decision["rank"], decision["index"]))
            if mine is None:
                continue  # another rank's design
            design = mine
            if decision.get("env_id"):
                design.valid, design.env_id = True, decision["env_id"]
            else:
                design.duplicate_of = tuple(decision["duplicate_of"])
                design.failed_check = "duplicate in batch"
        for design in designs:
            if not design.valid and design.duplicate_of is None:
                design.reward = designer_reward(False, config=config.reward)

    def _novelty_suites(self) -> list[Suite]:
        """Every suite a new design must differ from: every registered one (the bundled suite,
        ``$SPADE_GYM_SUITES``), the seed suite and the run's own suite."""
        from spade_gym.validation.novelty import registered_suites

        suites = {str(s.path.resolve()): s for s in registered_suites()}
        for suite in [self.suite] + ([Suite(self.seed_entries[0].directory.parent)] if self.seed_entries else []):
            suites.setdefault(str(suite.path.resolve()), suite)
        return list(suites.values())

    def _register(self, candidates: list[dict]) -> list[dict]:
        """All ranks' accepted designs -> one decision each; the main process decides and writes.

        Candidates are taken in (rank, index) order; one that is a copy of an earlier one
        (code or behaviour, the validator's novelty check against the batch) is not
        registered and shares that one's reward. The decisions are broadcast to every rank.
        """
        from spade_gym.validation.novelty import check_novelty

        everything = sorted(self.ranks.gather(candidates), key=lambda c: (c["rank"], c["index"]))
        decisions: list[dict] = []
        if self.ranks.is_main:
            kept: dict[str, dict] = {}
            for candidate in everything:
                key = f"{candidate['rank']}:{candidate['index']}"
                verdict = check_novelty(candidate["code"], suites=[], batch={k: c["code"] for k, c in kept.items()},
                                        code_threshold=self.config.novelty_threshold)
                decision = {"rank": candidate["rank"], "index": candidate["index"]}
                if not verdict.novel and verdict.nearest is not None:
                    twin = kept[verdict.nearest.env_id.removeprefix("batch:")]
                    decision["duplicate_of"] = [twin["rank"], twin["index"]]
                else:
                    kept[key] = candidate
                    entry = self.suite.add(candidate["code"], Card.from_dict(candidate["card"]))
                    decision["env_id"] = entry.id
                decisions.append(decision)
        return self.ranks.broadcast(decisions)

    def _keep_rejected(self, designs, parsed, reports, iteration: int) -> None:
        """Rejected designs and their reports, like ``generate`` keeps them (capped)."""
        cap = self.config.keep_rejected
        rejected = [(d, p, r) for d, p, r in zip(designs, parsed, reports) if d.failed_check]
        if not rejected or cap <= 0:
            return
        self.rejected_dir.mkdir(parents=True, exist_ok=True)
        room = cap - len(list(self.rejected_dir.glob("*.txt")))
        for design, out, report in rejected[:max(0, room)]:
            stem = f"iter{iteration:04d}-rank{design.rank}-{design.index:03d}"
            (self.rejected_dir / f"{stem}.txt").write_text(design.text, encoding="utf-8")
            record = report.to_dict() if report is not None else {}
            record.update({"failed_check": design.failed_check, "failure": design.failure, "skill": design.skill,
                           "iteration": iteration})
            (self.rejected_dir / f"{stem}.report.json").write_text(json.dumps(record, indent=2), encoding="utf-8")

    # ------------------------------------------------------------------ play

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


def _merge_rank_metrics(parts: list[dict], iteration: int, *, pool_size: int) -> dict:
    """One metrics line from every rank's numbers."""

    def cat(key):
        return [x for p in parts for x in p[key]]

    failed: dict[str, int] = {}
    for p in parts:
        for name, count in p["failed_checks"].items():
            failed[name] = failed.get(name, 0) + count
    designed = sum(p["designed"] for p in parts)
    valid = sum(p["valid"] for p in parts)
    return {
        "iteration": iteration,
        "ranks": len(parts),
        "designed": designed,
        "valid": valid,
        "validity_rate": valid / designed if designed else None,
        "failed_checks": failed,
        "regret_mean": _mean(cat("regrets")),
        "return_with_hint": _mean(cat("returns_with_hint")),
        "return_without_hint": _mean(cat("returns_without_hint")),
        "designer_reward_mean": _mean(cat("designer_rewards")),
        "agent_return_mean": _mean(cat("agent_returns")),
        "agent_win_rate_suite": _mean(cat("suite_wins")),
        "pool_size": pool_size,
        "registered": cat("registered"),
        "trained_regret_groups": sum(p["trained_regret_groups"] for p in parts),
        "tokens_designer": sum(p["tokens_designer"] for p in parts),
        "tokens_agent": sum(p["tokens_agent"] for p in parts),
        # Ranks run in parallel: an iteration lasts as long as its slowest rank.
        **{k: round(max(p[k] for p in parts), 3) for k in ("design_s", "validate_s", "play_s", "play_env_s")},
    }


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3g}"


def _count(items):
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out
