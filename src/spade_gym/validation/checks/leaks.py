"""``hint`` and ``info_leak``: nothing hands the agent the answer, in any spelling.

"Any spelling" is decided by decoding (:mod:`spade_gym.decoding`): a text leaks a solution
when some reading of it (number words, Roman numerals, another base, reversed, an acrostic...)
is that solution; the message says which spelling it was.
"""

from __future__ import annotations

from typing import Any

from spade_gym.validation.checks import check
from spade_gym.validation.context import Context, Outcome
from spade_gym.validation.leaks import flatten_info, leaks, normalise, spelling
from spade_gym.validation.messages import Problem, excerpt, format_problems

#: Shortest normalised solution an info value is searched for (shorter ones are compared whole).
INFO_SUBSTRING_CHARS = 3
#: Longest normalised solution a fixed hint may contain by coincidence ("be", "3", "no").
COINCIDENCE_CHARS = 3


def static_hint_tolerance(seeds: int) -> int:
    """Seeds whose short answer a fixed hint may name by coincidence: one in eight, at least one."""
    return max(1, seeds // 8)


def _coincidence(text: str, solution: str, tolerated: int, others: list[str] | None = None) -> bool:
    """Can this text meet this answer by chance (see :func:`check_hint`)?

    For a fixed hint (``others`` None): a short answer, or one only a stretch of first letters
    spells. For one episode's ``hint()``: only a stretch of first letters, and only where the
    hints of at least half the other episodes (whose answers differ) spell it too - then the
    stretch lies in the text every episode shares and says nothing about which task this is,
    while an acrostic written for this episode's answer appears in this episode's hint alone.
    """
    if not tolerated:
        return False
    if others is None:
        return len(normalise(solution)) <= COINCIDENCE_CHARS or not leaks(text, solution, windows=False)
    if leaks(text, solution, windows=False) or not others:
        return False
    shared = sum(leaks(other, solution) for other in others)
    return shared * 2 >= len(others)


@check("hint", order=100)
def check_hint(ctx: Context) -> Outcome:
    """A given hint, and every ``hint()`` result: non-empty, bounded, never the solution in any spelling.

    A given hint applies to every episode, so it is compared with every seed's solution; a
    per-episode ``hint()`` is compared with its own episode's solution.
    """
    limit = ctx.config.hint_max_chars
    problems: list[Problem] = []
    program_hints = [(e.seed, e.hint0, e.solution0) for e in ctx.reset_episodes if e.hint0 is not None]
    has_method = bool(ctx.main.info.get("has_hint"))
    if ctx.hint is None and not has_method:
        return Outcome(True, "no hint given and no hint() method: nothing to check", {"hint": None})

    def inspect(text: Any, where: str, solutions: list[tuple[int, str | None]], *, tolerated: int = 0,
                others: list[str] | None = None) -> None:
        if not isinstance(text, str):
            problems.append(Problem("type", where, f"the hint must be text, got {type(text).__name__}"))
            return
        if not text.strip():
            problems.append(Problem("empty", where, "the hint is empty"))
            return
        if len(text) > limit:
            problems.append(Problem("long", where, f"the hint is {len(text)} characters long; the limit is {limit}"))
        leaked = [(seed, solution) for seed, solution in solutions if solution and leaks(text, solution)]
        # Within the tolerance only coincidences pass: short answers, and answers that only a stretch
        # of the first letters spells (a hint of L words offers L - k + 1 stretches of k letters to
        # every seed's answer). A long answer the text names any other way is a leak even once.
        chance = all(_coincidence(text, solution, tolerated, others) for _, solution in leaked)
        if len(leaked) > tolerated or not chance:
            seed, solution = leaked[0]
            problems.append(Problem("leak", where, (
                f"the hint {excerpt(text, 120)} contains the solution of seed {seed} ({excerpt(solution)}) "
                f"{spelling(text, solution)}; a hint must point to the approach, never give the answer")))

    if ctx.hint is not None:
        # One text for every episode carries no information about which task this is: it gives
        # answers away only where it names the answer of many tasks. A short answer ("BE", "3")
        # turning up once as an ordinary word among the fresh probe seeds is a coincidence.
        episodes = ctx.reset_episodes
        inspect(ctx.hint, "the given hint", [(e.seed, e.solution0) for e in episodes],
                tolerated=static_hint_tolerance(len(episodes)))
    for seed, text, solution in program_hints:
        others = [other for other_seed, other, answer in program_hints
                  if other_seed != seed and answer != solution and isinstance(other, str)]
        inspect(text, f"hint() for seed {seed}", [(seed, solution)], tolerated=1, others=others)
    if has_method and not program_hints:
        problems.append(Problem("none", "hint()", "hint() is defined but returned None on every seed"))
    details = {"given": ctx.hint is not None, "method": has_method}
    if problems:
        return Outcome(False, format_problems("the hint is unusable:", problems, "seed(s)"), details)
    checked = (["the given hint"] if ctx.hint is not None else []) + ([f"hint() on {len(program_hints)} seeds"]
                                                                       if program_hints else [])
    return Outcome(True, f"{' and '.join(checked)}: non-empty, at most {limit} characters, no solution leaked", details)


def _info_leak(info: dict, solution: str | None) -> str | None:
    """The info value that gives ``solution`` away, if one does."""
    if not solution or not info:
        return None
    target = normalise(solution)
    for path, value in flatten_info(info):
        normal = normalise(value)
        if normal == target or (len(target) >= INFO_SUBSTRING_CHARS and leaks(value, solution)):
            return f"{path} = {excerpt(value, 60)}"
    return None


@check("info_leak", order=105)
def check_info_leak(ctx: Context) -> Outcome:
    """``info`` from ``reset`` and from every step before the end never carries the current answer.

    Agents and wrappers pass ``info`` along; an answer there is an answer handed over. A
    leak counts when it is systematic (on at least half the seeds whose answers differ):
    a small counter that happens to equal a one-digit answer is not one.
    """
    episodes = [e for e in ctx.oracle() + ctx.baselines().get("random_words", []) if e.error is None]
    leaked: dict[int, str] = {}
    for e in episodes:
        found = _info_leak(e.info0, e.solution0)
        where = "reset() info"
        if found is None:
            for turn, step in enumerate(e.steps[:-1], 1):
                answer = e.steps[turn].solution if e.steps[turn].solution is not None else e.solution0
                found = _info_leak(step.info, answer)
                if found is not None:
                    where = f"step() info at turn {turn}"
                    break
        if found is not None and e.seed not in leaked:
            leaked[e.seed] = f"seed {e.seed}: {where} holds {found}; the answer was {excerpt(e.solution0)}"
    seeds = {e.seed for e in episodes}
    solutions = {e.solution0 for e in ctx.oracle()}
    details = {"leaking_seeds": len(leaked), "seeds": len(seeds)}
    if seeds and len(solutions) > 1 and len(leaked) * 2 >= len(seeds):
        first = next(iter(leaked.values()))
        return Outcome(False, (
            f"info carries the answer on {len(leaked)} of {len(seeds)} seeds, e.g. {first}; keep the answer out of "
            f"info until the episode is over (agents and wrappers pass info along)"), details)
    return Outcome(True, f"no answer in info (checked {len(episodes)} episodes)", details)
