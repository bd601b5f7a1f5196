"""``contract``, ``termination`` and ``episode_end``: step() keeps the program contract.

The episode-end rule (documented in ``docs/validation.md``): an episode the player wins
ends ``terminated`` with a positive reward; one lost because the attempts ran out ends
``terminated`` with reward 0; ``truncated`` is for the turn limit only (``max_turns``).
"""

from __future__ import annotations

import math
import re
from typing import Any

from spade_gym.contract import WIN_REWARD
from spade_gym.env.monitor import forged_key
from spade_gym.validation.baselines.zoo import Feed
from spade_gym.validation.checks import check
from spade_gym.validation.context import Abort, Context, Outcome
from spade_gym.validation.episodes import Job, ProbeEpisode
from spade_gym.validation.fuzz import fuzz_corpus, is_degenerate, program_fuzz
from spade_gym.validation.leaks import leaks
from spade_gym.validation.messages import Problem, describe_error, excerpt, format_problems


def episode_error(episode: ProbeEpisode) -> str:
    where = f"turn {episode.error_turn}" if episode.error_turn else "reset"
    text = describe_error(episode.error) if episode.error is not None else "no error"
    if episode.error_action is not None:
        return f"{where}, action {excerpt(episode.error_action)}: {text}"
    return f"{where}: {text}"


def _reward_problems(episodes: list[ProbeEpisode], label: str) -> list[Problem]:
    problems = []
    for episode in episodes:
        for turn, reward in enumerate(episode.rewards, 1):
            if not (math.isfinite(reward) and -1.0 <= reward <= 1.0):
                problems.append(Problem(f"reward:{reward}", f"{label}, seed {episode.seed}, turn {turn}",
                                        f"step() returned reward {reward!r}; rewards must be finite and within "
                                        f"[-1, 1] (a win gives 1.0)"))
                break
    return problems


def _fuzz(ctx: Context, handle, texts: list[str], what: str) -> list[ProbeEpisode]:
    queue = list(texts)
    jobs = [Job(ctx.seeds[i % len(ctx.seeds)], "fuzz", Feed(None, queue)) for i in range(len(texts))]
    return ctx.play(handle, jobs, max_steps=ctx.turn_limit, what=what)


_BOX_CONTENT = re.compile(r"\\boxed\s*\{([^{}]*)\}")


def carries_no_answer(action: str) -> bool:
    """True for an action that gives no answer: no ``\\boxed{}`` at all, or only empty boxes."""
    contents = _BOX_CONTENT.findall(action)
    return "\\boxed" not in action or (bool(contents) and not any(c.strip() for c in contents))


def _false_wins(episodes: list[ProbeEpisode]) -> list[Problem]:
    """Wins on fuzz inputs that carry no answer (unboxed text without the answer, empty boxes):
    the game hands out wins for text an agent sends when it has nothing to say."""
    problems = []
    for episode in episodes:
        for turn, step in enumerate(episode.steps, 1):
            # A text without an answer that still holds the task's answer (``42`` unboxed) is
            # lenient parsing, not a free win: those are compared with the episode's answer.
            answer = step.solution if step.solution is not None else episode.solution0
            if (step.terminated and step.reward > 0 and carries_no_answer(step.action)
                    and not leaks(step.action, answer)):
                problems.append(Problem("false-win", f"fuzz input, seed {episode.seed}, turn {turn}", (
                    f"the action {excerpt(step.action)} won (reward {step.reward:g}) though it gives no answer (the "
                    f"answer was {excerpt(answer)}); only an answer may win")))
    return problems


