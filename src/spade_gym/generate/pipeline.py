"""The generation pipeline: prompt -> completion -> parse -> validate -> repair -> register.

One :class:`GenerationPipeline` run turns ``n`` *targets* (a skill, single- or
multi-turn; games or tool-use environments, as ``kind`` says) into environments. Each
target gets up to ``attempts`` completions: the first from the design prompt, every later
one from a repair prompt carrying the previous completion and the validator's summary of what was wrong. An accepted
program is registered into the suite at once (atomically, with a card recording its
provenance), so it is ``gym.make``-able while the run goes on; a rejected one is
kept, with its report, under ``rejected/`` next to the suite and never registered.
Every request and result is appended to a JSONL log, which the ``replay`` backend
can feed back to reproduce the run.
"""

from __future__ import annotations

import ast
import datetime as _dt
import json
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from spade_gym.contract import GAME_KIND, TOOL_USE_BASE_CLASS, TOOL_USE_KIND, program_kind
from spade_gym.errors import DesignerOutputError, SpadeError
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
from spade_gym.registry import Card, Suite, SuiteEntry, designer_label


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
    """A card description: the module docstring, else the env class's, else the first
    sentence of the first observation."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = None
    texts = []
    if tree is not None:
        texts.append(ast.get_docstring(tree))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name.endswith("Env"):
                texts.append(ast.get_docstring(node))
    for text in texts:
        if text and text.strip():
            return " ".join(text.split())[:500]
    if first_observation:
        sentence = re.split(r"(?<=[.!?])\s", first_observation.strip(), maxsplit=1)[0]
        return " ".join(sentence.split())[:300]
    return "Generated environment."


class GenerationPipeline:
    """Runs the targets of one ``spade-gym generate`` call (see the module docstring)."""

    def __init__(self, backend: DesignerBackend, suite: Suite | str | Path, config: GenerateConfig, *,
                 log_path: str | Path | None = None, corpus: GroundingCorpus | None = None,
                 validation_config=None, progress: Callable[[TargetResult], None] | None = None):
        self.backend = backend
        self.suite = suite if isinstance(suite, Suite) else Suite(suite)
        self.config = config
        self.corpus = corpus
        self.validation_config = validation_config
        self.progress = progress
        self.log_path = Path(log_path) if log_path else None
        self.rejected_dir = self.suite.path.parent / "rejected"
        self._log_lock = threading.Lock()
        self._stop = threading.Event()
        origin_model, origin_backend = getattr(backend, "origin", (None, None))
        #: Who designed what this run registers: named on every card and in the log.
        self.designer_model = config.designer or origin_model or backend.model
        self.designer_backend = origin_backend or backend.name

    # ------------------------------------------------------------------ running

    def run(self) -> GenerateSummary:
        from spade_gym.validation import validate_source  # noqa: F401 - fail early if unavailable

        targets = plan_targets(self.config)
        self.suite.path.mkdir(parents=True, exist_ok=True)
        self._log({"event": "run", "time": _now(), "settings": self.config.request_settings(),
                   "targets": [asdict(t) for t in targets], "prompt_version": PROMPT_VERSIONS[self.config.kind],
                   "designer": {"model": self.designer_model, "backend": self.designer_backend}})
        start = time.monotonic()
        results: list[TargetResult] = []
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
            results = [f.result() for f in futures if f.done() and not f.cancelled() and f.exception() is None]
        finally:
            executor.shutdown(wait=not interrupted, cancel_futures=True)
        return GenerateSummary(sorted(results, key=lambda r: r.target.index), time.monotonic() - start, interrupted)

    def stop(self) -> None:
        self._stop.set()

    def _run_target(self, target: Target) -> TargetResult:
        from spade_gym.validation import validate_source

        result = TargetResult(target)
        kind = skill_by_name(target.skill).kind
        started = time.monotonic()
        rng = random.Random(f"design:{self.config.seed}:{target.index}")
        grounding = self.corpus.sample(rng) if self.corpus else None
        memory = self._memory(target.skill, rng)
        messages = build_design_messages(target.skill, multi_turn=target.multi_turn,
                                         difficulty=self.config.difficulty, grounding=grounding,
                                         memory=memory, rng=rng)
        for attempt in range(1, self.config.attempts + 1):
            if self._stop.is_set():
                break
            result.attempts = attempt
            record = {"event": "attempt", "time": _now(), "target": asdict(target), "attempt": attempt,
                      "backend": self.backend.name, "model": self.backend.model,
                      "prompt_version": PROMPT_VERSIONS[kind], "kind": kind, "messages": messages}
            request_seed = self.config.seed * 100_000 + target.index * 100 + attempt
            record["request_seed"] = request_seed
            try:
                completion = self.backend.complete(messages, n=1, temperature=self.config.temperature,
                                                   max_tokens=self.config.max_tokens, seed=request_seed)[0]
            except EndpointUnreachable:
                raise
            except SpadeError as exc:
                result.failures.append("backend")
                result.last_summary = f"backend error: {exc}"
                self._log({**record, "error": str(exc)})
                break
            result.prompt_tokens += completion.prompt_tokens
            result.completion_tokens += completion.completion_tokens
            record.update(completion=completion.text, usage={"prompt_tokens": completion.prompt_tokens,
                                                             "completion_tokens": completion.completion_tokens})
            try:
                parsed = parse_designer_output(completion.text)
            except DesignerOutputError as exc:
                feedback = f"Your reply could not be used: {exc}. Reply with one ```python block and <hint>...</hint>."
                result.failures.append("parse")
                result.last_summary = str(exc)
                self._log({**record, "accepted": False, "parse_error": str(exc)})
                messages = build_repair_messages(messages, completion.text, feedback, kind=kind)
                continue
            if program_kind(parsed.code) != kind:
                feedback = _KIND_FEEDBACK[kind]
                result.failures.append("kind")
                result.last_summary = feedback
                self._log({**record, "accepted": False, "kind_error": feedback})
                messages = build_repair_messages(messages, completion.text, feedback, kind=kind)
                continue
            report = validate_source(parsed.code, hint=parsed.hint, suite=self.suite, config=self.validation_config)
            record["report"] = report.to_dict()
            if report.valid:
                entry = self._register(parsed.code, parsed.hint, report, target, attempt)
                result.accepted, result.env_id = True, entry.id
                self._log({**record, "accepted": True, "env_id": entry.id})
                break
            failed = [c.name for c in report.checks if not c.passed]
            result.failures.append(failed[0] if failed else "validation")
            result.last_summary = report.summary()
            result.rejected_files.append(self._keep_rejected(parsed.code, report, target, attempt))
            self._log({**record, "accepted": False})
            messages = build_repair_messages(messages, completion.text, report.summary(), kind=kind)
        result.seconds = time.monotonic() - started
        if self.progress is not None:
            self.progress(result)
        return result

    # ------------------------------------------------------------------ pieces

    def _memory(self, skill: str, rng: random.Random) -> DesignMemory | None:
        return suite_memory(self.suite.entries(), skill, k=self.config.memory_k, rng=rng)

    def _register(self, source: str, hint: str | None, report, target: Target, attempt: int) -> SuiteEntry:
        details = report.details if hasattr(report, "details") else {}
        provenance = {
            "designer": designer_label(self.designer_model, self.designer_backend),
            "backend": self.designer_backend,
            "model": self.designer_model,
            "prompt_version": PROMPT_VERSIONS[program_kind(source)],
            "requested_skill": target.skill,
            "requested_multi_turn": target.multi_turn,
            "attempts": attempt,
            "seed": self.config.seed,
            "created": _now(),
        }
        if isinstance(self.backend, ReplayBackend):
            provenance["replayed_from"] = self.backend.path.name
        card = Card.from_report(report, skill=target.skill, hint=hint or None, provenance=provenance,
                                kind=program_kind(source),
                                multi_turn=bool(details.get("multi_turn", target.multi_turn)),
                                description=describe_program(source, details.get("first_observation")))
        return self.suite.add(source, card)

    def _keep_rejected(self, source: str, report, target: Target, attempt: int) -> str:
        self.rejected_dir.mkdir(parents=True, exist_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        name = re.sub(r"[^\w.-]", "_", report.name or "program")[:64]  # a file name, not the whole class name
        stem = f"{stamp}_t{target.index:04d}_a{attempt}_{name}"
        path = self.rejected_dir / f"{stem}.py"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(source, encoding="utf-8")
        tmp.replace(path)
        (self.rejected_dir / f"{stem}.report.json").write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
        return str(path)

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


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
