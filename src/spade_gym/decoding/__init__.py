"""Every answer a reader could take off a text, in any spelling: one decoder pipeline.

The validator asks whether a hint, an observation or ``info`` gives the answer away; a
deployment monitor asks the same of live traffic. A designer optimised against that question
finds any closed list of spellings ("4-8-2-1", "four thousand..."), so the question is asked the
other way round: decode the text every way a reader could (:data:`DECODERS`: number words in
four languages, Roman numerals, other bases, digits of any script, reversals, separated and
glued sequences, acrostics, look-alike letters, base64) and see whether any reading is the answer.

Floor layer: the standard library only, so the validation layer and the env layer share it.

* :func:`normal_form` - the form every reading is given in;
* :func:`candidates` - every reading of a text, deduplicated (plain tokens first);
* :func:`reveals` - does some reading of a text spell a solution;
* :func:`canonical` - the normal form a solution is compared in ("four thousand..." -> "4821").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import NamedTuple

from spade_gym.decoding import letters as _letters  # noqa: F401  (registers the decoders of letters)
from spade_gym.decoding.decoders import DECODERS, canonical, decoder, outputs, plain, run
from spade_gym.decoding.text import MAX_CHARS, fold_accents, normal_form

__all__ = ["DECODERS", "MAX_CHARS", "canonical", "candidates", "decoder", "explain", "normal_form", "reveals"]

#: Longest reading of a window decoder (first letters of a whole text) that :func:`candidates` lists.
CANDIDATE_WINDOW_CHARS = 64


def candidates(text: str, *, limit: int = 2000) -> list[str]:
    """Every answer a decoder reads off ``text``, deduplicated, each in normal form: the plain
    tokens and numbers in order of appearance, then each decoder's further readings in its order
    (registry order, each in order of appearance); at most ``limit``."""
    seen: dict[str, None] = {}
    for fn, readings in outputs(text[:MAX_CHARS]):
        window = getattr(fn, "window", False)
        for reading in readings:
            if window and len(reading) > CANDIDATE_WINDOW_CHARS:
                continue
            if reading not in seen:
                seen[reading] = None
                if len(seen) >= limit:
                    return list(seen)
    return list(seen)


class _Decoded(NamedTuple):
    exact: tuple[tuple[int, frozenset[str]], ...]   # (shortest solution they count for, readings)
    windows: tuple[tuple[int, str], ...]            # (shortest solution, a string any stretch of which counts)
    texts: tuple[str, ...]                          # searched for the solution as a phrase
    probes: tuple[tuple[int, Callable[..., bool]], ...]  # decoders that answer for one solution
    base: frozenset[str]                            # the readings of the base decoders


def _fold(reading: str) -> str:
    return reading if reading.isascii() else fold_accents(reading)


@functools.lru_cache(maxsize=1024)
def _decoded(text: str, registry_size: int) -> _Decoded:
    exact: dict[int, set[str]] = {}
    windows: list[tuple[int, str]] = []
    probes: list[tuple[int, Callable[..., bool]]] = []
    base: set[str] = set()
    for fn in DECODERS:
        shortest = getattr(fn, "min_solution", 2)
        if getattr(fn, "probe", None) is not None:
            probes.append((shortest, fn.probe))  # type: ignore[attr-defined]
            continue
        readings = run(fn, text)
        if getattr(fn, "base", True):
            base.update(map(_fold, readings))
        if getattr(fn, "window", False):
            windows += [(shortest, _fold(r)) for r in readings]
        else:
            exact.setdefault(shortest, set()).update(map(_fold, readings))
    plain = fold_accents(normal_form(text))
    return _Decoded(tuple((k, frozenset(v)) for k, v in exact.items()), tuple(windows),
                    tuple(dict.fromkeys((canonical(text), plain))), tuple(probes), frozenset(base))


@functools.lru_cache(maxsize=8192)
def _phrase(target: str) -> re.Pattern[str]:
    """``target`` as whole tokens; where it has several, any separators between them ("blue-fox")."""
    body = r"[\W_]+".join(re.escape(part) for part in target.split(" "))
    return re.compile(r"(?<![^\W_])" + body + r"(?![^\W_])")


def reveals(text: str, solution: str, *, min_chars: int = 2, windows: bool = True) -> bool:
    """True if some decoding of ``text`` yields ``solution``, both compared in :func:`canonical`
    form ("4821", "four thousand eight hundred twenty-one" and "4,821" are one solution).

    A solution shorter than ``min_chars`` characters (normalised) never counts: a single digit is
    in every honest text. Readings that honest texts produce by the hundred (glued digit runs,
    reversals, acrostics) count only for solutions of three characters or more. With
    ``windows=False`` the stretches of window decoders (any run of a text's first letters) are
    left out: the readings that a long text makes spell short strings by chance.
    """
    if not text or not solution:
        return False
    target = canonical(solution)
    if len(target) < max(min_chars, 1) or not target.strip():
        return False
    decoded = _decoded(text[:MAX_CHARS], len(DECODERS))
    size = len(target)
    if any(size >= shortest and target in readings for shortest, readings in decoded.exact):
        return True
    compact = target.replace(" ", "")
    if windows and compact.isalpha() and any(len(compact) >= shortest and compact in window
                                 for shortest, window in decoded.windows):
        return True
    if any(size >= shortest and probe(text, target, lambda: decoded.base) for shortest, probe in decoded.probes):
        return True
    pattern = _phrase(target)
    return any(pattern.search(t) for t in decoded.texts)


def explain(text: str, solution: str, *, min_chars: int = 2) -> str | None:
    """How ``text`` spells ``solution`` ("in Roman numerals", "reversed"), or None where it does not:
    the first decoder, in registry order, whose reading it is. For messages; slower than :func:`reveals`."""
    if not reveals(text, solution, min_chars=min_chars):
        return None
    target = canonical(solution)
    compact = target.replace(" ", "")
    text = text[:MAX_CHARS]
    base = _decoded(text, len(DECODERS)).base
    for fn in DECODERS:
        if len(target) < getattr(fn, "min_solution", 2):
            continue
        probe = getattr(fn, "probe", None)
        if probe is not None:
            found = probe(text, target, lambda: base)
        elif getattr(fn, "window", False):
            found = compact.isalpha() and any(compact in _fold(r) for r in run(fn, text))
        else:
            found = target in map(_fold, run(fn, text))
        if found:
            if fn is plain and target not in text.casefold():
                return _OTHER_CHARACTERS
            return str(getattr(fn, "what", fn.__name__))
    return "as written, once normalised" if target in text.casefold() else _OTHER_CHARACTERS


_OTHER_CHARACTERS = "in other characters (full-width or other-script digits, invisible separators)"
