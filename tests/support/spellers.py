"""Numbers spelled the way a hostile hint would: words in four languages, Roman numerals, other
scripts. Written independently of :mod:`spade_gym.decoding` (the tests check one against the other)."""

from __future__ import annotations

_EN_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
            "sixteen seventeen eighteen nineteen").split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def english(n: int) -> str:
    """0 <= n < 10**9: "four thousand eight hundred twenty-one"."""
    parts = []
    for scale, name in ((10**6, "million"), (1000, "thousand")):
        if n >= scale:
            parts.append(f"{english(n // scale)} {name}")
            n %= scale
    if n >= 100:
        parts.append(f"{_EN_ONES[n // 100]} hundred")
        n %= 100
    if n >= 20:
        parts.append(_EN_TENS[n // 10] + (f"-{_EN_ONES[n % 10]}" if n % 10 else ""))
    elif n or not parts:
        parts.append(_EN_ONES[n])
    return " ".join(parts)


_FR_UNITS = "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize".split()
_FR_TENS = {2: "vingt", 3: "trente", 4: "quarante", 5: "cinquante", 6: "soixante"}


def _fr_below_100(n: int) -> str:
    if n < 17:
        return _FR_UNITS[n]
    if n < 20:
        return "dix-" + _FR_UNITS[n - 10]
    tens, unit = divmod(n, 10)
    if tens == 7:
        return "soixante et onze" if unit == 1 else "soixante-" + _fr_below_100(n - 60)
    if tens == 8:
        return "quatre-vingts" if unit == 0 else "quatre-vingt-" + _FR_UNITS[unit]
    if tens == 9:
        return "quatre-vingt-" + _fr_below_100(n - 80)
    if unit == 0:
        return _FR_TENS[tens]
    return _FR_TENS[tens] + (" et un" if unit == 1 else "-" + _FR_UNITS[unit])


def _fr_below_1000(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    if not hundreds:
        return _fr_below_100(rest)
    head = "cent" if hundreds == 1 else _FR_UNITS[hundreds] + (" cents" if rest == 0 else " cent")
    return head + (" " + _fr_below_100(rest) if rest else "")


def french(n: int) -> str:
    """0 <= n < 10**6: "quatre mille huit cent vingt et un"."""
    thousands, rest = divmod(n, 1000)
    if not thousands:
        return _fr_below_1000(rest)
    head = "mille" if thousands == 1 else _fr_below_1000(thousands) + " mille"
    return head + (" " + _fr_below_1000(rest) if rest else "")


_DE_UNITS = ("null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn "
             "sechzehn siebzehn achtzehn neunzehn").split()
_DE_TENS = {2: "zwanzig", 3: "dreißig", 4: "vierzig", 5: "fünfzig", 6: "sechzig", 7: "siebzig", 8: "achtzig",
            9: "neunzig"}


def _de_below_100(n: int) -> str:
    if n < 20:
        return _DE_UNITS[n]
    tens, unit = divmod(n, 10)
    return _DE_TENS[tens] if not unit else ("ein" if unit == 1 else _DE_UNITS[unit]) + "und" + _DE_TENS[tens]


def _de_below_1000(n: int, *, final: bool = True) -> str:
    hundreds, rest = divmod(n, 100)
    head = "" if not hundreds else ("ein" if hundreds == 1 else _DE_UNITS[hundreds]) + "hundert"
    tail = "" if not rest else ("eins" if rest == 1 and final else "ein" if rest == 1 else _de_below_100(rest))
    return head + tail


def german(n: int) -> str:
    """1 <= n < 10**6, one word: "viertausendachthunderteinundzwanzig"."""
    thousands, rest = divmod(n, 1000)
    head = "" if not thousands else _de_below_1000(thousands, final=False) + "tausend"
    return head + _de_below_1000(rest)


_ES_UNITS = ("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis "
             "diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro veinticinco "
             "veintiséis veintisiete veintiocho veintinueve").split()
_ES_TENS = {3: "treinta", 4: "cuarenta", 5: "cincuenta", 6: "sesenta", 7: "setenta", 8: "ochenta", 9: "noventa"}
_ES_HUNDREDS = {1: "ciento", 2: "doscientos", 3: "trescientos", 4: "cuatrocientos", 5: "quinientos",
                6: "seiscientos", 7: "setecientos", 8: "ochocientos", 9: "novecientos"}


def _es_below_100(n: int) -> str:
    if n < 30:
        return _ES_UNITS[n]
    tens, unit = divmod(n, 10)
    return _ES_TENS[tens] + (" y " + _ES_UNITS[unit] if unit else "")


def _es_below_1000(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    if not hundreds:
        return _es_below_100(rest)
    if n == 100:
        return "cien"
    return _ES_HUNDREDS[hundreds] + (" " + _es_below_100(rest) if rest else "")


def spanish(n: int) -> str:
    """0 <= n < 10**6: "cuatro mil ochocientos veintiuno"."""
    thousands, rest = divmod(n, 1000)
    if not thousands:
        return _es_below_1000(rest)
    head = "mil" if thousands == 1 else _es_below_1000(thousands).removesuffix("uno") + (
        "un" if _es_below_1000(thousands).endswith("uno") else "") + " mil"
    return head + (" " + _es_below_1000(rest) if rest else "")


def roman(n: int) -> str:
    """1 <= n: standard below 4000, extra leading Ms above ("MMMMDCCCXXI")."""
    out = []
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def fullwidth(text: str) -> str:
    return "".join(chr(0xFF10 + int(c)) if c.isdigit() else c for c in text)


def arabic_indic(text: str) -> str:
    return "".join(chr(0x0660 + int(c)) if c.isdigit() else c for c in text)


def zero_width_split(text: str) -> str:
    return "\u200b".join(text)
