"""The decoders of letters: look-alike scripts, encodings, reversals, acrostics.

Registered after the decoders of numbers (:mod:`spade_gym.decoding.decoders`), whose readings
the reversal reads backwards.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re
from collections.abc import Callable, Iterator

from spade_gym.decoding.decoders import base_readings, decoder, folded, mentions, plain
from spade_gym.decoding.text import CONFUSABLES, WORD, has_confusables, normal_form, prefold


@decoder("in look-alike letters of another script")
def confusables(text: str) -> Iterator[str]:
    """Latin look-alikes from other scripts: "саt" with Cyrillic с and а -> cat."""
    source = prefold(text)
    if has_confusables(source):
        for token in WORD.findall(source):
            if has_confusables(token):
                yield normal_form(token.translate(CONFUSABLES))


_BASE64 = re.compile(r"(?<![\w+/])(?=[A-Za-z0-9+/]*(?:[0-9+/=]|[a-z][A-Z]))[A-Za-z0-9+/]{4,}={0,2}(?![\w+/=])")
_BASE64_HINT = re.compile(r"[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]|[A-Za-z0-9]=")
_ROT13_MARKER = re.compile(r"\brot[\s\-]?13\b")


_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})|\\x([0-9a-fA-F]{2})|&#x([0-9a-fA-F]{1,6});|"
                     r"&#(\d{1,7});|%([0-9a-fA-F]{2})")


def _unescape(m: re.Match[str]) -> str:
    hexa = m.group(1) or m.group(2) or m.group(3) or m.group(4) or m.group(6)
    code = int(hexa, 16) if hexa else int(m.group(5))
    return chr(code) if code < 0x110000 and not 0xD800 <= code < 0xE000 else m.group()


@decoder("encoded (escapes, base64, ROT13)")
def encodings(text: str) -> Iterator[str]:
    """Escaped characters ("\\u0034\\u0038", "&#52;&#56;", "%34%38"), base64 of printable text
    ("NDgyMQ==" -> 4821), and ROT13 where the text names it."""
    source = prefold(text)
    if _ESCAPE.search(source):
        yield from plain(_ESCAPE.sub(_unescape, source))
    for m in _BASE64.finditer(source) if _BASE64_HINT.search(source) else ():
        token = m.group()
        if len(token) % 4 or not 8 <= len(token) <= 400:
            continue
        try:
            decoded = base64.b64decode(token, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            continue
        if decoded.strip() and decoded.isprintable():
            yield from plain(decoded)
    normal = normal_form(text)
    if _ROT13_MARKER.search(normal):
        for token in WORD.findall(normal):
            if token.isascii() and token.isalpha() and len(token) >= 2:
                yield codecs.encode(token, "rot13")


_REVERSAL_MARKER = re.compile(r"\b(?:revers\w*|backwards?|mirror\w*|invert\w*|inverse\w*|envers|inverse|"
                              r"ruckwarts|umgekehrt|al reves|invertid\w*|right to left|from the end)\b")


@functools.lru_cache(maxsize=1024)
def _says_reversed(text: str) -> bool:
    return mentions(folded(text), ("revers", "backward", "mirror", "invert", "inverse", "envers", "ruckwarts",
                                "umgekehrt", "right to left", "from the end"), _REVERSAL_MARKER)


def _shortest_reversal(reading: str, marked: bool) -> int:
    return 2 if marked else 3 if reading.isdigit() else 4


@decoder("reversed", base=False)
def reversed_readings(text: str) -> Iterator[str]:
    """Every reading above read backwards ("1284" -> 4821): digit readings of three characters or
    more and words of four or more always, any of two or more where the text says reversed/backwards."""
    marked = _says_reversed(text)
    for reading in base_readings(text):
        if reading.isalnum() and len(reading) >= _shortest_reversal(reading, marked):
            yield reading[::-1]


def _reversal_probe(text: str, target: str, base: Callable[[], frozenset[str]]) -> bool:
    """:func:`reversed_readings` without reading everything backwards: is the solution, backwards,
    a reading of another decoder?"""
    if not target.isalnum() or len(target) < 2:
        return False
    marked = _says_reversed(text)
    return len(target) >= _shortest_reversal(target, marked) and target[::-1] in base()


reversed_readings.probe = _reversal_probe  # type: ignore[attr-defined]


#: First letters of words of two characters or more: one-letter tokens are labels ("A.", "B."),
#: grid cells or articles, and option labels A, B, C... would otherwise spell "abc" on every
#: multiple-choice screen (one-character sequences are :func:`separated`'s to read). A line counts
#: only if it starts with such a word ("A. After the storm" is an option, not a line of an acrostic).
_INITIAL = re.compile(r"(?<![^\W_])([^\W\d_])[^\W_]")
_LINE_INITIAL = re.compile(r"^[^\w\n]*([^\W\d_])[^\W_]", re.MULTILINE)
_PIECE = re.compile(r"[^.!?;:\n]+")


@functools.lru_cache(maxsize=1024)
def _initials(text: str) -> tuple[tuple[str, ...], str, str]:
    """The initials of each line or sentence, of all the words, and the first letters of the lines."""
    source = prefold(text).casefold()
    pieces = tuple("".join(_INITIAL.findall(piece)) for piece in _PIECE.findall(source))
    lines = _LINE_INITIAL.findall(source)
    return pieces, "".join(_INITIAL.findall(source)), "".join(lines) if len(lines) >= 2 else ""


@decoder("as first letters (an acrostic)", min_solution=3, base=False)
def acrostic(text: str) -> Iterator[str]:
    """First letters of the words of each line or sentence ("Big Lazy Umbrellas Erupt." -> blue), of
    all the words, and of the lines ("Blue\\nLemon\\nUmbrella\\nEagle" -> blue)."""
    pieces, words, lines = _initials(text)
    for initials in pieces:
        if 3 <= len(initials) <= 24:
            yield initials
    yield words
    yield lines


@decoder("as first letters (an acrostic)", min_solution=4, window=True, base=False)
def acrostic_window(text: str) -> Iterator[str]:
    """First letters of all the words and of the lines, any stretch of which may spell a solution of
    four letters or more. (Three-letter stretches are everywhere: "a distinctive feature" spells
    "adf" in an honest hint, so three letters count only as a whole line, sentence or text.)"""
    _, words, lines = _initials(text)
    yield words
    yield lines
