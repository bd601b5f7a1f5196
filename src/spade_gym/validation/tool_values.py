"""What a tool-use script reads: the values it can copy from a text, and how it ranks them.

A tool-use shortcut script (:mod:`spade_gym.validation.baselines.tools`) acts only on texts an
agent sees (the task, each tool result, the schemas). This module turns such a text into the
values written in it (:func:`occurrences`, each with where it stands and the words around it),
learns from the other seeds' transcripts where their values were written (:class:`Role`), and
ranks this episode's values for an argument or an answer (:func:`rank_values`). What depends
on a text alone is cached per text: every script of a seed reads the same transcripts many times.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from typing import Any, NamedTuple

from spade_gym import toolcalls
from spade_gym.validation.observations import NUMBER, as_number, render_number, shape

#: What the base class writes before a tool's result.
RESULT_PREFIX = "Tool result:\n"
#: A result that reads as a failure (the base class's "Error calling x: ..." included): the call
#: is retried with the next binding. A fixed list: a result phrased to dodge it only costs the
#: script its retries, never a win.
ERROR_WORDS = re.compile(r"\b(errors?|fail(?:ed|s|ure)?|invalid|denied|not found|unknown|cannot|can't|refused|"
                         r"forbidden|rejected|not allowed|no such|unable)\b", re.IGNORECASE)
#: Values an agent copies from a text: identifiers, numbers, codes, paths, keys (a value may
#: hold ``_ . - / @ : # +`` inside, never at its ends).
_VALUE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/@:#+]*")
_QUOTED = re.compile(r"'([^'\n]{1,80})'|\"([^\"\n]{1,80})\"|`([^`\n]{1,80})`")
_WORD = re.compile(r"[a-z0-9]+")
_INTEGER = re.compile(r"-?\d{1,18}")
#: Characters of one text that are read (results beyond this are noise for a script).
TEXT_CHARS = 20_000
#: Candidates kept per argument.
_TOP = 8
#: Words that name nothing (never an argument's value by themselves).
_STOPWORDS = frozenset("""a an and are as at be by for from has have in is it its of on or the then this to was
with your you answer tool result use call""".split())


class Occurrence(NamedTuple):
    """A value written in a text: where (``key``: which token, quote, line, JSON key) and the
    words around it (two before, one after)."""

    value: str
    key: tuple
    context: frozenset[str]


def result_body(observation: str) -> str:
    """A tool result without the base class's ``Tool result:`` line."""
    return observation[len(RESULT_PREFIX):] if observation.startswith(RESULT_PREFIX) else observation


def is_error(observation: str) -> bool:
    """Whether a step's observation reads as a failed call."""
    return bool(ERROR_WORDS.search(observation[:2000]))


def norm(value: Any) -> str:
    """One spelling per value: numbers by value (``12.50`` is ``12.5``), text case-folded."""
    text = str(value).strip()
    number = as_number(text) if NUMBER.fullmatch(text) else None
    return render_number(number) if number is not None else text.casefold()


