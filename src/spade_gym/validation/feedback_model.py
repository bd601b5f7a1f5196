"""What a script learns about a program's feedback on training seeds, instead of reading keywords.

A keyword list ("higher", "too low") is a closed list of phrasings, and an optimised designer
finds the phrasing it leaves out within an iteration ("500->lower, 250->higher", "colder",
"↑", "plus haut"). But on training seeds (other seeds of the same level) the host knows the
answer, so it can send guesses whose relation to the answer it knows (above or below it, near or
far, k positions right) and learn which feedback signals what. This module is what that learning
reads and fits with:

* :func:`units` / :func:`new_part`: a feedback text as units (words, numbers, single symbols),
  and the part of it that is new against the observation before it (a log that repeats every
  earlier line contributes only its last entry);
* :class:`Stump` (the one feature that tells two labels apart) and :class:`Bayes` (a Bernoulli
  naive Bayes model with an exact leave-one-out accuracy), used where they predict held-out
  training feedback.

What numeric feedback says is :mod:`spade_gym.validation.feedback_numeric`, what marks on codes
and words say :mod:`spade_gym.validation.feedback_marks`; the baselines that follow them on fresh
seeds are :mod:`spade_gym.validation.baselines.learned` and :mod:`spade_gym.validation.baselines.moves`.
Everything here is a pure function of the training transcripts, so a probe run replays exactly.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from spade_gym.decoding.decoders import spelled
from spade_gym.decoding.text import normal_form
from spade_gym.validation.baselines.base import Transcript

#: Characters of an observation read (screens of validated programs are far shorter).
MAX_CHARS = 8000
#: Units of a text compared by :func:`new_part` (the diff is quadratic in the worst case).
MAX_UNITS = 1500
_UNIT = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|[^\w\s]")
_VARIATION = re.compile("[\ufe00-\ufe0f]")
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
#: Numbers on a screen: a minus sign only where it cannot be a dash between two numbers ("1-1000").
_SCREEN_NUMBER = re.compile(r"(?:(?<=[\s(\[=:])-|^-)?(?<!\w)(?<!\d\.)\d+(?:\.\d+)?(?!\w)(?!\.\d)")


# ----------------------------------------------------------------------------- reading a text


@functools.lru_cache(maxsize=4096)
def units(text: str) -> tuple[str, ...]:
    """Words (any script, case-folded), numbers and single symbols of ``text`` in normal form
    (:func:`spade_gym.decoding.text.normal_form`: full-width digits are digits, zero-width
    characters are gone), emoji variation selectors dropped."""
    return tuple(_UNIT.findall(_VARIATION.sub("", normal_form(text[:MAX_CHARS]))))[:MAX_UNITS]


def is_number(unit: str) -> bool:
    return unit[:1].isdigit()


@functools.lru_cache(maxsize=4096)
def new_part(previous: str, current: str) -> tuple[str, ...]:
    """The units of ``current`` that ``previous`` did not show: what a step's feedback says.

    Where the two texts share most of their units (a screen re-rendered with one line more, a
    log that repeats every earlier entry), the units outside the longest common blocks; where
    they share little (a bare "Too low." after a long task screen) or nothing is new (the same
    feedback twice), the whole of ``current``. Lines are compared first and units only within
    the lines that changed, which keeps long re-rendered screens cheap."""
    prev_lines, cur_lines = previous[:MAX_CHARS].splitlines(), current[:MAX_CHARS].splitlines()
    matched = 0
    out: list[str] = []
    lines = difflib.SequenceMatcher(None, prev_lines, cur_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in lines.get_opcodes():
        if tag == "equal":
            matched += sum(len(_line_units(line)) for line in cur_lines[j1:j2])
            continue
        cur = tuple(u for line in cur_lines[j1:j2] for u in _line_units(line))
        if tag == "insert" or not cur:
            out.extend(cur)
            continue
        prev = tuple(u for line in prev_lines[i1:i2] for u in _line_units(line))
        at = 0
        for block in difflib.SequenceMatcher(None, prev, cur, autojunk=False).get_matching_blocks():
            out.extend(cur[at:block.b])
            matched += block.size
            at = block.b + block.size
    whole = units(current)
    if 2 * matched < 0.5 * (len(units(previous)) + len(whole)):
        return whole
    return tuple(out)[:MAX_UNITS] or whole


@functools.lru_cache(maxsize=16384)
def _line_units(line: str) -> tuple[str, ...]:
    return units(line)


def part_numbers(part: Sequence[str]) -> list[float]:
    """The numbers of a new part in order, number words read as numbers ("two right")."""
    return list(_part_numbers(tuple(part)))


@functools.lru_cache(maxsize=8192)
def _part_numbers(part: tuple[str, ...]) -> tuple[float, ...]:
    text = " ".join(part)
    if len(text) <= 400 and any(u[:1].isalpha() for u in part):
        text = spelled(text)
    out = []
    for token in re.findall(r"\d+(?:\.\d+)?", text):
        try:
            out.append(float(token))
        except ValueError:
            continue
    return tuple(out)


def screen_numbers(text: str) -> list[float]:
    return list(_screen_numbers(text[:MAX_CHARS]))


@functools.lru_cache(maxsize=4096)
def _screen_numbers(text: str) -> tuple[float, ...]:
    return tuple(float(n) for n in _SCREEN_NUMBER.findall(normal_form(text)))


def unbox(action: str) -> str | None:
    """The last ``\\boxed{...}`` of an action (what a probe answered), else None."""
    found = _BOXED.findall(action or "")
    return found[-1].strip() if found else None


def as_float(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) and abs(value) < 1e15 else None


def indexed(values: Sequence, k: int, anchor: str):
    """The ``k``-th value from the start or from the end, or None."""
    if k >= len(values):
        return None
    return values[k] if anchor == "start" else values[len(values) - 1 - k]


# ----------------------------------------------------------------------------- naive Bayes


class Bayes:
    """A Bernoulli naive Bayes classifier over feature sets, with its leave-one-out accuracy
    computed in closed form (count subtraction), so checking that a model generalises costs
    little more than fitting it. Features seen in fewer than two examples are dropped."""

    def __init__(self, examples: Sequence[tuple[frozenset[str], Hashable]]):
        self.examples = list(examples)
        frequency = Counter(f for feats, _ in self.examples for f in feats)
        self.vocab = frozenset(f for f, c in frequency.items() if c >= 2)
        self.n = Counter(label for _, label in self.examples)
        self.counts: dict[Hashable, Counter] = {label: Counter() for label in self.n}
        for feats, label in self.examples:
            self.counts[label].update(feats & self.vocab)
        size = len(self.vocab)
        self._base, self._delta, self._tail = {}, {}, {}
        for label, n in self.n.items():
            counts = self.counts[label]
            # log P(feature absent) summed over the vocabulary, and per-feature corrections
            self._base[label] = (sum(math.log(n + 1 - counts[f]) for f in self.vocab) - size * math.log(n + 2)
                                 + math.log(n + 1))
            self._delta[label] = {f: math.log(counts[f] + 1) - math.log(n + 1 - counts[f]) for f in self.vocab}
            # for leave-one-out: sum over features of log(n - count), counts below n only
            self._tail[label] = sum(math.log(n - counts[f]) for f in self.vocab if counts[f] < n)

    def scores(self, feats: frozenset[str]) -> dict[Hashable, float]:
        present = feats & self.vocab
        return {label: self._base[label] + sum(self._delta[label][f] for f in present) for label in self.n}

    def predict(self, feats: frozenset[str]) -> Hashable | None:
        scores = self.scores(feats)
        return max(scores, key=lambda label: (scores[label], str(label))) if scores else None

    def loo_scores(self, i: int) -> dict[Hashable, float]:
        """The scores of example ``i`` by the model fitted on the other examples (same vocabulary),
        in closed form: its label's counts less one."""
        feats, label = self.examples[i]
        present = feats & self.vocab
        size = len(self.vocab)
        scores = {}
        for other, n in self.n.items():
            if other != label:
                scores[other] = self._base[other] + sum(self._delta[other][f] for f in present)
                continue
            if n <= 1:
                continue  # the label has no example left
            counts = self.counts[label]
            # n-1 examples; this example's features one count less; see the derivation in _base
            score = math.log(n) + self._tail[label] - size * math.log(n + 1)
            for f in present:
                score += math.log(counts[f]) - (math.log(n - counts[f]) if counts[f] < n else 0.0)
            scores[other] = score
        return scores

    def loo_accuracy(self) -> float:
        """Share of training examples predicted right by the model fitted on the others."""
        if len(self.n) < 2:
            return 0.0
        right = 0
        for i, (_, label) in enumerate(self.examples):
            scores = self.loo_scores(i)
            right += bool(scores) and max(scores, key=lambda c: (scores[c], str(c))) == label
        return right / len(self.examples)


