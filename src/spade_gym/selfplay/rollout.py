"""One self-play iteration's rollouts: the function TRL's ``GRPOTrainer`` calls.

TRL hands ``rollout_func`` a batch of prompt slots — ``num_generations`` consecutive
slots per GRPO group — and trains on whatever token sequences it returns. The slots'
dataset content is a placeholder: what each group *is* is decided here. The first
``designer_groups`` groups are design requests; the rest are agent tasks:

1. **Design**: sample ``num_generations`` programs per designer prompt from the
   current policy; parse and validate them in parallel (all through the sandbox).
2. **Play**: every valid program is registered into the run's suite (``gym.make``-able
   at once) and played ``paired_seeds`` times *with* and *without* its hint, on the
   same seeds, by the current policy.
3. **Designer reward**: paired regret (or the configured blend); invalid programs get
   the fixed penalty.
4. **Agent reward**: each agent group plays ``num_generations`` episodes of one
   (environment, seed) from the live pool (the seed suite plus this run's valid
   programs); the reward is the episode outcome. Environment feedback tokens are
   masked out of the loss (``env_mask``).
"""

from __future__ import annotations

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
from spade_gym.generate.prompts import SKILLS, build_design_messages, skill_by_name
from spade_gym.registry import Card, Suite, SuiteEntry, designer_label, register_suite
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.generation import make_generator
from spade_gym.selfplay.policy import TokenAgent, TokenPolicy
from spade_gym.selfplay.rewards import check_groups, designer_reward, episode_outcome, group_key, paired_regret
from spade_gym.selfplay.warmstart import compact_design_messages


@dataclass
class RunState:
    """What the loop must carry from one iteration to the next (and through a resume)."""

    iteration: int = 0
    skill_cursor: int = 0
    rng_state: object = None
    metrics: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"iteration": self.iteration, "skill_cursor": self.skill_cursor,
                "rng_state": _jsonable_rng(self.rng_state)}

    @classmethod
    def from_dict(cls, data: dict) -> "RunState":
        state = cls(iteration=int(data["iteration"]), skill_cursor=int(data["skill_cursor"]))
        state.rng_state = _tuple_rng(data.get("rng_state"))
        return state


def _jsonable_rng(state):
    if state is None:
        return None
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _tuple_rng(data):
    if data is None:
        return None
    version, internal, gauss = data
    return (version, tuple(internal), gauss)


@dataclass
class DesignResult:
    skill: str
    multi_turn: bool
    text: str
    valid: bool = False
    env_id: str | None = None
    failed_check: str | None = None
    regret: float | None = None
    win_rate: float | None = None
    win_rate_hint: float | None = None
    reward: float = 0.0
    seed_suite_copy: bool = False
    #: A valid program sampled twice in one group: the copy shares the original's reward
    #: (same tokens, same reward — anything else is noise in GRPO's advantage) but is not
    #: registered or counted twice.
    duplicate_of: "DesignResult | None" = None


