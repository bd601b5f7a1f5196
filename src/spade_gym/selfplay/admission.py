"""Admission stage of a self-play iteration: parse, validate (in parallel, in the sandbox), require a
hint, reject copies, and register the accepted programs with one writer for all ranks."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor

from spade_gym.contract import program_kind
from spade_gym.errors import DesignerOutputError
from spade_gym.generate.designer_output import parse_designer_output
from spade_gym.generate.pipeline import describe_program
from spade_gym.registry import Card, Suite, designer_label, register_suite
from spade_gym.selfplay.records import DesignResult, RolloutStage
from spade_gym.selfplay.rewards import designer_reward


class AdmissionStage(RolloutStage):
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
        registered = set(register_suite(self.suite.path))
        by_key = {(d.rank, d.index): d for d in designs}
        for decision in decisions:
            mine = by_key.get((decision["rank"], decision["index"]))
            if mine is None:
                continue  # another rank's design
            design = mine
            if decision.get("env_id") and decision["env_id"] not in registered:
                # Another suite owns the name (an id means one program): gym.make of this id
                # would run that suite's program, so the plays would measure the wrong game.
                design.failed_check = "name"
                design.failure = (f"{decision['env_id']}: another registered suite already owns this name; "
                                  "name the environment class differently")
            elif decision.get("env_id"):
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
        for design, _out, report in rejected[:max(0, room)]:
            stem = f"iter{iteration:04d}-rank{design.rank}-{design.index:03d}"
            (self.rejected_dir / f"{stem}.txt").write_text(design.text, encoding="utf-8")
            record = report.to_dict() if report is not None else {}
            record.update({"failed_check": design.failed_check, "failure": design.failure, "skill": design.skill,
                           "iteration": iteration})
            (self.rejected_dir / f"{stem}.report.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
