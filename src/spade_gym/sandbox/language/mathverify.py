"""A small, self-contained stand-in for ``math_verify`` (``parse`` / ``verify``).

The SPADE reference designer prompt tells models to write
``from math_verify import parse, verify`` and compare answers with
``verify(parse(gold), parse(answer))``. The real package pulls in sympy and evaluates
LaTeX through it, which is far too much surface to hand a hostile program. This
module implements the same two calls for what environments actually compare:
integers, decimals, fractions (``3/4``, ``\\frac{3}{4}``), percentages, simple
``\\sqrt``/``\\pi`` values, tuples and sets of those, and normalised text.

``parse`` returns a list of candidate values (empty when nothing was found), the way
the real package does; ``verify`` is true when any gold candidate equals any answer
candidate. Neither function ever raises on odd input.

The answers it reads are agent text, so nothing it builds grows with a number's *value*:
a number with more than :data:`MAX_DIGITS` digits (counting the shift of a scientific
exponent, so ``1e999999999`` is one) is not read as a number, a rational whose numerator
or denominator outgrows that is dropped, and a tuple or set has at most :data:`MAX_ITEMS`
items. Such an answer is compared as text only (so it matches nothing numeric), in time
linear in its length. Powers (``10^{99}``), factorials and nested ``\\frac`` are never
evaluated: they are text too.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

__all__ = ["parse", "verify"]

_MAX_INPUT = 20_000
#: Most digits a number may have, counting the places a scientific exponent shifts it
#: (``1.5e300`` has 301): far beyond any answer, and below CPython's 4,300-digit limit on
#: int/str conversion, so every value ``parse`` returns can be printed. The same bound, in
#: bits, caps the numerator and denominator of every rational it builds (``\\frac{a}{b}``,
#: percentages).
MAX_DIGITS = 4_000
_MAX_BITS = 13_288  # 4,000 decimal digits
#: Most items of a tuple or set answer (sets with float items are matched pairwise).
MAX_ITEMS = 1_000
_BOXED = "\\boxed"
_TEXT_CMD = re.compile(r"\\(?:text|textbf|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}")
_FRAC = re.compile(r"^(-?)\\[dt]?frac\s*\{([^{}]+)\}\s*\{([^{}]+)\}$")
_SQRT = re.compile(r"^(-?\d*(?:\.\d+)?)\s*\\sqrt\s*\{?\s*(\d+(?:\.\d+)?)\s*\}?$")
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_LAST_NUMBER = re.compile(r"[+-]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?")


def _last_boxed(text: str) -> str | None:
    start = text.rfind(_BOXED)
    if start < 0:
        return None
    i = start + len(_BOXED)
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text) or text[i] != "{":
        return None
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j]
    return None


def _unwrap(text: str) -> str:
    """``text`` without one layer of math delimiters: leading and trailing runs of ``$``,
    a leading ``\\(`` / ``\\[`` and a trailing ``\\)`` / ``\\]``. (String operations: the regular
    expression ``\\$+$`` this replaces took quadratic time on a long run of ``$`` inside text.)"""
    if text.startswith("$"):
        text = text.lstrip("$")
    elif text.startswith(("\\(", "\\[")):
        text = text[2:]
    if text.endswith("$"):
        text = text.rstrip("$")
    elif text.endswith(("\\)", "\\]")):
        text = text[:-2]
    return text


def _clean(text: str) -> str:
    text = text.strip()
    for _ in range(3):
        new = _unwrap(text).strip()
        if new == text:
            break
        text = new
    text = _TEXT_CMD.sub(r"\1", text)
    for token in ("\\left", "\\right", "\\!", "\\,", "\\;", "\\:", "\\ ", "\\displaystyle"):
        text = text.replace(token, "")
    text = text.replace("^\\circ", "").replace("^{\\circ}", "").replace("°", "")
    text = text.replace("\\%", "%").replace("\\cdot", "*").replace("\\times", "*")
    return text.strip().rstrip(".").strip()


def _literal_fits(t: str) -> bool:
    """Whether a decimal literal (``_NUMBER``'s form) has at most MAX_DIGITS digits once its
    exponent is applied: checked on the text, before Fraction builds ``10 ** exponent``."""
    mantissa, _, exponent = t.lower().partition("e")
    digits = len(mantissa) - mantissa.count(".") - mantissa.startswith(("+", "-"))
    shift = 0
    if exponent:
        exponent = exponent.lstrip("+-").lstrip("0")
        if len(exponent) > len(str(MAX_DIGITS)):
            return False
        shift = int(exponent or "0")
    return digits + shift <= MAX_DIGITS


def _fits(value) -> bool:
    if isinstance(value, Fraction):
        return value.numerator.bit_length() <= _MAX_BITS and value.denominator.bit_length() <= _MAX_BITS
    return True


def _number(text: str):
    """Parse one scalar; returns a Fraction or float, or None (also for a number over the caps)."""
    try:
        value = _scalar(text)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return value if _fits(value) else None


def _scalar(text: str):
    t = text.replace(" ", "")
    if not t:
        return None
    percent = t.endswith("%")
    if percent:
        t = t[:-1]
    if re.fullmatch(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?", t):
        t = t.replace(",", "")
    value: Fraction | float | None = None
    if _NUMBER.match(t):
        value = Fraction(t) if _literal_fits(t) else None
    elif re.fullmatch(r"[+-]?\d+/\d+", t):
        num, den = t.split("/")
        if max(len(num), len(den)) > MAX_DIGITS:
            return None
        value = Fraction(int(num), int(den)) if int(den) else None
    else:
        m = _FRAC.match(t)
        if m:
            num, den = _number(m.group(2)), _number(m.group(3))
            if num is not None and den not in (None, 0):
                exact = not isinstance(num, float) and not isinstance(den, float)
                value = (num / den) if exact else float(num) / float(den)
                if m.group(1):
                    value = -value
        else:
            m = _SQRT.match(t)
            if m:
                coef = m.group(1)
                factor = 1.0 if coef in ("", "+") else -1.0 if coef == "-" else float(coef)
                value = factor * math.sqrt(float(m.group(2)))
            elif t in ("\\pi", "pi", "π"):
                value = math.pi
    if value is not None and percent:
        value = value / 100
    return value


def _number_over_caps(text: str) -> bool:
    """Whether ``text`` is one decimal or ``a/b`` literal (which ``_number`` refused for its size)."""
    t = _clean(text).replace(" ", "").removesuffix("%").replace(",", "")
    return bool(_NUMBER.match(t) or re.fullmatch(r"[+-]?\d+/\d+", t))


def _split_items(text: str) -> list[str] | None:
    inner = text
    if len(inner) >= 2 and inner[0] in "([{" and inner[-1] in ")]}":
        inner = inner[1:-1]
    elif inner.startswith("\\{") and inner.endswith("\\}"):
        inner = inner[2:-2]
    if "," not in inner and ";" not in inner:
        return None
    if inner.count(",") + inner.count(";") >= MAX_ITEMS:
        return None
    return [part.strip() for part in re.split(r"[,;]", inner) if part.strip()]


def _normalise_text(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _candidates(expr: str) -> list:
    expr = _clean(expr)
    if not expr:
        return []
    out: list = []
    scalar = _number(expr)
    if scalar is not None:
        out.append(scalar)
    else:
        items = _split_items(expr)
        if items:
            values = [_number(_clean(item)) for item in items]
            if all(v is not None for v in values):
                kind = frozenset if expr.startswith(("\\{", "{")) else tuple
                out.append(kind(values))
            else:
                out.append(tuple(_normalise_text(i) for i in items))
        elif "=" in expr:  # "x = 5" -> 5
            rhs = _number(_clean(expr.rsplit("=", 1)[1]))
            if rhs is not None:
                out.append(rhs)
    out.append(_normalise_text(expr))
    return out


def parse(text, *args, **kwargs) -> list:
    """Extract the answer from ``text``: the last ``\\boxed{}``, else the whole text,
    else the last number in it. Extra arguments of the real API are accepted and ignored."""
    if isinstance(text, (int, Fraction)) and not isinstance(text, bool):
        value = Fraction(text)
        return [value, str(text)] if _fits(value) else []
    if isinstance(text, float):
        return [text, str(text)] if math.isfinite(text) else [str(text)]
    if not isinstance(text, str):
        return []
    text = text[:_MAX_INPUT]
    boxed = _last_boxed(text)
    if boxed is not None:
        return _candidates(boxed)
    found = _candidates(text)
    if any(not isinstance(c, str) for c in found) or _number_over_caps(text):
        return found  # (a number refused for its size is no number: not its last digits either)
    numbers = _LAST_NUMBER.findall(text)
    if numbers:
        value = _number(numbers[-1])
        if value is not None:
            return [value] + found
    return found


def _equal(a, b, rel_tol: float) -> bool:
    if isinstance(a, (Fraction, float)) and isinstance(b, (Fraction, float)):
        if isinstance(a, Fraction) and isinstance(b, Fraction):
            return a == b
        try:
            fa, fb = float(a), float(b)
        except OverflowError:  # a rational beyond the float range equals no float
            return False
        return math.isclose(fa, fb, rel_tol=rel_tol, abs_tol=rel_tol * 1e-3)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_equal(x, y, rel_tol) for x, y in zip(a, b))
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        if len(a) != len(b):
            return False
        if all(isinstance(x, (Fraction, str)) for x in a) and all(isinstance(y, (Fraction, str)) for y in b):
            return a == b  # items that compare exactly: set equality, in linear time
        remaining = list(b)
        for x in a:
            for i, y in enumerate(remaining):
                if _equal(x, y, rel_tol):
                    del remaining[i]
                    break
            else:
                return False
        return True
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


def verify(gold, target, *args, float_rounding: int = 6, **kwargs) -> bool:
    """True when some candidate of ``gold`` equals some candidate of ``target``.

    Numbers compare exactly when both are rational, else to ``float_rounding``
    significant digits; tuples elementwise; sets as multisets; text after
    whitespace and case normalisation.
    """
    try:
        golds = gold if isinstance(gold, list) else parse(gold)
        targets = target if isinstance(target, list) else parse(target)
        rel_tol = 10.0 ** -max(1, min(int(float_rounding), 15))
        return any(_equal(g, t, rel_tol) for g in golds for t in targets)
    except Exception:  # the contract: verify never raises
        return False
