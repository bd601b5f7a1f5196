"""What a numeric game's feedback says about the answer, learned on training guesses.

On training seeds the host sent guesses above and below the answer (near and far, the same side
twice and a change; :mod:`spade_gym.validation.learned_probes`). :class:`NumericSemantics` learns,
from the part of each feedback that is new (:func:`~spade_gym.validation.feedback_model.new_part`,
against the task screen and against the previous observation), whether it says the answer lies
above or below the guess, else whether the guess is closer than the previous one ("warmer"), and
which number is the distance; :class:`ScreenBound` which numbers of the first screen bound the
answer. The ``bisection`` baseline follows them on fresh seeds.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from spade_gym.validation.baselines.base import Transcript
from spade_gym.validation.feedback_model import (
    MIN_EXAMPLES,
    MIN_SEEDS,
    STUMP_ACCURACY,
    Bayes,
    Stump,
    as_float,
    cached,
    fingerprint,
    indexed,
    is_number,
    label_counts,
    new_part,
    part_numbers,
    screen_numbers,
    unbox,
)


def _compare(a: float, b: float) -> str:
    return "<" if a < b else (">" if a > b else "=")


def direction_features(part: Sequence[str], guess: float, prefix: str = "") -> frozenset[str]:
    """Features of a new part that can carry "the answer is above/below the guess": its units and
    unit bigrams with numbers masked, its first and last few units by position (the newest entry of
    a log that grows at one end), and how its first and last numbers compare with the guess (an
    interval "251..500" after guessing 250, a number line)."""
    masked = ["#" if is_number(u) else u for u in part[:400]]
    feats = {prefix + u for u in masked}
    feats.update(f"{prefix}{a} {b}" for a, b in zip(masked, masked[1:]))
    for k, unit in enumerate(masked[:3]):
        feats.add(f"{prefix}^{k}{unit}")
    for k, unit in enumerate(reversed(masked[-3:])):
        feats.add(f"{prefix}${k}{unit}")
    numbers = [float(u) for u in part if is_number(u)][:16]
    for k in range(min(4, len(numbers))):
        feats.add(f"{prefix}<{k}{_compare(numbers[k], guess)}")
        feats.add(f"{prefix}>{k}{_compare(numbers[-1 - k], guess)}")
    return frozenset(feats)


@functools.lru_cache(maxsize=8192)
def feedback_features(screen: str, previous: str, observation: str, guess: float) -> frozenset[str]:
    """:func:`direction_features` of what is new against the previous observation (``p:``, a log's
    last entry) and of what is new against the task screen (``s:``, a "Last: go higher" line that
    repeats the previous step's, which the first comparison cannot see)."""
    return direction_features(new_part(previous, observation), guess, "p:") | direction_features(
        new_part(screen, observation), guess, "s:")


#: Feature families a numeric reading may use, in order of preference: what is new against the
#: task screen, against the previous observation (which misses a verdict that repeats the previous
#: one), both.
FAMILIES = (("s:",), ("p:",), ("p:", "s:"))


def _family(features: frozenset[str], family: tuple[str, ...]) -> frozenset[str]:
    return frozenset(f for f in features if f[:2] in family)


@dataclass
class NumericExample:
    seed: int | None
    guess: float
    answer: float
    part: tuple[str, ...]
    previous_guess: float | None
    features: frozenset[str]


def numeric_examples(transcripts: Iterable[Transcript]) -> list[NumericExample]:
    """Every training guess with a numeric answer: the guess, the answer, the feedback's new part."""
    out = []
    for t in transcripts:
        answer = as_float(t.solution)
        if answer is None:
            continue
        previous, previous_guess = t.obs0, None
        for action, obs in zip(t.actions, t.observations):
            guess = as_float(unbox(action))
            if guess is not None and guess != answer:
                out.append(NumericExample(t.seed, guess, answer, new_part(previous, obs), previous_guess,
                                          feedback_features(t.obs0, previous, obs, guess)))
                previous_guess = guess
            previous = obs
    return out


#: Held-out accuracy a learned reading needs before a baseline follows it.
MIN_ACCURACY = 0.85


class NumericSemantics:
    """What a numeric game's feedback says about the answer, learned on training seeds.

    ``side`` predicts +1 (the answer is above the guess) or -1; ``closer`` whether the guess is
    closer to the answer than the previous one ("warmer"); ``distance`` the rule (which number
    of the new part, from which end) that reads ``|guess - answer|``. Each is None unless it
    predicts held-out training feedback (leave-one-out accuracy >= :data:`MIN_ACCURACY`)."""

    def __init__(self, side: FamilyModel | None, closer: FamilyModel | None, distance: tuple[str, int] | None):
        self.side, self.closer, self.distance = side, closer, distance

    @property
    def usable(self) -> bool:
        return self.side is not None or self.closer is not None or self.distance is not None

    @classmethod
    def learn(cls, transcripts: Sequence[Transcript]) -> NumericSemantics:
        """Learned from training probes (cached by their content: the baselines of one level share
        most of their training seeds, and added seeds share all of them)."""
        return cached(_NUMERIC_CACHE, fingerprint(transcripts), lambda: _learn_numeric(transcripts))

    def read_side(self, features: frozenset[str]) -> int | None:
        """+1 (the answer is above the guess), -1, or None; ``features``: :func:`feedback_features`."""
        if self.side is None:
            return None
        label = self.side.predict(features)
        return label if isinstance(label, int) else None

    def read_closer(self, features: frozenset[str]) -> bool | None:
        if self.closer is None:
            return None
        label = self.closer.predict(features)
        return label if isinstance(label, bool) else None

    def read_distance(self, part: Sequence[str]) -> float | None:
        if self.distance is None:
            return None
        anchor, k = self.distance
        return indexed(part_numbers(part), k, anchor)


class FamilyModel:
    """A :class:`Stump` or :class:`Bayes` model on one feature family (:data:`FAMILIES`)."""

    def __init__(self, model: Stump | Bayes, family: tuple[str, ...]):
        self.model, self.family = model, family

    def predict(self, features: frozenset[str]) -> Hashable | None:
        return self.model.predict(_family(features, self.family))


_NUMERIC_CACHE: dict[tuple, NumericSemantics] = {}


def _learn_numeric(transcripts: Sequence[Transcript]) -> NumericSemantics:
    examples = numeric_examples(transcripts)
    side: list[tuple[frozenset[str], Hashable]] = [(e.features, 1 if e.answer > e.guess else -1) for e in examples]
    side_model = _accurate(side, {e.seed for e in examples})
    closer_model = None
    if side_model is None:  # warmer/colder is only followed where above/below cannot be read
        closer: list[tuple[frozenset[str], Hashable]] = [
                  (e.features, abs(e.guess - e.answer) < abs(e.previous_guess - e.answer))
                  for e in examples
                  if e.previous_guess is not None and abs(e.guess - e.answer) != abs(e.previous_guess - e.answer)]
        closer_model = _accurate(closer, {e.seed for e in examples if e.previous_guess is not None})
    return NumericSemantics(side_model, closer_model, _distance_rule(examples))


def _accurate(examples: list[tuple[frozenset[str], Hashable]], seeds: set) -> FamilyModel | None:
    """The feature family whose model predicts held-out training examples best (a log that
    repeats every verdict is read from the previous observation, a repeated "Last: higher" line
    from the task screen), if it reaches :data:`MIN_ACCURACY`. One family, not all: features that
    drift with the episode's length (a log longer than any training log) must not outvote the
    one that carries the verdict."""
    labels = Counter(label for _, label in examples)
    if len(examples) < MIN_EXAMPLES or len(seeds) < MIN_SEEDS or len(labels) < 2 or min(labels.values()) < 2:
        return None
    best: tuple[float, FamilyModel] | None = None
    counts = label_counts(examples)
    for family in FAMILIES:
        stump = Stump(examples, family, counts)
        if stump.accuracy >= STUMP_ACCURACY and (best is None or stump.accuracy > best[0]):
            best = (stump.accuracy, FamilyModel(stump, family))
    if best is not None:
        return best[1]
    for family in FAMILIES:
        model = Bayes([(_family(feats, family), label) for feats, label in examples])
        accuracy = model.loo_accuracy()
        if accuracy >= MIN_ACCURACY and (best is None or accuracy > best[0]):
            best = (accuracy, FamilyModel(model, family))
    return best[1] if best else None


def _distance_rule(examples: list[NumericExample]) -> tuple[str, int] | None:
    """The (anchor, index) of the feedback number that equals the distance to the answer on at
    least 90% of the training guesses where the feedback has such a number."""
    numbers = [(part_numbers(e.part), abs(e.guess - e.answer)) for e in examples]
    best = None
    for anchor in ("start", "end"):
        for k in range(4):
            read = [(indexed(values, k, anchor), d) for values, d in numbers]
            read = [(v, d) for v, d in read if v is not None]
            hits = sum(abs(v - d) < 1e-9 for v, d in read)
            if len(read) >= MIN_EXAMPLES and hits >= 0.9 * len(read) and hits >= 0.6 * len(numbers):
                if best is None or hits > best[0]:
                    best = (hits, (anchor, k))
    return best[1] if best else None


class ScreenBound:
    """Which numbers of the first screen bound the answer ("a number from 1 to 4000", a range
    that differs by seed): the k-th number from the start or the end that is <= (>=) the answer
    on every training seed, the tightest such on average."""

    def __init__(self, low: tuple[str, int] | None, high: tuple[str, int] | None):
        self.low, self.high = low, high

    @classmethod
    def learn(cls, screens: Iterable[tuple[str, str | None]]) -> ScreenBound | None:
        """From (first screen, answer) pairs of training seeds."""
        rows = [(screen_numbers(screen), as_float(answer)) for screen, answer in screens]
        rows = [(numbers, v) for numbers, v in rows if v is not None and numbers]
        if len(rows) < MIN_SEEDS:
            return None
        # A bound that moves with the seed ("1 to N") says most, the tightest of those; of fixed
        # numbers the loosest ("from 1", not the "8 guesses" every answer happened to exceed).
        lows, highs = [], []
        for anchor in ("start", "end"):
            for k in range(12):
                values = [indexed(numbers, k, anchor) for numbers, _ in rows]
                if any(value is None for value in values):
                    continue
                moves = len(set(values)) > 1
                mean = sum(values) / len(values)
                if all(value <= v for value, (_, v) in zip(values, rows)):
                    lows.append((0, -mean, (anchor, k)) if moves else (1, mean, (anchor, k)))
                if all(value >= v for value, (_, v) in zip(values, rows)):
                    highs.append((0, mean, (anchor, k)) if moves else (1, -mean, (anchor, k)))
        low = min(lows)[2] if lows else None
        high = min(highs)[2] if highs else None
        return cls(low, high) if low or high else None

    def bounds(self, obs0: str) -> tuple[float | None, float | None]:
        numbers = screen_numbers(obs0)
        low = indexed(numbers, self.low[1], self.low[0]) if self.low else None
        high = indexed(numbers, self.high[1], self.high[0]) if self.high else None
        return low, high


__all__ = ["FAMILIES", "MIN_ACCURACY", "FamilyModel", "NumericSemantics", "ScreenBound", "direction_features",
           "feedback_features", "numeric_examples"]
