"""Checks that look for shortcuts: ``difficulty``, ``shortcut``, ``informative``, ``levels``.

The shortcut zoo (:data:`~spade_gym.validation.policies.SHORTCUT_BASELINES`) plays every
difficulty level on the run's probe seeds, seeing only observations (and what other
seeds taught it). An environment one of them wins is an environment that teaches the
script; the message says which script, at which level, how often, and what to change.
"""

from __future__ import annotations

from math import comb
from typing import Any

from spade_gym.validation.checks import check
from spade_gym.validation.checks.play import oracle_failure
from spade_gym.validation.context import Context, LevelProbes, Outcome, win_rate
from spade_gym.validation.episodes import Episode, Job
from spade_gym.validation.messages import Problem, describe_error, excerpt, format_problems
from spade_gym.validation.policies import CopyEvery, FixedActions, label
from spade_gym.validation.stats import Tally

#: What the designer should change when a shortcut baseline wins.
REPAIRS = {
    "prior": "the answers repeat across tasks: draw each task's answer from a much larger space, so the answers "
             "other tasks had do not win this one",
    "blind_script": "one fixed sequence of moves wins most tasks: make the winning moves depend on what this task "
                    "shows (positions, values, rules), not on the turn number",
    "bisection": "the numeric answer is found by halving its range on the higher/lower feedback within the "
                 "attempts: give fewer attempts than log2(range), a wider range, or feedback that must be reasoned "
                 "about rather than followed",
    "enumeration": "the answer is among the few candidates the screen and the feedback show, and the attempts "
                   "suffice to try them all: show more candidates, allow fewer attempts, never name the answer in "
                   "feedback",
    "copy_every": "the answer is written on the screen among a few tokens: derive it from the task instead of "
                  "displaying it",
    "decode": "the screen or the feedback spells the answer in another form (Roman numerals, number words, another "
              "base or script, reversed, glued into a token, first letters): derive the answer from the task instead "
              "of encoding it",
}


def _level_name(level: str | None) -> str:
    return "default" if level is None else level


def probed_levels(ctx: Context) -> list[tuple[str | None, LevelProbes]]:
    """The levels whose worker loaded and took the difficulty keyword, with their probes."""
    out = []
    for level in ctx.levels():
        probes = ctx.level(level)
        if probes is not None:
            out.append((level, probes))
    return out


def _pooled(samples: dict[str, list[Episode]]) -> Tally:
    """The cheap baselines of one level as one rate: every episode a trial; seeds, the fewest any played."""
    return Tally(sum(e.won for episodes in samples.values() for e in episodes),
                 sum(len(episodes) for episodes in samples.values()),
                 min((len(episodes) for episodes in samples.values()), default=0))


@check("difficulty", order=82)
def check_difficulty(ctx: Context) -> Outcome:
    """If the program has a ``difficulty`` knob, every level loads, is solvable and non-trivial,
    and the levels pose different tasks."""
    ctx.details["difficulty_levels"] = []
    if not ctx.mentions_difficulty:
        return Outcome(True, "no difficulty knob (the program never mentions `difficulty`)", {"levels": []})
    threshold = ctx.config.max_baseline_win_rate
    problems, observations = [], {}
    pooled: dict[str, Tally] = {}
    for level in ctx.config.difficulty_levels:
        probes = ctx.level(level)
        if probes is None:
            error = ctx.level_errors.get(level)
            if error is not None:
                problems.append(Problem(level, f"difficulty={level!r}", f"loading failed: {describe_error(error)}"))
                continue
            return Outcome(True, f"no difficulty knob ({ctx.class_name}.__init__ takes no `difficulty` keyword)",
                           {"levels": []})
        observations[level] = [e.obs0 for e in probes.oracle]
        lost = [e for e in probes.oracle if not e.won]
        if lost:
            problems.append(Problem(level, f"difficulty={level!r}, seed {lost[0].seed}",
                                    f"the privileged policy lost {len(lost)} of {len(probes.oracle)} seeds: "
                                    f"{oracle_failure(lost[0], ctx.oracle_description)[1]}"))
            continue
        pooled[level] = _pooled(probes.baselines)
    # The cheap baselines of a level, pooled, against the non-triviality limit: decided with the
    # confidence rule, playing every cheap baseline on more seeds of the level while uncertain.
    names = list(ctx.baseline_specs())

    def extend(targets: dict[str, int]) -> dict[str, Tally]:
        return {level: _pooled(ctx.samples(level, {name: count for name in names}))
                for level, count in targets.items()}

    estimates = ctx.config.rate_rule.settle(pooled, extend, threshold)
    for level, estimate in estimates.items():
        if estimate.failed:
            problems.append(Problem(level, f"difficulty={level!r}", (
                f"baselines won {estimate.wins:g} of {estimate.trials} episodes ({estimate.rate:.0%} > "
                f"{threshold:.0%}; {estimate.confidence:.0%} interval {estimate.low:.0%}-{estimate.high:.0%}: "
                f"{estimate.reason()})")))
    passed = [level for level in ctx.config.difficulty_levels if level in estimates and not estimates[level].failed]
    details: dict[str, Any] = {"levels": passed,
                               "baseline_intervals": {level: e.to_dict() for level, e in estimates.items()}}
    if len(observations) > 1 and all(len(set(column)) == 1 for column in zip(*observations.values())):
        problems.append(Problem("same", "all levels", "every level posed the same task for the same seed: the "
                                                       "difficulty keyword has no effect"))
    if problems:
        return Outcome(False, format_problems("the difficulty knob is broken:", problems), details)
    ctx.details["difficulty_levels"] = passed
    return Outcome(True, f"levels {', '.join(passed)} load, are solvable and non-trivial, and differ", details)


