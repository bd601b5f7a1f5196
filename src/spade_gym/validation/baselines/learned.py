"""Shortcut baselines that learn what a program's feedback means on training seeds.

A script that an RL agent learns across episodes does not read keywords: it learns which
feedback follows which kind of guess. These baselines do the same with the host's knowledge of
other seeds (see :mod:`spade_gym.validation.feedback_model`), then search on a fresh seed without
reasoning about its task:

* ``bisection`` halves the answer's range (read off the first screen where the screen bounds the
  answer on every training seed, else the range of other seeds' answers) on whatever the feedback
  was learned to mean: above/below, warmer/colder, or the distance itself; with no training
  probes it falls back to higher/lower keywords;
* ``marks`` enumerates sequence answers (codes, words) consistent with the marks or counts the
  feedback was learned to give, first consistent candidate first;
* ``opponent`` predicts an opponent's next move from the moves the feedback showed (cycle, n-gram
  and reply predictors, the most accurate lately), and plays the move the privileged policy played
  against that move on other seeds;
* ``probe_plan`` plays a fixed plan (the probing moves the privileged policy made on most other
  seeds), then answers what the plan's feedback spelled on training seeds at the answer's places,
  or the answer of a training seed whose feedback was the same.

Training probes are episodes on other seeds whose actions are chosen knowing the answer
(:class:`GuessProbe`, :class:`PlanProbe`); :func:`training_specs` says which a program needs. A
baseline with nothing learned stops right after the reset (a lost episode: one call, and every
seed counts in its rate), and one that has run out of candidates stops.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from spade_gym.validation.baselines.base import Baseline, Prior
from spade_gym.validation.baselines.moves import OpponentModel, ProbePlan, learn_opponent
from spade_gym.validation.consistent_codes import next_consistent
from spade_gym.validation.feedback_marks import MarkModel, answer_form
from spade_gym.validation.feedback_model import new_part
from spade_gym.validation.feedback_numeric import NumericSemantics, ScreenBound, feedback_features
from spade_gym.validation.learned_probes import (
    GUESS_PROBE,
    MARK_CANDIDATES,
    PLAN_PROBE,
    GuessProbe,
    PlanProbe,
    answer_of,
    answers_of,
    integral,
    numeric_range,
    probe_name,
    probe_plan,
    probes_of,
    training_specs,
)
from spade_gym.validation.observations import (
    HIGHER_FEEDBACK,
    LOWER_FEEDBACK,
    NUMBER,
    all_candidates,
    as_number,
    boxed,
    render_number,
)

# ----------------------------------------------------------------------------- bisection


class Bisection(Baseline):
    """*bisection*: for numeric answers, halve the answer's range on what the feedback was learned
    to mean on training seeds (above/below, warmer/colder, the distance); the range is what the
    first screen states where it bounded the answer on every training seed, else the range of the
    other seeds' answers. Without training probes it follows higher/lower keywords and, without
    usable feedback, steps up through the range."""

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        answers = answers_of(prior)
        self.range = numeric_range(answers)
        self.integral = integral(answers)
        training = probes_of(prior, GUESS_PROBE, "bisection")
        semantics = NumericSemantics.learn(training) if training else None
        self.semantics = semantics if semantics is not None and semantics.usable else None
        self.bound = ScreenBound.learn([(t.obs0, answer_of(t)) for t in prior.episodes]) if self.range else None

    def begin(self, observation):
        numbers = [v for v in (as_number(n) for n in NUMBER.findall(observation[:20_000])) if v is not None]
        screen = (min(numbers), max(numbers)) if len(numbers) >= 2 else (0.0, 100.0)
        self.low, self.high = self.range or screen
        if self.bound is not None:
            low, high = self.bound.bounds(observation)
            if low is not None and low <= self.high:
                self.low = low
            if high is not None and high >= self.low:
                self.high = high
        # When the feedback leaves the range learned from other seeds, search the screen's.
        self.outer = (min(screen[0], self.low), max(screen[1], self.high))
        self.guess: float | None = None
        self.previous: float | None = None
        self.screen = self.previous_screen = observation
        self.queue: list[float] = []
        self.tried: set[float] = set()
        self.collapses = 0

    def act(self, observation, turn, solution):
        if self.semantics is None:
            return boxed(render_number(self._keyword(observation)))
        return boxed(render_number(self._learned(observation)))

    # -- the learned readings

    def _learned(self, observation: str) -> float:
        semantics, step = self.semantics, (1 if self.integral else 0)
        assert semantics is not None
        guess = self.guess
        if guess is not None:
            part = new_part(self.previous_screen, observation)
            features = feedback_features(self.screen, self.previous_screen, observation, guess)
            side = semantics.read_side(features)
            distance = semantics.read_distance(part)
            if distance is not None and distance > 0:
                exact = [guess + distance, guess - distance] if side is None else [guess + side * distance]
                self.queue = [v for v in exact if self.outer[0] <= v <= self.outer[1]] + self.queue
            if side is not None:
                if side > 0:
                    self.low = max(self.low, guess + step)
                else:
                    self.high = min(self.high, guess - step)
            elif semantics.closer is not None and self.previous is not None and self.previous != guess:
                closer = semantics.read_closer(features)
                middle = (guess + self.previous) / 2
                if closer is not None:
                    if (guess > self.previous) == closer:  # the answer lies beyond the middle, on guess's side
                        self.low = max(self.low, math.floor(middle) + step if self.integral else middle)
                    else:
                        self.high = min(self.high, math.ceil(middle) - step if self.integral else middle)
            if self.low > self.high:  # the feedback left the range: widen it on that side
                self.collapses += 1
                if self.collapses > 2:  # the reading contradicts itself on this task: stop, clearly losing
                    self.exhausted = True
                if side is not None and side > 0:
                    self.high = max(self.outer[1], self.low)
                elif side is not None:
                    self.low = min(self.outer[0], self.high)
                else:
                    self.low, self.high = self.outer
        self.previous_screen = observation
        self.previous, self.guess = guess, self._next(guess)
        self.tried.add(self.guess)
        return self.guess

    def _next(self, guess: float | None) -> float:
        while self.queue:
            value = self.queue.pop(0)
            if value not in self.tried:
                return value
        middle = (self.low + self.high) / 2
        if self.semantics is not None and self.semantics.side is None and self.semantics.closer is not None:
            # warmer/colder: each guess is compared with the previous one, so mirror the previous
            # guess around the range's middle; for whole numbers around a half (k + 0.5), so that
            # no answer is as close to both guesses
            if guess is None or self.low >= self.high:
                return float(self.low)
            split = math.floor(middle) + 0.5 if self.integral else middle
            mirrored = 2 * split - guess
            if not self.outer[0] <= mirrored <= self.outer[1] or mirrored == guess or mirrored in self.tried:
                # beyond the range (the previous guess lies far off): move to the middle, whose
                # mirror the next guess can be
                mirrored = float(math.floor(middle)) if self.integral else middle
            return mirrored
        value = float(int(middle)) if self.integral else middle
        if value in self.tried and self.integral:  # a collapsed range: try its ends
            for candidate in (self.low, self.high):
                if candidate not in self.tried:
                    return float(candidate)
        return value

    # -- keyword fallback (no training probes: the agent of ``spade-gym eval --agent baselines``)

    def _keyword(self, observation: str) -> float:
        step = 1 if self.integral else 0
        if self.guess is None:
            self.guess = self.low + (1 if self.integral and self.high - self.low > 2 else 0)
        else:
            higher, lower = HIGHER_FEEDBACK.search(observation), LOWER_FEEDBACK.search(observation)
            if lower and not higher:
                self.high = self.guess - step
                if self.high < self.low:  # below the learned range: widen it downwards
                    self.low = min(self.outer[0], self.high)
            else:  # higher, or no direction: move up
                self.low = self.guess + step
                if self.high < self.low:
                    self.high = max(self.outer[1], self.low)
            middle = (self.low + self.high) / 2
            self.guess = float(int(middle)) if self.integral else middle
        return self.guess


# ----------------------------------------------------------------------------- marks


class MarkSearch(Baseline):
    """*marks*: for answers that are sequences (codes, words, lists), keep the candidates that would
    have drawn every mark or count the feedback gave so far (under the marking learned on training
    seeds, whatever its symbols or words), and answer the first of them; candidates are the
    answer-shaped tokens of the screen and every sequence over the alphabet of the other seeds'
    answers: listed whole where few enough, else searched for the next consistent one
    (:mod:`~spade_gym.validation.consistent_codes`; alphabets of up to 12 elements)."""

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        self.known = answers_of(prior)
        self.form = answer_form(self.known)
        training = probes_of(prior, GUESS_PROBE, "marks")
        self.model = MarkModel.learn(training, self.form) if self.form is not None and training else None
        # nothing learned: the episode is lost right after the reset (every seed counts in the rate)
        self.idle = self.model is None

    def begin(self, observation):
        form = self.form
        if self.idle or form is None:
            self.exhausted = True
            return
        # the screen's answer-shaped tokens (a word bank), then the answers other seeds had
        screen = [form.split(c) for c in all_candidates(observation)[:2000] + self.known]
        pool = [c for c in screen if c is not None]
        #: per place, the elements a search of the whole code space tries, in turn (a big space only)
        self.orders: list[list[str]] | None = None
        if len(form.alphabet) ** form.length <= MARK_CANDIDATES:
            # a small alphabet is the whole alphabet (codes, digits): the screen's words outside it
            # ("have", "code") are no candidates
            alphabet = set(form.alphabet)
            pool = [c for c in pool if alphabet.issuperset(c)]
            product = list(itertools.product(form.alphabet, repeat=form.length))
            self.rng.shuffle(product)
            pool += product
        elif len(form.alphabet) <= 12:
            # too many codes to list (6 colours, 5 pegs: 7,776): the word bank first, then a search
            # of the space for the first code consistent with the marks so far
            alphabet = set(form.alphabet)
            pool = [c for c in pool if alphabet.issuperset(c)]
            self.orders = [self.rng.sample(form.alphabet, len(form.alphabet)) for _ in range(form.length)]
        self.candidates = list(dict.fromkeys(pool))
        self.alive = list(self.candidates)
        self.constraints: list[tuple[tuple[str, ...], dict]] = []
        self.last: tuple[str, ...] | None = None
        self.task = self.screen = observation
        self.tried: set[tuple[str, ...]] = set()

    def act(self, observation, turn, solution):
        if self.idle or self.model is None or self.form is None:  # an agent that ignores ``exhausted``
            return ""
        if self.last is not None:
            marks = self.model.read(self.task, self.screen, observation)
            if len(marks) < self.model.rules:  # not a marked guess ("send four symbols"): no evidence
                marks = {}
            if marks and self.model.solved(marks):  # a relay moves on to a new answer
                self.constraints, self.alive, self.tried = [], list(self.candidates), set()
            elif marks:
                self.constraints.append((self.last, marks))
                self.alive = [c for c in self.alive if MarkModel.fits(self.last, c, marks)]
                while not self.alive and self.constraints and self.orders is None:
                    # a new answer: forget the oldest marks (a searched space has more candidates)
                    self.constraints.pop(0)
                    self.alive = [c for c in self.candidates
                                  if all(MarkModel.fits(g, c, m) for g, m in self.constraints)]
        self.screen = observation
        choice = next((c for c in self.alive if c not in self.tried), None)
        if choice is None and self.orders is not None:
            choice = next_consistent(self.orders, self.constraints, self.tried)
        if choice is None:
            self.exhausted = True
            choice = next((c for c in self.candidates if c not in self.tried), self.candidates[0] if self.candidates
                          else tuple(self.form.alphabet[:1]) * self.form.length)
        self.tried.add(choice)
        self.last = choice
        return boxed(self.form.join(choice))


# ----------------------------------------------------------------------------- registry

#: The zoo members of this module, and what each does (for messages).
BY_KIND: dict[str, Callable[..., Baseline]] = {"marks": MarkSearch, "opponent": OpponentModel,
                                              "probe_plan": ProbePlan}
DESCRIPTIONS = {
    "bisection": "halves the numeric range (read off the screen where it bounds the answer) on what the feedback "
                 "was learned to mean on training seeds (above/below, warmer/colder, the distance)",
    "marks": "enumerates sequence answers consistent with the marks or counts the feedback was learned to give",
    "opponent": "predicts the opponent's next move from the moves shown so far (cycle and n-gram predictors) and "
                "plays the privileged policy's reply to it",
    "probe_plan": "plays the usual probing moves, then answers what their feedback spelled at the answer's places",
}
#: Training probes (played on other seeds, with the answer known).
TRAINING: dict[str, Callable[..., Baseline]] = {GUESS_PROBE: GuessProbe, PLAN_PROBE: PlanProbe}


__all__ = ["DESCRIPTIONS", "GUESS_PROBE", "PLAN_PROBE", "BY_KIND", "TRAINING", "Bisection", "GuessProbe", "MarkSearch",
           "OpponentModel", "PlanProbe", "ProbePlan", "answer_of", "learn_opponent", "probe_name", "probe_plan",
           "training_specs"]
