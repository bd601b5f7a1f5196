"""What the checks of one validation share: the program, its workers, and cached probes.

Probe episodes are played from the host (:func:`spade_gym.validation.episodes.play`) and
cached here, so the checks that read the same episodes pay for them once: the first
check that needs a set of episodes plays it.

Seeds are unpredictable: each run draws its probe seeds from a fresh random run seed
(recorded in the report as ``run_seed``; pass it back as ``ValidationConfig(seed=...)``
or ``spade-gym validate --seed`` to reproduce a run exactly).

Seeds form one stream per run (:func:`draw_seeds` is prefix-stable): the privileged policy
plays its first ``seeds``, the rate checks their first ``baseline_seeds`` / ``shortcut_seeds``
and, while a rate's verdict is uncertain, the next ones (:meth:`Context.samples`; see
:mod:`spade_gym.validation.stats`), so a run with a fixed seed replays exactly. A zoo script's
rate that fails there is judged again on the seeds past the prior window its priors learned from
(:meth:`Context.confirm_held_out`).

Deadlines (the run's budget, batch deadlines, the per-call allowance, the retry of a deadline a
busy machine made a probe miss) are :mod:`spade_gym.validation.deadlines`; the extra seeds of the
rate checks are :mod:`spade_gym.validation.sampling`.
"""

from __future__ import annotations

import random
import secrets
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from spade_gym.contract import DEFAULT_MAX_TURNS, GAME_KIND, TOOL_USE_KIND, program_kind
from spade_gym.errors import SandboxError
from spade_gym.sandbox import ProgramHandle
from spade_gym.validation import deadlines, sampling
from spade_gym.validation.baselines.zoo import SHORTCUT_BASELINES, Prior, label, make_baseline
from spade_gym.validation.config import ValidationConfig
from spade_gym.validation.deadlines import Abort, DeadlineHit, Deadlines
from spade_gym.validation.episodes import Job, ProbeEpisode
from spade_gym.validation.sampling import ORACLE, prior_for
from spade_gym.validation.stats import Estimate

#: The baseline replayed in a fresh worker by the determinism check (covers wrong-answer paths).
REPLAY_BASELINE = {"kind": "random_words"}
#: Policies whose episodes record ``solution()`` after reset (the checks read it: leaks in
#: info, determinism of the task); the others only need to win or lose.
SOLUTION_RECORDED = frozenset({"oracle", "actions", "random_words"})
#: Largest seed drawn (seeds stay within what every program's RNG accepts).
MAX_SEED = 2**31 - 1


class Outcome(NamedTuple):
    passed: bool
    message: str
    details: dict | None = None


def draw_seeds(run_seed: int, count: int) -> list[int]:
    """``count`` distinct task seeds drawn from ``run_seed``: a program cannot know them in advance.
    A stream: ``draw_seeds(r, n)`` is the first ``n`` of ``draw_seeds(r, m)`` for every ``m >= n``."""
    rng = random.Random(f"spade-gym-validation:{run_seed}")
    seeds: list[int] = []
    while len(seeds) < count:
        seed = rng.randrange(MAX_SEED)
        if seed not in seeds:
            seeds.append(seed)
    return seeds


@dataclass
class LevelProbes:
    """Episodes played at one difficulty level (``None``: the program's default)."""

    level: str | None
    handle: ProgramHandle
    max_turns: int
    #: The privileged policy on the level's first ``shortcut_seeds`` seeds (the zoo's priors).
    oracle: list[ProbeEpisode]
    baselines: dict[str, list[ProbeEpisode]] = field(default_factory=dict)
    shortcuts: dict[str, list[ProbeEpisode]] = field(default_factory=dict)
    #: Turns a probe episode at this level may take.
    turn_limit: int = DEFAULT_MAX_TURNS

    @property
    def oracle_turns(self) -> float:
        wins = [e.turns for e in self.oracle if e.won]
        return float(statistics.median(wins)) if wins else 0.0

    @property
    def solution_chars(self) -> float:
        lengths = [len(e.solution0) for e in self.oracle if e.solution0]
        return float(statistics.median(lengths)) if lengths else 0.0