@check("contract", order=30)
def check_contract(ctx: Context) -> Outcome:
    """``step`` survives fuzzed text and every probe baseline, returning a well-typed 5-tuple.

    Failures on degenerate inputs only (huge numbers, huge texts, deep nesting) are warnings.
    """
    strict = ctx.open_handle(strict=True)
    if ctx.config.enabled("determinism"):
        # This worker is still fresh: play the episodes the determinism check compares with
        # the main worker's now (one worker start less).
        ctx.fresh(strict)
    first = ctx.reset_episodes[0]
    texts = list(fuzz_corpus(ctx.config.fuzz_examples, ctx.config.fuzz_seed))
    texts += program_fuzz(first.obs0 or "", first.solution0)
    realistic = [t for t in texts if not is_degenerate(t)]
    degenerate = [t for t in texts if is_degenerate(t)]
    try:
        fuzz_episodes = _fuzz(ctx, strict, realistic, "fuzzing step()")
    except Abort as abort:
        action = (abort.details or {}).get("action")
        if action is not None:  # name the input the program hung or crashed on
            abort.message += f"\n(the input was {excerpt(action)})"
        raise
    problems: list[Problem] = []
    for episode in fuzz_episodes:
        if episode.error is not None:
            problems.append(Problem(str(episode.error.message), f"fuzz input, seed {episode.seed}",
                                    episode_error(episode)))
    problems += _reward_problems(fuzz_episodes, "fuzz input")
    problems += _false_wins(fuzz_episodes)
    warnings = _degenerate_warnings(ctx, strict, degenerate)
    probe_sets = {"oracle": ctx.oracle(), **ctx.baselines()}
    for name, episodes in probe_sets.items():
        for episode in episodes:
            if episode.error is not None:
                problems.append(Problem(str(episode.error.message), f"policy {name}, seed {episode.seed}",
                                        episode_error(episode)))
        problems += _reward_problems(episodes, f"policy {name}")
    details: dict[str, Any] = {"fuzz_inputs": len(texts), "fuzz_episodes": len(fuzz_episodes),
               "probe_episodes": sum(len(r) for r in probe_sets.values()), "problems": len(problems)}
    if warnings:
        details["warnings"] = warnings
        ctx.warnings.extend(warnings)
    if problems:
        return Outcome(False, format_problems(
            "step() broke the contract (it must never raise and must return (str, float in [-1, 1], bool, bool, "
            "JSON-compatible dict), and only the right answer may win):", problems, "input(s)"), details)
    note = f"; {len(warnings)} warning(s) on degenerate inputs" if warnings else ""
    return Outcome(True, f"step() handled {len(texts)} fuzz inputs and {details['probe_episodes']} probe "
                         f"episodes{note}", details)


def _degenerate_warnings(ctx: Context, handle, texts: list[str]) -> list[str]:
    """Degenerate inputs, each opening an episode: a failure (even a hang or an exhausted limit,
    which the runtime contains) is a warning, not a rejection. A worker killed by one restarts
    for the next."""
    warnings = []
    remaining = list(texts)
    while remaining and ctx.remaining() > 0:
        jobs = [Job(ctx.seeds[i % len(ctx.seeds)], "fuzz", Feed(None, [text])) for i, text in enumerate(remaining)]
        try:
            episodes = ctx.play(handle, jobs, max_steps=1, what="a degenerate input")
        except Abort as abort:
            if (abort.details or {}).get("kind") == "slow":
                raise
            warnings.append(f"one of {len(remaining)} degenerate inputs (e.g. {excerpt(remaining[0], 40)}): "
                            f"{abort.message.splitlines()[0]}")
            break
        for episode in episodes:
            if episode.error is not None:
                warnings.append(f"input {excerpt(episode.error_action, 40)}: "
                                f"{describe_error(episode.error).splitlines()[0]}")
        break
    return warnings


@check("termination", order=40)
def check_termination(ctx: Context) -> Outcome:
    """Every probe episode ends (terminated or truncated) within ``max_turns`` plus the slack."""
    limit = ctx.config.max_turns_limit
    if ctx.max_turns > limit:
        return Outcome(False, f"max_turns is {ctx.max_turns}; validation plays at most {limit} turns per episode, "
                              f"so lower max_turns to {limit} or less", {"max_turns": ctx.max_turns})
    probe_sets = {"oracle": ctx.oracle(), **ctx.baselines()}
    unended = [(name, e) for name, episodes in probe_sets.items() for e in episodes
               if e.error is None and not e.ended]
    total = sum(len(episodes) for episodes in probe_sets.values())
    if not unended:
        return Outcome(True, f"all {total} probe episodes ended within {ctx.turn_limit} turns",
                       {"turn_limit": ctx.turn_limit})
    rule = (f"the episode had not ended after {ctx.turn_limit} turns (max_turns {ctx.max_turns} + slack "
            f"{ctx.config.turn_slack}); step() must return truncated=True once max_turns turns are played")
    problems = [Problem("unended", f"policy {name}, seed {e.seed}", rule) for name, e in unended]
    last = unended[0][1].steps[-1] if unended[0][1].steps else None
    if last is not None:
        problems[0].text += f"\nlast action {excerpt(last.action)} got observation {excerpt(last.obs, 160)}"
    baselines = sorted({name for name, _ in unended})
    headline = f"{len(unended)} of {total} probe episodes never ended (policies: {', '.join(baselines)}):"
    return Outcome(False, format_problems(headline, problems, "episode(s)"),
                   {"unended": len(unended), "turn_limit": ctx.turn_limit})