class SpadeRollout:
    """The ``rollout_func``; one call is one self-play iteration's sampling."""

    def __init__(self, config: SelfPlayConfig, run_dir: Path, seed_entries: list[SuiteEntry], state: RunState,
                 log=lambda message: None):
        self.config = config
        self.run_dir = Path(run_dir)
        self.suite = Suite(self.run_dir / "suite")
        self.suite.path.mkdir(parents=True, exist_ok=True)
        self.seed_entries = seed_entries
        self.state = state
        self.rng = random.Random(f"selfplay:{config.seed}")
        if state.rng_state is not None:
            self.rng.setstate(state.rng_state)
        self.log = log
        self.skills = [skill_by_name(s).name for s in config.skills] or [s.name for s in SKILLS.values()]
        #: (skill, multi_turn) targets in turn; "warmstart" uses the pairs the warm start taught.
        self.targets = [(skill, None) for skill in self.skills]
        if config.designer_targets == "warmstart":
            from spade_gym.selfplay.warmstart import warm_start_targets

            self.targets = warm_start_targets(seed_entries, config) or self.targets
        self.last_metrics: dict = {}
        self.rollout_finished = 0.0
        self.env_seconds = 0.0

    # ------------------------------------------------------------------ TRL entry point

    def __call__(self, prompts: list, trainer) -> dict:
        config = self.config
        G = config.num_generations
        if len(prompts) % G:
            raise SpadeError(f"{len(prompts)} prompt slots do not split into groups of {G}")
        groups = len(prompts) // G
        n_design = min(config.designer_groups, groups)
        generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
        policy = TokenPolicy(generator, trainer.processing_class)
        model_name = str(getattr(trainer.model, "name_or_path", "") or self.config.model)
        iteration = self.state.iteration + 1
        timings = {}
        started = time.monotonic()
        # One generation session per iteration: one ZeRO-3 gather / one vLLM wake-up.
        with generator.session():
            designs, design_samples, prompt_ids = self._design(policy, n_design, iteration)
            timings["design_s"] = time.monotonic() - started
            t = time.monotonic()
            self._validate_and_register(designs, iteration, model_name=model_name)
            timings["validate_s"] = time.monotonic() - t
            t = time.monotonic()
            self.env_seconds = 0.0
            self._measure_regret(policy, designs, iteration)
            agent = self._agent_groups(policy, groups - n_design, iteration)
            timings["play_s"] = time.monotonic() - t
            timings["play_env_s"] = self.env_seconds

        out = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [], "spade_reward": [],
               "spade_role": []}
        pad_id = policy.tokenizer.pad_token_id

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
                add(prompt_ids[group], sample.completion_ids, sample.logprobs, [1] * len(sample.completion_ids),
                    design.reward, "designer")
        for trace, reward in agent["samples"]:
            add(trace.prompt_ids, trace.completion_ids, trace.logprobs, trace.env_mask, reward, "agent")

        valid = [d for d in designs if d.valid]
        regrets = [d.regret for d in valid if d.regret is not None]
        self.last_metrics = {
            "iteration": iteration,
            "designed": len(designs),
            "valid": len(valid),
            "validity_rate": len(valid) / len(designs) if designs else None,
            "failed_checks": _count([d.failed_check for d in designs if d.failed_check]),
            "seed_suite_copies": sum(d.seed_suite_copy for d in valid),
            "regret_mean": _mean(regrets),
            "return_with_hint": _mean([d.win_rate_hint for d in valid if d.win_rate_hint is not None]),
            "return_without_hint": _mean([d.win_rate for d in valid if d.win_rate is not None]),
            "designer_reward_mean": _mean([d.reward for d in designs]),
            "agent_return_mean": _mean([r for _, r in agent["samples"]]),
            "agent_win_rate_suite": agent["suite_win_rate"],
            "pool_size": len(self.seed_entries) + len(self.suite.entries()),
            "registered": [d.env_id for d in valid],
            "tokens_designer": sum(len(s.completion_ids) for g in design_samples for s in g),
            "tokens_agent": agent["tokens"],
            **{k: round(v, 3) for k, v in timings.items()},
        }
        self._report(trainer, self.last_metrics)
        self.state.iteration = iteration
        self.state.rng_state = self.rng.getstate()
        self.rollout_finished = time.monotonic()
        self.log(f"iteration {iteration}: {len(valid)}/{len(designs)} designs valid, "
                 f"regret {self.last_metrics['regret_mean']}, agent return {self.last_metrics['agent_return_mean']}")
        return out

    # ------------------------------------------------------------------ phases

    def _design(self, policy: TokenPolicy, n_groups: int, iteration: int):
        config = self.config
        designs, samples, prompt_ids = [], [], []
        all_entries = self.seed_entries + self.suite.entries()
        for group in range(n_groups):
            skill, multi_turn = self.targets[self.state.skill_cursor % len(self.targets)]
            self.state.skill_cursor += 1
            if multi_turn is None:
                multi_turn = self.rng.random() < config.multi_turn_ratio
            if config.designer_prompt == "compact":
                messages = compact_design_messages(skill, multi_turn)
            else:
                memory = suite_memory(all_entries, skill, k=config.memory_k, rng=self.rng)
                messages = build_design_messages(skill, multi_turn=multi_turn, memory=memory, rng=self.rng)
            ids = policy.chat_ids(messages)
            group_samples = policy.sample([ids] * config.num_generations, max_new_tokens=config.max_program_tokens,
                                          temperature=config.designer_temperature,
                                          seed=config.seed * 1_000_003 + iteration * 101 + group)
            prompt_ids.append(ids)
            samples.append(group_samples)
            designs += [DesignResult(skill, multi_turn, policy.decode(s.completion_ids)) for s in group_samples]
        return designs, samples, prompt_ids

    def _validate_and_register(self, designs: list[DesignResult], iteration: int, model_name: str) -> None:
        from spade_gym.validation import ValidationConfig, validate_source
        from spade_gym.validation.fingerprint import nearest

        config = self.config
        vconfig = ValidationConfig(seeds=config.validation_seeds)
        parsed = []
        for design in designs:
            try:
                parsed.append(parse_designer_output(design.text))
            except DesignerOutputError:
                parsed.append(None)
                design.failed_check = "parse"

        def check(item):
            design, out = item
            if out is None:
                return None
            return validate_source(out.code, hint=out.hint, suite=self.suite, config=vconfig)

        with ThreadPoolExecutor(max_workers=4) as pool:
            reports = list(pool.map(check, zip(designs, parsed)))
        accepted_this_batch: dict[str, DesignResult] = {}
        for design, out, report in zip(designs, parsed, reports):
            if report is None:
                design.reward = designer_reward(False, config=config.reward)
                continue
            if report.valid and report.sha256 in accepted_this_batch:
                # validated in parallel, so the suite did not yet hold its twin
                design.duplicate_of = accepted_this_batch[report.sha256]
                design.failed_check = "duplicate in batch"
                continue
            if not report.valid:
                failed = [c.name for c in report.checks if not c.passed]
                design.failed_check = failed[0] if failed else "validation"
                design.reward = designer_reward(False, config=config.reward)
                continue
            match = nearest(out.code, self.seed_entries)
            design.seed_suite_copy = bool(match and (match.exact or match.similarity >= 0.95))
            details = report.details
            card = Card.from_report(
                report, skill=design.skill, hint=out.hint or None, kind=program_kind(out.code),
                description=describe_program(out.code, details.get("first_observation")),
                multi_turn=bool(details.get("multi_turn", design.multi_turn)),
                provenance={"designer": designer_label(model_name, "self-play"), "backend": "self-play",
                            "model": model_name, "preset": config.preset, "iteration": iteration,
                            "requested_multi_turn": design.multi_turn, "designer_prompt": config.designer_prompt},
            )
            entry = self.suite.add(out.code, card)
            accepted_this_batch[report.sha256] = design
            design.valid, design.env_id = True, entry.id
        register_suite(self.suite.path)

    def _play(self, policy: TokenPolicy, specs: list[EpisodeSpec], iteration: int, salt: int):
        agent = TokenAgent(policy, temperature=self.config.agent_temperature,
                           max_turn_tokens=self.config.max_turn_tokens,
                           max_episode_tokens=self.config.max_episode_tokens,
                           seed=self.config.seed * 7919 + iteration * 31 + salt)
        episodes = play_episodes(agent, specs, max_turns=self.config.max_turns, batch_size=32)
        self.env_seconds += sum(e.env_seconds for e in episodes)
        return episodes, agent

    def _measure_regret(self, policy: TokenPolicy, designs: list[DesignResult], iteration: int) -> None:
        valid = [d for d in designs if d.valid]
        K = self.config.paired_seeds
        if not valid:
            return
        specs = []
        for design in valid:
            seeds = [self.rng.randrange(1_000_000_000) for _ in range(K)]
            specs += [EpisodeSpec(design.env_id, s, hint=h) for s in seeds for h in (True, False)]
        episodes, _ = self._play(policy, specs, iteration, salt=1)
        by_env: dict[str, tuple[dict, dict]] = {}
        for episode in episodes:
            with_hint, without = by_env.setdefault(episode.spec.env_id, ({}, {}))
            outcome = episode_outcome(episode.rewards, episode.terminated)
            (with_hint if episode.spec.hint else without)[episode.spec.seed] = outcome
        for design in valid:
            with_hint, without = by_env[design.env_id]
            design.regret = paired_regret(with_hint, without)
            design.win_rate = _mean(list(without.values()))
            design.win_rate_hint = _mean(list(with_hint.values()))
            design.reward = designer_reward(True, regret=design.regret, win_rate=design.win_rate,
                                            config=self.config.reward)
            entry = self.suite.get(design.env_id)
            self.suite.update_card(entry, stats={"regret": design.regret, "win_rate": design.win_rate,
                                                 "win_rate_hint": design.win_rate_hint, "iteration": iteration,
                                                 "paired_seeds": K})
        for design in designs:
            if design.duplicate_of is not None:
                design.reward = design.duplicate_of.reward

    def _agent_groups(self, policy: TokenPolicy, n_groups: int, iteration: int) -> dict:
        if n_groups <= 0:
            return {"samples": [], "suite_win_rate": None, "tokens": 0}
        pool = [e.id for e in self.seed_entries] + [e.id for e in self.suite.entries()]
        if not pool:
            raise SpadeError("the environment pool is empty: no seed suite and no valid program yet")
        G = self.config.num_generations
        tasks = [(self.rng.choice(pool), self.rng.randrange(1_000_000_000)) for _ in range(n_groups)]
        specs = [EpisodeSpec(env_id, seed) for env_id, seed in tasks for _ in range(G)]
        episodes, agent = self._play(policy, specs, iteration, salt=2)
        samples, keys = [], []
        seed_ids = {e.id for e in self.seed_entries}
        suite_wins = []
        for index, episode in enumerate(episodes):
            reward = episode_outcome(episode.rewards, episode.terminated)
            trace = agent.traces.get(index)
            if trace is None:  # the env failed before the first turn: an empty, unrewarded sample
                from spade_gym.selfplay.policy import Trace

                trace = Trace(policy.chat_ids([{"role": "user", "content": episode.first_observation or "-"}]))
            samples.append((trace, reward))
            keys.append(group_key(episode.spec.env_id, episode.spec.seed))
            if episode.spec.env_id in seed_ids:
                suite_wins.append(1.0 if episode.won else 0.0)
        check_groups(keys, G)  # GRPO normalises by position: each group must be one (env, seed)
        return {"samples": samples, "suite_win_rate": _mean(suite_wins), "tokens": agent.tokens}

    @staticmethod
    def _report(trainer, metrics: dict) -> None:
        """Also send the numeric metrics through TRL's own logging (TensorBoard etc.)."""
        store = getattr(trainer, "_metrics", None)
        if not isinstance(store, dict) or "train" not in store:
            return
        for key, value in metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value is not None:
                store["train"][f"spade/{key}"].append(float(value))


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _count(items):
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out
