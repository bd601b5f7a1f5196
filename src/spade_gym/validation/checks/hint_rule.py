"""``hint_rule``: a hint may help a reasoning agent; it must not let a script win.

This is the check that protects the regret reward. In self-play the designer is paid the agent's
return with the hint minus its return without it, so the cheapest regret is a game that is hopeless
without its hint and *mechanical* with it: a hint that names the moves to play, the final holding,
the first move, the recipe to apply to the numbers on the screen, the rival's habit. The ``hint``
check only asks whether the hint states the current answer; this one asks what the hint lets a
script do. At every probed level it plays the shortcut zoo the program's kind gets again with the
hint shown as an agent sees it (``hinted:<kind>``) and the hint-reading scripts
(:mod:`spade_gym.validation.baselines.hinted`), and rejects when one of them wins more than
``max_shortcut_win_rate``, decided with the same confidence rule as the shortcut check.

A win on a seed whose hint states that seed's answer outright is the ``hint`` check's finding (it
names the spelling) and is not counted here, so each failure is reported once, by the check that
owns it. The report's ``hint_lift`` (kept on the card) is, per level, how much the hint lifts the
best script: the best rate of a script that may read the hint (ignoring it is one option) minus the
best rate of the zoo without it.
"""

from __future__ import annotations

from typing import Any

from spade_gym.validation.baselines.hinted import HINTED_PREFIX, HINTED_REPAIR, REPAIRS, control_of, hinted_kind
from spade_gym.validation.baselines.zoo import label, make_baseline
from spade_gym.validation.checks import check
from spade_gym.validation.checks.shortcut import REPAIRS as ZOO_REPAIRS
from spade_gym.validation.checks.shortcut import probed_levels
from spade_gym.validation.context import Context, Outcome, win_rate
from spade_gym.validation.episodes import ProbeEpisode
from spade_gym.validation.leaks import leaks
from spade_gym.validation.messages import Problem, excerpt, format_problems
from spade_gym.validation.stats import Tally

Key = tuple[str | None, str]


def _level_name(level: str | None) -> str:
    return "default" if level is None else level


def _hint_seen(episode: ProbeEpisode, given: Any) -> str | None:
    """The hint the episode's agent was shown: ``hint()``'s text, else the given hint."""
    if isinstance(episode.hint0, str) and episode.hint0.strip():
        return episode.hint0
    return given if isinstance(given, str) and given.strip() else None


def _counts(episode: ProbeEpisode, given: Any) -> bool:
    """A win, unless the hint the script saw states this seed's answer (the ``hint`` check's finding)."""
    if not episode.won:
        return False
    hint = _hint_seen(episode, given)
    return not (hint and episode.solution0 and leaks(hint, episode.solution0))


def program_hints(ctx: Context) -> list[str]:
    """Every hint text an agent of this program is shown on the probed seeds (the given hint, the
    ``hint()`` results the load check read)."""
    found = [ctx.hint] if isinstance(ctx.hint, str) and ctx.hint.strip() else []
    found += [e.hint0 for e in ctx.reset_episodes if isinstance(e.hint0, str) and e.hint0.strip()]
    found += [e.hint0 for e in ctx.oracle() if isinstance(e.hint0, str) and e.hint0.strip()] if ctx.handle else []
    return found


def _reads_observation(kind: str) -> bool:
    """Whether a zoo baseline reads what it observes (one that does not plays the same with the hint)."""
    try:
        return bool(make_baseline({"kind": kind}, 0).reads_observation)
    except (ValueError, TypeError):
        return True


def hinted_scripts(zoo: list[str], hint_baselines: tuple[str, ...]) -> list[str]:
    """The scripts the hint rule plays at a level whose zoo is ``zoo``: each zoo baseline that reads its
    observations, with the hint shown, then the hint-reading baselines."""
    return [HINTED_PREFIX + kind for kind in zoo if _reads_observation(kind)] + list(hint_baselines)


def _repair(name: str) -> str:
    inner = hinted_kind(name)
    if inner is not None:
        return f"{HINTED_REPAIR} ({inner}: {ZOO_REPAIRS.get(inner, 'it wins once the hint is on the screen')})"
    return REPAIRS.get(name, HINTED_REPAIR)


