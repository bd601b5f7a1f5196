"""``agent_probes``: probes shaped like what a model writes, not like a script.

Every other probe sends short actions (``\\boxed{42}``, one ``<tool_call>``); a model writes a
paragraph of reasoning and then the box. A program can tell the two apart, and an optimised
designer will: one that leaks the answer only when an action has eight words of prose before
the box, or one where any boxed sentence wins, passes every short probe. So this check plays,
at every level, on the first seeds of the run (:data:`FIRST_LOOK`):

* **prose, then copy** (:class:`ProseThenCopy`): a paragraph of reasoning, then a *wrong*
  answer (the host knows the solution, so the probe is sure it is wrong; nothing else it does
  uses the solution); for a tool-use program also a paragraph, then the other seeds' usual first
  call. Then, after more prose each time, every value the feedback to those actions showed or
  spelled (:func:`~spade_gym.validation.observations.decoded_candidates`). Its twin
  :class:`ShortThenCopy` makes the same play without the prose; the seeds the prose wins and the
  bare play loses (what prose changed: feedback that gives the answer to *any* wrong answer is the
  zoo's finding) may be no more than a shortcut baseline's share (``max_shortcut_win_rate``, the
  confidence rule, more seeds while uncertain), and the ``info`` of its steps must not carry the
  answer where the bare play's does not;
* **boxed prose** (:class:`BoxedProse`): a generic sentence of six words or more in the box (or
  the ``<answer>``), a fresh one each turn. It must never win: a sentence that answers nothing is
  not an answer (where a random word wins the same seed too, any answer wins: the non-triviality
  check's finding).

The default level's probes are replayed in a second worker (the fresh worker the contract check
started), and every episode must replay exactly: the determinism check replays short probes only,
and a program may behave differently, and non-deterministically, on long ones (a program whose
short probes already differ is left to the determinism check).
"""

from __future__ import annotations

import random
import re
from typing import Any

from spade_gym import toolcalls
from spade_gym.contract import TOOL_USE_KIND
from spade_gym.validation.baselines.base import Baseline, Prior
from spade_gym.validation.checks import check
from spade_gym.validation.checks.consistency import first_difference
from spade_gym.validation.checks.leaks import _info_leak
from spade_gym.validation.checks.shortcut import probed_levels
from spade_gym.validation.context import Context, Outcome
from spade_gym.validation.episodes import Job, ProbeEpisode
from spade_gym.validation.leaks import normalise
from spade_gym.validation.messages import Problem, excerpt, format_problems
from spade_gym.validation.observations import boxed, decoded_candidates, shape
from spade_gym.validation.sampling import prior_for
from spade_gym.validation.stats import Tally
from spade_gym.validation.tool_schemas import final_answer

#: Reasoning a model writes before its answer: every opening is followed by a middle, so the
#: prose before the box is always eight words or more, in many wordings (a program must not be
#: able to wait for one fixed text).
OPENINGS = (
    "Let me think about this step by step before answering.",
    "Looking carefully at everything the task has shown me so far,",
    "Okay, I have read the description and the feedback again, and",
    "First I will go through the clues one at a time, then",
    "Considering the constraints and what the last message told me,",
    "I compared the possibilities against each other and it seems that",
)
MIDDLES = (
    "the most consistent choice is the following one.",
    "I can rule out the alternatives, which leaves this.",
    "my best reading of the situation points to this answer.",
    "after checking it twice I am fairly confident in it.",
    "the pattern suggests that the answer should be this.",
)
CLOSINGS = ("", " I hope that is right.", " Let me know if that does not work.", " That is my final answer.")
#: Words of a generic sentence: nothing a task would take as its answer (no numbers, colours,
#: directions, yes/no, protocol words such as "done").
GENERIC = tuple("""i think believe guess suppose feel the this that it a an is was should would could might be
probably likely perhaps maybe possibly answer solution result option choice reasoning thought idea
here there now really quite rather somewhat honestly frankly overall in of for with about from what
which because since so and but or my your our seems appears looks""".split())
#: Generic sentences a model falls back on (each six words or more).
SENTENCES = (
    "I am not completely sure about this one",
    "the answer is the one that fits all the clues",
    "this is my best guess based on the information",
    "I believe the correct answer should be the following",
    "it seems to be the option that makes the most sense",
    "my final answer is what I reasoned out above",
)
#: Generic sentences each boxed-prose episode sends (at most: an episode may end sooner).
SENTENCES_PER_EPISODE = 4
#: Seeds each probe plays first at every level (the first of the run's seed stream; more while the
#: prose probe's rate is uncertain): 0 wins in 4 already clears the 50% limit at 90% confidence (the
#: upper bound is 40%), 4 in 4 fails it; the probes ask how a reply is treated, which rarely varies
#: with the seed.
FIRST_LOOK = 4
#: Words before the answer in every prose action (the class this check closes starts at 8).
MIN_PROSE_WORDS = 8


