"""Every validation default, in one place.

The validator is also the designer's teacher (a failed check costs reward, and its
message is what a repair loop feeds back), so its thresholds are part of the training
signal: they live here, named and documented, rather than scattered through the checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.sandbox.limits import Limits

#: The checks, in the order they run. ``static`` and ``load`` are fatal: when either
#: fails, nothing else can run and the later checks are reported as skipped.
CHECK_NAMES = (
    "static",
    "load",
    "contract",
    "termination",
    "determinism",
    "diversity",
    "solvability",
    "non_triviality",
    "hint",
    "gymnasium",
    "novelty",
    "cost",
    "difficulty",
)
FATAL_CHECKS = ("static", "load")

#: Cheap agents a sound environment must beat (see ``spade_gym.sandbox.probes``).
DEFAULT_BASELINES: tuple[dict[str, Any], ...] = (
    {"kind": "random_numbers", "low": 0, "high": 100},
    {"kind": "random_words"},
    {"kind": "empty"},
    {"kind": "copy"},
    {"kind": "repeat"},
)

#: Stricter than the sandbox defaults used for play: a program whose calls come anywhere
#: near these deadlines is far over the cost budget anyway, and a hanging program should
#: cost the validator seconds, not minutes.
VALIDATION_LIMITS = Limits(load_timeout=5.0, call_timeout=2.0, kill_grace=0.5)


@dataclass(frozen=True)
class ValidationConfig:
    """What the validator checks and how hard it looks. Build variants with :meth:`replace`."""

    #: Checks to run (a subset of :data:`CHECK_NAMES`; ``static`` and ``load`` are required).
    checks: tuple[str, ...] = CHECK_NAMES
    #: K: number of task seeds every probe plays (seeds ``first_seed .. first_seed+K-1``).
    seeds: int = 16
    first_seed: int = 0
    #: Action texts drawn from the hypothesis fuzzing strategies (on top of the fixed edge cases).
    fuzz_examples: int = 48
    #: Seed of the fuzz corpus: the same texts in every run, so verdicts are reproducible.
    fuzz_seed: int = 0
    #: Baseline policies for the non-triviality check (probe specs, see ``sandbox.probes``).
    baseline_policies: tuple[dict[str, Any], ...] = DEFAULT_BASELINES
    #: Highest win rate a baseline may reach (the SPADE reference's random-guess threshold).
    max_baseline_win_rate: float = 0.15
    #: Turns past ``max_turns`` an episode may run before the termination check fails it
    #: (the same slack ``SpadeEnv`` truncates at).
    turn_slack: int = 2
    #: Largest ``max_turns`` a program may declare; probes never play longer episodes.
    max_turns_limit: int = 100
    #: Fraction of seeds that must pose distinct tasks (first observation, first solution and
    #: the privileged policy's episode) for diversity.
    min_distinct_tasks: float = 0.5
    #: Longest hint accepted (characters).
    hint_max_chars: int = 1000
    #: Budget for the median ``reset``/``step`` time (milliseconds), and how many calls are timed.
    cost_budget_ms: float = 50.0
    cost_samples: int = 8
    #: Structural similarity at or above which a program counts as a copy of a suite entry.
    novelty_threshold: float = 0.95
    #: Difficulty levels checked when the program has a ``difficulty`` knob, and seeds per level.
    difficulty_levels: tuple[str, ...] = ("easy", "medium", "hard")
    difficulty_seeds: int = 4
    #: Keyword arguments passed to the program's ``__init__`` (e.g. ``{"max_turns": 12}``).
    program_kwargs: dict[str, Any] = field(default_factory=dict)
    #: Sandbox limits of every worker the validator starts.
    limits: Limits = VALIDATION_LIMITS
    #: Seconds a probe call may take on average (5x the cost budget) before validation
    #: stops as "too slow": a program far over budget would otherwise cost minutes to probe.
    probe_call_allowance: float = 0.25
    #: Backstop on the wall time of one validation (seconds).
    max_seconds: float = 120.0

    def __post_init__(self) -> None:
        unknown = [c for c in self.checks if c not in CHECK_NAMES]
        if unknown:
            raise ConfigError(f"unknown validation check(s): {', '.join(unknown)}; known: {', '.join(CHECK_NAMES)}")
        missing = [c for c in FATAL_CHECKS if c not in self.checks]
        if missing:
            raise ConfigError(f"the {' and '.join(missing)} check(s) cannot be disabled: every other check needs them")
        positive = {"seeds": self.seeds, "cost_samples": self.cost_samples, "hint_max_chars": self.hint_max_chars,
                    "max_turns_limit": self.max_turns_limit, "difficulty_seeds": self.difficulty_seeds}
        for name, value in positive.items():
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        for name in ("fuzz_examples", "turn_slack"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name} must be a non-negative integer, got {value!r}")
        for name in ("max_baseline_win_rate", "min_distinct_tasks", "novelty_threshold"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{name} must be within [0, 1], got {value!r}")
        if self.cost_budget_ms <= 0 or self.probe_call_allowance <= 0 or self.max_seconds <= 0:
            raise ConfigError("cost_budget_ms, probe_call_allowance and max_seconds must be positive")
        for spec in self.baseline_policies:
            if not isinstance(spec, dict) or spec.get("kind") in (None, "oracle", "actions"):
                raise ConfigError(f"a baseline policy must be a probe spec other than oracle/actions, got {spec!r}")
        if not isinstance(self.program_kwargs, dict) or not all(isinstance(k, str) for k in self.program_kwargs):
            raise ConfigError("program_kwargs must be a dict with str keys")

    @property
    def seed_list(self) -> list[int]:
        return list(range(self.first_seed, self.first_seed + self.seeds))

    def enabled(self, check: str) -> bool:
        return check in self.checks

    def replace(self, **changes: Any) -> "ValidationConfig":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["checks"] = list(self.checks)
        data["baseline_policies"] = [dict(p) for p in self.baseline_policies]
        data["difficulty_levels"] = list(self.difficulty_levels)
        return data


DEFAULT_CONFIG = ValidationConfig()
