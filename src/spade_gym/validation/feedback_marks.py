"""What a sequence game's marks mean, learned on training guesses whose marks the host knows.

Codes, words and lists are answered element by element, and a code-breaking or word game marks
each guess: per position (right / elsewhere / absent, or right / not: "●○··", "GY--G", "🟩🟨⬜",
"right elsewhere absent") or by counts ("2 ◆ 1 ◇", "two in place"). :class:`MarkModel` finds
which window of a feedback's units or characters holds the per-position marks and which numbers
count, in whatever symbols or words, from training probes (:mod:`spade_gym.validation.learned_probes`);
the ``marks`` baseline then keeps the candidates that would have drawn every mark so far.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from spade_gym.validation.baselines.base import Transcript
from spade_gym.validation.feedback_model import (
    MIN_EXAMPLES,
    MIN_SEEDS,
    cached,
    fingerprint,
    indexed,
    is_number,
    new_part,
    part_numbers,
    unbox,
)

# ----------------------------------------------------------------------------- sequence answers

_SEPARATOR = re.compile(r"\s*[,;|/]\s*|\s+")


@dataclass(frozen=True)
class AnswerForm:
    """The shape of a game's answers as sequences: ``length`` elements joined by ``joiner`` (""
    for the characters of a word or code), over the ``alphabet`` the training answers use."""

    length: int
    joiner: str
    alphabet: tuple[str, ...]

    def split(self, text: str | None) -> tuple[str, ...] | None:
        if text is None:
            return None
        text = text.strip().casefold()
        elements = tuple(text) if not self.joiner else tuple(e for e in _SEPARATOR.split(text) if e)
        return elements if len(elements) == self.length else None

    def join(self, elements: Sequence[str]) -> str:
        return self.joiner.join(elements)


def answer_form(solutions: Sequence[str]) -> AnswerForm | None:
    """The common sequence form of ``solutions`` (every one the same length, 2 to 10 elements,
    joined the same way), else None."""
    answers = [s.strip().casefold() for s in solutions if s and s.strip()]
    if len(answers) < MIN_SEEDS:
        return None
    separators = [_SEPARATOR.findall(a) for a in answers]
    if all(separators):
        joiner = Counter(s for found in separators for s in found).most_common(1)[0][0]
        split = [tuple(e for e in _SEPARATOR.split(a) if e) for a in answers]
    elif not any(separators):
        joiner, split = "", [tuple(a) for a in answers]
    else:
        return None
    lengths = {len(s) for s in split}
    if len(lengths) != 1 or not 2 <= next(iter(lengths)) <= 10:
        return None
    alphabet = sorted({e for s in split for e in s})
    if len(alphabet) > 40 or any(len(e) > 12 for e in alphabet):
        return None
    return AnswerForm(next(iter(lengths)), joiner, tuple(alphabet))


@functools.lru_cache(maxsize=65536)
def mark_labels(guess: tuple[str, ...], answer: tuple[str, ...]) -> dict[str, object]:
    """What a mark-feedback game could tell about ``guess`` against ``answer``: per position
    ``exact`` (1/0) and ``wordle`` (2 right, 1 elsewhere, 0 absent, copies counted), and the
    counts ``b`` (right), ``w`` (elsewhere), ``b+w``, ``L-b``, ``L-b-w``."""
    exact = tuple(int(g == a) for g, a in zip(guess, answer))
    left = Counter(a for g, a in zip(guess, answer) if g != a)
    wordle = []
    for g, hit in zip(guess, exact):
        if hit:
            wordle.append(2)
        elif left[g] > 0:
            left[g] -= 1
            wordle.append(1)
        else:
            wordle.append(0)
    b, w, size = sum(exact), wordle.count(1), len(answer)
    return {"exact": exact, "wordle": tuple(wordle), "b": b, "w": w, "b+w": b + w, "L-b": size - b,
            "L-b-w": size - b - w}


COUNT_SCHEMES = ("b", "w", "b+w", "L-b", "L-b-w")
POSITION_SCHEMES = ("wordle", "exact")


#: Where a mark rule reads: what is new against the task screen, or against the previous
#: observation (ties go to the first: the second misses marks that repeat the previous guess's).
SOURCES = ("s", "p")


def parts(screen: str, previous: str, observation: str) -> dict[str, tuple[str, ...]]:
    """A step's feedback in each :data:`SOURCES` form (a repeated "2 ◆ 0 ◇" is new only against
    the screen; a log's last entry only against the previous observation)."""
    return {"p": new_part(previous, observation), "s": new_part(screen, observation)}


