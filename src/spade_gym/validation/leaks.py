"""Does a text give the answer away, in any spelling?

A verbatim search is easy to evade: "4-8-2-1", "the 4821st", "4,821", "four thousand
eight hundred twenty-one", "C-A-T". Texts are therefore compared in a normal form:
lower case, spelled numbers turned into digits, ordinal suffixes dropped, single
characters separated by dashes, dots or spaces joined, thousands separators removed.
A leak is the normalised solution appearing in the normalised text as a whole token.
"""

from __future__ import annotations

import functools
import re

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_ORDINALS = {"first": "one", "second": "two", "third": "three", "fifth": "five", "eighth": "eight",
             "ninth": "nine", "twelfth": "twelve"}
_NUMBER_WORDS = set(_UNITS) | set(_TENS) | set(_SCALES)
_WORD = re.compile(r"[a-z]+|\d+|[^a-z\d]")
#: Single characters joined by one separator ("4-8-2-1", "c a t", "4.8.2.1").
_SPACED = re.compile(r"(?<![a-z\d])([a-z\d])((?:[\s\-_.,/|:·]{1,2}[a-z\d](?![a-z\d])){2,})")
_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3})((?:[,\s'_]\d{3})+)(?![\d])")
_ORDINAL_SUFFIX = re.compile(r"(\d+)(?:st|nd|rd|th)\b")


def _ordinal_to_cardinal(word: str) -> str:
    if word in _ORDINALS:
        return _ORDINALS[word]
    if word.endswith("ieth") and word[:-4] + "y" in _TENS:
        return word[:-4] + "y"
    if word.endswith("th") and word[:-2] in _NUMBER_WORDS:
        return word[:-2]
    return word


def spell_out_numbers(text: str) -> str:
    """Replace spelled-out numbers ("four thousand eight hundred twenty-one", "twenty-first")
    with their digits; other text is kept."""
    tokens = _WORD.findall(text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        word = _ordinal_to_cardinal(tokens[i])
        if word not in _NUMBER_WORDS or word in _SCALES:
            out.append(tokens[i])
            i += 1
            continue
        total, current, j, last_number = 0, 0, i, i
        previous = ""  # the kind of the number word before: one number never has two units in a row
        while j < len(tokens):
            token = _ordinal_to_cardinal(tokens[j])
            if token in _UNITS:
                # "twenty one", "hundred one", "thousand one" continue a number; "first one" or
                # "one one" are two numbers (summing them made "keep the first one" read as 2).
                if previous in ("unit", "teen") or (previous == "ten" and _UNITS[token] >= 10):
                    break
                current += _UNITS[token]
                previous = "unit" if _UNITS[token] < 10 else "teen"
            elif token in _TENS:
                if previous in ("unit", "teen", "ten"):
                    break
                current += _TENS[token]
                previous = "ten"
            elif token == "hundred":
                current = max(current, 1) * 100
                previous = "hundred"
            elif token in _SCALES:
                total += max(current, 1) * _SCALES[token]
                current = 0
                previous = "scale"
            elif token in ("-", " ", "and") and j + 1 < len(tokens):
                j += 1
                continue
            else:
                break
            last_number = j
            j += 1
        out.append(str(total + current))
        out.extend(tok for tok in tokens[last_number + 1:j] if tok not in ("-", " ", "and"))
        i = last_number + 1
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """The normal form both sides are compared in."""
    text = text.lower().replace("\\boxed{", " ").replace("}", " ")
    text = spell_out_numbers(text)
    text = _ORDINAL_SUFFIX.sub(r"\1", text)
    text = _THOUSANDS.sub(lambda m: m.group(1) + re.sub(r"\D", "", m.group(2)), text)
    text = _SPACED.sub(lambda m: m.group(1) + re.sub(r"[^a-z\d]", "", m.group(2)), text)
    return " ".join(text.split())


def leaks(text: str, solution: str | None, *, min_chars: int = 1) -> bool:
    """True if ``text`` contains ``solution`` as a whole token, in any normalised spelling.

    Solutions shorter than ``min_chars`` (after normalising) never count: a single digit
    appears in too many honest texts to mean anything.
    """
    if not solution or not text:
        return False
    target = normalise(solution)
    if len(target) < min_chars or not target.strip():
        return False
    pattern = re.compile(r"(?<![a-z\d])" + re.escape(target) + r"(?![a-z\d])")
    return bool(pattern.search(normalise(text)))


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
