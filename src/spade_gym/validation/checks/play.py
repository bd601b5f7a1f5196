"""``solvability`` and ``non_triviality``: the privileged policy wins, cheap baselines do not."""

from __future__ import annotations

import statistics

from spade_gym.validation.baselines.zoo import label
from spade_gym.validation.checks import check
from spade_gym.validation.checks.contract import episode_error
from spade_gym.validation.context import Context, Outcome
from spade_gym.validation.episodes import ProbeEpisode
from spade_gym.validation.messages import Problem, excerpt, format_problems
from spade_gym.validation.stats import Tally


def oracle_failure(episode: ProbeEpisode, how: str = "answering \\boxed{<solution()>} each turn") -> tuple[str, str]:
    """(kind, description) of an episode the privileged policy did not win."""
    if episode.error is not None:
        return "error:" + str(episode.error.message), "the episode failed at " + episode_error(episode)
    last = episode.steps[-1] if episode.steps else None
    rewards = episode.rewards
    tail = f"; last action {excerpt(last.action)} got {excerpt(last.obs, 120)}" if last else ""
    if not episode.ended:
        return "unended", (f"{how}, {episode.turns} turns never ended the episode{tail}")
    if not episode.terminated:
        return "truncated", (f"the episode was truncated after {episode.turns} turn(s) without a win (rewards "
                             f"{rewards}): step() does not accept what solution() returns{tail}")
    if not rewards or rewards[-1] <= 0:
        return "lost", (f"the episode terminated at turn {episode.turns} with reward "
                        f"{rewards[-1] if rewards else None}: answering solution() loses{tail}")
    return "not-max", (f"the episode terminated with final reward {rewards[-1]}, below the episode's best reward "
                       f"{max(rewards)}; a win must end with the highest reward{tail}")


@check("solvability", order=70)
def check_solvability(ctx: Context) -> Outcome:
    """The privileged policy (``\\boxed{<solution()>}``, re-read every turn) wins on every seed."""
    episodes = ctx.oracle()
    wins = [e for e in episodes if e.won]
    turns = [e.turns for e in wins]
    if turns:
        ctx.details["oracle_turns"] = statistics.median(turns)
        ctx.details["multi_turn"] = sum(t > 1 for t in turns) > len(episodes) / 2
    failures = []
    for e in episodes:
        if not e.won:
            kind, text = oracle_failure(e, ctx.oracle_description)
            failures.append(Problem(kind, f"seed {e.seed}", text))
    details = {"wins": len(wins), "seeds": len(episodes), "oracle_turns": ctx.details.get("oracle_turns")}
    if failures:
        return Outcome(False, format_problems(
            f"the privileged policy ({ctx.oracle_description}) won only {len(wins)} of "
            f"{len(episodes)} seeds:", failures, "seed(s)"), details)
    return Outcome(True, f"the privileged policy won all {len(episodes)} seeds (median {ctx.details['oracle_turns']:g} "
                         f"turn(s))", details)


@check("non_triviality", order=80)
def check_non_triviality(ctx: Context) -> Outcome:
    """Cheap baselines win on at most ``max_baseline_win_rate`` of the seeds each (a confidence
    rule with more seeds while uncertain, see ``validation.stats``)."""
    threshold = ctx.config.max_baseline_win_rate
    rule = ctx.config.rate_rule
    specs = ctx.baseline_specs()
    baselines = ctx.baselines()
    samples: dict[str, list[ProbeEpisode]] = dict(baselines)

    def extend(targets: dict[str, int]) -> dict[str, Tally]:
        samples.update(ctx.samples(None, targets))
        return {name: Tally.of([e.won for e in samples[name]]) for name in targets}

    estimates = rule.settle({name: Tally.of([e.won for e in episodes]) for name, episodes in baselines.items()},
                            extend, threshold)
    rates = {name: round(e.rate, 4) for name, e in estimates.items()}
    intervals = {name: e.to_dict() for name, e in estimates.items()}
    problems = []
    for name, estimate in estimates.items():
        if estimate.failed:
            winners = [e for e in samples[name] if e.won]
            actions = winners[0].actions
            problems.append(Problem(name, f"baseline {label(specs[name])}", (
                f"won {estimate.wins:g} of {estimate.trials} seeds ({estimate.rate:.0%} > {threshold:.0%}; "
                f"{estimate.confidence:.0%} interval {estimate.low:.0%}-{estimate.high:.0%}: {estimate.reason()}), "
                f"e.g. seed {winners[0].seed} with {', '.join(excerpt(a, 40) for a in actions[-3:])}")))
    # ``baseline_win_rates`` keeps its meaning (each baseline's observed rate, now over every seed it
    # played); ``baseline_win_intervals`` says how sure that is.
    ctx.details["baseline_win_rates"] = rates
    ctx.details["baseline_win_intervals"] = intervals
    details = {"baseline_win_rates": rates, "intervals": intervals, "threshold": threshold}
    if problems:
        return Outcome(False, format_problems(
            "the game is too easy to win without solving it (use a larger answer space, exact answers, fewer "
            "attempts):", problems), details)
    if not estimates:
        return Outcome(True, f"no baselines to play; the limit is {threshold:.0%}", details)
    worst_name, worst = max(estimates.items(), key=lambda kv: kv[1].rate)
    highest = max(e.high for e in estimates.values())
    return Outcome(True, f"baselines win at most {worst.rate:.0%} ({worst_name}) of seeds (the {rule.confidence:.0%} "
                         f"intervals reach {highest:.0%} at most); the limit is {threshold:.0%}", details)
