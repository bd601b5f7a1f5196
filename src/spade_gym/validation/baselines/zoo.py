"""Probe baselines: how the validator plays a program, on the host.

A baseline sees what an agent would see (each observation text) and, for the privileged
``oracle`` only, the program's ``solution()``. The host runs the baselines and sends
their actions to the worker one step at a time, so nothing the program's worker says
about an episode is taken on trust (see :mod:`spade_gym.validation.episodes`).

Three families:

* the **cheap baselines** (random numbers, random words, empty, copy, repeat): what a
  model that ignores the task does; used by the ``non_triviality`` check.
* the **shortcut zoo** (:data:`SHORTCUT_BASELINES`): no-reasoning scripts that exploit
  what a weak environment gives away: the answers seen on *other* seeds (``prior``,
  ``blind_script``), the candidates the screen and the feedback show (``enumeration``,
  ``copy``), what the screen spells in another form (``decode``: Roman numerals, number words,
  reversed...), and feedback whose meaning is learned on other seeds' training probes
  (:mod:`spade_gym.validation.baselines.learned`: ``bisection``, ``marks``, ``opponent``,
  ``probe_plan``). Used by the ``shortcut`` and ``levels`` checks and by ``spade-gym eval
  --agent baselines``.
* the **hint rule's scripts** (:mod:`spade_gym.validation.baselines.hinted`): any baseline here as
  ``hinted:<kind>`` (playing with the hint shown), and scripts that only read the hint
  (:data:`HINT_BASELINES`); used by the ``hint_rule`` check.

Every baseline is a plain function of the observations and a seeded RNG, so a probe run is
reproducible from its seeds. What they read off a screen is :mod:`spade_gym.validation.observations`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from spade_gym import toolcalls
from spade_gym.validation.baselines import hinted, learned, tools
from spade_gym.validation.baselines.base import Baseline, Prior
from spade_gym.validation.baselines.learned import Bisection
from spade_gym.validation.observations import (
    WORDS,
    all_candidates,
    boxed,
    decoded_candidates,
    observation_candidates,
    shape,
)

# ----------------------------------------------------------------------------- privileged and fixed


class Oracle(Baseline):
    """Answers ``\\boxed{<solution()>}``, re-reading the solution before every turn."""

    needs_solution = True

    def act(self, observation, turn, solution):
        return boxed(solution if solution is not None else "")


class ToolScript(Baseline):
    """The privileged policy of a tool-use program: ``solution()`` as read right after
    ``reset`` (its ``<tool_call>`` lines, then its ``<answer>``), one action per turn."""

    needs_solution = True

    def __init__(self, rng):
        super().__init__(rng)
        self.script: list[str] | None = None

    def act(self, observation, turn, solution):
        if self.script is None:
            self.script = toolcalls.solution_actions(solution or "") or [""]
        return self.script[min(turn, len(self.script) - 1)]


class FixedActions(Baseline):
    """Plays a given list of actions, one per turn (cycling if the episode runs longer)."""

    def __init__(self, rng, actions: Sequence[str]):
        super().__init__(rng)
        self.actions = list(actions) or [""]

    def act(self, observation, turn, solution):
        return self.actions[turn % len(self.actions)]


class Feed(Baseline):
    """Sends texts from a queue shared by several episodes, in order: each episode's first text
    meets a fresh task, later ones meet the states earlier texts left (fuzzing)."""

    def __init__(self, rng, queue: list[str]):
        super().__init__(rng)
        self.queue = queue

    @property
    def exhausted(self) -> bool:  # type: ignore[override]
        return not self.queue

    def act(self, observation, turn, solution):
        return self.queue.pop(0)


# ----------------------------------------------------------------------------- cheap baselines


class RandomNumbers(Baseline):
    def __init__(self, rng, low: int = 0, high: int = 100):
        super().__init__(rng)
        self.low, self.high = int(low), int(high)

    def act(self, observation, turn, solution):
        return boxed(str(self.rng.randint(self.low, self.high)))


class RandomWords(Baseline):
    def act(self, observation, turn, solution):
        return boxed(self.rng.choice(WORDS))


class Empty(Baseline):
    def act(self, observation, turn, solution):
        return ""


class CopyRandom(Baseline):
    """Boxes a random candidate copied from the current observation each turn."""

    def act(self, observation, turn, solution):
        return boxed(self.rng.choice(observation_candidates(observation)))


class RepeatOne(Baseline):
    """Picks one guess at the start and repeats it every turn."""

    def begin(self, observation):
        self.guess = self.rng.choice(observation_candidates(observation))

    def act(self, observation, turn, solution):
        return boxed(str(self.guess))


# ----------------------------------------------------------------------------- the shortcut zoo


class PriorAnswers(Baseline):
    """*prior*: the most frequent solutions of the other seeds, most frequent first."""

    reads_observation = False

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        self.answers = prior.frequent_solutions() or ["0"]

    def act(self, observation, turn, solution):
        return boxed(self.answers[turn % len(self.answers)])


class BlindScript(Baseline):
    """*blind script*: at turn t, the privileged policy's most common action at turn t on the
    other seeds (memorised procedures, fixed openings)."""

    reads_observation = False

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        self.script = [Counter(actions).most_common(1)[0][0] if actions else "" for actions in prior.actions_by_turn]

    def act(self, observation, turn, solution):
        return self.script[turn] if turn < len(self.script) else (self.script[-1] if self.script else "")




class Enumeration(Baseline):
    """*consistent enumeration*: retry distinct candidates from the screen and from every
    feedback so far, those shaped like the answers of other seeds first, never repeating one."""

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        self.shapes = prior.shapes()
        self.known = prior.frequent_solutions()
        self.tried: set[str] = set()
        self.pool: list[str] = []

    def act(self, observation, turn, solution):
        for candidate in all_candidates(observation):
            if candidate not in self.pool:
                self.pool.append(candidate)
        fresh = [c for c in self.pool if c not in self.tried]
        fitting = [c for c in fresh if shape(c) in self.shapes]
        # Known answers that the screen shows come first: a game that lists its answer
        # among a few options lets a script pick by frequency.
        shown = [c for c in fitting if c in self.known]
        choice = (shown or fitting or fresh or [self.rng.choice(WORDS)])[0]
        self.tried.add(choice)
        return boxed(choice)


class CopyEvery(Baseline):
    """*copy*: every number and token of the first observation, in order, one per turn."""

    def __init__(self, rng, prior: Prior | None = None):
        super().__init__(rng)

    def begin(self, observation):
        self.candidates = all_candidates(observation) or ["0"]

    def act(self, observation, turn, solution):
        return boxed(self.candidates[turn % len(self.candidates)])


class Decode(Baseline):
    """*decode*: answers what the screen and every feedback so far *spell* (Roman numerals, number
    words in four languages, other bases and scripts, reversed, separated, glued, acrostics;
    :mod:`spade_gym.decoding`), those readings first, then what is written; answer-shaped ones
    first, never one twice, while attempts remain. The shortcut check shows it no hint; the hint
    rule plays it with the hint shown (``hinted:decode``, ``validation.baselines.hinted``)."""

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        self.shapes = prior.shapes()
        self.tried: set[str] = set()
        self.pool: list[str] = []

    def act(self, observation, turn, solution):
        known = set(self.pool)
        for candidate in decoded_candidates(observation):
            if candidate not in known:
                self.pool.append(candidate)
                known.add(candidate)
        fresh = [c for c in self.pool if c not in self.tried]
        fitting = [c for c in fresh if shape(c) in self.shapes]
        choice = (fitting or fresh or [self.rng.choice(WORDS)])[0]
        self.tried.add(choice)
        return boxed(choice)


# ----------------------------------------------------------------------------- registry

#: What each baseline does, for messages.
DESCRIPTIONS = {
    "oracle": "answers \\boxed{<solution()>}",
    "tool_oracle": "plays solution() one tool call, then the answer, per turn",
    "actions": "plays fixed actions",
    "random_numbers": "boxes random numbers",
    "random_words": "boxes random common words",
    "empty": "sends empty answers",
    "copy": "boxes a token copied from the observation",
    "repeat": "repeats one guess copied from the observation",
    "prior": "answers the most frequent solutions of other seeds, in turn",
    "blind_script": "replays the privileged policy's most common action per turn on other seeds",
    "enumeration": "retries distinct candidates from the screen and the feedback, answer-shaped first",
    "copy_every": "answers every token of the first observation in turn",
    "decode": "answers what the screen spells (Roman numerals, number words, other bases, reversed...), in turn",
}

# bisection and the learned baselines (marks, opponent, probe_plan) describe themselves
DESCRIPTIONS.update(learned.DESCRIPTIONS)

_SIMPLE: dict[str, Callable[..., Baseline]] = {
    "oracle": Oracle, "tool_oracle": ToolScript, "actions": FixedActions, "random_numbers": RandomNumbers,
    "random_words": RandomWords, "empty": Empty, "copy": CopyRandom, "repeat": RepeatOne,
}
_INFORMED: dict[str, Callable[..., Baseline]] = {
    "prior": PriorAnswers, "blind_script": BlindScript, "bisection": Bisection, "enumeration": Enumeration,
    "copy_every": CopyEvery, "decode": Decode, **learned.BY_KIND,
}
#: The shortcut zoo, in the order reports list it.
SHORTCUT_BASELINES: tuple[str, ...] = tuple(_INFORMED)
#: The shortcut zoo of tool-use programs, which ignore ``\\boxed{}`` (``validation.baselines.tools``),
#: with the blind script (the privileged actions replayed verbatim speak tool calls too).
_TOOL_INFORMED: dict[str, Callable[..., Baseline]] = dict(tools.BY_KIND)
TOOL_SHORTCUT_BASELINES: tuple[str, ...] = ("blind_script", *_TOOL_INFORMED)
DESCRIPTIONS.update(tools.DESCRIPTIONS)
#: Training probes: played on other seeds with the answer known, so the learned baselines can
#: learn what the feedback means (``validation.baselines.learned``); never part of the zoo.
_TRAINING: dict[str, Callable[..., Baseline]] = dict(learned.TRAINING)
KINDS = frozenset(_SIMPLE) | frozenset(_INFORMED) | frozenset(_TOOL_INFORMED) | frozenset(_TRAINING)
#: The hint rule's scripts (``validation.baselines.hinted``): the hint-reading baselines, and any
#: baseline above as ``hinted:<kind>`` (playing with the hint shown).
HINT_BASELINES: tuple[str, ...] = hinted.HINT_BASELINES
DESCRIPTIONS.update(hinted.DESCRIPTIONS)
KINDS |= frozenset(HINT_BASELINES)


def label(spec: dict | str) -> str:
    kind = spec if isinstance(spec, str) else spec.get("kind", "?")
    inner = hinted.hinted_kind(str(kind))
    if inner in DESCRIPTIONS:
        return f"{kind} (with the hint shown, {DESCRIPTIONS[inner]})"
    return f"{kind} ({DESCRIPTIONS[kind]})" if kind in DESCRIPTIONS else str(kind)


def make_baseline(spec: dict, episode_seed: int, prior: Prior | None = None, *, run_seed: int = 0) -> Baseline:
    """Build a baseline from a spec such as ``{"kind": "random_numbers", "high": 50}``.

    Its RNG is drawn from the baseline, the episode's seed and the validation run's seed, so
    random baselines differ from run to run but replay exactly within one.
    """
    spec = dict(spec)
    kind = spec.pop("kind", None)
    rng = random.Random(f"{kind}:{spec.pop('seed', 0)}:{run_seed}:{episode_seed}")
    if kind in _SIMPLE:
        return _SIMPLE[kind](rng, **spec)
    if kind in _INFORMED:
        return _INFORMED[kind](rng, prior or Prior())
    if kind in _TOOL_INFORMED:
        return _TOOL_INFORMED[kind](rng, prior or Prior())
    if kind in _TRAINING:
        return _TRAINING[kind](rng, prior or Prior(), **spec)
    inner = hinted.hinted_kind(str(kind))
    if inner is not None and inner in KINDS:  # any baseline, playing with the hint shown
        return hinted.Hinted(rng, make_baseline({**spec, "kind": inner}, episode_seed, prior, run_seed=run_seed))
    control = str(kind).startswith(hinted.CONTROL_PREFIX)
    reader = str(kind)[len(hinted.CONTROL_PREFIX):] if control else kind
    if reader in hinted.BY_KIND:  # a hint-reading script (as a control: reading the screen instead)
        return hinted.BY_KIND[reader](rng, prior or Prior(), lambda other: make_baseline(
            {"kind": other}, episode_seed, prior, run_seed=run_seed), control=control)
    raise ValueError(f"unknown probe policy {kind!r}; known: {', '.join(sorted(KINDS))}")