@check("shortcut", order=85)
def check_shortcut(ctx: Context) -> Outcome:
    """No no-reasoning baseline of the shortcut zoo wins more than ``max_shortcut_win_rate`` at any
    level (a confidence rule with more seeds while uncertain, see ``validation.stats``)."""
    threshold = ctx.config.max_shortcut_win_rate
    samples: dict[tuple[str | None, str], list[Episode]] = {}
    levels: dict[str, str | None] = {}
    for level, probes in probed_levels(ctx):
        levels[_level_name(level)] = level
        for baseline, episodes in probes.shortcuts.items():
            samples[(level, baseline)] = episodes

    def extend(targets: dict[tuple[str | None, str], int]) -> dict[tuple[str | None, str], Tally]:
        samples.update(ctx.level_samples(targets))
        return {key: Tally.of([e.won for e in samples[key]]) for key in targets}

    estimates = ctx.config.rate_rule.settle({key: Tally.of([e.won for e in episodes])
                                             for key, episodes in samples.items()}, extend, threshold)
    rates: dict[str, dict[str, float]] = {}
    intervals: dict[str, dict[str, dict]] = {}
    problems = []
    for (level, baseline), estimate in estimates.items():
        name = _level_name(level)
        rates.setdefault(name, {})[baseline] = round(estimate.rate, 4)
        intervals.setdefault(name, {})[baseline] = estimate.to_dict()
        if estimate.failed:
            episodes = samples[(level, baseline)]
            example = next(e for e in episodes if e.won)
            problems.append(Problem(baseline, f"{label(baseline)}, level {name}", (
                f"won {estimate.wins:g} of {estimate.trials} seeds ({estimate.rate:.0%} > {threshold:.0%}; "
                f"{estimate.confidence:.0%} interval {estimate.low:.0%}-{estimate.high:.0%}: {estimate.reason()}), "
                f"e.g. seed {example.seed} with {', '.join(excerpt(a, 30) for a in example.actions[-3:])}\n"
                f"fix: {REPAIRS.get(baseline, 'make the answer depend on reasoning about the task')}")))
    # ``shortcut_win_rates`` keeps its meaning (level -> baseline -> observed rate, now over every
    # seed played); ``shortcut_win_intervals`` has the counts and the interval behind each.
    ctx.details["shortcut_win_rates"] = rates
    ctx.details["shortcut_win_intervals"] = intervals
    worst = max(((rate, baseline, level) for level, row in rates.items() for baseline, rate in row.items()),
                default=(0.0, "none", "default"))
    worst_interval = intervals.get(worst[2], {}).get(worst[1])
    details = {"win_rates": rates, "intervals": intervals,
               "worst": {"baseline": worst[1], "rate": worst[0], "level": worst[2], "interval": worst_interval},
               "threshold": threshold}
    if problems:
        return Outcome(False, format_problems(
            "a script that does no reasoning wins the game too often (it would teach the script, not the skill):",
            problems, "level(s)"), details)
    shown = f": {estimates[(levels[worst[2]], worst[1])].describe()}" if worst_interval else ""
    return Outcome(True, f"the shortcut baselines win at most {worst[0]:.0%} ({worst[1]}, level {worst[2]}{shown}); "
                         f"the limit is {threshold:.0%}", details)


#: Fixed probe answers, the same for every seed and every program (no seed's answer in them).
FIXED_PROBES = ("\\boxed{0}", "\\boxed{1}", "\\boxed{50}", "\\boxed{500}", "\\boxed{a}", "\\boxed{yes}",
                "\\boxed{north}", "\\boxed{1 2 3}")


def _transcript(episode) -> tuple:
    return (episode.obs0, *(step.obs for step in episode.steps))