@dataclass
class Context(Deadlines):
    """What the checks of one validation share."""

    source: Any
    config: ValidationConfig
    #: The designer's hint text given with the program (what it says, not a :class:`~spade_gym.env.HintMode`).
    hint: str | None = None
    suite: Any = None
    details: dict = field(default_factory=dict)
    handle: ProgramHandle | None = None
    class_name: str = "program"
    mentions_difficulty: bool = False
    #: The ``difficulty`` default of the environment's ``__init__``, when it is a literal.
    default_difficulty: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    reset_episodes: list = field(default_factory=list)
    #: Non-fatal findings (e.g. failures on degenerate fuzz inputs), listed in the report.
    warnings: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    fresh_handle: ProgramHandle | None = None
    fresh_episodes: dict = field(default_factory=dict)
    _probes: dict = field(default_factory=dict)
    _levels: dict = field(default_factory=dict)
    #: Levels whose worker failed to load, and why (the difficulty check reports them).
    level_errors: dict = field(default_factory=dict)
    _handles: list = field(default_factory=list)
    _proven: set = field(default_factory=set)
    #: Episodes played past the cached probes for the rate checks: (level key, baseline) -> seed -> episode.
    _extra: dict = field(default_factory=dict)
    #: Inside :meth:`with_deadline_retry` (nested probes leave the retry to the outermost).
    _retrying: bool = False
    _slow_machine_noted: bool = False

    def __post_init__(self) -> None:
        #: ``"game"`` or ``"tool-use"``, read from the program text: it decides which checks run
        #: and how the privileged policy plays.
        self.kind = program_kind(self.source) if isinstance(self.source, str) else GAME_KIND
        self.details["kind"] = self.kind
        self.run_seed = self.config.seed if self.config.seed is not None else secrets.randbits(63)
        config = self.config
        self._stream = draw_seeds(self.run_seed, max(config.seeds, config.baseline_seeds, config.shortcut_seeds))
        self.seeds = self._stream[: config.seeds]
        self.details["run_seed"] = self.run_seed
        rule = config.rate_rule
        self.details["rate_rule"] = {"interval": "wilson", "confidence": rule.confidence, "step": rule.step,
                                     "max_probe_seeds": rule.cap}

    def stream(self, count: int) -> list[int]:
        """The first ``count`` seeds of the run's seed stream (``seeds`` is its head)."""
        if len(self._stream) < count:
            self._stream = draw_seeds(self.run_seed, count)
        return self._stream[:count]

    @property
    def turn_limit(self) -> int:
        """Turns a probe episode may take before the termination check fails it."""
        return min(self.max_turns, self.config.max_turns_limit) + self.config.turn_slack

    @property
    def shortcut_seeds(self) -> list[int]:
        """The seeds the shortcut zoo plays first at every level (whatever ``seeds`` is)."""
        return self.stream(self.config.shortcut_seeds)

    @property
    def main(self) -> ProgramHandle:
        """The main probe worker (opened by the load check, which every other check follows)."""
        if self.handle is None:
            raise RuntimeError("the main worker is not open: the load check has not run")
        return self.handle

    # ------------------------------------------------------------------ workers

    def open_handle(self, *, strict: bool = False, kwargs: dict | None = None,
                    slots: int | None = None) -> ProgramHandle:
        """A new probe worker; loading it is retried once at the longer deadlines if it times out."""
        args: dict[str, Any] = {"kwargs": dict(self.config.program_kwargs if kwargs is None else kwargs),
                                "strict_info": strict,
                                "count": min(slots or self.config.probe_slots, self.config.probe_slots)}
        try:
            handle = ProgramHandle(self.source, limits=self.config.limits, timeout=self._left("starting a worker"),
                                   **args)
        except SandboxError as exc:
            if exc.kind != "timeout" or self.config.deadline_retry_factor <= 1 or not deadlines.machine_busy():
                raise
            self.warnings.append(f"starting a worker: {exc.message.splitlines()[0]}; started again with "
                                 f"{self.config.deadline_retry_factor:g}x longer deadlines")
            self.details["deadline_retries"] = self.details.get("deadline_retries", 0) + 1
            handle = ProgramHandle(self.source, limits=self.long_limits, timeout=self._left("starting a worker"),
                                   **args)
        self._handles.append(handle)
        return handle

    def close(self) -> None:
        for handle in self._handles:
            try:
                handle.close()
            except Exception as exc:  # noqa: BLE001 - closing must never hide the report: it goes in it
                self.warnings.append(f"closing a probe worker failed: {type(exc).__name__}: {exc}")
        self._handles.clear()

    @property
    def oracle_description(self) -> str:
        """How the privileged policy plays this program, for messages."""
        if self.kind == TOOL_USE_KIND:
            return "playing solution() one tool call, then the answer, per turn"
        return "answering \\boxed{<solution()>} each turn"

    def jobs(self, spec: dict, seeds: list[int], *, priors: dict[int, Prior] | None = None) -> list[Job]:
        kind = spec["kind"]
        if kind == "oracle" and self.kind == TOOL_USE_KIND:
            # a tool-use program is solved by playing its solution's actions, not by boxing it
            spec = {**spec, "kind": "tool_oracle"}
        jobs = []
        for seed in seeds:
            baseline = make_baseline(spec, seed, (priors or {}).get(seed), run_seed=self.run_seed)
            # A hinted script gets the hint as an agent does: hint() after reset, else the given one;
            # its solution() after reset tells the hint rule where the hint states the answer outright.
            if baseline.reads_hint:
                baseline.offer_hint(self.hint if isinstance(self.hint, str) else None, given=True)
            jobs.append(Job(seed, kind, baseline, track_solution=kind in ("oracle", "actions"),
                            ask_hint=kind == "oracle" or baseline.reads_hint,
                            first_solution=kind in SOLUTION_RECORDED or baseline.reads_hint))
        return jobs

    def play_baselines(self, handle: ProgramHandle, specs: dict[str, dict], seeds: list[int], *, max_steps: int,
                        what: str, priors: dict[int, Prior] | None = None) -> dict[str, list[ProbeEpisode]]:
        """Several baselines on the same seeds in one lock-step run; episodes by baseline name."""
        jobs: list[Job] = []
        for name, spec in specs.items():
            for job in self.jobs(spec, seeds, priors=priors):
                job.name = name
                jobs.append(job)
        episodes = self.play(handle, jobs, max_steps=max_steps, what=what)
        out: dict[str, list[ProbeEpisode]] = {name: [] for name in specs}
        for episode in episodes:
            out[episode.baseline].append(episode)
        return out

    # ------------------------------------------------------------------ cached probes of the main worker

    def baseline_specs(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for spec in self.config.baseline_policies:
            name = spec["kind"]
            while name in out:
                name += "'"
            out[name] = spec
        return out

    def _main_probes(self) -> dict[str, list[ProbeEpisode]]:
        if "main" not in self._probes:
            jobs = self.jobs(ORACLE, self.seeds)
            for name, spec in self.baseline_specs().items():
                for job in self.jobs(spec, self.stream(self.config.baseline_seeds)):
                    job.name = name
                    jobs.append(job)
            played = self.play(self.main, jobs, max_steps=self.turn_limit, what="probing")
            self._probes["main"] = {name: [e for e in played if e.baseline == name]
                                    for name in ("oracle", *self.baseline_specs())}
        return self._probes["main"]

    def oracle(self) -> list[ProbeEpisode]:
        return self._main_probes()["oracle"]

    def baselines(self) -> dict[str, list[ProbeEpisode]]:
        return {name: episodes for name, episodes in self._main_probes().items() if name != "oracle"}

    def fresh(self, handle: ProgramHandle | None = None) -> dict[str, list[ProbeEpisode]]:
        """Oracle and replay-baseline episodes played first thing in a fresh worker (cached):
        ``handle`` if given (it must not have played yet), else a new one."""
        if not self.fresh_episodes:
            self.fresh_handle = handle or self.open_handle()
            jobs = self.jobs(ORACLE, self.seeds) + self.jobs(REPLAY_BASELINE, self.shortcut_seeds)
            played = self.play(self.fresh_handle, jobs, max_steps=self.turn_limit, what="probing a fresh worker")
            self.fresh_episodes = {"oracle": [e for e in played if e.baseline == "oracle"],
                                   "random_words": [e for e in played if e.baseline == "random_words"]}
        return self.fresh_episodes

    # ------------------------------------------------------------------ levels

    def levels(self) -> list[str | None]:
        """The levels to probe: each difficulty level if the program has the knob, else the default."""
        if not self.mentions_difficulty:
            return [None]
        return list(self.config.difficulty_levels)

    def is_main_level(self, level: str | None) -> bool:
        """Whether ``level`` is what the main worker plays (no knob, or the knob's default)."""
        return level is None or (level == self.default_difficulty and "difficulty" not in self.config.program_kwargs)

    def level(self, level: str | None) -> LevelProbes | None:
        """Oracle, cheap baselines and the shortcut zoo at one level (cached); None if the program
        drops the ``difficulty`` keyword."""
        if level in self._levels:
            return self._levels[level]
        seeds = self.shortcut_seeds
        if self.is_main_level(level):
            handle, max_turns = self.main, self.max_turns
            # (the cheap baselines' first look is their main-level probes, on ``baseline_seeds``)
            oracle = self.sample(None, "oracle", len(seeds))
            baselines = self.baselines()
            limit = self.turn_limit
            window = self.prior_window(None)
        else:
            try:
                handle = self.open_handle(kwargs={**self.config.program_kwargs, "difficulty": level})
            except SandboxError as exc:
                self.level_errors[level] = exc
                self._levels[level] = None
                return None
            if "difficulty" in handle.info.get("dropped_kwargs", []):
                self._levels[level] = None
                return None
            # A level may size its own turn budget (harder levels, more turns): probe it with that.
            max_turns = handle.info.get("max_turns") or self.max_turns
            limit = min(max_turns, self.config.max_turns_limit) + self.config.turn_slack
            # The oracle plays every probe seed (the zoo's priors come from it); the cheap
            # baselines, which the main level already measured on more seeds, play a few.
            cheap_seeds = seeds[: self.config.difficulty_seeds]
            jobs = self.jobs(ORACLE, seeds)
            for name, spec in self.baseline_specs().items():
                for job in self.jobs(spec, cheap_seeds):
                    job.name = name
                    jobs.append(job)
            played = self.play(handle, jobs, max_steps=limit, what=f"difficulty={level!r}")
            oracle = window = [e for e in played if e.baseline == "oracle"]
            baselines = {name: [e for e in played if e.baseline == name] for name in self.baseline_specs()}
        # the learned baselines' training probes (feedback semantics) come before the zoo plays
        training = sampling.training_probes(self, level, window, handle=handle, limit=limit)
        priors = {seed: prior_for(seed, window, training) for seed in seeds}
        # each kind of program has its own zoo: a tool-use program ignores every boxed answer
        where = '' if level is None else f' at difficulty={level!r}'
        shortcuts = self.play_baselines(handle, {name: {"kind": name} for name in self.config.zoo(self.kind)},
                                        seeds, max_steps=limit, priors=priors, what=f"shortcut baselines{where}")
        probes = LevelProbes(level, handle, max_turns, oracle, baselines, shortcuts, limit)
        self._levels[level] = probes
        return probes

    # ------------------------------------------------------------------ more seeds (validation.sampling)

    def prior_window(self, level: str | None) -> list[ProbeEpisode]:
        return sampling.prior_window(self, level)

    def sample(self, level: str | None, baseline: str, count: int) -> list[ProbeEpisode]:
        return sampling.sample(self, level, baseline, count)

    def samples(self, level: str | None, wanted: Mapping[str, int]) -> dict[str, list[ProbeEpisode]]:
        return sampling.samples(self, level, wanted)

    def level_samples(self, wanted: Mapping[sampling.Key, int], *,
                      held_out: bool = False) -> dict[sampling.Key, list[ProbeEpisode]]:
        return sampling.level_samples(self, wanted, held_out=held_out)

    def confirm_held_out(self, failed: Iterable[sampling.Key], counts: Callable[[ProbeEpisode], bool],
                         limit: float) -> tuple[dict[sampling.Key, Estimate], dict[sampling.Key, list[ProbeEpisode]]]:
        return sampling.confirm_held_out(self, failed, counts, limit)


def win_rate(episodes: list[ProbeEpisode]) -> float:
    return round(sum(e.won for e in episodes) / len(episodes), 4) if episodes else 0.0


def most_common_share(values: list) -> tuple[Any, float]:
    if not values:
        return None, 0.0
    value, count = Counter(values).most_common(1)[0]
    return value, count / len(values)


__all__ = [
    "ORACLE",
    "REPLAY_BASELINE",
    "SHORTCUT_BASELINES",
    "Abort",
    "Context",
    "DeadlineHit",
    "LevelProbes",
    "Outcome",
    "draw_seeds",
    "label",
    "most_common_share",
    "prior_for",
    "win_rate",
]
