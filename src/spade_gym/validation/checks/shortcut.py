"""Checks that look for shortcuts: ``difficulty``, ``shortcut``, ``informative``, ``levels``.

The shortcut zoo (:data:`~spade_gym.validation.baselines.zoo.SHORTCUT_BASELINES`) plays every
difficulty level on the run's probe seeds, seeing only observations (and what other
seeds taught it). An environment one of them wins is an environment that teaches the
script; the message says which script, at which level, how often, and what to change.

Levels are judged by the task, not the screen: neighbouring levels must pose other tasks on the
same seeds (``difficulty``), and the hardest must be no easier than the easiest for the zoo and
for the privileged policy (``levels``, a paired difference). ``informative`` asks whether what the
agent sees predicts the answer: a reader beats chance, the answer's random choices reach a screen
(:mod:`spade_gym.validation.information_flow`), or the feedback to legal moves depends on the task.
"""

from __future__ import annotations

import statistics
from math import comb
from typing import Any

from spade_gym.contract import TOOL_USE_KIND
from spade_gym.validation import information_flow
from spade_gym.validation.baselines.zoo import label
from spade_gym.validation.checks import check
from spade_gym.validation.checks.play import oracle_failure
from spade_gym.validation.context import Context, LevelProbes, Outcome, win_rate
from spade_gym.validation.episodes import ProbeEpisode
from spade_gym.validation.evidence import hidden_code, legal_move_feedback, readers_against_chance
from spade_gym.validation.level_rules import (
    oracle_length,
    order_counts,
    paired_rule,
    same_task_problem,
    same_tasks,
    settle_paired,
)
from spade_gym.validation.messages import Problem, describe_error, excerpt, format_problems
from spade_gym.validation.stats import Tally

