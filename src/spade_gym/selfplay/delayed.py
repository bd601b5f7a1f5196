"""The designer's share of an iteration's batch, with delayed rewards (``reward.designer_reward_delay``).

With a delay of D iterations (the SPADE reference's proposer training delay), the
design samples drawn at iteration i are kept — prompt and completion ids, their
sampling-time log-probabilities, the skill, the environment whose plays score them —
and trained at iteration i + D, where they take the designer's slots in place of the
designs drawn then. Their reward is computed at that time: the paired regret measured
at design time (the reference's matched-timing regret) and, in the paper blend, the win
rate over the agent's no-hint plays of that environment from iteration i to i + D (all
ranks: the design's own regret plays and every agent task since). Per-skill centring
then runs over the designs trained together. The policy has moved D updates since the
samples were drawn; their sampling-time log-probabilities go to TRL and the rows are
marked stale, so they are importance-corrected per token, truncated (the reference's
truncated importance sampling): by TRL on its vLLM path, by
:class:`~spade_gym.selfplay.trainer.SpadeGRPOTrainer` elsewhere.

The designer's slot count stays fixed and G-aligned: a rank trains exactly the samples
it drew D iterations earlier, in their original group order (G samples of one prompt
per group). During the first D iterations nothing is due yet: the designer's slots hold
the iteration's own designs with no loss, as ``designer_training_delay`` does.

Each rank keeps its own samples (token ids and log-probabilities) and checkpoints them
in ``spade_samples-rank<N>.json``; what scores a design (iteration, rank, skill,
environment, regret) is gathered, so every rank can centre over all ranks' designs, and
the main process writes it into ``spade_state.json``, after every rank's samples file
(see :mod:`~spade_gym.selfplay.callback`). A resumed run trains the same samples on the
same rewards.
"""

from __future__ import annotations

from dataclasses import dataclass

from spade_gym.errors import SpadeError
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.designing import Designs
from spade_gym.selfplay.distributed import Ranks
from spade_gym.selfplay.records import DesignResult, RunState
from spade_gym.selfplay.rewards import centre_per_skill, designer_reward, invalid_reward, window_win_rate
from spade_gym.selfplay.rows import TrainingRow


@dataclass
class DesignerRows:
    """The designer's share of an iteration's batch (:meth:`DelayedDesignStage.run`)."""

    #: Its training rows, one per designer slot, padding included.
    rows: list[TrainingRow]
    #: The iteration whose designs they train; None: no designer loss this iteration.
    trained_from: int | None


