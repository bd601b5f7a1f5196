"""Admission stage of a self-play iteration: the designs go through the one admission path
(:mod:`spade_gym.registry.admission`, rules ``SELFPLAY``): parsed, validated in parallel in the
sandbox, judged (a hint, novel against every registered suite), kept when rejected; the accepted
ones are registered by one writer for all ranks, copies within the batch sharing one reward."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from spade_gym.generate.pipeline import admission_steps
from spade_gym.registry import Suite, SuiteEntry, designer_label, register_suite
from spade_gym.registry.admission import SELFPLAY, Admission, Candidate, Form, Prepared, Rejected, Submission
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.designers import Designer
from spade_gym.selfplay.distributed import Ranks
from spade_gym.selfplay.records import DesignResult
from spade_gym.selfplay.rewards import designer_reward


@dataclass
class Verdicts:
    """This rank's designs after admission, in their order. Each record carries its verdict:
    ``valid`` with its ``env_id``, or ``failed_check``/``failure`` and the invalid reward, or
    ``duplicate_of`` (its reward is settled with the original's, after the plays)."""

    designs: list[DesignResult]
    #: The ids this rank's designs registered, in design order.
    registered: list[str]


class AdmissionStage:
    def __init__(self, config: SelfPlayConfig, designer: Designer, *, suite: Suite, rejected_dir: Path,
                 seed_entries: list[SuiteEntry], ranks: Ranks):
        self.config = config
        self.designer = designer
        self.suite = suite
        self.rejected_dir = rejected_dir
        self.seed_entries = seed_entries
        self.ranks = ranks

    def _admission(self, rng: random.Random) -> Admission:
        """This iteration's admission: the run's cheaper validation preset, with probe seeds drawn
        afresh from the iteration's RNG (a designer must not learn the validator's seeds; a
        resumed run replays the same verdicts)."""
        from spade_gym.validation import ValidationConfig

        config = self.config
        probes = ValidationConfig(seed=rng.randrange(2**31), fuzz_seed=rng.randrange(1_000_000))
        rules = SELFPLAY.replace(require_hint=config.require_hint,
                                  validation={"seeds": config.validation_seeds,
                                              "novelty_threshold": config.novelty_threshold})
        seed_suites = [Suite(self.seed_entries[0].directory.parent)] if self.seed_entries else []
        return Admission(self.suite, rules, admission_steps(), config=probes, rejected_dir=self.rejected_dir,
                         keep_cap=config.keep_rejected, novelty_suites=seed_suites)

    def run(self, designs: list[DesignResult], iteration: int, model_name: str, rng: random.Random,
            phase) -> Verdicts:
        """Admit this rank's designs (collective: every rank, designs or not); ``model_name`` is
        the designer's, for the cards' provenance."""
        config = self.config
        admission = self._admission(rng)
        backend = self.designer.label

        def provenance(design: DesignResult) -> dict:
            # the designer model and the backend, nothing else
            return {"designer": designer_label(model_name, backend), "backend": backend, "model": model_name,
                    "preset": config.preset, "iteration": iteration, "requested_multi_turn": design.multi_turn,
                    "designer_prompt": config.designer_prompt}

        staged = [admission.prepare(Submission(
            design.text, Form.DESIGNER_OUTPUT, skill=design.skill, multi_turn=design.multi_turn,
            provenance=provenance(design),
            label=f"iter{iteration:04d}-rank{design.rank}-{design.index:03d}",
            record={"skill": design.skill, "iteration": iteration})) for design in designs]
        todo = [item for item in staged if isinstance(item, Prepared)]
        reports = admission.validate_all(todo, workers=4, on_done=lambda *_: phase.advance(1))
        judged = iter([admission.judge(item, report) for item, report in zip(todo, reports)])
        candidates, rejections = [], []
        for design, item in zip(designs, staged):
            outcome = next(judged) if isinstance(item, Prepared) else item
            if isinstance(outcome, Rejected):
                design.failed_check, design.failure = outcome.check, outcome.reason
                rejections.append(outcome)
            elif isinstance(outcome, Candidate):
                candidates.append({"rank": design.rank, "index": design.index, **outcome.to_dict()})
        admission.keep(rejections)
        decisions = self._register(admission, candidates)
        registered = set(register_suite(self.suite.path))
        by_key = {(d.rank, d.index): d for d in designs}
        for decision in decisions:
            mine = by_key.get((decision["rank"], decision["index"]))
            if mine is None:
                continue  # another rank's design
            if decision.get("env_id") and decision["env_id"] not in registered:
                # Another suite owns the name (an id means one program): gym.make of this id
                # would run that suite's program, so the plays would measure the wrong game.
                mine.failed_check = "name"
                mine.failure = (f"{decision['env_id']}: another registered suite already owns this name; "
                                "name the environment class differently")
            elif decision.get("env_id"):
                mine.valid, mine.env_id = True, decision["env_id"]
            elif decision.get("rejected"):
                mine.failed_check, mine.failure = decision["rejected"]
            else:
                mine.duplicate_of = tuple(decision["duplicate_of"])
                mine.failed_check = "duplicate in batch"
        for design in designs:
            if not design.valid and design.duplicate_of is None:
                design.reward = designer_reward(False, config=config.reward)
        return Verdicts(designs, registered=[str(d.env_id) for d in designs if d.valid])

    def _register(self, admission: Admission, candidates: list[dict]) -> list[dict]:
        """All ranks' accepted designs -> one decision each; the main process decides and writes.

        Candidates are taken in (rank, index) order; one that is a copy of an earlier one
        (code or behaviour, the validator's novelty check against the batch) is not
        registered and shares that one's reward. The decisions are broadcast to every rank.
        """
        everything = sorted(self.ranks.gather(candidates), key=lambda c: (c["rank"], c["index"]))
        decisions: list[dict] = []
        if self.ranks.is_main:
            kept: dict[str, dict] = {}
            for candidate in everything:
                key = f"{candidate['rank']}:{candidate['index']}"
                verdict = admission.steps.novelty(candidate["code"], suites=[],
                                                  batch={k: c["code"] for k, c in kept.items()},
                                                  code_threshold=self.config.novelty_threshold)
                decision = {"rank": candidate["rank"], "index": candidate["index"]}
                if not verdict.novel and verdict.nearest is not None:
                    twin = kept[verdict.nearest.env_id.removeprefix("batch:")]
                    decision["duplicate_of"] = [twin["rank"], twin["index"]]
                    decisions.append(decision)
                    continue
                kept[key] = candidate
                outcome = admission.register(Candidate.from_dict(candidate))
                if isinstance(outcome, Rejected):
                    decision["rejected"] = [outcome.check, outcome.reason]
                else:
                    decision["env_id"] = outcome.entry.id
                decisions.append(decision)
        return self.ranks.broadcast(decisions)