@dataclass
class MarkExample:
    guess: tuple[str, ...]
    answer: tuple[str, ...]
    parts: dict[str, tuple[str, ...]]


def mark_examples(transcripts: Iterable[Transcript], form: AnswerForm) -> list[MarkExample]:
    out = []
    for t in transcripts:
        answer = form.split(t.solution)
        if answer is None:
            continue
        previous = t.obs0
        for action, obs in zip(t.actions, t.observations):
            guess = form.split(unbox(action))
            if guess is not None and guess != answer:
                out.append(MarkExample(guess, answer, parts(t.obs0, previous, obs)))
            previous = obs
    return out


@functools.lru_cache(maxsize=8192)
def _mark_units(part: tuple[str, ...], mode: str) -> tuple[str, ...]:
    """Units marks may be written in: the part's units, or its characters (numbers masked)."""
    if mode == "units":
        return tuple(part)
    return tuple("".join("#" if is_number(u) else u for u in part))


def _window(seq: Sequence[str], length: int, anchor: str, offset: int, stride: int) -> tuple[str, ...] | None:
    span = stride * (length - 1) + 1
    start = offset if anchor == "start" else len(seq) - offset - span
    if start < 0 or start + span > len(seq):
        return None
    return tuple(seq[start + stride * i] for i in range(length))


@dataclass(frozen=True)
class PositionRule:
    source: str
    mode: str
    anchor: str
    offset: int
    stride: int
    scheme: str
    #: mark unit -> label
    mapping: tuple[tuple[str, int], ...]

    def read(self, parts: dict[str, tuple[str, ...]], length: int) -> tuple[int, ...] | None:
        window = _window(_mark_units(parts[self.source], self.mode), length, self.anchor, self.offset, self.stride)
        if window is None:
            return None
        mapping = dict(self.mapping)
        if not all(u in mapping for u in window):
            return None
        return tuple(mapping[u] for u in window)


@dataclass(frozen=True)
class CountRule:
    source: str
    anchor: str
    index: int
    scheme: str

    def read(self, parts: dict[str, tuple[str, ...]]) -> float | None:
        return indexed(part_numbers(parts[self.source]), self.index, self.anchor)


class MarkModel:
    """How a sequence game marks a guess, learned on training guesses whose marks are known: at
    most one per-position rule and a few count rules. :meth:`read` takes the marks off a feedback,
    :meth:`fits` says whether a candidate answer would have produced them."""

    def __init__(self, form: AnswerForm, position: PositionRule | None, counts: list[CountRule]):
        self.form, self.position, self.counts = form, position, counts

    @property
    def rules(self) -> int:
        """How many rules a marked guess's feedback is read by (all of them read it)."""
        return len(self.counts) + (self.position is not None)

    @classmethod
    def learn(cls, transcripts: Sequence[Transcript], form: AnswerForm) -> MarkModel | None:
        """Learned from training probes (cached by their content, as :meth:`NumericSemantics.learn`).
        Only probes that got a second guess count: where a wrong guess ends the episode there is
        nothing to enumerate, and nothing worth the search for a marking."""
        kept = [t for t in transcripts if len(t.actions) >= 2]
        if len(kept) < MIN_SEEDS:
            return None
        return cached(_MARK_CACHE, (fingerprint(kept), form), lambda: _learn_marks(kept, form))

    def read(self, screen: str, previous: str, observation: str) -> dict:
        """The marks of a step's feedback, by rule (rules that read nothing are left out)."""
        found = parts(screen, previous, observation)
        marks: dict = {}
        if self.position is not None:
            vector = self.position.read(found, self.form.length)
            if vector is not None:
                marks[self.position] = vector
        for rule in self.counts:
            count = rule.read(found)
            if count is not None:
                marks[rule] = count
        return marks

    @staticmethod
    def fits(guess: tuple[str, ...], candidate: tuple[str, ...], marks: dict) -> bool:
        labels = mark_labels(guess, candidate)
        return all(labels[rule.scheme] == value for rule, value in marks.items())

    def solved(self, marks: dict) -> bool:
        """Marks that say every position is right (a relay game moves on to a new answer): what
        every rule reads is what the right answer draws."""
        if not marks:
            return False
        everything = tuple("x" * self.form.length)  # any answer against itself
        labels = mark_labels(everything, everything)
        return all(labels[rule.scheme] == value for rule, value in marks.items())


