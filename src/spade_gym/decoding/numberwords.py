"""Numbers spelled in words: English, French, German and Spanish cardinals and easy ordinals.

"four thousand eight hundred twenty-one", "quatre mille huit cent vingt et un",
"viertausendachthunderteinundzwanzig" and "cuatro mil ochocientos veintiuno" all read 4821.
Each language is a small lexicon (word -> value and kind) read by one grammar: a phrase is a run
of adjacent number words (space or hyphen between them, a language's "and" where it belongs)
whose kinds follow each other the way that language composes numbers. Words run together
("fortyeight", "einundzwanzig") are split into lexicon words first.

The grammar also says where a number ends: "keep the first one" is 1 and 1, never 2; "two ten"
is 2 and 10. Words that are common English words when alone ("once", "elf", "seize", "cent",
"mil", "a") count only inside a longer phrase ("mil ochocientos", "a hundred").
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

U, T, D, H, C, S, J, N = "unit", "teen", "tens", "hundred", "hundreds", "scale", "joiner", "digits"
LANGUAGES = ("en", "fr", "de", "es")


class Item(NamedTuple):
    value: int
    first: str  # kind of its first part ("veintiuno" starts as tens...)
    last: str   # ...and ends as a unit
    ordinal: bool = False


def _words(spec: str, kind: str, values: list[int] | range) -> dict[str, Item]:
    return {w: Item(v, kind, kind) for w, v in zip(spec.split(), values, strict=True)}


def _en() -> dict[str, Item]:
    lex = _words("zero one two three four five six seven eight nine", U, range(10))
    lex |= _words("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen", T, range(10, 20))
    lex |= _words("twenty thirty forty fifty sixty seventy eighty ninety", D, range(20, 100, 10))
    lex |= {"fourty": Item(40, D, D), "hundred": Item(100, H, H), "thousand": Item(10**3, S, S),
            "million": Item(10**6, S, S), "billion": Item(10**9, S, S), "trillion": Item(10**12, S, S),
            "and": Item(0, J, J), "a": Item(1, U, U)}
    special = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
               "nine": "ninth", "twelve": "twelfth"}
    for word, item in list(lex.items()):
        if item.first in (J,) or word in ("a", "fourty"):
            continue
        ordinal = special.get(word) or (word[:-1] + "ieth" if word.endswith("y") else word + "th")
        lex[ordinal] = item._replace(ordinal=True)
    return lex


def _fr() -> dict[str, Item]:
    lex = _words("zero un une deux trois quatre cinq six sept huit neuf", U, [0, 1, 1, *range(2, 10)])
    lex |= _words("dix onze douze treize quatorze quinze seize", T, range(10, 17))
    lex |= _words("vingt vingts trente quarante cinquante soixante septante huitante octante nonante", D,
                  [20, 20, 30, 40, 50, 60, 70, 80, 80, 90])
    lex |= {"cent": Item(100, H, H), "cents": Item(100, H, H), "mille": Item(1000, S, S), "mil": Item(1000, S, S),
            "million": Item(10**6, S, S), "millions": Item(10**6, S, S), "milliard": Item(10**9, S, S),
            "milliards": Item(10**9, S, S), "et": Item(0, J, J)}
    for word, item in list(lex.items()):
        if item.first == J or word in ("une", "vingts", "cents", "mil", "millions", "milliards", "milliard"):
            continue
        stem = {"cinq": "cinqu", "neuf": "neuv"}.get(word, word[:-1] if word.endswith("e") else word)
        lex[stem + "ieme"] = item._replace(ordinal=True)
    lex |= {"premier": Item(1, U, U, True), "premiere": Item(1, U, U, True), "second": Item(2, U, U, True),
            "seconde": Item(2, U, U, True)}
    return lex


def _de() -> dict[str, Item]:
    lex = _words("null ein eins eine einen einem einer zwei zwo drei vier funf fuenf sechs sieben acht neun", U,
                 [0, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4, 5, 5, 6, 7, 8, 9])
    lex |= _words("zehn elf zwolf zwoelf", T, [10, 11, 12, 12])
    lex |= _words("zwanzig dreissig vierzig funfzig fuenfzig sechzig siebzig achtzig neunzig", D,
                  [20, 30, 40, 50, 50, 60, 70, 80, 90])
    lex |= {"hundert": Item(100, H, H), "tausend": Item(1000, S, S), "million": Item(10**6, S, S),
            "millionen": Item(10**6, S, S), "milliarde": Item(10**9, S, S), "milliarden": Item(10**9, S, S),
            "und": Item(0, J, J)}
    return lex


def _es() -> dict[str, Item]:
    lex = _words("cero un uno una dos tres cuatro cinco seis siete ocho nueve", U, [0, 1, 1, 1, *range(2, 10)])
    lex |= _words("diez once doce trece catorce quince dieciseis diecisiete dieciocho diecinueve", T, range(10, 20))
    lex |= _words("veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa", D, range(20, 100, 10))
    units = "un uno una dos tres cuatro cinco seis siete ocho nueve".split()
    lex |= {"veinti" + u: Item(20 + lex[u].value, D, U) for u in units}
    hundreds = "dos tres cuatro quinien seis sete ocho nove".split()
    for value, stem in enumerate(hundreds, 2):
        word = stem if stem == "quinien" else stem + "cien"
        lex[word + "tos"] = lex[word + "tas"] = Item(value * 100, C, C)
    lex |= {"cien": Item(100, H, H), "ciento": Item(100, H, H), "mil": Item(1000, S, S), "millon": Item(10**6, S, S),
            "millones": Item(10**6, S, S), "y": Item(0, J, J)}
    ordinals = "primero primer tercero tercer segundo cuarto quinto sexto septimo setimo octavo noveno decimo".split()
    for word, value in zip(ordinals, [1, 1, 3, 3, 2, 4, 5, 6, 7, 7, 8, 9, 10], strict=True):
        kind = T if value == 10 else U
        lex[word] = lex[word[:-1] + "a" if word.endswith("o") else word + "a"] = Item(value, kind, kind, True)
    return lex


LEXICON: dict[str, dict[str, Item]] = {"en": _en(), "fr": _fr(), "de": _de(), "es": _es()}
#: Parts that occur only inside a compound ("sechzehn", "siebzig" without their last letters).
_PARTS = {"de": {"sech": Item(6, U, U), "sieb": Item(7, U, U)}}
#: Words that are ordinary English words alone; they count only inside a longer phrase.
AMBIGUOUS = {"en": {"a"}, "fr": {"cent", "cents", "mille", "mil", "seize", "un", "une"},
             "de": {"elf", "null", "ein", "eine", "einen", "einem", "einer"},
             "es": {"once", "quince", "mil", "un", "una"}}
_SPLITTABLE = {lang: re.compile("(?:" + "|".join(sorted({**lex, **_PARTS.get(lang, {})}, key=len, reverse=True))
                                + ")+") for lang, lex in LEXICON.items()}
_DE_ORDINAL_STEMS = {"ers": Item(1, U, U), "drit": Item(3, U, U)}


def _follows(last: str, last_value: int, cur: int, item: Item, lang: str) -> bool:
    """May ``item`` continue a number whose last part was of kind ``last``?"""
    b = item.first
    if last == U:
        return b in (H, S) or (lang == "de" and b == T and item.value == 10)
    if last == T:
        return b in (H, S) or (lang == "fr" and last_value == 10 and b == U)
    if last == D:
        return (b == U and item.value > 0) or b == S or (lang == "fr" and b == T and cur % 100 in (60, 80))
    if last == H:
        return b in (U, T, D, S) or (b == N and item.value < 100)
    if last == C:
        return b in (U, T, D, S)
    if last == S:
        return b in (U, T, D, C) or (b == N and item.value < 1000) or (b == H and lang != "en")
    return last == N and b in (H, S)


def _joins(last: str, item: Item, lang: str) -> bool:
    """May a language's "and" stand between a part of kind ``last`` and ``item``?"""
    b = item.first
    if lang == "en":
        return last in (H, S) and b in (U, T, D)
    if lang == "fr":
        return last == D and ((b == U and item.value == 1) or (b == T and item.value == 11))
    if lang == "de":
        return (last == U and b == D) or (last in (H, S) and b in (U, T, D))
    return last == D and b == U


