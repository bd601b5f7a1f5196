"""The generation pipeline: prompt -> completion -> parse -> validate -> repair -> register.

One :class:`GenerationPipeline` run turns ``n`` *targets* (a skill, single- or
multi-turn; games or tool-use environments, as ``kind`` says) into environments. Each
target gets up to ``attempts`` completions: the first from the design prompt, every later
one from a repair prompt carrying the previous completion and the validator's summary of what was wrong. An accepted
program is registered into the suite at once (atomically, with a card recording its
provenance), so it is ``gym.make``-able while the run goes on; a rejected one is
kept, with its report, under ``rejected/`` next to the suite and never registered.
Each completion goes through the one admission path (:mod:`spade_gym.registry.admission`,
rules ``GENERATE``: a design needs a hint, like self-play's).
Every request and result is appended to a JSONL log, which the ``replay`` backend
can feed back to reproduce the run.
"""

from __future__ import annotations

import datetime as _dt
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from spade_gym.contract import GAME_KIND, TOOL_USE_BASE_CLASS, TOOL_USE_KIND
from spade_gym.errors import SpadeError
from spade_gym.executor.base import Executor, ExecutorError
from spade_gym.executor.validation import MACHINE_CHECK
from spade_gym.generate.backends import DesignerBackend, EndpointUnreachable, ReplayBackend
from spade_gym.generate.designer_output import parse_designer_output
from spade_gym.generate.prompts import (
    PROMPT_VERSIONS,
    DesignMemory,
    GroundingCorpus,
    MemoryEntry,
    build_design_messages,
    build_repair_messages,
    skill_by_name,
)

# Targets and settings are planned in their own module; re-exported here, where callers
# of the pipeline look for them.
from spade_gym.generate.targets import GenerateConfig, Target, plan_targets, replay_targets  # noqa: F401
from spade_gym.generate.units import (
    AttemptSteps,
    GenerateJournal,
    design_key,
    journaled_targets,
    run_header,
    target_key,
)
from spade_gym.registry import Suite, SuiteEntry, designer_label
from spade_gym.registry.admission import (
    GENERATE,
    Admission,
    AdmissionSteps,
    Admitted,
    Form,
    Gate,
    Rejected,
    Submission,
)
from spade_gym.registry.card import describe


@dataclass
class TargetResult:
    target: Target
    accepted: bool = False
    env_id: str | None = None
    attempts: int = 0
    #: Check names (or "parse", "backend") that failed, one per failed attempt.
    failures: list[str] = field(default_factory=list)
    last_summary: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    rejected_files: list[str] = field(default_factory=list)


@dataclass
class GenerateSummary:
    results: list[TargetResult]
    seconds: float
    interrupted: bool = False

    @property
    def accepted(self) -> list[TargetResult]:
        return [r for r in self.results if r.accepted]

    @property
    def rejected(self) -> list[TargetResult]:
        return [r for r in self.results if not r.accepted]

    def failure_counts(self) -> Counter:
        return Counter(name for r in self.results for name in r.failures)

    def tokens(self) -> tuple[int, int]:
        return (sum(r.prompt_tokens for r in self.results), sum(r.completion_tokens for r in self.results))

    def to_dict(self) -> dict:
        prompt_tokens, completion_tokens = self.tokens()
        return {
            "accepted": [r.env_id for r in self.accepted],
            "n_accepted": len(self.accepted),
            "n_rejected": len(self.rejected),
            "failures_by_check": dict(self.failure_counts()),
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "seconds": round(self.seconds, 3),
            "interrupted": self.interrupted,
            "targets": [
                {**asdict(r.target), "accepted": r.accepted, "env_id": r.env_id, "attempts": r.attempts,
                 "failures": r.failures, "seconds": round(r.seconds, 3)}
                for r in self.results
            ],
        }