#: Places from either end of a feedback where per-position marks may start.
MARK_OFFSETS = 24


_MARK_CACHE: dict[tuple, MarkModel | None] = {}


def _learn_marks(transcripts: Sequence[Transcript], form: AnswerForm) -> MarkModel | None:
    examples = mark_examples(transcripts, form)
    if len(examples) < MIN_EXAMPLES:
        return None
    position = _position_rule(examples, form.length)
    counts = _count_rules(examples)
    if position is None and not counts:
        return None
    return MarkModel(form, position, counts)


def _position_rule(examples: list[MarkExample], length: int) -> PositionRule | None:
    """The per-position rule consistent with the most training guesses (>= 90% of those it reads,
    reading >= 60% of all), preferring the richer scheme.

    Only windows whose every place already tells its position's label (a few units vary there, each
    standing for one label >= 90% of the time) are fitted: a handful of candidates, not thousands."""
    total = len(examples)
    places = MARK_OFFSETS + 3 * length
    labels: dict[str, list[tuple[int, ...]]] = {
        scheme: [mark_labels(e.guess, e.answer)[scheme] for e in examples]  # type: ignore[misc]
        for scheme in POSITION_SCHEMES}
    columns = {scheme: [[v[i] for v in vectors] for i in range(length)] for scheme, vectors in labels.items()}
    best: dict[str, tuple[int, PositionRule]] = {}
    for source, mode in itertools.product(SOURCES, ("units", "chars")):
        seqs = [_mark_units(e.parts[source], mode) for e in examples]
        for anchor in ("start", "end"):
            groups = _place_groups(seqs, anchor, places, total)
            if sum(g is not None for g in groups) < length:
                continue
            for scheme in POSITION_SCHEMES:
                telling = [[g is not None and _pure(g, column) for column in columns[scheme]] for g in groups]
                for stride, offset in itertools.product((1, 2, 3), range(MARK_OFFSETS)):
                    # the place of label i: offset + stride * i from the start, counted backwards from the end
                    spots = [offset + stride * (i if anchor == "start" else length - 1 - i) for i in range(length)]
                    if not all(telling[q][i] for i, q in enumerate(spots)):
                        continue
                    rule = _fit_position(seqs, labels[scheme], length, (source, mode), anchor, offset, stride,
                                         scheme, total)
                    if rule is not None and (scheme not in best or rule[0] > best[scheme][0]):
                        best[scheme] = rule
    for scheme in POSITION_SCHEMES:
        if scheme in best:
            return best[scheme][1]
    return None


def _place_groups(seqs: list[tuple[str, ...]], anchor: str, places: int, total: int) -> list[list[list[int]] | None]:
    """Per place from ``anchor``: the examples grouped by the unit there, where two to eight units
    fill the place on at least 60% of the examples (a constant text or a guess's echo: None)."""
    out: list[list[list[int]] | None] = []
    for q in range(places):
        groups: dict[str, list[int]] = {}
        for j, seq in enumerate(seqs):
            if q < len(seq):
                groups.setdefault(seq[q] if anchor == "start" else seq[-1 - q], []).append(j)
        seen = sum(len(g) for g in groups.values())
        out.append(list(groups.values()) if 2 <= len(groups) <= 8 and seen >= 0.6 * total else None)
    return out