def _json_leaves(value: Any, path: str, out: list[Occurrence], depth: int = 0) -> None:
    if depth > 8 or len(out) > 400:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _json_leaves(item, f"{path}/{key}", out, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _json_leaves(item, f"{path}/{index}", out, depth + 1)
    elif value is not None and not isinstance(value, bool):
        words = frozenset(_WORD.findall(path.rsplit("/", 1)[-1].lower()))
        out.append(Occurrence(str(value), ("json", path), words))


@functools.lru_cache(maxsize=4096)
def occurrences(text: str) -> tuple[Occurrence, ...]:
    """Every value a script can copy from ``text``, in order of appearance.

    JSON leaves (when the text is JSON, keyed by their path), quoted strings, whole lines of a
    short text, identifier-like tokens and the parts of compound ones (``bookings:12345`` gives
    ``bookings`` and ``12345`` too), numbers."""
    text = text[:TEXT_CHARS]
    found: list[Occurrence] = []
    words = [(m.start(), m.group()) for m in _WORD.finditer(text.lower())]
    starts = [start for start, _ in words]

    def around(start: int, end: int) -> frozenset[str]:
        i, j = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
        return frozenset(w for _, w in words[max(0, i - 2):i] + words[j:j + 1])

    body = text.strip()
    if body[:1] in "[{":
        try:
            data = toolcalls.load_json(body)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, (dict, list)):
            _json_leaves(data, "", found)
    for n, match in enumerate(_QUOTED.finditer(text)):
        value = next(g for g in match.groups() if g is not None).strip()
        if value:
            found.append(Occurrence(value, ("quote", n), around(match.start(), match.end())))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) <= 24:
        found += [Occurrence(line, ("line", n), frozenset()) for n, line in enumerate(lines) if len(line) <= 120]
    for n, match in enumerate(_VALUE.finditer(text)):
        raw = match.group().rstrip(".-/:#+@")
        if not raw:
            continue
        context = around(match.start(), match.start() + len(raw))
        found.append(Occurrence(raw, ("token", n), context))
        parts = [p for p in re.split(r"[:/@#+,]", raw) if p]
        if len(parts) > 1:
            found += [Occurrence(part, ("part", n, k), context) for k, part in enumerate(parts)]
    for n, match in enumerate(NUMBER.finditer(text)):
        found.append(Occurrence(match.group(), ("number", n), around(match.start(), match.end())))
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _by_value(text: str) -> dict[str, tuple[Occurrence, ...]]:
    index: dict[str, list[Occurrence]] = {}
    for occurrence in occurrences(text):
        index.setdefault(norm(occurrence.value), []).append(occurrence)
    return {value: tuple(found) for value, found in index.items()}


def name_words(name: str) -> frozenset[str]:
    """The words of an argument name (``record_id``, ``recordId`` -> record, id)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return frozenset(w for w in _WORD.findall(spaced.lower()) if len(w) >= 2)


def _named(context: frozenset[str], names: frozenset[str]) -> bool:
    return any(w == n or (len(n) >= 3 and w.rstrip("s") == n.rstrip("s")) for w in context for n in names)


def json_kind(values: list[Any]) -> str:
    """The JSON kind the other seeds used for an argument: int, number, bool, str or other."""
    if values and all(isinstance(v, bool) for v in values):
        return "bool"
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int"
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "number"
    if all(isinstance(v, str) for v in values):
        return "str"
    return "other"


def _typed(value: str, kind: str) -> Any:
    """``value`` as the JSON kind an argument takes, or None when it is not one."""
    if kind == "int":
        return int(value) if _INTEGER.fullmatch(value) else None
    if kind == "number":
        number = as_number(value) if NUMBER.fullmatch(value) else None
        if number is None:
            return None
        return int(number) if float(number).is_integer() and "." not in value else number
    return value


#: A text an episode has seen, with the names a role can refer to it by: ``task``, ``r<k>`` (the
#: result of the k-th call of the plan) and ``back<j>`` (the j-th newest result).
Source = tuple[tuple[str, ...], str]


def features(labels: tuple[str, ...], occurrence: Occurrence) -> list[tuple]:
    """What a role is made of: the place in a text (its label, which token or key) and the words
    around it there."""
    out: list[tuple] = [(label, occurrence.key) for label in labels]
    if occurrence.context:
        out += [(label, occurrence.context) for label in labels]
    return out


def sources(task: str, results: list[tuple[int, str]]) -> list[Source]:
    """The texts of an episode, labelled: the task, then each result (with the plan step whose call
    it answered), newest last."""
    out: list[Source] = [(("task",), task)]
    for back, (step, text) in enumerate(reversed(results), 1):
        out.insert(1, ((f"r{step}", f"back{back}"), text))
    return out


class Role:
    """Where the other seeds' values of one argument (or of the answer) were written, learned from
    their transcripts: each feature with the number of seeds whose value had it."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.seeds = 0

    def learn(self, value: Any, seen: list[Source]) -> None:
        found = set()
        wanted = norm(value)
        for labels, text in seen:
            for occurrence in _by_value(text).get(wanted, ()):
                found.update(features(labels, occurrence))
        self.seeds += 1
        self.counts.update(found)

    def score(self, labels: tuple[str, ...], occurrence: Occurrence) -> float:
        if not self.seeds:
            return 0.0
        counts, best = self.counts, 0
        if not counts:
            return 0.0
        key, context = occurrence.key, occurrence.context
        for label in labels:  # (what :func:`features` lists, looked up without building it)
            found = counts.get((label, key), 0)
            if found > best:
                best = found
            if context:
                found = counts.get((label, context), 0)
                if found > best:
                    best = found
        return best / self.seeds


