"""``determinism``, ``diversity`` and ``distinct_solutions``: a seed is a task, tasks differ."""

from __future__ import annotations

import math
import random
from typing import Any

from spade_gym.errors import SandboxError
from spade_gym.sandbox.call_results import Failed
from spade_gym.sandbox.wire.protocol import Reset
from spade_gym.validation.checks import check
from spade_gym.validation.context import (
    ORACLE,
    REPLAY_BASELINE,
    Abort,
    Context,
    DeadlineHit,
    Outcome,
    most_common_share,
)
from spade_gym.validation.episodes import ProbeEpisode
from spade_gym.validation.messages import Problem, describe_error, excerpt, format_problems
from spade_gym.validation.stats import Tally

#: Seeds replayed after the long run of resets.
LONG_RUN_SEEDS = 2


def task_difference(a: ProbeEpisode, b: ProbeEpisode) -> tuple[str, str] | None:
    """("task", description) if two episodes of the same seed were posed different tasks (the
    first observation or the solution right after reset), else None."""
    seed = a.seed
    if a.obs0 != b.obs0:
        return "task", (f"reset(seed={seed}) gave different observations: {excerpt(a.obs0, 120)} vs "
                        f"{excerpt(b.obs0, 120)}")
    if a.solution0 != b.solution0:
        return "task", (f"solution() right after reset(seed={seed}) gave {excerpt(a.solution0)} vs "
                        f"{excerpt(b.solution0)}")
    return None


def first_difference(a: ProbeEpisode, b: ProbeEpisode) -> tuple[str, str] | None:
    """(kind, description) of how two episodes of the same seed and policy differ, or None."""
    task = task_difference(a, b)
    if task is not None or a.digest == b.digest:
        return task
    for turn, (sa, sb) in enumerate(zip(a.steps, b.steps), 1):
        if sa == sb:
            continue
        if sa.action != sb.action:
            return "step", (f"turn {turn}: the same policy chose different actions ({excerpt(sa.action)} vs "
                            f"{excerpt(sb.action)}), so solution() or the observation differed")
        return "step", (f"turn {turn}, action {excerpt(sa.action)}: step() returned {excerpt(sa.obs, 100)} (reward "
                        f"{sa.reward:g}) vs {excerpt(sb.obs, 100)} (reward {sb.reward:g})")
    if a.turns != b.turns:
        return "length", f"the episode lasted {a.turns} vs {b.turns} turns"
    return "step", "the step results (observations, rewards or info) differed"


