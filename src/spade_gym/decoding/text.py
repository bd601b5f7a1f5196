"""The normal form every decoder reads and every comparison is made in.

One spelling of a character is as good as another to a reader: full-width ``４``, Arabic-Indic
``٤``, mathematical ``𝟒`` and ``4`` are one digit; a zero-width space, a soft hyphen or a keycap
mark between two digits is not there at all. So a text is first brought to NFKC, its format
characters (Unicode category Cf) dropped, its digits of any script written as ASCII, combining
marks left on ASCII letters and digits (strike-through, keycaps) dropped, then case-folded with
its white space collapsed.
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: Longest text read (characters); the rest is ignored, which keeps every decoder linear and bounded.
MAX_CHARS = 20_000

_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


@functools.lru_cache(maxsize=4096)
def _char(ch: str) -> str:
    """One non-ASCII character after NFKC: dropped (format), an ASCII digit, or itself."""
    category = unicodedata.category(ch)
    if category == "Cf":
        return ""
    digit = unicodedata.decimal(ch, None)
    if digit is None:
        digit = unicodedata.digit(ch, None)
    return str(digit) if digit is not None else ch


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Me")


def _run(match: re.Match[str]) -> str:
    """One run of non-ASCII characters (NFKC already applied)."""
    start = match.start()
    after_ascii = start > 0 and match.string[start - 1].isalnum()  # marks on an ASCII char are decoration
    out = []
    for ch in match.group():
        if after_ascii and _is_mark(ch):
            continue
        mapped = _char(ch)
        if mapped:
            out.append(mapped)
            after_ascii = mapped.isascii() and mapped.isalnum()
    return "".join(out)


@functools.lru_cache(maxsize=2048)
def prefold(text: str) -> str:
    """NFKC, format characters dropped, digits in ASCII; case and line breaks kept (Roman
    numerals are read only in capitals, acrostics line by line)."""
    text = text[:MAX_CHARS]
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    return _NON_ASCII_RUN.sub(_run, text)


@functools.lru_cache(maxsize=2048)
def normal_form(text: str) -> str:
    """NFKC, format/zero-width characters (Cf) stripped, digits of any script as ASCII,
    case-folded, white space collapsed: the form all decoders' readings are given in."""
    folded = prefold(text).casefold()
    if not folded.isascii():
        folded = unicodedata.normalize("NFKC", folded)
    return " ".join(folded.split())


@functools.lru_cache(maxsize=8192)
def fold_accents(text: str) -> str:
    """``text`` without diacritics ("dieciséis" -> "dieciseis"): comparisons ignore accents."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


#: Latin look-alikes in other scripts (a small part of Unicode's confusables.txt): "саt" with a
#: Cyrillic с and а reads as "cat", "ХХ" with Cyrillic Х as "XX".
CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ɡ": "g", "ո": "n", "ս": "u", "ⅼ": "l",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D", "Ӏ": "I",
    "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})
_CONFUSABLE_CHARS = frozenset(chr(c) for c in CONFUSABLES)


def has_confusables(text: str) -> bool:
    return not text.isascii() and any(c in _CONFUSABLE_CHARS for c in text)


#: Alphanumeric runs of a normal form (letters and digits of any script, no underscore).
WORD = re.compile(r"[^\W_]+")
