"""Every validation default, in one place.

The validator is also the designer's teacher (a failed check costs reward, and its
message is what a repair loop feeds back), so its thresholds are part of the training
signal: they live here, named and documented, rather than scattered through the checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from spade_gym.contract import TOOL_USE_KIND
from spade_gym.errors import ConfigError
from spade_gym.sandbox.limits import Limits
from spade_gym.validation.baselines.zoo import HINT_BASELINES, SHORTCUT_BASELINES, TOOL_SHORTCUT_BASELINES
from spade_gym.validation.stats import Rule


def check_names(kind: str | None = None) -> tuple[str, ...]:
    """Every registered check, in run order (the registry in ``validation.checks`` is the one list);
    with ``kind`` (``"game"``, ``"tool-use"``), the checks a program of that kind gets."""
    from spade_gym.validation.checks import registered

    return tuple(spec.name for spec in registered() if kind is None or kind in spec.kinds)


def fatal_check_names() -> tuple[str, ...]:
    from spade_gym.validation.checks import registered

    return tuple(spec.name for spec in registered() if spec.fatal)


#: Cheap agents a sound environment must beat (see ``spade_gym.validation.baselines.zoo``).
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

    #: Checks to run (None: every registered check; the fatal ones cannot be left out).
    checks: tuple[str, ...] | None = None
    #: K: number of task seeds the privileged policy plays (solvability, determinism, leaks...),
    #: drawn afresh from ``seed`` in every run. The rate checks do not decide on these alone:
    #: they play at least ``baseline_seeds`` / ``shortcut_seeds`` seeds of the same stream and
    #: more while their verdict is uncertain (see ``max_probe_seeds``), whatever ``seeds`` is.
    seeds: int = 16
    #: Run seed the probe seeds are drawn from; None (the default) draws a fresh one from the
    #: OS, so a program cannot know its probe seeds in advance. Reports record the seed used.
    seed: int | None = None
    #: Action texts drawn from the hypothesis fuzzing strategies (on top of the fixed edge cases).
    fuzz_examples: int = 48
    #: Seed of the fuzz corpus: the same texts in every run, so verdicts are reproducible.
    fuzz_seed: int = 0
    #: Seeds the cheap baselines play first (the first of the run's seed stream): the shortcut
    #: zoo is the stronger test, these catch games any answer wins. 16: the fewest on which a
    #: baseline that never wins is cleared against the 15% limit at the confidence below (the
    #: upper bound of 0 wins in 16 is 14.5%), so a sound game needs no second look.
    baseline_seeds: int = 16
    #: Baseline policies for the non-triviality check (probe specs, see ``validation.baselines.zoo``).
    baseline_policies: tuple[dict[str, Any], ...] = DEFAULT_BASELINES
    #: Highest win rate a baseline may reach (the SPADE reference's random-guess threshold).
    max_baseline_win_rate: float = 0.15
    #: The shortcut zoo run by the ``shortcut`` and ``levels`` checks, at every level.
    shortcut_baselines: tuple[str, ...] = SHORTCUT_BASELINES
    #: The zoo of tool-use programs (they ignore ``\\boxed{}``, which every game baseline sends):
    #: scripts that replay, sweep and enumerate tool calls (``validation.baselines.tools``).
    tool_shortcut_baselines: tuple[str, ...] = TOOL_SHORTCUT_BASELINES
    #: The hint rule (the ``hint_rule`` check): the zoo a program's kind gets, replayed with the hint
    #: shown, plus these hint-reading scripts (``validation.baselines.hinted``), at every level, against
    #: ``max_shortcut_win_rate`` with the same confidence rule. A hint may help a reasoning agent; it
    #: must not let a script win (in self-play a hint that makes the game mechanical is free regret).
    hint_baselines: tuple[str, ...] = HINT_BASELINES
    #: Seeds each hinted script plays first per level (the first of the run's seed stream; more while
    #: its rate is uncertain). 4: the fewest that clear a script that never wins against the 50% limit
    #: (upper bound 40%), and the sequential rule still keeps a script 10 points from the limit at the
    #: same verdict in 19 runs of 20 (4.6% disagreement, ``stats.operating_characteristic``) at half
    #: the cost of 8 for the many scripts a hinted program meets.
    hint_rule_seeds: int = 4
    #: Seeds each shortcut baseline plays first per level (the first of the run's seed stream);
    #: also the seeds whose privileged episodes teach the zoo its priors (every seed's prior comes
    #: from the other seeds of these, so a rate means the same on the seeds added later).
    shortcut_seeds: int = 8
    #: Highest win rate any shortcut baseline may reach at any level. Half: a script that never
    #: reads the task's meaning but wins more often than it loses makes the environment teach
    #: the script (and leaves the hint-regret reward less than half its range); well below it,
    #: sound games whose feedback legitimately narrows the answer (higher/lower, marks) pass.
    max_shortcut_win_rate: float = 0.5
    #: Largest share of seeds that may have the same answer (the privileged policy's whole
    #: action sequence): a constant answer is memorised, not found.
    max_same_solution_share: float = 0.5
    #: Verdicts are statistics (``validation.stats``): a rate check passes when the upper bound of
    #: the rate's Wilson interval at this (two-sided) confidence is below its limit, fails when the
    #: lower bound is above it, and plays ``probe_seed_step`` more seeds while neither holds, up to
    #: ``max_probe_seeds`` seeds, where the point estimate decides (above the limit fails). 90%: the
    #: lowest level that keeps every program 10 points or more from a limit at the same verdict in
    #: at least 19 of 20 runs (at most 2.1% disagreement per run, exactly), and the cheapest for
    #: sound programs. Self-play's cheaper presets lower ``seeds``, never these.
    confidence: float = 0.90
    probe_seed_step: int = 8
    max_probe_seeds: int = 160
    #: On a busy machine, a probe that hits a deadline (a call's, a batch's; loading a worker; the
    #: episodes of gymnasium's check_env) is played again once, from scratch in a fresh worker,
    #: with every deadline this many times longer: load must not turn a sound program's slow call
    #: into a determinism or contract failure. A hit at the longer deadlines is the program's
    #: (reported as the machine's when the machine is still busy). Only ``cost`` judges time; 1 turns
    #: retries off.
    deadline_retry_factor: float = 4.0
    #: Levels (the ``levels`` check, on the same seeds at the easiest and the hardest level): how much
    #: more often a shortcut baseline may win on the hardest level (net share of seeds it wins there and
    #: loses on the easiest), and how much more often the privileged policy's episode may be shorter
    #: there (net share of seeds). Decided with a paired interval (at ``confidence``, 95% at least) and
    #: more seeds while it straddles the slack, up to three times ``max_probe_seeds``
    #: (``validation.level_rules.judge_paired``). Lengths get more slack: the answers of a sound level vary in
    #: length at random (weekday names), shortcut wins do not.
    level_order_slack: float = 0.25
    level_length_slack: float = 0.5
    #: Levels that change only text (the ``difficulty`` check), as shares of the seeds beyond chance
    #: agreement (a kappa) on which two neighbouring levels pose the same task (the same solution() and
    #: the same privileged play): at most half of the seeds may pose it with screens that differ by one
    #: edit shared by every seed (a banner, a rewording); at most nine in ten whatever the screens say
    #: (a harder level may keep the answer of many seeds and add what hides it: more candidates).
    max_level_text_only: float = 0.5
    max_level_same_task: float = 0.9
    #: Significance at which a shortcut baseline that reads the screen and the feedback beats the
    #: baselines that do not (guessing other seeds' answers) on the same seeds, for ``informative``
    #: (a one-sided sign test): 7 seeds won that chance lost, none the other way.
    informative_alpha: float = 0.01
    #: Instances of the program per probe worker: episodes advanced per round trip. Each
    #: instance costs a module execution in the worker, each round trip a few hundred
    #: microseconds: 8 is about where the two balance for validation's episode counts.
    probe_slots: int = 8
    #: Resets an instance gets before a long-run replay (drawn from the run seed, at most this
    #: many), so a program cannot keep its good behaviour to the first N resets.
    long_run_resets: int = 200
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
    #: Mean of code and behaviour similarity at or above which a program counts as the same game
    #: in another skin (behaviour alone is too coarse: many games answer one number in one turn).
    novelty_combined_threshold: float = 0.85
    #: Compare behaviour too (plays a short fixed probe on the nearest suite entries).
    novelty_behaviour: bool = True
    #: Difficulty levels checked when the program has a ``difficulty`` knob, and seeds per level.
    difficulty_levels: tuple[str, ...] = ("easy", "medium", "hard")
    difficulty_seeds: int = 4
    #: Keyword arguments passed to the program's ``__init__`` (e.g. ``{"max_turns": 12}``).
    program_kwargs: dict[str, Any] = field(default_factory=dict)
    #: Sandbox limits of every worker the validator starts.
    limits: Limits = VALIDATION_LIMITS
    #: Seconds a probe call may take on average (5x the cost budget) before validation
    #: stops as "too slow": a program far over budget would otherwise cost minutes to probe.
    #: Measured in the worker's CPU time where the kernel reports it (Linux), so the time calls
    #: spent waiting for a CPU on a busy machine does not count.
    probe_call_allowance: float = 0.25
    #: Backstop on the wall time of one validation (seconds). A run that reaches it on a busy
    #: machine is reported as the machine's (``kind: "machine"``), not the program's.
    max_seconds: float = 120.0

    def __post_init__(self) -> None:
        names = check_names()
        checks = names if self.checks is None else tuple(self.checks)
        object.__setattr__(self, "checks", checks)
        unknown = [c for c in checks if c not in names]
        if unknown:
            raise ConfigError(f"unknown validation check(s): {', '.join(unknown)}; known: {', '.join(names)}")
        missing = [c for c in fatal_check_names() if c not in checks]
        if missing:
            raise ConfigError(f"the {' and '.join(missing)} check(s) cannot be disabled: every other check needs them")
        positive = {"seeds": self.seeds, "cost_samples": self.cost_samples, "hint_max_chars": self.hint_max_chars,
                    "max_turns_limit": self.max_turns_limit, "difficulty_seeds": self.difficulty_seeds,
                    "shortcut_seeds": self.shortcut_seeds, "probe_slots": self.probe_slots,
                    "baseline_seeds": self.baseline_seeds, "probe_seed_step": self.probe_seed_step,
                    "max_probe_seeds": self.max_probe_seeds, "hint_rule_seeds": self.hint_rule_seeds}
        for name, value in positive.items():
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if self.seed is not None and (not isinstance(self.seed, int) or isinstance(self.seed, bool)):
            raise ConfigError(f"seed must be an integer or None, got {self.seed!r}")
        unknown_zoo = [b for b in self.shortcut_baselines if b not in SHORTCUT_BASELINES]
        if unknown_zoo:
            raise ConfigError(f"unknown shortcut baseline(s): {', '.join(unknown_zoo)}; known: "
                              f"{', '.join(SHORTCUT_BASELINES)}")
        unknown_hint = [b for b in self.hint_baselines if b not in HINT_BASELINES]
        if unknown_hint:
            raise ConfigError(f"unknown hint baseline(s): {', '.join(unknown_hint)}; known: "
                              f"{', '.join(HINT_BASELINES)}")
        unknown_tool_zoo = [b for b in self.tool_shortcut_baselines if b not in TOOL_SHORTCUT_BASELINES]
        if unknown_tool_zoo:
            raise ConfigError(f"unknown tool-use shortcut baseline(s): {', '.join(unknown_tool_zoo)}; known: "
                              f"{', '.join(TOOL_SHORTCUT_BASELINES)}")
        for name in ("fuzz_examples", "turn_slack", "long_run_resets"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name} must be a non-negative integer, got {value!r}")
        for name in ("max_baseline_win_rate", "min_distinct_tasks", "novelty_threshold", "max_shortcut_win_rate",
                     "max_same_solution_share", "level_order_slack", "level_length_slack", "max_level_text_only",
                     "max_level_same_task",
                     "informative_alpha", "novelty_combined_threshold"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{name} must be within [0, 1], got {value!r}")
        if not 0.5 <= self.confidence < 1.0:
            raise ConfigError(f"confidence must be within [0.5, 1), got {self.confidence!r}")
        if self.deadline_retry_factor < 1.0:
            raise ConfigError(f"deadline_retry_factor must be at least 1, got {self.deadline_retry_factor!r}")
        if self.cost_budget_ms <= 0 or self.probe_call_allowance <= 0 or self.max_seconds <= 0:
            raise ConfigError("cost_budget_ms, probe_call_allowance and max_seconds must be positive")
        for spec in self.baseline_policies:
            if not isinstance(spec, dict) or spec.get("kind") in (None, "oracle", "actions"):
                raise ConfigError(f"a baseline policy must be a probe spec other than oracle/actions, got {spec!r}")
        if not isinstance(self.program_kwargs, dict) or not all(isinstance(k, str) for k in self.program_kwargs):
            raise ConfigError("program_kwargs must be a dict with str keys")

    @property
    def rate_rule(self) -> Rule:
        """The sequential rule every rate check decides with (``validation.stats``)."""
        return Rule(self.confidence, self.probe_seed_step, self.max_probe_seeds)

    def zoo(self, kind: str) -> tuple[str, ...]:
        """The shortcut baselines a program of ``kind`` (``"game"``, ``"tool-use"``) is probed with."""
        return self.tool_shortcut_baselines if kind == TOOL_USE_KIND else self.shortcut_baselines

    def enabled(self, check: str) -> bool:
        return check in (self.checks or ())

    def replace(self, **changes: Any) -> ValidationConfig:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["checks"] = list(self.checks or ())
        data["shortcut_baselines"] = list(self.shortcut_baselines)
        data["tool_shortcut_baselines"] = list(self.tool_shortcut_baselines)
        data["hint_baselines"] = list(self.hint_baselines)
        data["baseline_policies"] = [dict(p) for p in self.baseline_policies]
        data["difficulty_levels"] = list(self.difficulty_levels)
        return data


DEFAULT_CONFIG = ValidationConfig()