def suite_memory(entries: list[SuiteEntry], skill: str, *, k: int, rng: random.Random) -> DesignMemory | None:
    """The designer's memory from a suite: cards carry the win rates and regret that
    self-play recorded; entries without stats only serve when nothing better exists."""
    if k <= 0:
        return None
    candidates = []
    for entry in entries:
        stats = entry.card.stats or {}
        try:
            source = entry.read_source()
        except SpadeError:
            continue
        candidates.append(MemoryEntry(entry.card.name, entry.card.skill, source,
                                      stats.get("win_rate"), stats.get("regret")))
    if not candidates:
        return None
    memory = DesignMemory.select(candidates, skill, k=k, rng=rng)
    return memory if memory else None


def describe_program(source: str, first_observation: str | None = None) -> str:
    """A card description of a program not validated yet (the one description function,
    :func:`~spade_gym.registry.card.describe`, reading the docstrings from the source)."""
    from spade_gym.validation.report import ProgramFacts  # the validation package loads on use

    return describe(ProgramFacts(first_observation=first_observation), source=source)


def admission_steps() -> AdmissionSteps:
    """What admission takes from the layers above the registry: the sandboxed validator, the
    novelty check, the registered suites and the designer-output parser. Each is looked up when
    called, so a wrapper put in place later (a benchmark's timer, a test's stand-in) is used."""
    import spade_gym.validation as validation
    from spade_gym.validation import novelty

    return AdmissionSteps(validate=lambda *args, **kwargs: validation.validate_source(*args, **kwargs),
                          novelty=lambda *args, **kwargs: novelty.check_novelty(*args, **kwargs),
                          registered_suites=lambda: novelty.registered_suites(), config=validation.DEFAULT_CONFIG,
                          parse=parse_designer_output)


