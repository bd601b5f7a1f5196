"""Probe episodes driven from the host, in lock-step.

The host owns every decision: it picks each action with a host-side baseline
(:mod:`spade_gym.validation.baselines.zoo`), sends it through :class:`ProgramHandle`, receives
each ``reset``/``step``/``solution``/``hint`` result as the handle decoded and checked it
(:class:`~spade_gym.sandbox.call_results.Ok` or ``Failed``), and records it in an
:class:`ProbeEpisode` whose verdicts (won, ended, digest) it computes itself. A program
that escaped the language layer can still lie in its replies — but only as a program
would, one reply at a time, under the same checks; it cannot hand the validator a
finished verdict.

Throughput comes from lock-step play: the worker holds ``slots`` instances of the
program, and one batch carries one call for each live instance (a step, then the
solution the next action needs), so a round trip advances many episodes at once.
When an episode ends, its instance takes the next job.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from spade_gym.errors import ProtocolError, SandboxError
from spade_gym.sandbox import ProgramHandle
from spade_gym.sandbox.call_results import CallResult, Failed, Ok
from spade_gym.sandbox.wire import protocol as p
from spade_gym.validation.baselines.base import Baseline

#: Error kinds that mean the program hung, crashed or exhausted a limit (validation stops).
FATAL_KINDS = frozenset({"timeout", "memory", "cpu", "crash", "internal", "unavailable"})
#: Characters of each observation an episode keeps for messages (the digest covers all).
KEPT_CHARS = 4000


@dataclass
class ProbeStep:
    action: str
    obs: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict
    #: ``solution()`` right before this action (episodes that track it), else None.
    solution: str | None = None


@dataclass
class ProbeEpisode:
    """One probe episode as the host saw it."""

    seed: int
    baseline: str
    obs0: str | None = None
    info0: dict = field(default_factory=dict)
    solution0: str | None = None
    hint0: str | None = None
    steps: list[ProbeStep] = field(default_factory=list)
    error: SandboxError | None = None
    #: Turn of the failing call (1-based), 0 when reset/solution/hint right after it failed.
    error_turn: int | None = None
    max_steps_reached: bool = False
    #: The action of the step that failed, if a step failed.
    error_action: str | None = None
    _hash: Any = field(default_factory=lambda: hashlib.blake2b(digest_size=16), repr=False)

    @property
    def turns(self) -> int:
        return len(self.steps)

    @property
    def rewards(self) -> list[float]:
        return [s.reward for s in self.steps]

    @property
    def terminated(self) -> bool:
        return bool(self.steps) and self.steps[-1].terminated

    @property
    def truncated(self) -> bool:
        return bool(self.steps) and self.steps[-1].truncated and not self.steps[-1].terminated

    @property
    def ended(self) -> bool:
        return bool(self.steps) and (self.steps[-1].terminated or self.steps[-1].truncated)

    @property
    def won(self) -> bool:
        """Ended ``terminated`` with a positive final reward that is the episode's maximum."""
        rewards = self.rewards
        return (self.error is None and self.terminated and bool(rewards) and rewards[-1] > 0
                and rewards[-1] >= max(rewards))

    @property
    def actions(self) -> list[str]:
        return [s.action for s in self.steps]

    @property
    def digest(self) -> str:
        """Hash of everything the episode returned (observations in full, rewards, flags, info)."""
        return self._hash.hexdigest()

    def absorb(self, *parts: Any) -> None:
        self._hash.update(repr(parts).encode("utf-8", "replace"))


@dataclass
class Job:
    """One episode to play: a seed, the name it is recorded under, and a fresh baseline for it."""

    seed: int
    name: str
    baseline: Baseline
    #: Ask ``solution()`` before every action (the oracle needs it).
    track_solution: bool = False
    #: Ask ``solution()`` right after ``reset()`` (recorded as ``solution0``); implied by
    #: ``track_solution``. Probes that only need to win or lose skip it (one call less each).
    first_solution: bool = True
    ask_hint: bool = False


class FatalEpisode(Exception):
    """An episode hit a fatal error (hang, crash, limit): probing stops."""

    def __init__(self, episode: ProbeEpisode):
        super().__init__(str(episode.error))
        self.episode = episode


class InFlight(NamedTuple):
    """One call of a batch that failed as a whole: the episode's seed, the call, its action."""

    seed: int
    call: str
    action: str | None


class BatchFailed(SandboxError):
    """A whole batch failed (a hang the host killed, a crash): ``error`` is how, as the handle
    raised it (its kind, message and line are this exception's), ``in_flight`` the calls it carried."""

    def __init__(self, error: SandboxError, in_flight: tuple[InFlight, ...]):
        super().__init__(error.message, lineno=error.lineno, details=error.details)
        self.kind = error.kind
        self.error = error
        self.in_flight = in_flight

    def __reduce__(self):
        return (BatchFailed, (self.error, self.in_flight))


class _Slot:
    def __init__(self, index: int):
        self.index = index
        self.job: Job | None = None
        self.episode: ProbeEpisode | None = None
        self.obs = ""
        self.solution: str | None = None
        self.pending_action = ""