class _Part(NamedTuple):
    item: Item
    entry: int        # index of the word (or merged words) it belongs to
    word_end: bool    # last part of its word
    joined: bool      # its word follows the previous word with only a space or hyphen between


def _read(parts: list[_Part], i: int, lang: str) -> tuple[int, int, bool] | None:
    """The longest number starting at part ``i``: (index of its last part, value, has a word)."""
    total = cur = 0
    last, last_value, scale = "", 0, 10**30
    joiner = False
    best, words = None, False
    for j in range(i, len(parts)):
        item, _, word_end, joined = parts[j]
        if j > i and parts[j - 1].word_end and not joined:
            break
        if item.first == J:
            if not last or joiner:
                break
            joiner = True
            continue
        if joiner:
            if not _joins(last, item, lang):
                break
            joiner = False
        elif last and not _follows(last, last_value, cur, item, lang):
            break
        elif not last and (item.first in (H, S) and lang == "en"):
            break
        if item.first == H:
            if cur >= 100:
                break
            cur = max(cur, 1) * 100
        elif item.first == S:
            if item.value >= scale:
                break
            total, cur, scale = total + max(cur, 1) * item.value, 0, item.value
        else:
            cur += item.value
        last, last_value = item.last, item.value
        words = words or item.first != N
        if word_end:
            best = (j, total + cur, words)
        if item.ordinal:
            break
    return best


