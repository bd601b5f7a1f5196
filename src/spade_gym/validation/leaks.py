"""Does a text give the answer away, in any spelling?

A list of spellings is easy to evade, and the designer is optimised against this question,
so it is answered by decoding: :mod:`spade_gym.decoding` reads a text every way a reader
could (number words in four languages, Roman numerals, other bases, digits of any script,
reversed, separated and glued sequences, acrostics, look-alike letters, base64) and a text
leaks a solution when one of its readings is the solution. Solutions are compared in
:func:`normalise` form: "4821", "4,821" and "four thousand eight hundred twenty-one" are one.
"""

from __future__ import annotations

from spade_gym import decoding
from spade_gym.decoding.decoders import folded
from spade_gym.decoding.numberwords import spell_out


def spell_out_numbers(text: str) -> str:
    """``text`` (in normal form) with spelled-out numbers ("four thousand eight hundred
    twenty-one", "twenty-first", "quatre-vingt-dix") replaced by their digits."""
    return spell_out(folded(text))


def normalise(text: str) -> str:
    """The normal form solutions are compared in (:func:`spade_gym.decoding.canonical`)."""
    return decoding.canonical(text)


def leaks(text: str, solution: str | None, *, min_chars: int = 1, windows: bool = True) -> bool:
    """True if some decoding of ``text`` yields ``solution`` (:func:`spade_gym.decoding.reveals`).

    Solutions shorter than ``min_chars`` (after normalising) never count: a single digit
    appears in too many honest texts to mean anything. ``windows=False`` leaves out the
    readings where any stretch of a text's first letters counts (acrostic windows).
    """
    if not solution or not text:
        return False
    return decoding.reveals(text, solution, min_chars=min_chars, windows=windows)


def spelling(text: str, solution: str) -> str:
    """How ``text`` spells ``solution``, for messages: "verbatim", "as Roman numerals", ..."""
    plain = solution.strip()
    if plain and plain.lower() in text.lower():
        return "verbatim"
    return decoding.explain(text, solution) or "once normalised"


def flatten_info(info: object, limit: int = 200) -> list[tuple[str, str]]:
    """Every leaf of a JSON-like info dict as (path, text); keys count too (an answer can hide
    in a key)."""
    out: list[tuple[str, str]] = []

    def walk(value: object, path: str) -> None:
        if len(out) >= limit:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                out.append((f"{path}[{key!r}] (key)", str(key)))
                walk(item, f"{path}[{key!r}]")
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")
        elif value is not None:
            out.append((path, str(value)))

    walk(info, "info")
    return out
