"""Training probes: episodes on other seeds of a level whose actions are chosen knowing the answer,
so the learned baselines (:mod:`spade_gym.validation.baselines.learned`,
:mod:`spade_gym.validation.baselines.moves`) can learn what a program's feedback means before they
play fresh seeds; and what every learned baseline reads off a :class:`~spade_gym.validation.baselines.base.Prior`
(the other seeds' answers, their probes).

:func:`training_specs` says which probes a program needs (judged once from the training seeds'
privileged episodes); :class:`GuessProbe` guesses around the answer, :class:`PlanProbe` plays the
fixed probe plan of :func:`probe_plan`. Every probe's RNG comes from the run seed, so a run replays.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence

from spade_gym.validation.baselines.base import Baseline, Prior, Transcript
from spade_gym.validation.feedback_marks import answer_form
from spade_gym.validation.feedback_model import as_float, cached, screen_numbers, unbox
from spade_gym.validation.observations import all_candidates, as_number, boxed, render_number

GUESS_PROBE = "train_guess"
PLAN_PROBE = "train_plan"
#: Guesses a guess probe sends per training seed.
GUESS_PROBE_STEPS = 6
#: Longest fixed probe plan.
MAX_PLAN = 10
#: Most candidates the ``marks`` baseline enumerates from the alphabet (beyond the screen's).
MARK_CANDIDATES = 5000


def numeric_range(answers: Sequence[str]) -> tuple[float, float] | None:
    values = [as_number(a) for a in answers]
    numbers = [v for v in values if v is not None]
    return (min(numbers), max(numbers)) if answers and len(numbers) == len(answers) else None


def integral(solutions: Sequence[str]) -> bool:
    values = [as_number(s) for s in solutions]
    return all(v is not None and float(v).is_integer() for v in values) if solutions else True


def probes_of(prior: Prior, kind: str, serving: str | None = None) -> list[Transcript]:
    """The training probes of ``kind`` in a prior, those played for the baseline ``serving`` if given
    (a probe's baseline name lists whom it serves: ``train_guess:bisection+marks``)."""
    out = []
    for t in prior.probes:
        name, _, served = t.baseline.partition(":")
        if name == kind and (serving is None or serving in served.split("+")):
            out.append(t)
    return out


def probe_name(spec: dict) -> str:
    """The baseline name a training probe's episodes carry: its kind and the baselines it serves."""
    return f"{spec['kind']}:{'+'.join(spec.get('serves', ()))}"


def answer_of(episode: Transcript) -> str | None:
    """The answer of a privileged episode: the action that won it (unboxed), else ``solution()``
    after reset. The two differ where ``solution()`` is the next move (a Wordle whose privileged
    policy plays the most telling word first): the answer is what finally won."""
    if episode.won and episode.actions:
        return unbox(episode.actions[-1]) or episode.actions[-1]
    return episode.solution


def answers_of(prior: Prior) -> list[str]:
    """The other seeds' answers: what won their privileged episodes, else their first solutions."""
    found = [answer_of(t) for t in prior.episodes]
    return [a for a in found if a] if prior.episodes else [s for s in prior.solutions if s]


# ----------------------------------------------------------------------------- training probes


def training_specs(episodes: Sequence[Transcript], zoo: Sequence[str]) -> list[dict]:
    """The training probes the baselines in ``zoo`` need, judged from the privileged episodes of
    the training seeds: guesses around the answer where the answers are numbers or sequences (for
    ``bisection`` and ``marks``), a fixed plan where the privileged policy probes before it answers
    (for ``probe_plan``)."""
    solutions = [a for a in (answer_of(t) for t in episodes) if a]
    specs: list[dict] = []
    varied = len(set(solutions)) >= 3  # (a multi-step game's first move is no answer to probe around)
    # whom the guesses serve is decided once for the program (every seed's baseline then counts)
    serves = [name for name, applies in (("bisection", all(as_float(s) is not None for s in solutions)),
                                         ("marks", answer_form(solutions) is not None))
              if varied and applies and name in zoo]
    if serves:
        specs.append({"kind": GUESS_PROBE, "serves": serves})
    if "probe_plan" in zoo:
        plan = probe_plan(episodes)
        if plan:
            specs.append({"kind": PLAN_PROBE, "plan": plan, "serves": ["probe_plan"]})
    return specs


class GuessProbe(Baseline):
    """A training probe that knows the answer: numeric guesses above and below it, near and far
    (what ``bisection`` learns from), and sequences with a chosen number of positions right, some
    elements moved elsewhere (what ``marks`` learns from), alternating where both apply."""

    needs_solution = True

    def __init__(self, rng, prior: Prior, steps: int = GUESS_PROBE_STEPS, answer: str | None = None,
                 serves: Sequence[str] = ()):
        super().__init__(rng)
        self.steps = steps
        answers = answers_of(prior)
        self.range = numeric_range(answers)
        self.integral = integral(answers)
        self.form = answer_form(answers)
        self.known = answers
        #: The answer to probe around (what won this seed's privileged episode), else ``solution()``.
        self.answer = answer

    def begin(self, observation):
        numbers = screen_numbers(observation)
        low, high = self.range or ((min(numbers), max(numbers)) if len(numbers) >= 2 else (0.0, 100.0))
        self.bounds = (min([low, *numbers[:50]]), max([high, *numbers[:50]]))
        self.span = max(high - low, 4.0)
        form = self.form
        self.pool = [c for c in all_candidates(observation)[:400] if form and form.split(c)] + self.known
        if form is not None and len(form.alphabet) ** form.length <= MARK_CANDIDATES:
            # a small alphabet is the whole alphabet: a listed word outside it would be rejected
            self.pool = [c for c in self.pool if set(form.alphabet).issuperset(form.split(c) or ("",))]

    def act(self, observation, turn, solution):
        if turn + 1 >= self.steps:
            self.exhausted = True
        solution = self.answer or solution
        value = as_float(solution)
        elements = self.form.split(solution) if self.form else None
        if elements is not None and (value is None or turn % 2 == 1):
            return boxed(self._sequence(elements, turn))
        if value is not None:
            return boxed(render_number(self._number(value, turn)))
        self.exhausted = True
        return boxed(solution or "")

    def _number(self, value: float, turn: int) -> float:
        # far, near, middling distances in turn
        scale = [(0.25, 0.5), (0.0, 0.02), (0.05, 0.15)][(turn // 2) % 3]
        distance = self.span * self.rng.uniform(*scale)
        distance = max(1.0, round(distance)) if self.integral else max(distance, self.span * 1e-3)
        # sides: s, -s, -s, s, s, -s: the same verdict twice in a row as well as a change (a screen
        # that repeats "Last: higher" shows the difference)
        if turn == 0:
            self.sign = self.rng.choice((1, -1))
        sign = self.sign if turn % 4 in (0, 3) else -self.sign
        for candidate in (value + sign * distance, value - sign * distance):
            if self.bounds[0] <= candidate <= self.bounds[1] and candidate != value:
                return candidate
        return value + sign * distance

    def _sequence(self, answer: tuple[str, ...], turn: int) -> str:
        form = self.form
        assert form is not None
        size = form.length
        others = [c for c in self.pool if form.split(c) not in (None, answer)]
        if turn % 4 == 3 and others:  # a guess the game surely accepts (a listed word, another answer)
            return self.rng.choice(others).strip().casefold()
        keep = [size - 1, 0, 1, size // 2, max(0, size - 2), 2][(turn // 2) % 6] if turn % 4 != 3 else 1
        kept = set(self.rng.sample(range(size), min(keep, size)))
        guess = list(answer)
        for i in range(size):
            if i in kept:
                continue
            moved = [e for e in answer if e != answer[i]]
            pool = moved if moved and self.rng.random() < 0.5 else [e for e in form.alphabet if e != answer[i]]
            guess[i] = self.rng.choice(pool) if pool else guess[i]
        return form.join(guess)


class PlanProbe(Baseline):
    """A training probe that plays the fixed plan, then stops (its feedback is what is learned)."""

    def __init__(self, rng, prior: Prior | None = None, plan: Sequence[str] = (), serves: Sequence[str] = ()):
        super().__init__(rng)
        self.plan = list(plan)
        self.exhausted = not self.plan

    def act(self, observation, turn, solution):
        if turn + 1 >= len(self.plan):
            self.exhausted = True
        return self.plan[min(turn, len(self.plan) - 1)]


def probe_plan(episodes: Sequence[Transcript]) -> list[str]:
    """The probing moves the privileged policy made before answering on most seeds: every
    non-final action that at least three seeds played (so no one seed's episode decides the plan),
    in the order they were played, as many as the privileged policy usually needed."""
    won = [t for t in episodes if t.won and len(t.actions) >= 2]
    if len(won) < 3:
        return []
    support: Counter = Counter()
    where: dict[str, list[int]] = defaultdict(list)
    for t in won:
        for action in dict.fromkeys(t.actions[:-1]):
            support[action] += 1
            where[action].append(t.actions.index(action))
    common = [a for a, n in support.items() if n >= 3]
    length = min(MAX_PLAN, int(statistics.median(len(t.actions) - 1 for t in won)))
    common.sort(key=lambda a: (statistics.median(where[a]), -support[a], a))
    return common[:max(1, length)]




__all__ = ["GUESS_PROBE", "GUESS_PROBE_STEPS", "MARK_CANDIDATES", "MAX_PLAN", "PLAN_PROBE", "GuessProbe", "PlanProbe",
           "answer_of", "answers_of", "cached", "integral", "numeric_range", "probe_name", "probe_plan", "probes_of",
           "training_specs"]