@check("hint_rule", order=86)
def check_hint_rule(ctx: Context) -> Outcome:
    """No script that reads the hint (the zoo with the hint shown, the hint-reading baselines) wins
    more than ``max_shortcut_win_rate`` at any level: a hint may help reasoning, never replace it."""
    if not program_hints(ctx):
        return Outcome(True, "no hint (none given, and hint() gave no text on any probed seed): nothing a hint "
                             "could hand a script, so the rule holds trivially", {"hinted": False})
    threshold = ctx.config.max_shortcut_win_rate
    given = ctx.hint
    levels = probed_levels(ctx)
    first = ctx.config.hint_rule_seeds
    wanted = {(level, name): first for level, probes in levels
              for name in hinted_scripts(list(probes.shortcuts), ctx.config.hint_baselines)}
    samples: dict[Key, list[ProbeEpisode]] = dict(ctx.level_samples(wanted)) if wanted else {}

    def tally(key: Key) -> Tally:
        return Tally.of([_counts(e, given) for e in samples[key]])

    def extend(targets: dict[Key, int]) -> dict[Key, Tally]:
        samples.update(ctx.level_samples(targets))
        return {key: tally(key) for key in targets}

    estimates = ctx.config.rate_rule.settle({key: tally(key) for key in samples}, extend, threshold)
    # a failure stands only where the script's priors never saw the seeds (validation.sampling)
    held_out, held_out_episodes = ctx.confirm_held_out([key for key, e in estimates.items() if e.failed],
                                                       lambda e: _counts(e, given), threshold)
    estimates.update(held_out)
    samples.update(held_out_episodes)
    # A script that wins with the hint is judged against itself without it (the zoo baseline unhinted,
    # a hint reader reading the first screen in the hint's place): where that wins too, the screen,
    # not the hint, makes the game mechanical (the shortcut and levels checks' finding, not this one's).
    controls = _controls(ctx, [key for key, estimate in estimates.items() if estimate.failed], first, threshold)
    rates: dict[str, dict[str, float]] = {}
    intervals: dict[str, dict[str, dict]] = {}
    stated: dict[str, dict[str, int]] = {}
    without: dict[str, dict[str, dict]] = {}
    problems = []
    for (level, name), estimate in estimates.items():
        level_name = _level_name(level)
        rates.setdefault(level_name, {})[name] = round(estimate.rate, 4)
        intervals.setdefault(level_name, {})[name] = estimate.to_dict()
        if (level, name) in held_out:
            intervals[level_name][name]["held_out"] = True
        set_aside = sum(e.won and not _counts(e, given) for e in samples[(level, name)])
        if set_aside:
            stated.setdefault(level_name, {})[name] = set_aside
        control = controls.get((level, name))
        if estimate.failed and control is not None and control.failed and _screen_excuses(name):
            without.setdefault(level_name, {})[name] = control.to_dict()
        elif estimate.failed:
            example = next(e for e in samples[(level, name)] if _counts(e, given))
            hint = _hint_seen(example, given) or ""
            problems.append(Problem(name, f"{label(name)}, level {level_name}", (
                f"won {estimate.wins:g} of {estimate.trials} seeds with the hint "
                f"({estimate.rate:.0%} > {threshold:.0%}; "
                f"{estimate.confidence:.0%} interval {estimate.low:.0%}-{estimate.high:.0%}: {estimate.reason()}), "
                f"e.g. seed {example.seed}: shown the hint {excerpt(hint, 100)}, it played "
                f"{', '.join(excerpt(a, 30) for a in example.actions[:4])}"
                f"{', ...' if len(example.actions) > 4 else ''}; without the hint the same script won "
                f"{control.describe() if control else 'nothing'}"
                f"{' (it reads the moves off the screen too)' if control is not None and control.failed else ''}"
                f"\nfix: {_repair(name)}")))
    unhinted: dict[str, dict[str, float]] = {}
    for (level, name), control in controls.items():
        unhinted.setdefault(_level_name(level), {})[control_of(name)] = round(control.rate, 4)
    lift = _lift(ctx, levels, rates, unhinted)
    ctx.details["hint_lift"] = lift
    details: dict[str, Any] = {"hinted": True, "win_rates": rates, "intervals": intervals, "threshold": threshold,
                               "hint_lift": lift, "answer_stated": stated, "also_without_hint": without}
    if problems:
        return Outcome(False, format_problems(
            "with the hint, a script that does no reasoning wins too often (the hint makes the game mechanical: "
            "in self-play that is regret for free):", problems, "level(s)"), details)
    rows = [(rate, name, level) for level, row in rates.items() for name, rate in row.items()]
    worst = max(rows, key=lambda row: row[0], default=(0.0, "none", "default"))  # the first of equals
    lifts = ", ".join(f"{level} +{row['lift']:.0%}" for level, row in lift.items())
    aside = sum(n for row in stated.values() for n in row.values())
    note = (f"; {aside} win(s) on seeds whose hint states the answer are the hint check's to judge" if aside else "")
    if without:
        names = ", ".join(f"{name} (level {level})" for level, row in without.items() for name in row)
        note += (f"; {names} also win(s) without the hint, reading the screen alone: the screen, not the hint, "
                 "makes that mechanical")
    return Outcome(True, f"with the hint shown, the scripts win at most {worst[0]:.0%} ({worst[1]}, level {worst[2]}); "
                         f"the limit is {threshold:.0%}; the hint lifts the best script by {lifts or 'nothing'}{note}",
                   details)