def _reward_shape_problems(name: str, where: str, e) -> list[Problem]:
    """The reward rules of every step, not only the last (the deployment monitor enforces the
    same rules; see :mod:`spade_gym.env.monitor`)."""
    found = []
    for turn, step in enumerate(e.steps, 1):
        if step.reward >= WIN_REWARD and not step.terminated:
            found.append(Problem("win-without-end", f"{where}policy {name}, seed {e.seed}", (
                f"step() paid {step.reward:g} at turn {turn} without ending the episode (action "
                f"{excerpt(step.action)}); the win reward ends the episode, and no other step pays that much "
                f"(an agent would learn to collect it instead of solving the task)")))
            break
        if step.terminated and step.reward < 0:
            found.append(Problem("lost-penalty", f"{where}policy {name}, seed {e.seed}", (
                f"the episode ended with reward {step.reward:g} at turn {turn}; a lost episode ends with "
                f"reward 0 (only the win pays)")))
            break
        key = forged_key(step.info) if step.info else None
        if key is not None:
            found.append(Problem("host-key", f"{where}policy {name}, seed {e.seed}", (
                f"step() info carries the key {key!r} at turn {turn}, which imitates a key only spade-gym "
                f"writes; choose another name")))
            break
    return found


#: A spamming or random policy's mean return must stay this far below the oracle's.
RETURN_MARGIN = 0.5


@check("episode_end", order=45)
def check_episode_end(ctx: Context) -> Outcome:
    """Out of attempts ends ``terminated`` with reward 0; ``truncated`` only at the turn limit;
    no step pays the win reward without ending the episode; no baseline earns close to the
    oracle's return."""
    problems = []
    total = 0
    for level in ctx.levels():
        probes = ctx.level(level)
        if probes is None:
            continue
        where = "" if level is None else f"difficulty={level!r}, "
        sets = {"oracle": probes.oracle, **probes.baselines, **probes.shortcuts}
        for name, episodes in sets.items():
            for e in episodes:
                if e.error is not None or not e.ended:
                    continue
                total += 1
                last = e.steps[-1]
                if e.truncated and e.turns < probes.max_turns:
                    problems.append(Problem("early-truncation", f"{where}policy {name}, seed {e.seed}", (
                        f"the episode ended truncated=True at turn {e.turns}, before the turn limit "
                        f"(max_turns {probes.max_turns}), after action {excerpt(last.action)} (observation "
                        f"{excerpt(last.obs, 100)}); when the attempts run out, return terminated=True with reward "
                        f"0 - truncated is for the turn limit only")))
                elif e.truncated and last.reward > 0:
                    problems.append(Problem("truncated-reward", f"{where}policy {name}, seed {e.seed}", (
                        f"the episode was truncated with reward {last.reward:g}; a truncated episode is not won "
                        f"and must not be rewarded")))
                elif name == "oracle" and e.terminated and not e.won:
                    continue  # the solvability check reports it
            for e in episodes:
                if e.error is None:
                    problems.extend(_reward_shape_problems(name, where, e))
        # What solving earns (the oracle's won episodes; if it wins none, solvability says so)
        oracle_returns = [sum(s.reward for s in e.steps) for e in probes.oracle if e.error is None and e.won]
        if oracle_returns:
            best = sum(oracle_returns) / len(oracle_returns)
            for name, episodes in {**probes.baselines, **probes.shortcuts}.items():
                # Only the episodes the baseline lost: a won one earns what the oracle earns, and
                # how often a script wins is the shortcut checks' question, not this one's.
                returns = [sum(s.reward for s in e.steps) for e in episodes if e.error is None and not e.won]
                if returns and sum(returns) / len(returns) > best - RETURN_MARGIN:
                    problems.append(Problem("return", f"{where}policy {name}", (
                        f"the {name} baseline's mean return over the episodes it lost is "
                        f"{sum(returns) / len(returns):.2f} against the oracle's {best:.2f}; a policy that does "
                        f"not solve the task must earn well below one that does (margin {RETURN_MARGIN:g}): pay "
                        f"for solving, not for playing")))
    if problems:
        return Outcome(False, format_problems(
            "episodes end or pay against the rules (a win or running out of attempts ends terminated=True, "
            "with reward 1.0 or 0; truncated=True only when max_turns turns were played; only the win pays 1.0):",
            problems,
            "episode(s)"), {"violations": len(problems)})
    return Outcome(True, f"all {total} ended probe episodes follow the episode-end rule", {"episodes": total})
