"""The registry of decoders, the forms of a text they share, and the decoders of numbers.

(The decoders of letters - look-alikes, encodings, reversals, acrostics - are in
:mod:`spade_gym.decoding.letters`, registered after these.)

A decoder is one function ``text -> iterable of readings`` (each reading in normal form), in
:data:`DECODERS`. Attributes set by :func:`decoder` say how :func:`~spade_gym.decoding.reveals`
treats its readings:

* ``what``: how a text spells what it finds, for messages ("in Roman numerals");
* ``min_solution``: the shortest solution its readings may reveal. Readings that honest texts
  produce by the hundred (digit runs glued inside tokens, reversals, first letters) meet a two-
  character answer by chance all the time, so those decoders only count for three characters and more;
* ``window``: a reading is a string any stretch of which may spell the solution (acrostics);
* ``base``: its readings are themselves spellings other decoders may read further (reversal);
* ``probe`` (optional): ``probe(text, solution, base_readings) -> bool`` answers for one solution
  without listing every reading (:func:`~spade_gym.decoding.reveals` uses it where present).

Adding a decoder is appending a function to :data:`DECODERS` (with one test).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from spade_gym.decoding.numberwords import LANGUAGES, phrases, spell_out, year_pairs
from spade_gym.decoding.text import CONFUSABLES, WORD, fold_accents, has_confusables, normal_form, prefold

Decoder = Callable[[str], Iterable[str]]
#: The registry, in the order :func:`~spade_gym.decoding.candidates` lists readings.
DECODERS: list[Decoder] = []


def decoder(what: str, *, min_solution: int = 2, window: bool = False,
            base: bool = True) -> Callable[[Decoder], Decoder]:
    """Register a decoder; ``what`` says how a text spells a solution it finds ("in Roman numerals")."""
    def register(fn: Decoder) -> Decoder:
        fn.what, fn.min_solution, fn.window, fn.base = what, min_solution, window, base  # type: ignore[attr-defined]
        DECODERS.append(fn)
        return fn
    return register


# ----------------------------------------------------------------------------- shared forms of a text

_BOX = re.compile(r"\\boxed\{|[{}]")


@functools.lru_cache(maxsize=1024)
def folded(text: str) -> str:
    """The normal form without accents and without ``\\boxed{`` markup."""
    return fold_accents(_BOX.sub(" ", normal_form(text))).strip()


@functools.lru_cache(maxsize=1024)
def spelled(text: str) -> str:
    """:func:`folded` with numbers in words written in digits."""
    return spell_out(folded(text))


_SEPARATOR = r"[\s\-_.,/|:;·+*~()\[\]'\"]{1,3}"
_ITEM_START = re.compile(r"(?<![^\W_])[^\W_](?![^\W_])")
_ITEM_STEP = re.compile(_SEPARATOR + r"(?:(?:and|und|et|y|&)\s+)?([^\W_])(?![^\W_])")


def sequences(text: str) -> Iterator[tuple[int, int, str]]:
    """Runs of three or more one-character items ("4-8-2-1", "c a t", "4, 8, 2 and 1"):
    (start, end, the items joined)."""
    at = 0
    for m in _ITEM_START.finditer(text):
        if m.start() < at:
            continue
        items, end = [m.group()], m.end()
        while (step := _ITEM_STEP.match(text, end)) is not None:
            items.append(step.group(1))
            end = step.end()
        if len(items) >= 3:
            yield m.start(), end, "".join(items)
            at = end


_ORDINAL_SUFFIX = re.compile(r"(?<![^\W_])(\d+)(?:st|nd|rd|th|er|re|e|eme|ieme|o)(?![^\W_])")
_THOUSANDS = re.compile(r"(?<![\d.,'])(\d{1,3})((?:([,'’_. ])\d{3})(?:\3\d{3})*)(?![\d])")
#: The same in a solution's normal form, less the readings a solution may mean literally: "4e" (a
#: grid cell) and "2.375" (a decimal) stay as they are; "21st" and "4,821" are numbers.
_CANONICAL_ORDINAL = re.compile(r"(?<![^\W_])(\d+)(?:st|nd|rd|th)(?![^\W_])")
_CANONICAL_THOUSANDS = re.compile(r"(?<![\d.,'])(\d{1,3})((?:([,'’_ ])\d{3})(?:\3\d{3})*)(?![\d])")


@functools.lru_cache(maxsize=1024)
def canonical(text: str) -> str:
    """The normal form solutions are compared in: :func:`spelled`, ordinal suffixes dropped
    ("4821st"), thousands separators removed ("4,821"), one-character sequences joined ("C-A-T")."""
    out = _CANONICAL_ORDINAL.sub(r"\1", spelled(text))
    out = _CANONICAL_THOUSANDS.sub(lambda m: m.group(1) + re.sub(r"\D", "", m.group(2)), out)
    pieces, at = [], 0
    for start, end, joined in sequences(out):
        pieces += [out[at:start], joined]
        at = end
    return " ".join(("".join(pieces) + out[at:]).split())


def mentions(text: str, stems: tuple[str, ...], marker: re.Pattern[str]) -> bool:
    """Does ``text`` name a spelling ("reversed", "Roman")? Substrings first: most texts name none."""
    return any(stem in text for stem in stems) and marker.search(text) is not None


# ----------------------------------------------------------------------------- the decoders

_PLAIN = re.compile(r"(?<![^\W_])-?[^\W_]+(?:[.\-'/:_][^\W_]+)*")


@decoder("as a word or number")
def plain(text: str) -> Iterator[str]:
    """Tokens and numbers of the normal form: "a1-b2" and its parts, "-3.5", "3.5", "3", "5"."""
    for token in _PLAIN.findall(normal_form(text)):
        yield token
        if not token.isalnum():
            bare = token.lstrip("-")
            if bare != token:
                yield bare
            if not bare.isalnum():
                yield from WORD.findall(bare)


@decoder("with thousands separators")
def thousands(text: str) -> Iterator[str]:
    """Thousands separators: "4,821", "4 821", "4'821", "4.821" -> 4821."""
    for m in _THOUSANDS.finditer(normal_form(text)):
        yield m.group(1) + re.sub(r"\D", "", m.group(2))


@decoder("as an ordinal")
def ordinal_numbers(text: str) -> Iterator[str]:
    """Ordinal suffixes: "the 21st", "21e", "21eme", "21º" -> 21."""
    for m in _ORDINAL_SUFFIX.finditer(fold_accents(normal_form(text))):
        yield m.group(1)


def _number_words(lang: str) -> Decoder:
    def read(text: str) -> Iterator[str]:
        for _, _, value, language in phrases(folded(text)):
            if language == lang:
                yield str(value)
    read.__name__ = read.__qualname__ = f"number_words_{lang}"
    read.__doc__ = f"Numbers in {lang} words (see :mod:`spade_gym.decoding.numberwords`)."
    return read


_LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish"}
for _lang in LANGUAGES:
    decoder(f"in {_LANGUAGE_NAMES[_lang]} words")(_number_words(_lang))


@decoder("as pairs of two-digit numbers")
def year_style(text: str) -> Iterable[str]:
    """Pairs of two-digit numbers said as one: "forty-eight twenty-one" -> 4821."""
    return year_pairs(folded(text))


_ROMAN_TOKEN = re.compile(r"(?<![^\W_])[IVXLCDMivxlcdm]+(?![^\W_])")
_UPPER_ROMAN = re.compile(r"(?<![^\W_])[IVXLCDM]+(?![^\W_])")
_NOT_ROMAN = re.compile(r"(?<![^\W_])(?![IVXLCDM]+(?![^\W_]))[^\W_]")  # a token that is not capital Roman
_ROMAN_STANDARD = re.compile(r"M*(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_ROMAN_MARKER = re.compile(r"\b(?:roman|romain|romaine|romains|romisch|romano|romana|romanos|romanas)\b")
_ROMAN_GAP = re.compile(r"[\s,;\-/+.]{1,3}")


def roman_value(token: str) -> int | None:
    """The value of a Roman numeral, standard ("MCMXC") or additive ("MMMMDCCCXXI", "VIIII")."""
    upper = token.upper()
    values = [_ROMAN_VALUES[c] for c in upper]
    if not (_ROMAN_STANDARD.fullmatch(upper) or all(a >= b for a, b in zip(values, values[1:]))):
        return None
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


@decoder("in Roman numerals")
def roman(text: str) -> Iterator[str]:
    """Roman numerals: a capitalised token of two letters or more ("MMMMDCCCXXI"), any token where
    the text says Roman, single letters where the whole text is Roman numerals; adjacent numerals
    also joined ("XLVIII XXI" -> 4821). Lower-case words ("mix", "did") are words, not numbers."""
    source = prefold(text)
    if has_confusables(source):
        source = source.translate(CONFUSABLES)
    marked = mentions(folded(text), ("roman", "romain", "romisch"), _ROMAN_MARKER)
    all_roman = _UPPER_ROMAN.search(source) is not None and _NOT_ROMAN.search(source) is None
    run: list[str] = []
    run_end = -10
    for m in (_ROMAN_TOKEN if marked else _UPPER_ROMAN).finditer(source):
        token = m.group()
        if not (all_roman or (len(token) >= 2 and (token.isupper() or marked)) or (marked and token.isupper())):
            continue
        value = roman_value(token)
        if value is None:
            continue
        if run and not _ROMAN_GAP.fullmatch(source[run_end:m.start()]):
            if len(run) >= 2:
                yield "".join(run)
            run = []
        run.append(str(value))
        run_end = m.end()
        yield str(value)
    if len(run) >= 2:
        yield "".join(run)


_PREFIXED = re.compile(r"(?<![^\W_])0(?:x([0-9a-f]+)|b([01]+)|o([0-7]+))(?![^\W_])")
_BASE_MARKER = re.compile(r"\b(?:(hex|hexadecimal|hexadezimal|hexadecimale?)|(binary|binar|binaire|binario)|"
                          r"(octal|oktal)|(?:base|basis|radix)[\s\-]?(\d{1,2}))\b")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_BASE_HINT = re.compile(r"0[xbo]|hex|bin|octal|oktal|base|basis|radix")


@decoder("in another base")
def bases(text: str) -> Iterator[str]:
    """Other bases: "0x12d5", "0b1011", "0o17", and a number with a digit next to a word that
    names its base ("hex 12d5", "1011 in binary", "base 7: 1234")."""
    source = normal_form(text)
    if not _BASE_HINT.search(source):
        return
    for m in _PREFIXED.finditer(source):
        digits, radix = next((g, r) for g, r in zip(m.groups(), (16, 2, 8)) if g)
        if len(digits) <= 64:
            yield str(int(digits, radix))
    for m in _BASE_MARKER.finditer(source):
        radix = 16 if m.group(1) else 2 if m.group(2) else 8 if m.group(3) else int(m.group(4))
        if not 2 <= radix <= 36:
            continue
        valid = set(_DIGITS[:radix])
        near = (WORD.findall(source[max(0, m.start() - 40):m.start()])[-3:]
                + WORD.findall(source[m.end():m.end() + 40])[:3])
        for token in near:
            if len(token) <= 64 and any(c.isdigit() for c in token) and set(token) <= valid and token.isascii():
                yield str(int(token, radix))


_DIGIT_GROUPS = re.compile(r"(?<![\w.,\-])\d+(?:(?:[ \-]|(?P<dot>\.))\d+)+(?![\w]|[.,]\d)")


@decoder("in groups of digits", min_solution=3)
def digit_groups(text: str) -> Iterator[str]:
    """Digits in groups ("48 21", "48-21", "4.8.21") joined, and each pair of adjacent two-digit
    groups ("12 48 21 7" -> 1248, 4821)."""
    for m in _DIGIT_GROUPS.finditer(normal_form(text)):
        groups = re.findall(r"\d+", m.group())
        if m.group("dot") and len(groups) < 3:
            continue  # "12.5" is a decimal
        yield "".join(groups)
        for a, b in zip(groups, groups[1:]):
            if len(a) == len(b) == 2:
                yield a + b


@decoder("one character at a time")
def separated(text: str) -> Iterator[str]:
    """One-character items joined: "4-8-2-1", "4 8 2 1", "4, 8, 2 and 1", "c-a-t", "vier acht zwei eins"."""
    for _, _, joined in sequences(spelled(text)):
        yield joined


_LETTER_DIGIT = re.compile(r"[^\W\d_]\d|\d[^\W\d_]")
_MIXED = re.compile(r"(?<![^\W_])(?=[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]+")


@decoder("inside a longer token", min_solution=3)
def glued(text: str) -> Iterator[str]:
    """Digits inside a token of letters and digits: each maximal digit run ("zz4821qq" -> 4821)
    and, for several runs, all of them joined ("4a8b2c1" -> 4821). Only whole runs: "1200" holds
    no "12"."""
    source = normal_form(text)
    if not _LETTER_DIGIT.search(source):
        return
    for token in _MIXED.findall(source):
        runs = re.findall(r"\d+", token)
        yield from runs
        if len(runs) > 1:
            yield "".join(runs)


# ----------------------------------------------------------------------------- running them


@functools.lru_cache(maxsize=16384)
def run(fn: Decoder, text: str) -> tuple[str, ...]:
    """One decoder's readings of ``text``, deduplicated, in order (cached)."""
    return tuple(dict.fromkeys(r for r in fn(text) if r))


def base_readings(text: str) -> Iterator[str]:
    """The readings of every ``base`` decoder, for decoders that read readings further."""
    for fn in DECODERS:
        if getattr(fn, "base", True):
            yield from run(fn, text)


def outputs(text: str) -> list[tuple[Decoder, tuple[str, ...]]]:
    """Every decoder of the registry with its readings of ``text`` (deduplicated, in order)."""
    return [(fn, run(fn, text)) for fn in DECODERS]