class GenerationPipeline:
    """Runs the targets of one ``spade-gym generate`` call (see the module docstring).

    ``executor`` (:mod:`spade_gym.executor`) runs each validation as a unit (a backend that is an
    :class:`~spade_gym.generate.units.ExecutorBackend`, or a pool of them, sends its design requests
    there too); without one, both run in this process as they always have. ``output`` journals the
    run there (:class:`~spade_gym.generate.units.GenerateJournal`): every design, report and target
    result is written before it is counted, and ``resume`` continues the run journaled there.
    """

    def __init__(self, backend: DesignerBackend, suite: Suite | str | Path, config: GenerateConfig, *,
                 log_path: str | Path | None = None, corpus: GroundingCorpus | None = None,
                 validation_config=None, progress: Callable[[TargetResult], None] | None = None,
                 executor: Executor | None = None, output: str | Path | None = None, resume: bool = False):
        if resume and output is None:
            raise ExecutorError("--resume needs the output folder of the run to continue")
        self.backend = backend
        self.suite = suite if isinstance(suite, Suite) else Suite(suite)
        self.config = config
        self.corpus = corpus
        self.validation_config = validation_config
        self.progress = progress
        self.log_path = Path(log_path) if log_path else None
        self.rejected_dir = self.suite.path.parent / "rejected"
        self.admission = Admission(self.suite, GENERATE, admission_steps(), config=validation_config,
                                   rejected_dir=self.rejected_dir)
        self._log_lock = threading.Lock()
        self._stop = threading.Event()
        self.executor = executor
        self.output = Path(output) if output is not None else None
        self.resume = resume
        self.journal: GenerateJournal | None = None
        self.steps = AttemptSteps(self.admission, executor, None)
        origin_model, origin_backend = getattr(backend, "origin", (None, None))
        #: Who designed what this run registers: named on every card and in the log.
        self.designer_model = config.designer or origin_model or backend.model
        self.designer_backend = origin_backend or backend.name

    # ------------------------------------------------------------------ running

    def run(self) -> GenerateSummary:
        targets = plan_targets(self.config)
        self.suite.path.mkdir(parents=True, exist_ok=True)
        if self.output is not None:
            self.journal = GenerateJournal(self.output, run_header(self.config, self.suite.path,
                                                                   self.admission.config.seed), resume=self.resume)
        self.steps = AttemptSteps(self.admission, self.executor, self.journal)
        try:
            return self._run(targets)
        finally:
            if self.journal is not None:
                self.journal.close()

    def _run(self, targets: list[Target]) -> GenerateSummary:
        self._log({"event": "run", "time": _now(), "settings": self.config.request_settings(),
                   "targets": [asdict(t) for t in targets], "prompt_version": PROMPT_VERSIONS[self.config.kind],
                   "designer": {"model": self.designer_model, "backend": self.designer_backend},
                   **({"resumed": str(self.journal.path)} if self.resume and self.journal is not None else {})})
        start = time.monotonic()
        results: list[TargetResult] = []
        finished = journaled_targets(self.journal, [t.index for t in targets]) if self.journal is not None else {}
        for target in targets:  # what the journal holds counts at once, and is never redone
            if target.index in finished:
                result = _result_from_dict(finished[target.index])
                results.append(result)
                self.steps.reused["targets"] += 1
                if self.progress is not None:
                    self.progress(result)
        targets = [t for t in targets if t.index not in finished]
        interrupted = False
        executor = ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="spade-generate")
        futures = [executor.submit(self._run_target, t) for t in targets]
        try:
            for future in futures:
                results.append(future.result())
        except EndpointUnreachable:
            # The designer's server is gone: every further request would fail the same
            # way, so stop the run (accepted environments stay) and say so.
            self._stop.set()
            for future in futures:
                future.cancel()
            executor.shutdown(wait=True, cancel_futures=True)
            raise
        except KeyboardInterrupt:
            # Ctrl-C: start nothing new; targets in flight finish their current call and
            # stop before any further attempt. Registrations are atomic, so everything
            # accepted so far stays, and nothing is half-written.
            interrupted = True
            self._stop.set()
            for future in futures:
                future.cancel()
            results += [f.result() for f in futures if f.done() and not f.cancelled() and f.exception() is None]
        finally:
            executor.shutdown(wait=not interrupted, cancel_futures=True)
        return GenerateSummary(sorted(results, key=lambda r: r.target.index), time.monotonic() - start, interrupted)

    def stop(self) -> None:
        self._stop.set()

    def _run_target(self, target: Target) -> TargetResult:
        result = TargetResult(target)
        kind = skill_by_name(target.skill).kind
        started = time.monotonic()
        rng = random.Random(f"design:{self.config.seed}:{target.index}")
        grounding = self.corpus.sample(rng) if self.corpus else None
        memory = self._memory(target.skill, rng)
        messages = build_design_messages(target.skill, multi_turn=target.multi_turn,
                                         difficulty=self.config.difficulty, grounding=grounding,
                                         memory=memory, rng=rng)
        unfinished = False  # stopped, or a unit lost to the machine: a resume redoes the target
        for attempt in range(1, self.config.attempts + 1):
            if self._stop.is_set():
                unfinished = True
                break
            result.attempts = attempt
            record = {"event": "attempt", "time": _now(), "target": asdict(target), "attempt": attempt,
                      "backend": self.backend.name, "model": self.backend.model,
                      "prompt_version": PROMPT_VERSIONS[kind], "kind": kind, "messages": messages}
            request_seed = self.config.seed * 100_000 + target.index * 100 + attempt
            record["request_seed"] = request_seed
            journaled = self.steps.journaled(design_key(target.index, attempt)) is not None
            try:
                completion = self.steps.complete(self.backend, target.index, attempt, messages,
                                                 temperature=self.config.temperature,
                                                 max_tokens=self.config.max_tokens, seed=request_seed)
            except EndpointUnreachable:
                raise
            except SpadeError as exc:
                result.failures.append("backend")
                result.last_summary = f"backend error: {exc}"
                self._log({**record, "error": str(exc)})
                break
            # A pool of endpoints says which model wrote this completion; the card and the
            # log name that one (unless --designer names the designer outright).
            designer_model = self.config.designer or completion.model or self.designer_model
            if completion.model is not None:
                # "designed_by" marks a per-request designer, so a replay names it on the card too.
                record["model"] = record["designed_by"] = completion.model
            result.prompt_tokens += completion.prompt_tokens
            result.completion_tokens += completion.completion_tokens
            record.update(completion=completion.text, usage={"prompt_tokens": completion.prompt_tokens,
                                                             "completion_tokens": completion.completion_tokens})
            if journaled:
                record["resumed"] = True  # this completion came from the journal, not from the designer
            outcome = self.admission.admit_many([self._submission(completion.text, target, kind, attempt,
                                                                  designer_model)],
                                                validator=self.steps.validator(target.index, attempt))[0]
            if isinstance(outcome, Rejected) and outcome.check == MACHINE_CHECK:
                # the machine lost the validation, the program is not to blame: no repair asked for it,
                # and the target stays unjournaled, so a resume redoes it
                unfinished = True
                result.failures.append(outcome.check)
                result.last_summary = outcome.summary
                self._log({**record, "accepted": False, "machine_failure": True})
                break
            if outcome.report is not None:
                record["report"] = outcome.report.to_dict()
            if isinstance(outcome, Admitted):
                result.accepted, result.env_id = True, outcome.entry.id
                self._log({**record, "accepted": True, "env_id": outcome.entry.id})
                break
            result.failures.append(outcome.check)
            if outcome.gate is Gate.PARSE:
                feedback = f"Your reply could not be used: {outcome.reason}. Reply with one ```python block and " \
                           "<hint>...</hint>."
                result.last_summary = outcome.reason
                self._log({**record, "accepted": False, "parse_error": outcome.reason})
            elif outcome.gate is Gate.KIND:
                feedback = result.last_summary = _KIND_FEEDBACK[kind]
                self._log({**record, "accepted": False, "kind_error": feedback})
            else:
                feedback = result.last_summary = outcome.summary
                result.rejected_files.extend(outcome.kept[:1])
                self._log({**record, "accepted": False})
            messages = build_repair_messages(messages, completion.text, feedback, kind=kind)
        result.seconds = time.monotonic() - started
        if self.journal is not None and not unfinished:
            self.journal.put(target_key(target.index), {"target_result": asdict(result)})
        if self.progress is not None:
            self.progress(result)
        return result

    # ------------------------------------------------------------------ pieces

    def _memory(self, skill: str, rng: random.Random) -> DesignMemory | None:
        return suite_memory(self.suite.entries(), skill, k=self.config.memory_k, rng=rng)

    def _submission(self, text: str, target: Target, kind: str, attempt: int,
                    designer_model: str | None = None) -> Submission:
        """One completion for ``target``, with the provenance its card will carry."""
        model = designer_model or self.designer_model
        provenance = {
            "designer": designer_label(model, self.designer_backend),
            "backend": self.designer_backend,
            "model": model,
            "prompt_version": PROMPT_VERSIONS[kind],
            "requested_skill": target.skill,
            "requested_multi_turn": target.multi_turn,
            "attempts": attempt,
            "seed": self.config.seed,
            "created": _now(),
        }
        if isinstance(self.backend, ReplayBackend):
            provenance["replayed_from"] = self.backend.path.name
        return Submission(text, Form.DESIGNER_OUTPUT, skill=target.skill, provenance=provenance,
                          multi_turn=target.multi_turn, kind=kind, label=f"t{target.index:04d}_a{attempt}",
                          record={"skill": target.skill})

    def _log(self, record: dict) -> None:
        if self.log_path is None:
            return
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._log_lock:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()


#: The repair request when a design is of the wrong kind.
_KIND_FEEDBACK = {
    TOOL_USE_KIND: (f"A tool-use environment was requested, but the program's environment class does not "
                    f"subclass {TOOL_USE_BASE_CLASS}. Write `class SomethingEnv({TOOL_USE_BASE_CLASS}):` (no import: "
                    f"the base class is already defined), with reset(), tool_<name>() methods and solution()."),
    GAME_KIND: (f"A game was requested, but the program subclasses {TOOL_USE_BASE_CLASS}. Write a game class "
                f"with its own step() that reads \\boxed{{...}} answers."),
}


def _result_from_dict(data: dict) -> TargetResult:
    data = dict(data)
    return TargetResult(Target(**data.pop("target")), **data)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