@check("informative", order=90)
def check_informative(ctx: Context) -> Outcome:
    """Seeds with different answers are told apart by what the agent sees: the first observation,
    or the feedback to fixed probes. If every seed looks the same, the agent can only guess."""
    seeds = ctx.shortcut_seeds
    oracle = [e for e in ctx.oracle() if e.seed in seeds]
    solutions = {e.seed: e.solution0 for e in oracle}
    if len(set(solutions.values())) < 2:
        return Outcome(True, "one answer for every probed seed: nothing to tell apart", {"probes": 0})
    if len({e.obs0 for e in oracle}) > 1:
        return Outcome(True, "the first observation differs between seeds", {"probes": 0})
    numbers = sorted(float(s) for s in solutions.values() if s and s.strip().lstrip("-").isdigit())
    fixed = list(FIXED_PROBES)
    if numbers:  # the middle of the answers' range: a probe that any higher/lower feedback answers
        fixed.insert(0, f"\\boxed{{{int((numbers[0] + numbers[-1]) / 2)}}}")
    jobs = [Job(seed, "fixed", FixedActions(None, fixed), first_solution=False) for seed in seeds]
    jobs += [Job(seed, "copy_every", CopyEvery(None), first_solution=False) for seed in seeds]
    episodes = ctx.play(ctx.main, jobs, max_steps=ctx.turn_limit, what="fixed probes")
    episodes += [e for e in ctx.baselines().get("empty", []) if e.seed in seeds]
    by_probe: dict[str, set] = {}
    for e in episodes:
        by_probe.setdefault(e.policy, set()).add(_transcript(e))
    varied = sorted(name for name, transcripts in by_probe.items() if len(transcripts) > 1)
    details = {"probes": len(by_probe), "informative_probes": varied}
    if not varied:
        example = oracle[0]
        return Outcome(False, (
            f"every seed showed the same first observation ({excerpt(example.obs0, 100)}) and got the same feedback "
            f"to every fixed probe, while the answers differ (e.g. {excerpt(oracle[0].solution0)} vs "
            f"{excerpt(oracle[1].solution0)}): the agent can only guess; show the evidence the answer follows "
            f"from, or give feedback that narrows it down"), details)
    return Outcome(True, f"the feedback to {', '.join(varied)} differs between seeds", details)


def inversion_p_value(hard_wins: int, hard_n: int, easy_wins: int, easy_n: int) -> float:
    """P(hard wins >= observed) if both levels shared one win rate: the one-sided Fisher exact test
    on the 2x2 table of wins and losses, from the hypergeometric tail."""
    total, wins = hard_n + easy_n, hard_wins + easy_wins
    if hard_n == 0 or easy_n == 0 or wins == 0:
        return 1.0
    tail = sum(comb(wins, k) * comb(total - wins, hard_n - k) for k in range(hard_wins, min(wins, hard_n) + 1))
    return tail / comb(total, hard_n)


@check("levels", order=95)
def check_levels(ctx: Context) -> Outcome:
    """Per level: the baselines' best rate and the privileged solution's length; hard no easier than easy."""
    profile: list[dict[str, Any]] = []
    for level, probes in probed_levels(ctx):
        # The shortcut zoo plays the same seeds at every level (the cheap baselines play fewer
        # off the default level), so its rates compare across levels.
        rates = {name: win_rate(eps) for name, eps in probes.shortcuts.items()}
        best = max(rates.items(), key=lambda kv: kv[1]) if rates else ("none", 0.0)
        episodes = probes.shortcuts.get(best[0], [])
        profile.append({"level": _level_name(level), "best_baseline": best[0], "best_rate": best[1],
                        "best_wins": sum(e.won for e in episodes), "seeds": len(episodes),
                        "oracle_turns": probes.oracle_turns, "solution_chars": probes.solution_chars,
                        "oracle_win_rate": win_rate(probes.oracle)})
    ctx.details["level_profile"] = profile
    details: dict[str, Any] = {"profile": profile}
    if len(profile) >= 2:
        easy, hard = profile[0], profile[-1]
        slack = ctx.config.level_order_slack
        # A handful of probe seeds per level: one lucky streak on hard must not read as an
        # inverted ordering (over a suite, some level of some env always has one). Reject only
        # when the difference is also unlikely under equal rates (one-sided Fisher exact test).
        p_value = inversion_p_value(hard["best_wins"], hard["seeds"], easy["best_wins"], easy["seeds"])
        details["order_p_value"] = p_value
        if hard["best_rate"] > easy["best_rate"] + slack and p_value < ctx.config.level_order_alpha:
            return Outcome(False, (
                f"level {hard['level']} is easier than {easy['level']}: the best baseline wins {hard['best_rate']:.0%} "
                f"({hard['best_baseline']}) there against {easy['best_rate']:.0%} on {easy['level']}; harder levels "
                f"must keep every shortcut at least as hard (more candidates, fewer attempts, longer solutions)"),
                details)
    rows = "; ".join(f"{p['level']}: best baseline {p['best_rate']:.0%} ({p['best_baseline']}), oracle "
                     f"{p['oracle_turns']:g} turn(s)" for p in profile)
    return Outcome(True, f"levels ordered ({rows})", details)