def _long_run(ctx: Context) -> tuple[int, dict[str, list[ProbeEpisode]]]:
    """Reset instance 0 of the main worker a number of times drawn from the run seed, then
    replay the privileged policy and a wrong-answer baseline there: behaviour kept good for the
    first N resets only shows. A deadline hit anywhere replays the whole run (resets included)
    at longer deadlines, once."""
    high = ctx.config.long_run_resets
    if high <= 0:
        return 0, {}
    resets = random.Random(f"long-run:{ctx.run_seed}").randint(max(1, high // 4), high)
    return resets, ctx.with_deadline_retry(ctx.main, "resetting repeatedly", lambda: _long_run_once(ctx, resets))


def _long_run_once(ctx: Context, resets: int) -> dict[str, list[ProbeEpisode]]:
    seeds = ctx.seeds[:LONG_RUN_SEEDS]
    scale = ctx.deadline_scale(ctx.main)
    done = 0
    while done < resets:
        chunk = min(200, resets - done)
        items = [Reset(0, ctx.seeds[(done + k) % len(ctx.seeds)]) for k in range(chunk)]
        try:
            results = ctx.main.batch(items, timeout=ctx.timeout_for(chunk, "resetting repeatedly", scale))
        except SandboxError as exc:
            if ctx.remaining() <= 0.1:
                raise ctx.budget_abort(f"resetting one instance {resets} times") from None
            abort = Abort(f"resetting one instance {resets} times: {describe_error(exc)}", {"kind": exc.kind})
            if exc.kind == "timeout":
                raise DeadlineHit(abort) from None
            raise abort from None
        failed = next((r for r in results if isinstance(r, Failed)), None)
        if failed is not None:
            kind = failed.error.kind
            abort = Abort(f"reset() failed after {done} resets in one instance: {describe_error(failed.error)}",
                          {"kind": kind})
            if kind == "timeout":
                raise DeadlineHit(abort)
            raise abort
        done += chunk
    jobs = ctx.jobs(ORACLE, seeds) + ctx.jobs(REPLAY_BASELINE, seeds)
    episodes = ctx.play(ctx.main, jobs, max_steps=ctx.turn_limit, what="replaying after many resets", slots=1)
    return {"oracle": [e for e in episodes if e.baseline == "oracle"],
            "random_words": [e for e in episodes if e.baseline == "random_words"]}


@check("determinism", order=50)
def check_determinism(ctx: Context) -> Outcome:
    """The same seed gives the same task and the same step results: again in the same worker,
    in a fresh worker, and after many resets of one instance."""
    problems: list[Problem] = []
    seen: set[tuple] = set()

    def note(seed: int, label: str, baseline: str, difference: tuple[str, str]) -> None:
        kind, text = difference
        if (seed, label, kind) not in seen:  # one report per seed and cause, whatever the baseline
            seen.add((seed, label, kind))
            problems.append(Problem(f"{label}:{kind}", f"seed {seed}, {label}, policy {baseline}", text))

    oracle = ctx.oracle()
    for reset_episode, oracle_episode in zip(ctx.reset_episodes, oracle):
        difference = task_difference(reset_episode, oracle_episode)
        if difference:
            note(reset_episode.seed, "reset again in the same worker", "oracle", difference)
    fresh = ctx.fresh()
    # (The long run replays in the same worker after many episodes: it covers "again in the
    # same worker" too.)
    resets, long_run = _long_run(ctx)
    comparisons = [
        ("a fresh worker", "oracle", oracle, fresh["oracle"]),
        ("a fresh worker", "random_words", ctx.baselines().get("random_words", []), fresh["random_words"]),
    ]
    for baseline, replayed in long_run.items():
        first = oracle if baseline == "oracle" else ctx.baselines().get(baseline, [])
        by_seed = {e.seed: e for e in first}
        comparisons.append((f"the same instance after {resets} resets", baseline,
                            [by_seed[e.seed] for e in replayed if e.seed in by_seed],
                            [e for e in replayed if e.seed in by_seed]))
    for label, baseline, first, second in comparisons:
        for a, b in zip(first, second):
            if a.error is not None or b.error is not None:
                continue  # the contract check reports failing episodes
            difference = first_difference(a, b)
            if difference:
                note(a.seed, label, baseline, difference)
    if problems:
        return Outcome(False, format_problems(
            "the same seed did not give the same episode (draw every random choice from a generator seeded in "
            "reset(seed), never at import or in __init__, and reset all state in reset()):", problems, "seed(s)"),
            {"mismatches": len(problems)})
    return Outcome(True, f"{len(ctx.seeds)} seeds replayed identically in a fresh worker, and {LONG_RUN_SEEDS} in "
                         f"the same instance after {resets} resets", {"long_run_resets": resets})


@check("diversity", order=60)
def check_diversity(ctx: Context) -> Outcome:
    """Different seeds pose different tasks.

    A task is the first observation, the first solution *and* the privileged policy's
    whole episode: games with hidden state legitimately open every seed with the same
    screen, but the winning play differs with the secret.
    """
    episodes = ctx.reset_episodes
    oracle_digest = {e.seed: e.digest for e in ctx.oracle()}
    tasks: dict[tuple, list[int]] = {}
    for e in episodes:
        tasks.setdefault((e.obs0, e.solution0, oracle_digest.get(e.seed)), []).append(e.seed)
    distinct = len(tasks)
    needed = max(2, math.ceil(ctx.config.min_distinct_tasks * len(episodes))) if len(episodes) > 1 else 1
    details = {"distinct_tasks": distinct, "seeds": len(episodes),
               "distinct_observations": len({e.obs0 for e in episodes}),
               "distinct_solutions": len({e.solution0 for e in episodes})}
    if distinct >= needed:
        return Outcome(True, f"{distinct} distinct tasks over {len(episodes)} seeds", details)
    biggest = max(tasks.values(), key=len)
    example = next(e for e in episodes if e.seed == biggest[0])
    return Outcome(False, (
        f"only {distinct} distinct task(s) over {len(episodes)} seeds (at least {needed} needed): seeds "
        f"{', '.join(map(str, biggest[:8]))}{'...' if len(biggest) > 8 else ''} all gave the observation "
        f"{excerpt(example.obs0, 120)} with solution {excerpt(example.solution0)}, and the privileged policy played "
        f"them identically; reset(seed) must draw a new task from its seed"), details)


@check("distinct_solutions", order=65)
def check_distinct_solutions(ctx: Context) -> Outcome:
    """No single answer (the privileged policy's whole action sequence) wins most seeds: the share of
    the most common one among the won seeds, decided with the confidence rule (``validation.stats``),
    on more seeds while uncertain."""
    limit = ctx.config.max_same_solution_share
    rule = ctx.config.rate_rule
    first = max(len(ctx.seeds), ctx.config.shortcut_seeds)
    found: dict[str, Any] = {}

    def tally(count: int) -> Tally:
        wins = [e for e in ctx.sample(None, "oracle", count) if e.won]
        answer, share = most_common_share([tuple(e.actions) for e in wins])
        found.update(answer=answer, share=share)
        return Tally(round(share * len(wins)), len(wins), count)

    first_tally = tally(first)
    if first_tally.trials > 1:
        estimate = rule.settle({"same": first_tally}, lambda targets: {"same": tally(targets["same"])}, limit)["same"]
    else:  # one win is no pattern (as before): nothing to judge until two seeds are won
        estimate = rule.judge(Tally(0, first_tally.trials, first_tally.seeds), limit)
    share, answer = found["share"], found["answer"]
    details = {"same_answer_share": round(share, 4), "interval": estimate.to_dict()}
    if estimate.failed:
        shown = " then ".join(excerpt(a, 40) for a in answer[:4]) if answer else "''"
        return Outcome(False, (
            f"the same answer ({shown}) wins {share:.0%} of the seeds (limit {limit:.0%}; {estimate.wins:g} of "
            f"{estimate.trials} won seeds, {estimate.confidence:.0%} interval {estimate.low:.0%}-{estimate.high:.0%}: "
            f"{estimate.reason()}): an agent can memorise it without reading the task; draw the answer from the "
            f"seed"), details)
    return Outcome(True, f"the most common answer wins {share:.0%} of the seeds ({estimate.describe()}); the limit "
                         f"is {limit:.0%}", details)
