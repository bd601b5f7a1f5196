"""One self-play iteration's rollouts: the function TRL's ``GRPOTrainer`` calls.

TRL hands ``rollout_func`` this rank's batch of prompt slots — ``num_generations``
consecutive slots per GRPO group — and trains on whatever token sequences it returns.
The slots' dataset content is a placeholder: what each group *is* is decided here. The
iteration's sizes (``designer_groups``, ``agent_groups``) are global; this rank's share
(:mod:`~spade_gym.selfplay.batch`) gives its first groups to its design requests and the
rest to agent tasks, padding at the end:

1. **Design**: sample ``num_generations`` programs per designer prompt (through TRL's
   generation path, :mod:`spade_gym.selfplay.generation`); parse and validate them in
   parallel in the sandbox. Designs without a hint are rejected (hint regret would be
   noise), and so are copies of any registered program or of another design in the
   same batch (all ranks' designs together).
2. **Register**: one writer (the main process) registers the accepted programs into the
   run's suite; every rank then makes them ``gym.make``-able.
3. **Regret**: each rank plays its own valid designs ``paired_seeds`` times *with* and
   *without* the hint on the same seeds. The designer reward is paired regret (or the
   configured blend, whose win rate is the environment's over the last
   ``reward.win_rate_window`` iterations, settled after step 4); invalid programs get
   the fixed penalty (or are dropped: ``reward.invalid_designs``); ``reward.skill_centring``
   centres the rewards per skill into the designer's advantages (scaled with
   ``reward.scale_designer_rewards``). Only every ``design_every``-th iteration designs;
   in between, the designer's slots are padding unless delayed design samples are due.
   With ``reward.designer_reward_delay`` D, the designer's slots train the designs drawn
   D iterations earlier, scored now (:mod:`~spade_gym.selfplay.delayed`).
4. **Agent**: agent groups are first the no-hint regret plays (on-policy episodes of
   fresh environments, one group per design when ``paired_seeds == num_generations``),
   then (environment, seed) tasks drawn from the pool with a learning-potential weight
   (environments near 50% success first). An episode is one sample (environment tokens
   masked by ``env_mask``) or, with ``sample_unit="turn"``, one sample per turn with the
   earlier turns' reasoning stripped (:mod:`~spade_gym.selfplay.turns`).

Every random choice of an iteration comes from ``(seed, rank, iteration)``, so a resumed
run replays an interrupted iteration exactly.

The stages are objects of their own modules, built once per run with what they need and
handing their results on explicitly: :class:`~spade_gym.selfplay.designing.DesignStage`
(``Designs``), :class:`~spade_gym.selfplay.admission.AdmissionStage` (``Verdicts``),
:class:`~spade_gym.selfplay.playing.PlayStage` (``RegretPlays``, ``AgentGroups``, the settled
rewards) and :class:`~spade_gym.selfplay.delayed.DelayedDesignStage` (``DesignerRows``). What
carries over from one iteration to the next is the :class:`RunState` they share, which the
checkpoints save. This module runs them in order and turns their results into TRL's batch and
one metrics line.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path

from spade_gym.errors import SpadeError
from spade_gym.registry import Suite, SuiteEntry
from spade_gym.selfplay.admission import AdmissionStage
from spade_gym.selfplay.batch import batch_layout
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.delayed import DelayedDesignStage, DesignerRows
from spade_gym.selfplay.designers import make_designer
from spade_gym.selfplay.designing import DesignStage
from spade_gym.selfplay.distributed import Ranks
from spade_gym.selfplay.generation import make_generator
from spade_gym.selfplay.playing import PlayStage, mean_or_none
from spade_gym.selfplay.policy import TokenPolicy
from spade_gym.selfplay.records import DesignResult, RunState
from spade_gym.selfplay.rewards import designer_reward_scale
from spade_gym.selfplay.rows import TrainingRow, trl_batch

__all__ = ["DesignResult", "RunState", "SpadeRollout", "TrainingRow", "trl_batch"]


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
        #: Who designs (the trained policy or a served model), and the stage that asks it.
        self.designer = make_designer(config)
        self.design_stage = DesignStage(config, self.designer, suite=self.suite, seed_entries=seed_entries,
                                        ranks=self.ranks)
        self.admission_stage = AdmissionStage(config, self.designer, suite=self.suite,
                                              rejected_dir=self.rejected_dir, seed_entries=seed_entries,
                                              ranks=self.ranks)
        self.play_stage = PlayStage(config, suite=self.suite, seed_entries=seed_entries, state=state,
                                    ranks=self.ranks)
        self.delayed_stage = DelayedDesignStage(config, state=state, ranks=self.ranks)
        self.last_metrics: dict = {}
        self.last_designs: list[DesignResult] = []
        self.rollout_finished = 0.0
        #: The last iteration's no-hint regret plays on this rank, (environment, outcome).
        self.regret_plays: list[tuple[str, float]] = []

    # ------------------------------------------------------------------ TRL entry point

    def __call__(self, prompts: list, trainer) -> dict:
        config = self.config
        G = config.num_generations
        if len(prompts) % G:
            raise SpadeError(f"{len(prompts)} prompt slots do not split into groups of {G}")
        served = not self.designer.trains
        # The iteration's global sizes, this rank's share of them (selfplay/batch.py).
        share = batch_layout(config, self.ranks.world).share(self.ranks.rank)
        if len(prompts) != share.slot_groups * G:
            raise SpadeError(f"rank {self.ranks.rank} got {len(prompts)} prompt slots, but its share of the "
                             f"iteration is {share.slot_groups * G} ({share.slot_groups} groups of {G}): TRL's "
                             "per-device batch must be one iteration's share (the loop sets it)")
        iteration = self.state.iteration + 1
        # Design rounds only every design_every iterations; in between the agent plays the pool.
        n_design = share.design_groups if config.designs_at(iteration) else 0
        generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
        policy = TokenPolicy(generator, trainer.processing_class)
        model_name = self.designer.model_name(trainer)
        rng = random.Random(f"selfplay:{config.seed}:{self.ranks.rank}:{iteration}")
        timings = {}
        started = time.monotonic()
        self._start_iteration(iteration)
        # One generation session per iteration: one ZeRO-3 gather / one vLLM wake-up.
        with generator.session():
            with self.progress.phase(f"iteration {iteration}: designing", total=n_design * G) as phase:
                drawn = self.design_stage.run(policy, n_design, iteration, rng, phase, offset=share.design_offset)
            timings["design_s"] = time.monotonic() - started
            t = time.monotonic()
            with self.progress.phase(f"iteration {iteration}: validating", total=len(drawn.designs)) as phase:
                designs = self.admission_stage.run(drawn.designs, iteration, model_name, rng, phase).designs
            timings["validate_s"] = time.monotonic() - t
            t = time.monotonic()
            with self.progress.phase(f"iteration {iteration}: playing", total=None):
                regret = self.play_stage.measure_regret(policy, designs, iteration, rng,
                                                        capacity=share.regret_capacity)
                agent = self.play_stage.agent_groups(policy, share.agent_slot_groups, regret.groups, iteration, rng,
                                                     n_tasks=share.agent_tasks, n_pool=share.pool_tasks)
            self.play_stage.settle_designer_rewards(designs, iteration, regret.plays + agent.task_plays)
            timings["play_s"] = time.monotonic() - t
            timings["play_env_s"] = regret.env_seconds + agent.env_seconds

        designer = DesignerRows([], None) if served else \
            self.delayed_stage.run(drawn, iteration, slots=share.design_slot_groups * G)
        rows = designer.rows + agent.rows
        scale = self._scale_designer_advantages(rows) if config.reward.scale_designer_rewards else None
        out = trl_batch(rows, policy.tokenizer.pad_token_id)

        self.play_stage.remember_outcomes(agent.outcomes)
        valid = [d for d in designs if d.valid]
        regrets = [d.regret for d in valid if d.regret is not None]
        local = {
            "designed": len(designs),
            "valid": len(valid),
            "failed_checks": dict(Counter(d.failed_check for d in designs if d.failed_check)),
            "regrets": regrets,
            "returns_with_hint": [d.win_rate_hint for d in valid if d.win_rate_hint is not None],
            "returns_without_hint": [d.win_rate for d in valid if d.win_rate is not None],
            "designer_rewards": [d.reward for d in designs],
            "dropped_designs": sum(1 for d in designs if d.reward is None),
            "step_timeouts": sum(1 for d in designs if d.step_timeout),
            "trained_designer_rewards": [row.reward for row in rows if row.role == "designer" and row.trained],
            "designer_trained_from": designer.trained_from,
            "agent_returns": agent.returns,
            "suite_wins": agent.suite_wins,
            "registered": [d.env_id for d in valid],
            "trained_regret_groups": agent.regret_groups_used,
            "tokens_designer": sum(len(s.completion_ids) for g in drawn.samples for s in g),
            "tokens_agent": agent.tokens,
            "agent_samples": len(agent.rows),
            "agent_padding_samples": sum(1 for row in agent.rows if not row.completion_ids),
            "samples": len(rows),
            **timings,
        }
        self.last_metrics = _merge_rank_metrics(self.ranks.gather([local]), iteration,
                                                pool_size=len(self.seed_entries) + len(self.suite.entries()))
        self.last_metrics["design_round"] = config.designs_at(iteration)
        self.last_metrics["designer_reward_scale"] = scale
        self.last_designs = designs
        self.regret_plays = regret.plays
        self.state.iteration = iteration
        self.rollout_finished = time.monotonic()
        m = self.last_metrics
        self.progress.log(f"iteration {iteration}: {m['valid']}/{m['designed']} designs valid, "
                          f"regret {_fmt(m['regret_mean'])}, agent return {_fmt(m['agent_return_mean'])}")
        if config.sample_unit == "turn" and m["agent_samples"] and m["agent_padding_samples"] == m["agent_samples"]:
            self.progress.log(f"iteration {iteration}: every agent sample is padding: no turn's prompt fitted "
                              f"max_episode_tokens={config.max_episode_tokens} (per turn it bounds prompt plus reply)")
        return out


    def _scale_designer_advantages(self, rows: list[TrainingRow]) -> float:
        """``reward.scale_designer_rewards`` (collective): the centred designer advantages times the
        iteration's trained agent samples per trained design sample (all ranks) times
        ``design_every``, capped; returns the factor. The rows are changed in place."""
        config = self.config
        counts = {"agent": 0, "designer": 0}
        mine = [[role, sum(1 for row in rows if row.role == role and row.trained)] for role in counts]
        for role, n in self.ranks.gather(mine):
            counts[role] += n
        scale = designer_reward_scale(counts["agent"], counts["designer"], interval=config.design_every,
                                      cap=config.reward.max_designer_reward_scale)
        for i, row in enumerate(rows):
            if row.role == "designer" and row.advantage is not None:
                rows[i] = row.with_advantage(row.advantage * scale)
        return scale

    def _start_iteration(self, iteration: int) -> None:
        """The iteration's first collective: every rank waits for the main process, before any
        rank generates or reads a card.

        The main process arrives after two writes: TRL's weight push to the vLLM server
        (``sync_weights`` runs on the main process just before ``rollout_func``; the other
        ranks skip it, see :class:`~spade_gym.selfplay.generation.VLLMServerGenerator`) and
        the frontier cards (:meth:`PlayStage.refresh_frontier
        <spade_gym.selfplay.playing.PlayStage.refresh_frontier>`). Without this wait a non-main
        rank would send requests to a server still loading weights.
        """
        self.play_stage.refresh_frontier()
        self.ranks.barrier(what=f"the start of iteration {iteration} (the main process pushes the weights to the "
                                "vLLM server and refreshes the frontier cards)")


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
        "regret_mean": mean_or_none(cat("regrets")),
        "return_with_hint": mean_or_none(cat("returns_with_hint")),
        "return_without_hint": mean_or_none(cat("returns_without_hint")),
        "designer_reward_mean": mean_or_none(cat("designer_rewards")),
        # reward.invalid_designs="drop": designs whose samples left the designer's batch
        "dropped_designs": sum(p.get("dropped_designs", 0) for p in parts),
        # programs that overran a reset()/step() deadline in their regret plays
        "step_timeouts": sum(p.get("step_timeouts", 0) for p in parts),
        # The rewards the designer trained on this iteration (with reward.designer_reward_delay:
        # those of the designs drawn that many iterations earlier, scored now).
        "trained_designer_reward_mean": mean_or_none(cat("trained_designer_rewards")),
        "designer_trained_from": parts[0].get("designer_trained_from"),
        "agent_return_mean": mean_or_none(cat("agent_returns")),
        "agent_win_rate_suite": mean_or_none(cat("suite_wins")),
        "pool_size": pool_size,
        "registered": cat("registered"),
        "trained_regret_groups": sum(p["trained_regret_groups"] for p in parts),
        "tokens_designer": sum(p["tokens_designer"] for p in parts),
        "tokens_agent": sum(p["tokens_agent"] for p in parts),
        # Per-turn samples: slots of the agent's share, and how many of them are masked padding.
        "agent_samples": sum(p["agent_samples"] for p in parts),
        "agent_padding_samples": sum(p["agent_padding_samples"] for p in parts),
        # Samples of the optimizer step (all ranks, padding slots included).
        "samples": sum(p.get("samples", 0) for p in parts),
        # Ranks run in parallel: an iteration lasts as long as its slowest rank.
        **{k: round(max(p[k] for p in parts), 3) for k in ("design_s", "validate_s", "play_s", "play_env_s")},
    }


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3g}"