def _de_ordinal(word: str) -> tuple[Item, ...] | None:
    """German ordinals: "zweite", "dritten", "einundzwanzigste" (the cardinal plus -te/-ste/-e)."""
    lex = LEXICON["de"]
    for ending in ("", "r", "n", "s", "m"):
        base = word[: len(word) - len(ending)] if word.endswith(ending) else ""
        for suffix in ("ste", "te", "e"):
            stem = base[: -len(suffix)] if base.endswith(suffix) else ""
            if len(stem) < 3:
                continue
            head = _DE_ORDINAL_STEMS.get(stem) or lex.get(stem) or _PARTS["de"].get(stem)
            found = (head,) if head is not None else _splits(stem, "de")
            if found:
                return (*found[:-1], found[-1]._replace(ordinal=True))
    return None


def _splits(word: str, lang: str) -> tuple[Item, ...] | None:
    """A word run together from lexicon words ("einundzwanzig" -> ein, und, zwanzig), if it
    reads as one number."""
    if len(word) < 6 or len(word) > 80 or not _SPLITTABLE[lang].fullmatch(word):
        return None
    vocabulary = {**LEXICON[lang], **_PARTS.get(lang, {})}
    longest = max(map(len, vocabulary))

    def go(pos: int) -> tuple[Item, ...] | None:
        if pos == len(word):
            return ()
        for end in range(min(len(word), pos + longest), pos, -1):
            if word[pos:end] in vocabulary:
                rest = go(end)
                if rest is not None:
                    return (vocabulary[word[pos:end]], *rest)
        return None

    found = go(0)
    if not found or len(found) < 2:
        return None
    parts = [_Part(item, 0, k == len(found) - 1, True) for k, item in enumerate(found)]
    read = _read(parts, 0, lang)
    return found if read is not None and read[0] == len(parts) - 1 else None


@functools.lru_cache(maxsize=65536)
def readings(word: str) -> dict[str, tuple[Item, ...]]:
    """What a word is in each language that reads it as (part of) a number; {} for most words."""
    if word.isdigit():
        item = (Item(int(word), N, N),)
        return {lang: item for lang in LANGUAGES}
    out: dict[str, tuple[Item, ...]] = {}
    for lang in LANGUAGES:
        found: tuple[Item, ...] | None = (LEXICON[lang][word],) if word in LEXICON[lang] else None
        if found is None and len(word) >= 5:
            found = _splits(word, lang) or (_de_ordinal(word) if lang == "de" else None)
        if found:
            out[lang] = found
    return out


