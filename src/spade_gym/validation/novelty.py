"""Novelty: is a program a copy, a re-skin or a family member of one already registered?

Two views, combined:

* **code** (:mod:`spade_gym.validation.fingerprint`): the normalised AST, so renaming,
  rewording and comments never matter; an exact match is a copy.
* **behaviour**: what the environment *does* under the same fixed probes (the answer's
  kind and shape, how many turns the privileged policy needs, how a wrong answer ends,
  whether feedback says higher/lower or echoes the action, how much of the screen is
  numbers, which trivial probes win). A re-skin of a mechanic keeps these.

A program is not novel when its code matches exactly (after dead code is dropped), when
the probes see exactly the same screens, answers and rewards as for one of the structurally
nearest programs, when its code similarity reaches
``novelty_threshold``, or when the mean of code and behaviour similarity reaches
``novelty_combined_threshold``. :func:`check_novelty` compares against every registered
suite and against a batch of other candidates (self-play validates designs in parallel,
so a batch's twins are not yet in any suite).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import statistics
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spade_gym.errors import SandboxError
from spade_gym.sandbox import Limits, ProgramHandle
from spade_gym.validation.baselines.zoo import CopyEvery, Empty, Oracle, RandomWords
from spade_gym.validation.episodes import Job, play
from spade_gym.validation.fingerprint import Fingerprint, entry_fingerprint, fingerprint, similarity
from spade_gym.validation.observations import HIGHER_FEEDBACK, LOWER_FEEDBACK, NUMBER, shape

#: Seeds of the behaviour probe: the same for every program, so signatures compare.
BEHAVIOUR_SEEDS = (101, 202, 303, 404)
#: The signature entry holding a digest of every probe transcript.
TRANSCRIPT_KEY = "transcript"
_LIMITS = Limits(load_timeout=5.0, call_timeout=2.0, kill_grace=0.5)
_cache: dict[str, dict | None] = {}
_lock = threading.Lock()


def _bucket(value: float) -> int:
    return int(math.log2(1 + max(0.0, value)))


def _answer_kind(solutions: list[str]) -> str:
    def kind(s: str) -> str:
        text = s.strip()
        if text.lstrip("-").isdigit():
            return "int"
        try:
            float(text)
            return "number"
        except ValueError:
            pass
        if text.isalpha():
            return "word"
        return "words" if all(w.isalpha() for w in text.split()) else "mixed"

    kinds = Counter(kind(s) for s in solutions)
    return kinds.most_common(1)[0][0] if kinds else "none"


def signature_from(episodes: dict[str, list], max_turns: int | None) -> dict[str, Any]:
    """A behaviour signature from probe episodes by baseline (oracle, random_words, copy_every, empty)."""
    oracle = episodes.get("oracle", [])
    wrong = [e for e in episodes.get("random_words", []) if e.steps]
    solutions = [e.solution0 for e in oracle if e.solution0]
    first_feedback = [e.steps[0] for e in wrong]
    feedback_text = " ".join(s.obs for s in first_feedback)

    def end(step) -> str:
        return "terminated" if step.terminated else "truncated" if step.truncated else "continues"

    shapes = Counter(shape(s) for s in solutions)
    transcript = hashlib.sha256(json.dumps(sorted(
        [e.baseline, e.seed, e.obs0, e.solution0, [[s.action, s.obs, s.reward, s.terminated, s.truncated]
                                                  for s in e.steps]]
        for policy_episodes in episodes.values() for e in policy_episodes), default=str).encode()).hexdigest()
    return {
        # every screen, answer and reward of the fixed probes: equal transcripts are the same game
        TRANSCRIPT_KEY: transcript,
        "answer_kind": _answer_kind(solutions),
        "answer_shape": shapes.most_common(1)[0][0] if shapes else "",
        "oracle_turns": int(statistics.median([e.turns for e in oracle])) if oracle else 0,
        "answer_changes": any(len(set(e.actions)) > 1 for e in oracle),
        "wrong_answer": Counter(end(s) for s in first_feedback).most_common(1)[0][0] if first_feedback else "",
        "feedback_direction": bool(HIGHER_FEEDBACK.search(feedback_text) or LOWER_FEEDBACK.search(feedback_text)),
        "feedback_echo": any(s.action[7:-1] and s.action[7:-1] in s.obs for s in first_feedback),
        "feedback_numbers": _bucket(statistics.mean([len(NUMBER.findall(s.obs)) for s in first_feedback])
                                    if first_feedback else 0),
        "screen_numbers": _bucket(statistics.mean([len(NUMBER.findall(e.obs0 or "")) for e in oracle])
                                  if oracle else 0),
        "screen_size": _bucket(statistics.mean([len(e.obs0 or "") for e in oracle]) / 64 if oracle else 0),
        "copy_wins": sum(e.won for e in episodes.get("copy_every", [])),
        "empty_wins": sum(e.won for e in episodes.get("empty", [])),
        "max_turns": max_turns or 0,
    }


def behaviour_signature(source: str, *, limits: Limits = _LIMITS, kwargs: dict | None = None) -> dict | None:
    """Play the fixed behaviour probe on ``source`` in the sandbox (cached by text); None if the
    program cannot be played (it then gets no behaviour comparison, only the code one)."""
    key = f"{sorted((kwargs or {}).items())!r}:{source}"
    with _lock:
        if key in _cache:
            return _cache[key]
    signature: dict | None
    try:
        with ProgramHandle(source, kwargs=kwargs, limits=limits, count=len(BEHAVIOUR_SEEDS)) as handle:
            makers = {"oracle": Oracle, "random_words": RandomWords, "copy_every": CopyEvery, "empty": Empty}
            jobs = [Job(seed, name, maker(_rng(name, seed)), track_solution=name == "oracle")
                    for name, maker in makers.items() for seed in BEHAVIOUR_SEEDS]
            max_turns = handle.info.get("max_turns") or 10
            episodes = play(handle, jobs, max_steps=min(max_turns, 100) + 2, slots=handle.count,
                            timeout_for=lambda n: limits.call_timeout * 2 + 0.25 * n)
        by_baseline: dict[str, list] = {}
        for e in episodes:
            by_baseline.setdefault(e.baseline, []).append(e)
        signature = signature_from(by_baseline, max_turns)
    except (SandboxError, Exception):  # noqa: BLE001 - an unplayable program has no behaviour to compare
        signature = None
    with _lock:
        _cache[key] = signature
    return signature


def _rng(name: str, seed: int) -> random.Random:
    return random.Random(f"behaviour:{name}:{seed}")


def behaviour_similarity(a: dict | None, b: dict | None) -> float:
    """Share of signature features that agree (0.0 when either is unknown); the transcript
    digest is not a feature (it decides on its own, see :func:`same_transcripts`)."""
    if not a or not b:
        return 0.0
    keys = (set(a) | set(b)) - {TRANSCRIPT_KEY}
    return sum(a.get(k) == b.get(k) for k in keys) / len(keys)


def same_transcripts(a: dict | None, b: dict | None) -> bool:
    """Did both programs show the same screens, answers and rewards under the same probes?"""
    return bool(a and b and a.get(TRANSCRIPT_KEY) and a.get(TRANSCRIPT_KEY) == b.get(TRANSCRIPT_KEY))


@dataclass(frozen=True)
class NoveltyMatch:
    """The nearest registered (or batch) program and how near it is."""

    env_id: str
    code_similarity: float
    behaviour_similarity: float
    exact: bool

    @property
    def score(self) -> float:
        return 1.0 if self.exact else (self.code_similarity + self.behaviour_similarity) / 2

    def to_dict(self) -> dict:
        return {"nearest": self.env_id, "code_similarity": round(self.code_similarity, 4),
                "behaviour_similarity": round(self.behaviour_similarity, 4), "exact": self.exact,
                "score": round(self.score, 4)}


@dataclass
class NoveltyVerdict:
    novel: bool
    reason: str
    nearest: NoveltyMatch | None = None
    compared: int = 0
    #: Entries that could not be compared, as (id, reason): reported, never dropped silently.
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict:
        data: dict = {"novel": self.novel, "compared": self.compared}
        if self.nearest is not None:
            data.update(self.nearest.to_dict())
        if self.skipped:
            data["skipped"] = [{"id": i, "reason": r} for i, r in self.skipped]
        return data


def sha256_text(source: str) -> str:
    from spade_gym.registry import sha256_text as digest

    return digest(source)


def registered_suites() -> list:
    """Every suite directory with a registered spade-gym environment (bundled + ``$SPADE_GYM_SUITES``)."""
    from spade_gym.registry import Suite
    from spade_gym.registry.registration import registered_entries

    directories = dict.fromkeys(os.path.dirname(os.path.normpath(env_dir)) for _, env_dir in registered_entries())
    return [Suite(d) for d in directories]


def _sources(suites: Iterable, skipped: list[tuple[str, str]],
             exclude_sha256: str | None = None) -> list[tuple[str, Fingerprint, Any]]:
    out = []
    for suite in suites:
        try:
            entries = suite.entries()
        except Exception as exc:  # noqa: BLE001 - reported
            skipped.append((str(getattr(suite, "path", suite)), f"{type(exc).__name__}: {exc}"[:200]))
            continue
        for entry in entries:
            if exclude_sha256 is not None and entry.card.sha256 == exclude_sha256:
                continue
            try:
                out.append((entry.id, entry_fingerprint(entry), entry))
            except Exception as exc:  # noqa: BLE001 - reported, never dropped silently
                skipped.append((entry.id, f"{type(exc).__name__}: {exc}"[:200]))
    return out


def check_novelty(source: str, *, suites: Iterable | None = None, batch: Mapping[str, str] | None = None,
                  exclude_ids: Iterable[str] = (), code_threshold: float = 0.95,
                  combined_threshold: float = 0.85, behaviour: bool = True,
                  signature: dict | None = None, exclude_identical: bool = False) -> NoveltyVerdict:
    """Compare ``source`` with every entry of ``suites`` (default: every registered suite) and
    with each program of ``batch`` (name -> source), by code and by behaviour.

    Usable on its own (self-play calls it for each design of a batch against the others);
    the ``novelty`` validation check calls it with the suite it was given, and with
    ``exclude_identical`` (registering a program a suite already holds is idempotent there).
    """
    skipped: list[tuple[str, str]] = []
    mine = fingerprint(source)
    excluded = set(exclude_ids)
    own_sha = sha256_text(source) if exclude_identical else None
    candidates = [c for c in _sources(registered_suites() if suites is None else suites, skipped, own_sha)
                  if c[0] not in excluded]
    for name, other in (batch or {}).items():
        try:
            candidates.append((f"batch:{name}", fingerprint(other), other))
        except (SyntaxError, ValueError) as exc:
            skipped.append((f"batch:{name}", f"does not parse: {exc}"[:200]))
    scored = []
    for env_id, theirs, origin in candidates:
        exact = theirs.exact == mine.exact
        if exact:
            match = NoveltyMatch(env_id, 1.0, 1.0, True)
            return NoveltyVerdict(False, f"a copy of {env_id} (the same code up to names, strings, comments and "
                                         f"docstrings)", match, len(candidates), skipped)
        scored.append((similarity(mine, theirs), env_id, origin))
    scored.sort(key=lambda t: t[0], reverse=True)
    best: NoveltyMatch | None = None
    # Behaviour is played only for the structurally nearest few: it needs the sandbox.
    mine_signature = signature
    for code, env_id, origin in scored[:5]:
        behaviour_score = 0.0
        if behaviour:
            if mine_signature is None:
                mine_signature = behaviour_signature(source)
            text = origin if isinstance(origin, str) else _read(origin, skipped)
            theirs_signature = behaviour_signature(text) if text else None
            if same_transcripts(mine_signature, theirs_signature):
                # however different the code, a program that shows the same screens, answers
                # and rewards as another under the same probes is that program
                match = NoveltyMatch(env_id, code, 1.0, False)
                return NoveltyVerdict(False, (
                    f"the same game as {env_id}: identical screens, answers and rewards under the same probes "
                    f"(code similarity {code:.2f})"), match, len(candidates), skipped)
            # the coarse features only mean something between programs of similar structure
            if code >= 0.3:
                behaviour_score = behaviour_similarity(mine_signature, theirs_signature)
        match = NoveltyMatch(env_id, code, behaviour_score, False)
        if best is None or match.score > best.score or (match.score == best.score and code > best.code_similarity):
            best = match
    if best is not None and best.code_similarity >= code_threshold:
        return NoveltyVerdict(False, f"structurally a copy of {best.env_id} (code similarity "
                                     f"{best.code_similarity:.2f} >= {code_threshold:.2f})", best, len(candidates),
                              skipped)
    if best is not None and best.score >= combined_threshold:
        return NoveltyVerdict(False, (
            f"the same game as {best.env_id} in another skin: code similarity {best.code_similarity:.2f} and "
            f"behaviour similarity {best.behaviour_similarity:.2f} under the same probes (mean {best.score:.2f} >= "
            f"{combined_threshold:.2f})"), best, len(candidates), skipped)
    return NoveltyVerdict(True, "novel", best, len(candidates), skipped)


def _read(entry, skipped: list[tuple[str, str]]) -> str | None:
    try:
        return entry.read_source()
    except Exception as exc:  # noqa: BLE001 - reported
        skipped.append((entry.id, f"{type(exc).__name__}: {exc}"[:200]))
        return None