#: Hint readers whose win without the hint is the task's own (the screen states the recipe, the best
#: option is the largest): there the hint adds nothing. The others copy moves, positions or readings:
#: one that wins reading the screen is a shortcut the screen hands over, and fails here all the same.
SCREEN_EXCUSES = frozenset({"hint_arithmetic", "hint_options"})


def _screen_excuses(name: str) -> bool:
    """Whether a win of ``name``'s control leaves the game to other checks: a hinted zoo baseline that
    wins unhinted is the shortcut check's finding; an arithmetic or option reader's is the task's."""
    return hinted_kind(name) is not None or name in SCREEN_EXCUSES


def _controls(ctx: Context, failing: list[Key], first: int, threshold: float) -> dict[Key, Any]:
    """Each failing script's control at its level, settled with the same rule on the held-out seeds its
    failure was confirmed on: key -> its estimate."""
    if not failing:
        return {}
    of = {key: (key[0], control_of(key[1])) for key in failing}
    samples: dict[Key, list[ProbeEpisode]] = dict(ctx.level_samples({control: first for control in of.values()},
                                                                    held_out=True))

    def extend(targets: dict[Key, int]) -> dict[Key, Tally]:
        samples.update(ctx.level_samples(targets, held_out=True))
        return {key: Tally.of([e.won for e in samples[key]]) for key in targets}

    tallies = {key: Tally.of([e.won for e in episodes]) for key, episodes in samples.items()}
    settled = ctx.config.rate_rule.settle(tallies, extend, threshold)
    return {key: settled[control] for key, control in of.items()}


def _lift(ctx: Context, levels: list, hinted: dict[str, dict[str, float]],
          controls: dict[str, dict[str, float]]) -> dict[str, dict[str, Any]]:
    """Per level: the best script that may read the hint (ignoring it is one option) against the best
    script without it (the zoo, and any control played), and the difference."""
    measured = ctx.details.get("shortcut_win_rates") or {}
    out: dict[str, dict[str, Any]] = {}
    for level, probes in levels:
        name = _level_name(level)
        plain = dict(measured.get(name) or {n: win_rate(e) for n, e in probes.shortcuts.items()})
        plain.update(controls.get(name, {}))
        best_plain = max(plain.items(), key=lambda kv: kv[1], default=("none", 0.0))
        options = {**plain, **hinted.get(name, {})}
        best = max(options.items(), key=lambda kv: kv[1], default=("none", 0.0))
        out[name] = {"hinted": round(best[1], 4), "hinted_by": best[0], "unhinted": round(best_plain[1], 4),
                     "unhinted_by": best_plain[0], "lift": round(best[1] - best_plain[1], 4)}
    return out