#: Training examples a learned reading needs (from at least :data:`MIN_SEEDS` seeds).
MIN_EXAMPLES = 6
MIN_SEEDS = 3


class Stump:
    """The one feature that best tells two labels apart ("higher" present: the answer is above),
    with the label for its presence and for its absence. Most feedback carries its verdict in one
    unit, symbol or bigram; one feature is also what stays true when the rest of the text drifts
    (a log longer than any training log), where a model that adds up many correlated features
    (the first step's whole screen) is outvoted by them."""

    def __init__(self, examples: Sequence[tuple[frozenset[str], Hashable]], prefixes: tuple[str, ...] | None = None,
                 by_feature: dict[str, Counter] | None = None):
        """``by_feature`` (feature -> labels of the examples that have it) may be given, counted
        once for several ``prefixes`` (feature families) of the same examples."""
        self.feature: str | None = None
        self.present = self.absent = None
        self.accuracy = 0.0
        total = len(examples)
        labels = Counter(label for _, label in examples)
        if total == 0 or len(labels) != 2:
            return
        if by_feature is None:
            by_feature = label_counts(examples)
        best = None
        for f, with_f in by_feature.items():
            if prefixes is not None and f[:2] not in prefixes:
                continue
            n = sum(with_f.values())
            if n < 2 or total - n < 2:
                continue
            without = labels - with_f
            present, absent = with_f.most_common(1)[0][0], (without.most_common(1)[0][0] if without else None)
            if absent is None or present == absent:
                continue
            right = with_f[present] + without[absent]
            key = (right, -abs(2 * n - total), f)
            if best is None or key > best[0]:
                best = (key, f, present, absent)
        if best is not None:
            self.accuracy = best[0][0] / total
            _, self.feature, self.present, self.absent = best

    def predict(self, features: frozenset[str]) -> Hashable | None:
        if self.feature is None:
            return None
        return self.present if self.feature in features else self.absent