def reasoning(rng: random.Random) -> str:
    """A paragraph of reasoning, at least :data:`MIN_PROSE_WORDS` words."""
    return f"{rng.choice(OPENINGS)} {rng.choice(MIDDLES)}"


def generic_sentence(rng: random.Random, turn: int) -> str:
    """A sentence of six words or more that answers nothing: the fixed ones first, then random ones
    from :data:`GENERIC`."""
    if turn < len(SENTENCES) // 2:
        return SENTENCES[rng.randrange(len(SENTENCES))]
    return " ".join(rng.choice(GENERIC) for _ in range(rng.randint(6, 12)))


def wrong_answer(answer: str, others: list[str]) -> str:
    """An answer of the task's kind that is surely not ``answer``: another seed's answer when one
    differs, else ``answer`` changed (its last digit, or its letters reversed, or one more)."""
    target = normalise(answer)
    for other in others:
        if other and toolcalls.ANSWER_CLOSE not in other and normalise(other) != target and "}" not in other:
            return other
    digits = re.search(r"\d(?!.*\d)", answer)
    if digits:
        i = digits.start()
        return answer[:i] + str((int(answer[i]) + 1) % 10) + answer[i + 1:]
    flipped = answer[::-1]
    return flipped if normalise(flipped) != target else answer + "x"


class _Shaped(Baseline):
    """An agent-shaped probe for a game (``\\boxed{}``) or a tool-use program (``<answer>``)."""

    def __init__(self, rng: random.Random, prior: Prior, tool_use: bool):
        super().__init__(rng)
        self.tool_use = tool_use
        # what the probe uses of the other seeds, kept small (a job is copied before it is played)
        self.answers = [s for s in prior.solutions if s] if not tool_use else \
            [a for a in (final_answer(s) for s in prior.solutions) if a]
        firsts = prior.actions_by_turn[0] if prior.actions_by_turn else []
        calls = [a for a in firsts if toolcalls.parse_action(a).calls]
        self.first_call = max(sorted(set(calls)), key=calls.count) if calls else None

    def answer(self, text: str) -> str:
        return toolcalls.format_answer(text) if self.tool_use else boxed(text)


class ProseThenCopy(_Shaped):
    """Reasoning, then a wrong answer; then each value the feedback to it showed or spelled, after
    reasoning each time, answer-shaped first, never one twice.

    A tool-use program gets, after the wrong answer, the other seeds' usual first call twice: after
    reasoning, then bare. Only what the reply with prose got *and the bare one did not* counts as
    given away: a tool result legitimately shows values (the zoo judges copying them)."""

    needs_solution = True

    def begin(self, observation):
        self.tried: set[str] = set()
        self.pool: list[str] = []
        self.prose_result = ""
        # tool use: the wrong answer, the call after prose, the same call bare; a game: the answer
        self.openings = 3 if self.tool_use and self.first_call is not None else 1

    def _collect(self, text: str, unless: str = "") -> None:
        shown = set(decoded_candidates(unless)) if unless else set()
        known = set(self.pool)
        for candidate in decoded_candidates(text):
            if candidate not in known and candidate not in shown and "}" not in candidate \
                    and toolcalls.ANSWER_CLOSE not in candidate:
                self.pool.append(candidate)
                known.add(candidate)

    #: Whether the replies carry prose (:class:`ShortThenCopy` plays the same without it).
    prose = True

    def say(self, text: str, lead: str = "") -> str:
        if not self.prose:
            return text
        return f"{reasoning(self.rng)}{lead} {text}{self.rng.choice(CLOSINGS) if not lead else ''}"

    def act(self, observation, turn, solution):
        if turn == 0:
            truth = (final_answer(solution) if self.tool_use else solution) or ""
            wrong = wrong_answer(truth, self.answers)
            self.tried.add(wrong)
            return self.say(self.answer(wrong))
        if turn == 1:
            self._collect(observation)  # the feedback to the wrong answer after prose
        if turn == 1 and self.openings == 3:
            return self.say(str(self.first_call), lead=" Let me check with a tool first.\n")
        if turn == 2 and self.openings == 3:
            self.prose_result = observation
            return str(self.first_call)
        if turn == 3 and self.openings == 3:
            self._collect(self.prose_result, unless=observation)
        elif turn >= self.openings + 1:
            self._collect(observation)  # games: the feedback to every reply, all of them prose
        shapes = {shape(a) for a in self.answers}
        fresh = [c for c in self.pool if c not in self.tried]
        choice = next(iter([c for c in fresh if shape(c) in shapes] + fresh), None)
        if choice is None:
            self.exhausted = True
            return ""
        self.tried.add(choice)
        return self.say(self.answer(choice))