def play(handle: ProgramHandle, jobs: list[Job], *, max_steps: int, slots: int,
         timeout_for: Callable[[int], float]) -> list[ProbeEpisode]:
    """Play ``jobs`` on instances ``0..slots-1`` of ``handle``; episodes in job order.

    ``timeout_for(n)`` gives the deadline of a batch of ``n`` calls (and may raise to stop
    probing when the validation budget is spent). Raises :class:`FatalEpisode` when a call
    hangs, crashes or exhausts a limit, and :class:`BatchFailed` when the whole batch fails.
    """
    has_solution = handle.info.get("has_solution", True)
    has_hint = handle.info.get("has_hint", False)
    pending = list(enumerate(jobs))[::-1]
    done: list[ProbeEpisode | None] = [None] * len(jobs)
    order: dict[int, int] = {}
    live = [_Slot(i) for i in range(max(1, min(slots, len(jobs))))]
    while pending or any(s.job for s in live):
        items: list = []
        plan: list[tuple[_Slot, str]] = []
        for slot in live:
            if slot.job is None:
                while pending and pending[-1][1].baseline.exhausted:
                    pending.pop()  # a baseline with nothing left to send (a consumed fuzz feed)
                if not pending:
                    continue
                number, job = pending.pop()
                slot.job, slot.episode, slot.solution = job, ProbeEpisode(job.seed, job.name), None
                order[id(slot.episode)] = number
                items.append(p.Reset(slot.index, job.seed))
                plan.append((slot, "reset"))
                if has_solution and (job.first_solution or job.track_solution):
                    items.append(p.Solution(slot.index))
                    plan.append((slot, "solution"))
                if job.ask_hint and has_hint:
                    items.append(p.Hint(slot.index))
                    plan.append((slot, "hint"))
                continue
            episode, job = slot.episode, slot.job
            assert episode is not None
            if job.baseline.exhausted:
                episode.max_steps_reached = True
                done[order.pop(id(episode))] = episode
                slot.job = slot.episode = None
                continue
            action = job.baseline.act(slot.obs, episode.turns, slot.solution)
            slot.pending_action = action
            items.append(p.Step(slot.index, action))
            plan.append((slot, "step"))
            if job.track_solution and has_solution:
                items.append(p.Solution(slot.index))
                plan.append((slot, "solution"))
        if not items:
            if pending:
                continue  # every live episode just ran out of moves: the free slots take the next jobs
            break
        try:
            results = handle.batch(items, timeout=timeout_for(len(items)))
        except SandboxError as exc:  # the whole batch failed (a hang the host killed, a crash)
            raise BatchFailed(exc, tuple(InFlight(slot.job.seed, call, slot.pending_action if call == "step" else None)
                                         for slot, call in plan if slot.job is not None)) from exc
        if not isinstance(results, list) or len(results) != len(items):
            raise ProtocolError("the worker answered a batch with the wrong number of results")
        for (slot, call), result in zip(plan, results):
            _absorb(slot, call, result)
        for slot, call in plan:
            if call == "reset" and slot.job is not None and getattr(slot.job.baseline, "needs_tools", False):
                _give_tools(handle, slot, timeout_for)
        for slot in live:
            episode = slot.episode
            if slot.job is None or episode is None:
                continue
            finished = episode.error is not None or episode.ended
            if not finished and episode.turns >= max_steps and episode.obs0 is not None:
                episode.max_steps_reached = finished = True
            if episode.error is not None and episode.error.kind in FATAL_KINDS:
                raise FatalEpisode(episode)
            if finished:
                done[order.pop(id(episode))] = episode
                slot.job = slot.episode = None
    return [e for e in done if e is not None]


def _give_tools(handle: ProgramHandle, slot: _Slot, timeout_for: Callable[[int], float]) -> None:
    """A tool-use agent gets the episode's schemas with the task (``info["tools"]``): asked right
    after the reset, for the baselines that read them (a batch carries no ``get_tools()``)."""
    episode, job = slot.episode, slot.job
    if episode is None or job is None or episode.error is not None or episode.obs0 is None:
        return
    try:
        job.baseline.see_tools(handle.tools(slot.index, timeout=timeout_for(1)))  # type: ignore[attr-defined]
    except SandboxError as exc:
        episode.error, episode.error_turn = exc, 0


def _absorb(slot: _Slot, call: str, result: CallResult) -> None:
    """Record one call result in the slot's episode (in the order the calls ran); its value was
    decoded and checked by the handle (``sandbox.replies``), so it is recorded as it is."""
    episode, job = slot.episode, slot.job
    if episode is None or job is None or episode.error is not None or episode.ended:
        return  # (a solution asked after the final step is not needed)
    turn = episode.turns + (1 if call == "step" else 0)
    try:
        if isinstance(result, Failed):
            raise result.error
        if not isinstance(result, Ok):
            raise ProtocolError("malformed batch result")
        value = result.value
        if call == "reset":
            obs, info = value
            episode.obs0, episode.info0, slot.obs = obs[:KEPT_CHARS * 4], info, obs
            episode.absorb(obs, info)
            job.baseline.begin(obs)
        elif call == "solution":
            solution = value
            slot.solution = solution
            if episode.solution0 is None:
                episode.solution0 = solution
        elif call == "hint":
            episode.hint0 = value
            job.baseline.offer_hint(episode.hint0)  # a hinted script sees it as an agent would
        else:
            obs, reward, terminated, truncated, info = value
            episode.steps.append(ProbeStep(slot.pending_action, obs[:KEPT_CHARS], reward, terminated, truncated, info,
                                      slot.solution if job.track_solution else None))
            episode.absorb(obs, reward, terminated, truncated, info)
            slot.obs = obs
    except SandboxError as exc:
        episode.error, episode.error_turn = exc, turn
        if call == "step":
            episode.error_action = slot.pending_action