def label_counts(examples: Sequence[tuple[frozenset[str], Hashable]]) -> dict[str, Counter]:
    """Feature -> how often each label goes with it."""
    by_feature: dict[str, Counter] = {}
    for feats, label in examples:
        for f in feats:
            by_feature.setdefault(f, Counter())[label] += 1
    return by_feature


#: Training accuracy a one-feature rule needs (it was picked as the best of many, so more than
#: the held-out accuracy a fitted model needs).
STUMP_ACCURACY = 0.95


def fingerprint(transcripts: Sequence[Transcript]) -> tuple:
    """A content key for transcripts (what learning from them is cached by)."""
    return tuple((t.seed, t.baseline, t.solution, tuple(t.actions), hash(tuple(t.observations)), hash(t.obs0))
                 for t in transcripts)


#: What is learned from transcripts is kept per content key, a few dozen at most. Validation runs
#: programs on threads, so the caches are shared: reads and writes hold this lock, the learning
#: itself does not (two threads may learn the same key at once; learning is a pure function of it).
_CACHE_LOCK = threading.Lock()
CACHE_SIZE = 64


def cached(cache: dict, key: tuple, make: Callable[[], Any]) -> Any:
    """``make()`` once per content ``key`` (the zoo and its hinted twins learn from the same other
    seeds, and added seeds from all of them), at most :data:`CACHE_SIZE` kept; safe across threads."""
    with _CACHE_LOCK:
        if key in cache:
            return cache[key]
    value = make()
    with _CACHE_LOCK:
        if key not in cache and len(cache) >= CACHE_SIZE:
            cache.pop(next(iter(cache)))
        cache[key] = value
    return value


__all__ = [
    "MAX_CHARS",
    "MIN_EXAMPLES",
    "MIN_SEEDS",
    "STUMP_ACCURACY",
    "Bayes",
    "Stump",
    "as_float",
    "cached",
    "fingerprint",
    "indexed",
    "is_number",
    "label_counts",
    "new_part",
    "part_numbers",
    "screen_numbers",
    "unbox",
    "units",
]