class ShortThenCopy(ProseThenCopy):
    """:class:`ProseThenCopy` with every reply bare: what the same play wins without prose (the
    zoo's finding, not this check's: only what prose adds counts here)."""

    prose = False


class BoxedProse(_Shaped):
    """A generic sentence of six words or more as the answer, a new one each turn."""

    def act(self, observation, turn, solution):
        if turn >= SENTENCES_PER_EPISODE:
            self.exhausted = True
            return ""
        return self.answer(generic_sentence(self.rng, turn))


PROBES = {"prose_then_copy": ProseThenCopy, "short_then_copy": ShortThenCopy, "boxed_prose": BoxedProse}
#: The probes played again on more seeds while the prose probe's rate is uncertain.
PROSE_PAIR = ("prose_then_copy", "short_then_copy")


def _jobs(ctx: Context, level: str | None, names: tuple[str, ...], seeds: list[int],
          priors: dict[int, Prior]) -> list[Job]:
    tool_use = ctx.kind == TOOL_USE_KIND
    jobs = []
    for seed in seeds:
        for name in names:
            rng = random.Random(f"agent-probe:{name}:{ctx.run_seed}:{level}:{seed}")
            jobs.append(Job(seed, name, PROBES[name](rng, priors[seed], tool_use),
                            first_solution=name in PROSE_PAIR))
    return jobs


def _level_name(level: str | None) -> str:
    return "default" if level is None else level


@check("agent_probes", order=87)
def check_agent_probes(ctx: Context) -> Outcome:
    """Replies shaped like a model's: prose before a wrong answer gives nothing away, a boxed generic
    sentence never wins, and both replay identically in another worker."""
    threshold = ctx.config.max_shortcut_win_rate
    problems: list[Problem] = []
    played: dict[tuple[str | None, str], dict[int, ProbeEpisode]] = {}
    handles: dict[str | None, Any] = {}
    windows: dict[str | None, list[ProbeEpisode]] = {}

    def play(level: str | None, names: tuple[str, ...], seeds: list[int]) -> None:
        probes = ctx.level(level)
        assert probes is not None
        window = windows.setdefault(level, ctx.prior_window(level))
        priors = {seed: prior_for(seed, window) for seed in seeds}
        episodes = ctx.play(probes.handle, _jobs(ctx, level, names, seeds, priors), max_steps=probes.turn_limit,
                            what=f"agent-shaped probes{'' if level is None else f' at difficulty={level!r}'}")
        for episode in episodes:
            played.setdefault((level, episode.baseline), {})[episode.seed] = episode

    for level, probes in probed_levels(ctx):
        handles[level] = probes.handle
        play(level, tuple(PROBES), ctx.stream(FIRST_LOOK))

    def episodes_of(key: tuple[str | None, str]) -> list[ProbeEpisode]:
        return list(played.get(key, {}).values())

    def gained(level: str | None) -> Tally:
        """Seeds the reply with prose won and the same play without it lost: what prose changed."""
        prose, short = played.get((level, PROSE_PAIR[0]), {}), played.get((level, PROSE_PAIR[1]), {})
        return Tally.of([e.won and not (short[s].won if s in short else False) for s, e in prose.items()])

    def extend(targets: dict[str | None, int]) -> dict[str | None, Tally]:
        for level, count in targets.items():
            missing = [s for s in ctx.stream(count) if s not in played.get((level, PROSE_PAIR[0]), {})]
            if missing:
                play(level, PROSE_PAIR, missing)
        return {level: gained(level) for level in targets}

    estimates = ctx.config.rate_rule.settle({level: gained(level) for level in handles}, extend, threshold)
    rates: dict[str, dict[str, Any]] = {}
    for level, estimate in estimates.items():
        name = _level_name(level)
        rates[name] = {"prose_then_copy": estimate.to_dict()}
        if estimate.failed:
            short = played.get((level, PROSE_PAIR[1]), {})
            example = next(e for e in episodes_of((level, PROSE_PAIR[0]))
                           if e.won and not (e.seed in short and short[e.seed].won))
            problems.append(Problem("prose", f"level {name}", (
                f"a reply with a paragraph of reasoning before a wrong answer, then copying what the feedback "
                f"showed, won {estimate.wins:g} of {estimate.trials} seeds that the same replies without the prose "
                f"lost ({estimate.rate:.0%} > {threshold:.0%}; {estimate.confidence:.0%} interval "
                f"{estimate.low:.0%}-{estimate.high:.0%}: {estimate.reason()}), e.g. seed {example.seed}: "
                f"{excerpt(example.actions[0], 80)} got {excerpt(example.steps[0].obs, 100)}"
                f"\nfix: treat an answer after prose like any answer; never show the answer because a reply is long")))
        prose = episodes_of((level, PROSE_PAIR[0]))
        short = played.get((level, PROSE_PAIR[1]), {})
        # info that carries the answer after prose, and not after the same replies without it
        leaked = [(e, found) for e in prose if e.error is None
                  for found in [_step_info_leak(ctx, e)]
                  if found and not (e.seed in short and _step_info_leak(ctx, short[e.seed]))]
        if prose and len({e.solution0 for e in prose}) > 1 and len(leaked) * 2 >= len(prose):
            episode, found = leaked[0]
            problems.append(Problem("info", f"level {name}", (
                f"after a reply with prose before a wrong answer, step() info holds {found} on {len(leaked)} of "
                f"{len(prose)} seeds (e.g. seed {episode.seed}): keep the answer out of info")))
        sentences = episodes_of((level, "boxed_prose"))
        # where a random word wins too, any answer wins: the non-triviality check's finding
        at_level = ctx.level(level)
        cheap = ctx.baselines() if ctx.is_main_level(level) else (at_level.baselines if at_level is not None else {})
        any_answer = {e.seed for e in cheap.get("random_words", []) if e.won}
        won = [e for e in sentences if e.won and e.seed not in any_answer]
        rates[name]["boxed_prose"] = {"wins": len(won), "seeds": len(sentences)}
        if won:
            problems.append(Problem("sentence", f"level {name}", (
                f"a generic sentence as the answer won {len(won)} of {len(sentences)} seeds, e.g. seed {won[0].seed} "
                f"with {excerpt(won[0].actions[-1], 80)}: a sentence that answers nothing must never win; compare "
                f"the answer itself with the solution")))
    replayed = _replay(ctx, played)
    # a program whose short probes already replay differently is the determinism check's finding
    owned = not _short_replays_agree(ctx) if replayed else False
    for (seed, name), (first, second) in ([] if owned else replayed.items()):
        difference = first_difference(first, second)
        if difference:
            problems.append(Problem(f"replay:{difference[0]}", f"seed {seed}, policy {name}", (
                f"replayed in another worker, the episode differed: {difference[1]} (draw every random choice from "
                f"a generator seeded in reset(seed), whatever the action looks like)")))
            break
    details = {"rates": rates, "replayed": len(replayed), "threshold": threshold}
    ctx.details["agent_probes"] = rates
    if problems:
        return Outcome(False, format_problems(
            "replies written the way a model writes them (prose around the answer) break the rules that short "
            "replies keep:", problems, "level(s)"), details)
    worst = max((e.rate for e in estimates.values()), default=0.0)
    return Outcome(True, f"prose before a wrong answer, then copying the feedback, won at most {worst:.0%} of the "
                         f"seeds the same replies without prose lost (limit "
                         f"{threshold:.0%}); no generic sentence won; {len(replayed)} episodes replayed identically",
                   details)