class _Read(NamedTuple):
    """An occurrence with what ranking compares it by, computed once per text."""

    occurrence: Occurrence
    norm: str
    shape: str
    number: float | None
    stop: bool


@functools.lru_cache(maxsize=4096)
def _read(text: str) -> tuple[_Read, ...]:
    return tuple(_Read(o, norm(o.value), shape(o.value), as_number(o.value),
                       not o.value or o.value.casefold() in _STOPWORDS) for o in occurrences(text))


@functools.lru_cache(maxsize=16384)
def _named_cached(context: frozenset[str], names: frozenset[str]) -> bool:
    return _named(context, names)


def rank_values(seen: list[Source], known: list[Any], names: frozenset[str] = frozenset(), *, role: Role | None = None,
                kind: str | None = None, limit: int = _TOP) -> list[Any]:
    """The values of the texts ``seen`` that could fill the role the ``known`` values (the other
    seeds') filled, best first, typed as they were. A value scores for being written where theirs
    were (``role``), for being one of theirs, for standing next to the argument's name, for their
    shape or numeric range; ties keep the order of ``seen``."""
    kind = kind or json_kind(known)
    vocabulary = {norm(v) for v in known}
    shapes = {shape(str(v)) for v in known}
    numbers = [as_number(str(v)) for v in known]
    numeric = [n for n in numbers if n is not None]
    span = (min(numeric), max(numeric)) if known and len(numeric) == len(known) and len(set(numeric)) > 1 else None
    scored: dict[tuple[bool, str], tuple[float, int, Any]] = {}
    position = 0
    # (the hot loop of the tool-use zoo: a role that learned nothing scores 0.0 without the call,
    # and only int and number arguments retype a value)
    role_score = role.score if role is not None and role.seeds and role.counts else None
    retype = kind in ("int", "number")
    for labels, text in seen:
        for read in _read(text):
            position += 1
            if read.stop:
                continue
            occurrence = read.occurrence
            typed = _typed(occurrence.value, kind) if retype else occurrence.value
            if typed is None:
                continue
            number = read.number
            score = (10 * (role_score(labels, occurrence) if role_score is not None else 0.0)
                     + 4 * (read.norm in vocabulary) + 2 * _named_cached(occurrence.context, names)
                     + (read.shape in shapes or (span is not None and number is not None
                                                 and span[0] <= number <= span[1])))
            key = (isinstance(typed, str), str(typed))
            if key not in scored or score > scored[key][0]:
                scored[key] = (score, scored[key][1] if key in scored else position, typed)
    best = sorted(scored.values(), key=lambda item: (-item[0], item[1]))
    return [typed for _, _, typed in best[:limit]]


__all__ = ["ERROR_WORDS", "RESULT_PREFIX", "TEXT_CHARS", "Occurrence", "Role", "Source", "features", "is_error",
           "json_kind", "name_words", "norm", "occurrences", "rank_values", "result_body", "sources"]