class DelayedDesignStage:
    def __init__(self, config: SelfPlayConfig, *, state: RunState, ranks: Ranks):
        self.config = config
        #: The run's state: designs waiting for their reward (``pending_designs``, every rank's) and
        #: this rank's samples of them (``pending_samples``), checkpointed and restored on resume.
        self.state = state
        self.ranks = ranks

    def run(self, drawn: Designs, iteration: int, *, slots: int | None = None) -> DesignerRows:
        """The designer's training rows of this iteration from its designs (their rewards
        settled), collective with a delay: every rank.

        ``slots``: this rank's designer slots (default: its designs of this iteration). In an
        iteration that designs nothing (``design_every``) they are padding, unless delayed
        design samples are due. Dropped designs (``reward.invalid_designs="drop"``) keep their
        slot with no loss and a None reward.
        """
        config = self.config
        G = config.num_generations
        train_designer = iteration > config.designer_training_delay
        delay = config.reward.designer_reward_delay
        designs = drawn.designs
        current = [(drawn.prompt_ids[group], sample, design)
                   for group, samples in enumerate(drawn.samples)
                   for design, sample in zip(designs[group * G:(group + 1) * G], samples)]
        slots = len(current) if slots is None else slots
        padding = [TrainingRow.padding("designer")] * max(0, slots - len(current))
        if delay == 0:
            # Before the designer's training starts (designer_training_delay), designs are
            # still sampled and scored but carry no loss.
            rows = []
            for prompt, s, d in current:
                loss = train_designer and not self._dropped(d)
                rows.append(TrainingRow(prompt, s.completion_ids, s.logprobs,
                                        [1 if loss else 0] * len(s.completion_ids),
                                        None if self._dropped(d) else d.reward, "designer", d.advantage))
            return DesignerRows(rows + padding, iteration if train_designer and current else None)
        self._keep_designs(current, designs, iteration)
        due_iteration = iteration - delay
        state = self.state
        due = [p for p in state.pending_designs if p["iteration"] == due_iteration]
        samples = [p for p in state.pending_samples if p["iteration"] == due_iteration]
        state.pending_designs = [p for p in state.pending_designs if p["iteration"] > due_iteration]
        state.pending_samples = [p for p in state.pending_samples if p["iteration"] > due_iteration]
        mine = self._score_delayed(due)
        if not due:
            # Nothing drawn D iterations ago: the slots hold this iteration's designs (if any), no loss.
            return DesignerRows([TrainingRow(prompt, s.completion_ids, s.logprobs, [0] * len(s.completion_ids),
                                             d.reward, "designer") for prompt, s, d in current] + padding, None)
        if not len(mine) == len(samples) == slots:
            raise SpadeError(f"rank {self.ranks.rank} holds {len(samples)} design samples of iteration "
                             f"{due_iteration} for {len(mine)} pending designs, and the designer has {slots} slots "
                             "(designer_groups, num_generations or the number of ranks changed during the run?)")
        return DesignerRows([TrainingRow(sample["prompt_ids"], sample["completion_ids"], sample["logprobs"],
                                         [1 if train_designer and reward is not None else 0]
                                         * len(sample["completion_ids"]), reward, "designer", advantage, stale=True)
                             for sample, (_, reward, advantage) in zip(samples, mine)],
                            due_iteration if train_designer else None)

    def _dropped(self, design: DesignResult) -> bool:
        """An invalid design under ``reward.invalid_designs="drop"``: its samples carry no loss."""
        return self.config.reward.invalid_designs == "drop" and \
            (design.reward is None or (not design.valid and design.duplicate_of is None))

    def _keep_designs(self, current: list, designs: list[DesignResult], iteration: int) -> None:
        """Keep this iteration's design samples (this rank's) and what scores them (every rank's).

        A design is scored later by the plays of its environment: its own, or for a copy of
        another design of the batch, the original's (on whichever rank that was played).
        """
        originals = {}
        for key, env_id, regret, win_rate, hung in self.ranks.gather(
                [[[d.rank, d.index], d.env_id, d.regret, d.win_rate, d.step_timeout] for d in designs if d.valid]):
            originals[tuple(key)] = (env_id, regret, win_rate, hung)
        scoring = []
        for prompt, sample, design in current:
            source = (design.rank, design.index) if design.valid else \
                tuple(design.duplicate_of) if design.duplicate_of is not None else None
            env_id, regret, win_rate, hung = originals.get(source, (None, None, None, False)) \
                if source is not None else (None, None, None, False)
            scoring.append({"iteration": iteration, "rank": self.ranks.rank, "skill": design.skill,
                            "env_id": env_id, "regret": regret, "win_rate_at_design": win_rate,
                            "step_timeout": bool(hung)})
            self.state.pending_samples.append({"iteration": iteration, "prompt_ids": list(prompt),
                                               "completion_ids": list(sample.completion_ids),
                                               "logprobs": list(sample.logprobs)})
        self.state.pending_designs += self.ranks.gather(scoring)

    def _score_delayed(self, due: list[dict]) -> list[tuple[dict, float | None, float | None]]:
        """This rank's due samples with their reward (and per-skill centred advantage), scored now.

        ``due`` holds every rank's designs, so the per-skill means are those of all ranks
        (no collective needed: every rank holds the same list and the same plays).
        """
        config = self.config.reward
        rewards: list[float | None] = []
        for p in due:
            if p["env_id"] is None:
                rewards.append(invalid_reward(config))  # None: dropped (reward.invalid_designs="drop")
                continue
            # The plays from its own iteration on: its paired no-hint plays and the agent's since.
            win_rate = window_win_rate(self.state.plays, p["env_id"], since=p["iteration"])
            if win_rate is None:
                win_rate = p["win_rate_at_design"]
            rewards.append(designer_reward(True, regret=p["regret"], win_rate=win_rate, config=config,
                                           step_timeout=bool(p.get("step_timeout"))))
        advantages: list[float | None] = [None] * len(due)
        if config.skill_centring:
            advantages = list(centre_per_skill([(p["skill"], r) for p, r in zip(due, rewards)]))
        return [(p, r, a) for p, r, a in zip(due, rewards, advantages) if p["rank"] == self.ranks.rank]