def _step_info_leak(ctx: Context, episode: ProbeEpisode) -> str | None:
    """The step ``info`` before the end of ``episode`` that carries its answer, if one does."""
    answer = final_answer(episode.solution0) if ctx.kind == TOOL_USE_KIND else episode.solution0
    return next((found for step in episode.steps[:-1] for found in [_info_leak(step.info, answer)] if found), None)


def _short_replays_agree(ctx: Context) -> bool:
    """Whether the episodes the determinism check compares across workers (the privileged policy's,
    the random-words baseline's) replayed identically."""
    fresh = ctx.fresh()
    pairs = list(zip(ctx.oracle(), fresh.get("oracle", [])))
    pairs += list(zip(ctx.baselines().get("random_words", []), fresh.get("random_words", [])))
    return all(first_difference(a, b) is None for a, b in pairs if a.error is None and b.error is None)


def _replay(ctx: Context, played: dict[tuple[str | None, str], dict[int, ProbeEpisode]]
            ) -> dict[tuple[int, str], tuple[ProbeEpisode, ProbeEpisode]]:
    """The default level's probes on the shortcut seeds, played again in the fresh worker."""
    level = next((lv for lv, _ in played if ctx.is_main_level(lv)), "none")
    if level == "none":
        return {}
    if ctx.fresh_handle is None:
        ctx.fresh()
    handle, probes = ctx.fresh_handle, ctx.level(level)
    if handle is None or probes is None:
        return {}
    seeds = ctx.stream(FIRST_LOOK)
    window = ctx.prior_window(level)
    priors = {seed: prior_for(seed, window) for seed in seeds}
    again = ctx.play(handle, _jobs(ctx, level, tuple(PROBES), seeds, priors), max_steps=probes.turn_limit,
                     what="replaying agent-shaped probes in another worker")
    out = {}
    for episode in again:
        first = played.get((level, episode.baseline), {}).get(episode.seed)
        if first is not None and first.error is None and episode.error is None:
            out[(episode.seed, episode.baseline)] = (first, episode)
    return out