_TOKEN = re.compile(r"[^\W\d_]+|\d{1,15}")
_JOINING_GAP = re.compile(r"[ \-\u2010-\u2014]{1,3}")


@functools.lru_cache(maxsize=1024)
def phrases(folded: str) -> tuple[tuple[int, int, int, str], ...]:
    """Every spelled number of ``folded`` (a normal form without accents), in each language:
    (start, end, value, language), by start."""
    if not any(readings(w) for w in set(_TOKEN.findall(folded)) if not w.isdigit()):
        return ()
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(folded)]
    tokens = []  # (token index, start, end, word, readings, joined) of the words that read as numbers
    for index, (start, end) in enumerate(spans):
        by_lang = readings(folded[start:end])
        if by_lang:
            joined = index > 0 and bool(_JOINING_GAP.fullmatch(folded[spans[index - 1][1]:start]))
            tokens.append((index, start, end, folded[start:end], by_lang, joined))
    out = []
    for lang in LANGUAGES:
        words = {t[0] for t in tokens if lang in t[4] and not t[3].isdigit()}
        if not words:
            continue
        # digits take part only next to a word ("4 thousand", "hundred 21")
        mine = [t for t in tokens if t[0] in words or (t[3].isdigit() and (t[0] - 1 in words or t[0] + 1 in words))]
        parts: list[_Part] = []
        entries: list[tuple[int, int, str]] = []  # per entry (a word, or "quatre vingt"): start, end, word
        last_index = -10
        k = 0
        while k < len(mine):
            index, start, end, word, found_by, joined = mine[k]
            k += 1
            found = found_by[lang]
            adjacent = last_index == index - 1 and joined
            if (lang == "fr" and word == "quatre" and k < len(mine) and mine[k][0] == index + 1
                    and mine[k][3] in ("vingt", "vingts", "vingtieme") and mine[k][5]):
                found = (Item(80, D, D, mine[k][3] == "vingtieme"),)
                index, end, word = mine[k][0], mine[k][2], "quatre-vingt"
                k += 1
            entry = len(entries)
            entries.append((start, end, word))
            parts += [_Part(item, entry, n == len(found) - 1, adjacent) for n, item in enumerate(found)]
            last_index = index
        i = 0
        while i < len(parts):
            read = _read(parts, i, lang)
            if read is None:
                i += 1
                while i < len(parts) and parts[i].entry == parts[i - 1].entry:
                    i += 1
                continue
            j, value, has_word = read
            first, last = parts[i].entry, parts[j].entry
            if has_word and not (first == last and entries[first][2] in AMBIGUOUS[lang]):
                out.append((entries[first][0], entries[last][1], value, lang))
            i = j + 1
    return tuple(sorted(out))


def spell_out(folded: str) -> str:
    """``folded`` with its spelled numbers written in digits; where readings overlap, the longest."""
    chosen: list[tuple[int, int, int]] = []
    for start, end, value, _ in sorted(phrases(folded), key=lambda p: (p[0] - p[1], p[0])):
        if all(end <= a or start >= b for a, b, _ in chosen):
            chosen.append((start, end, value))
    out, at = [], 0
    for start, end, value in sorted(chosen):
        out += [folded[at:start], str(value)]
        at = end
    return "".join(out) + folded[at:]


def year_pairs(folded: str) -> list[str]:
    """Numbers said in pairs of two digits ("nineteen eighty-four", "forty-eight twenty-one")."""
    pairs = [(s, e, v) for s, e, v, _ in phrases(folded) if 10 <= v <= 99]
    by_start: dict[int, set[int]] = {}
    for start, _, value in pairs:
        by_start.setdefault(start, set()).add(value)
    out = []
    for _, end, first in pairs:
        for start in range(end + 1, end + 4):
            if start in by_start and _JOINING_GAP.fullmatch(folded[end:start]):
                out += [f"{first}{second}" for second in sorted(by_start[start])]
    return out