def _pure(groups: list[list[int]], column: list[int]) -> bool:
    """Does each unit of a place stand for one value of the label ``column`` >= 90% of the time?"""
    seen = pure = 0
    for members in groups:
        counts: dict[int, int] = {}
        for j in members:
            counts[column[j]] = counts.get(column[j], 0) + 1
        pure += max(counts.values())
        seen += len(members)
    return pure >= 0.9 * seen


def _fit_position(seqs, labels, length, where: tuple[str, str], anchor, offset, stride, scheme, total):
    """A rule reading marks at one window: its units that stand for one label (>= 90% of the time,
    seen twice) are the marks; a window with any other unit is not read (a rejected guess's
    "send four symbols"). Needs >= 60% of the examples read and >= 90% of those right."""
    table: dict[str, Counter] = {}
    windows = []
    first: dict[str, int] = {}
    conflicts, allowed = 0, 0.15 * total * length + 2
    for seq, vector in zip(seqs, labels):
        window = _window(seq, length, anchor, offset, stride)
        if window is None:
            continue
        windows.append((window, vector))
        for unit, label in zip(window, vector):
            table.setdefault(unit, Counter())[label] += 1
            if first.setdefault(unit, label) != label:
                conflicts += 1
        if conflicts > allowed:  # units that stand for several labels: no marks here (most windows end here)
            return None
    if len(windows) < max(MIN_EXAMPLES, 0.6 * total):
        return None
    mapping = {unit: counts.most_common(1)[0][0] for unit, counts in table.items()
               if sum(counts.values()) >= 2 and counts.most_common(1)[0][1] >= 0.9 * sum(counts.values())}
    if len(set(mapping.values())) < 2:
        return None
    readable = [(w, v) for w, v in windows if all(u in mapping for u in w)]
    if len(readable) < max(MIN_EXAMPLES, 0.6 * total):
        return None
    right = sum(all(mapping[u] == label for u, label in zip(w, v)) for w, v in readable)
    if right < 0.9 * len(readable):
        return None
    return right, PositionRule(*where, anchor, offset, stride, scheme, tuple(sorted(mapping.items())))


def _count_rules(examples: list[MarkExample]) -> list[CountRule]:
    """Count rules that hold on >= 90% of the training guesses where the number exists (and on
    >= 60% of all), with at least two distinct counts seen; one rule per scheme, the best."""
    numbers = {source: [part_numbers(e.parts[source]) for e in examples] for source in SOURCES}
    labels = [mark_labels(e.guess, e.answer) for e in examples]
    chosen: dict[str, tuple[int, CountRule]] = {}
    for scheme, source in itertools.product(COUNT_SCHEMES, SOURCES):
        truth = [lab[scheme] for lab in labels]
        if len(set(truth)) < 2:
            continue
        for anchor in ("start", "end"):
            for index in range(6):
                read = [(indexed(values, index, anchor), t) for values, t in zip(numbers[source], truth)]
                read = [(v, t) for v, t in read if v is not None]
                hits = sum(v == t for v, t in read)
                if (len(read) >= MIN_EXAMPLES and hits >= 0.9 * len(read) and hits >= 0.6 * len(examples)
                        and len({t for v, t in read if v == t}) >= 2):
                    if scheme not in chosen or hits > chosen[scheme][0]:
                        chosen[scheme] = (hits, CountRule(source, anchor, index, scheme))
    # "b+w" and "L-b" are implied when "b" and "w" both hold; keep the independent ones first
    order = sorted(chosen.values(), key=lambda hit_rule: -hit_rule[0])
    return [rule for _, rule in order[:3]]


__all__ = [
    "COUNT_SCHEMES",
    "POSITION_SCHEMES",
    "SOURCES",
    "AnswerForm",
    "CountRule",
    "MarkModel",
    "PositionRule",
    "answer_form",
    "mark_labels",
    "parts",
]