#: What the designer should change when a shortcut baseline wins.
REPAIRS = {
    "prior": "the answers repeat across tasks: draw each task's answer from a much larger space, so the answers "
             "other tasks had do not win this one",
    "blind_script": "one fixed sequence of moves wins most tasks: make the winning moves depend on what this task "
                    "shows (positions, values, rules), not on the turn number",
    "bisection": "the numeric answer is found by halving its range on the higher/lower feedback within the "
                 "attempts (in whatever words or symbols the feedback uses: the script learns them on other tasks): "
                 "give fewer attempts than log2(range), a wider range, or feedback that must be reasoned about "
                 "rather than followed",
    "marks": "the answer is found by trying candidates consistent with the marks or counts the feedback gives (in "
             "whatever words or symbols: the script learns them on other tasks): use a larger answer space, fewer "
             "attempts, or feedback that must be reasoned about rather than matched",
    "opponent": "the opponent's moves follow a pattern a next-move predictor learns from the record within the "
                "match: make the opponent adapt or randomise, or require more than out-guessing its habit",
    "probe_plan": "the same probing moves on every task make the feedback spell the answer, piece by piece: make "
                  "the useful probes depend on the task, and the feedback something to reason about, not to copy",
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


def _pooled(samples: dict[str, list[ProbeEpisode]]) -> Tally:
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
    problems: list[Problem] = []
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
    # The levels must pose different tasks, not different screens: the privileged policy's episode
    # and solution() on the same seeds (a decorative prefix or a reworded screen changes neither).
    solvable = [level for level in ctx.config.difficulty_levels if level in pooled]
    same_task: dict[str, Any] = {}
    for first, second in zip(solvable, solvable[1:]):
        first_probes, second_probes = ctx.level(first), ctx.level(second)
        if first_probes is None or second_probes is None or first_probes.max_turns != second_probes.max_turns:
            continue  # the attempt budget is part of the task: these levels differ in their rules
        found = same_tasks(ctx, first, second)
        same_task[f"{first}/{second}"] = {**{name: {**e.to_dict(), "limit": round(found["limits"][name], 4)}
                                             for name, e in found["estimates"].items()},
                                          "chance": round(found["chance"], 4)}
        if found["failed"]:
            problems.append(same_task_problem(found))
    details["same_task"] = same_task
    if problems:
        return Outcome(False, format_problems("the difficulty knob is broken:", problems), details)
    ctx.details["difficulty_levels"] = passed
    return Outcome(True, f"levels {', '.join(passed)} load, are solvable and non-trivial, and differ", details)


@check("shortcut", order=85)
def check_shortcut(ctx: Context) -> Outcome:
    """No no-reasoning baseline of the shortcut zoo wins more than ``max_shortcut_win_rate`` at any
    level (a confidence rule with more seeds while uncertain, see ``validation.stats``)."""
    threshold = ctx.config.max_shortcut_win_rate
    samples: dict[tuple[str | None, str], list[ProbeEpisode]] = {}
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
    # a failure stands only where the script's priors never saw the seeds (validation.sampling)
    held_out, held_out_episodes = ctx.confirm_held_out([key for key, e in estimates.items() if e.failed],
                                                       lambda e: e.won, threshold)
    estimates.update(held_out)
    samples.update(held_out_episodes)
    rates: dict[str, dict[str, float]] = {}
    intervals: dict[str, dict[str, dict]] = {}
    problems = []
    for (level, baseline), estimate in estimates.items():
        name = _level_name(level)
        rates.setdefault(name, {})[baseline] = round(estimate.rate, 4)
        intervals.setdefault(name, {})[baseline] = estimate.to_dict()
        if (level, baseline) in held_out:
            intervals[name][baseline]["held_out"] = True
        if estimate.failed:
            episodes = samples[(level, baseline)]
            example = next(e for e in episodes if e.won)
            problems.append(Problem(baseline, f"{label(baseline)}, level {name}", (
                f"won {estimate.wins:g} of {estimate.trials} seeds its priors never saw "
                f"({estimate.rate:.0%} > {threshold:.0%}; "
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


@check("informative", order=90)
def check_informative(ctx: Context) -> Outcome:
    """What the agent sees predicts the answer: a script that reads the screen and the feedback beats
    guessing from other seeds' answers, the answer is computed from random choices the screen or the
    feedback shows (the program's information flow), or the feedback to legal moves depends on the
    task. A first screen that merely differs (a ticket number) is not evidence."""
    seeds = ctx.shortcut_seeds
    oracle = [e for e in ctx.oracle() if e.seed in seeds and e.error is None]
    answers = {e.seed: e.solution0 for e in oracle}
    if len(set(answers.values())) < 2:
        return Outcome(True, "one answer for every probed seed: nothing to tell apart", {"evidence": "none needed"})
    details: dict[str, Any] = {}
    alpha = ctx.config.informative_alpha
    reader = readers_against_chance(ctx, probed_levels(ctx))
    details["readers"] = reader
    if reader is not None and reader["p_value"] < alpha:
        details["evidence"] = "reader"
        return Outcome(True, (
            f"a script that reads what the agent sees beats chance: {label(reader['baseline'])} won "
            f"{reader['wins']} of {reader['seeds']} seeds where guessing from other seeds' answers won "
            f"{reader['chance_wins']} (sign test p = {reader['p_value']:.2g})"), details)
    flow = information_flow.analyse(ctx.source, ctx.class_name, tool_use=ctx.kind == TOOL_USE_KIND)
    details["information_flow"] = {"analysed": flow.analysed, "reaches": flow.reaches, "reason": flow.reason,
                                   "answer_sources": len(flow.answer_sources), "shown": len(flow.shown_sources),
                                   "hidden_lines": flow.hidden_lines}
    if flow.analysed and flow.reaches:
        details["evidence"] = "information flow"
        return Outcome(True, (
            f"the answer is computed from random choices that the screen or the feedback shows "
            f"({len(flow.shown_sources)} of the {len(flow.answer_sources)} it depends on; no script reads it off)"),
            details)
    feedback = legal_move_feedback(ctx, seeds, answers)
    details["feedback"] = feedback
    if feedback["differing_pairs"]:
        details["evidence"] = "feedback"
        example = feedback["example"]
        return Outcome(True, (
            f"the feedback to legal moves depends on the task: {feedback['differing_pairs']} of {feedback['pairs']} "
            f"pairs of seeds sort the {feedback['probes']} probes differently (e.g. seed {example['seeds'][0]} answers "
            f"{excerpt(example['moves'][0], 30)} and {excerpt(example['moves'][1], 30)} "
            f"{'alike' if example['replies'][0][0] == example['replies'][0][1] else 'differently'}, seed "
            f"{example['seeds'][1]} the other way)"), details)
    screens = {e.obs0 for e in oracle}
    if not flow.analysed and len(screens) > 1:
        # the program's flow could not be followed: a screen that differs is the evidence left
        details["evidence"] = "first observation (flow not analysed)"
        return Outcome(True, f"the first observation differs between seeds (the information flow was not analysed: "
                             f"{flow.reason})", details)
    details["evidence"] = None
    example = oracle[0]
    other = next(e for e in oracle if e.solution0 != example.solution0)
    if len(screens) == 1:
        screen = f"every seed shows the same first observation ({excerpt(example.obs0, 100)})"
    else:
        screen = (f"the first observation differs between seeds ({excerpt(example.obs0, 60)} vs "
                  f"{excerpt(other.obs0, 60)}) only in what the answer does not depend on")
    chance_clause = ""
    if reader is not None:
        chance_clause = (f"; no script that reads the screen beats guessing from other seeds' answers (best: "
                         f"{reader['baseline']}, {reader['wins']} of {reader['seeds']} seeds, chance "
                         f"{reader['chance_wins']})")
    hidden = (f"; the answer is drawn by {hidden_code(ctx, flow.hidden_lines)}, which never reaches the screen or the "
              f"feedback before the episode ends") if flow.analysed else ""
    return Outcome(False, (
        f"nothing the agent sees predicts the answer (e.g. {excerpt(example.solution0)} vs "
        f"{excerpt(other.solution0)}): {screen}; on each seed it got the same feedback to every one of "
        f"{feedback['probes']} probes, up to the move's own text ({feedback['legal_moves']} legal moves that won "
        f"other seeds, and fixed probes)"
        f"{chance_clause}{hidden}: the agent can only guess. Derive the answer from what the screen shows, or give "
        f"feedback that depends on it (higher/lower, marks, hits)"), details)


# ----------------------------------------------------------------------------- levels: the order


def inversion_p_value(hard_wins: int, hard_n: int, easy_wins: int, easy_n: int) -> float:
    """P(hard wins >= observed) if both levels shared one win rate: the one-sided Fisher exact test
    on the 2x2 table of wins and losses, from the hypergeometric tail (reported with the profile)."""
    total, wins = hard_n + easy_n, hard_wins + easy_wins
    if hard_n == 0 or easy_n == 0 or wins == 0:
        return 1.0
    tail = sum(comb(wins, k) * comb(total - wins, hard_n - k) for k in range(hard_wins, min(wins, hard_n) + 1))
    return tail / comb(total, hard_n)


@check("levels", order=95)
def check_levels(ctx: Context) -> Outcome:
    """Per level: the zoo's best rate and the privileged episode's length; the hardest level no easier
    than the easiest, for the zoo and for the privileged policy, on the same seeds (a paired interval,
    more seeds while it straddles the slack)."""
    profile: list[dict[str, Any]] = []
    levels = probed_levels(ctx)
    for level, probes in levels:
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
    if len(levels) < 2:
        return Outcome(True, "one level: nothing to order", details)
    (easy, easy_probes), (hard, hard_probes) = levels[0], levels[-1]
    easy_name, hard_name = _level_name(easy), _level_name(hard)
    rule = paired_rule(ctx.config.rate_rule)
    zoo = list(hard_probes.shortcuts)

    def zoo_counts(targets: dict[str, int]) -> dict[str, tuple[int, int, int]]:
        played = ctx.level_samples({(lv, b): n for b, n in targets.items() for lv in (easy, hard)})
        out = {}
        for b, count in targets.items():
            # a seed the baseline played nothing on (it had nothing to go on) is a seed it did not win
            won = [{e.seed: e.won for e in played[(lv, b)]} for lv in (easy, hard)]
            seeds = ctx.stream(count)
            out[b] = order_counts({s: won[0].get(s, False) for s in seeds}, {s: won[1].get(s, False) for s in seeds})
        return out

    def length_counts(targets: dict[str, int]) -> dict[str, tuple[int, int, int]]:
        count = targets["oracle"]
        played = ctx.level_samples({(easy, "oracle"): count, (hard, "oracle"): count})
        # a longer privileged episode is a harder one: "easier" is shorter, so lengths enter negated
        lengths = [{e.seed: tuple(-x for x in oracle_length(e)) for e in played[(lv, "oracle")] if e.won}
                   for lv in (easy, hard)]
        return {"oracle": order_counts(*lengths)}

    zoo_order = settle_paired(rule, {b: ctx.config.shortcut_seeds for b in zoo}, zoo_counts,
                              ctx.config.level_order_slack)
    length_order = settle_paired(rule, {"oracle": ctx.config.shortcut_seeds}, length_counts,
                                 ctx.config.level_length_slack)["oracle"]
    details["order"] = {"levels": [easy_name, hard_name], "zoo": {b: p.to_dict() for b, p in zoo_order.items()},
                        "oracle_length": length_order.to_dict()}
    p_easy, p_hard = profile[0], profile[-1]
    details["order_p_value"] = inversion_p_value(p_hard["best_wins"], p_hard["seeds"], p_easy["best_wins"],
                                                 p_easy["seeds"])
    problems = []
    for baseline, order in zoo_order.items():
        if order.failed:
            problems.append(Problem(baseline, f"shortcut baseline {label(baseline)}", (
                f"on the same {order.n} seeds it won {order.ahead} on {hard_name} that it lost on {easy_name}, and "
                f"the reverse on {order.behind}: net {order.estimate:.0%} of the seeds more often on {hard_name} "
                f"(> {order.slack:.0%}; {order.describe()})")))
    if length_order.failed:
        lengths = {lv: statistics.median(oracle_length(e)[1] for e in probes.oracle if e.won) if
                   any(e.won for e in probes.oracle) else 0 for lv, probes in ((easy_name, easy_probes),
                                                                               (hard_name, hard_probes))}
        problems.append(Problem("oracle", "the privileged policy", (
            f"its episodes are shorter on {hard_name} (median {lengths[hard_name]:g} characters of moves against "
            f"{lengths[easy_name]:g}): shorter on {length_order.ahead} of the same {length_order.n} seeds, longer on "
            f"{length_order.behind} (net {length_order.estimate:.0%} > {length_order.slack:.0%}; "
            f"{length_order.describe()})")))
    if problems:
        return Outcome(False, format_problems(
            f"level {hard_name} is easier than {easy_name}: harder levels must keep every shortcut at least as hard "
            f"and the solution at least as long (more candidates, fewer attempts, longer solutions, more steps):",
            problems), details)
    rows = "; ".join(f"{p['level']}: best baseline {p['best_rate']:.0%} ({p['best_baseline']}), oracle "
                     f"{p['oracle_turns']:g} turn(s)" for p in profile)
    return Outcome(True, f"levels ordered ({rows}); {hard_name} no easier than {easy_name} for the zoo and the "
                         f"privileged policy on the same seeds", details)
