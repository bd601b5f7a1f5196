"""The arithmetic a hint states, evaluated over the numbers on the screen (the ``hint_arithmetic`` script).

"Add the two largest catches and multiply the total by 3" is a recipe: an aggregate (sum, product,
largest...), optionally of the k largest / smallest / first / last values, then operations with
constants the hint gives or the screen names ("divide by the modulus", the screen's "modulo 7").
:func:`recipes` lists what every reading of the hint gives, the reading that explains most of its
words first; expressions written out ("12 * 3 + 4") come before all of them. English only: a lower
bound on what a hint hands over, not a detector.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from itertools import product

from spade_gym.decoding.decoders import spelled
from spade_gym.validation.hint_text import TEXT_CHARS, tokens_of, word_stem
from spade_gym.validation.observations import NUMBER, as_number, render_number

_BOXED_ANYWHERE = re.compile(r"\\boxed\{[^{}\n]{0,80}\}")

#: Words that name an operation, per operation (English; a script that reads other languages is
#: stronger still: this is a lower bound on what a hint hands over, not a detector).
_AGGREGATES = {
    "sum": ("sum", "add", "added", "adding", "plus", "total", "together", "combined", "altogether"),
    "product": ("product", "multiply", "multiplied", "times"),
    "max": ("largest", "biggest", "highest", "greatest", "maximum", "max", "heaviest", "longest", "best"),
    "min": ("smallest", "lowest", "least", "minimum", "min", "lightest", "shortest", "worst", "fewest"),
    "mean": ("average", "mean"),
    "median": ("median", "middle"),
    "range": ("range", "spread", "difference", "gap"),
    "count": ("count", "many"),
}
_SELECT = {"top": _AGGREGATES["max"], "bottom": _AGGREGATES["min"], "first": ("leading",), "last": ("last",)}
_POST = {  # "remainder" before "divide": "the remainder after dividing by 7" is one operation
    "mod": ("remainder", "modulo", "mod"),
    "mul": ("multiply", "multiplied", "times", "multiplying"),
    "add": ("add", "plus", "added", "adding", "more", "increase", "increased"),
    "sub": ("subtract", "minus", "less", "fewer", "decrease", "decreased", "subtracting"),
    "div": ("divide", "divided", "dividing", "per", "split"),
}
#: Operations whose constant is in the word.
_IMPLIED = {"double": ("mul", 2), "doubled": ("mul", 2), "twice": ("mul", 2), "triple": ("mul", 3),
            "tripled": ("mul", 3), "thrice": ("mul", 3), "half": ("div", 2), "halve": ("div", 2),
            "halved": ("div", 2), "square": ("pow", 2), "squared": ("pow", 2), "cube": ("pow", 3),
            "cubed": ("pow", 3)}
_LITERAL = re.compile(r"-?\d+(?:\.\d+)?(?:\s*[-+*/×x÷]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?){1,6}")
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _literal_value(text: str) -> float | None:
    """The value of an arithmetic expression the hint writes out (``12 * 3 + 4``), without eval."""
    source = text.replace("×", "*").replace("÷", "/").replace("x", "*")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError):
        return None

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](value(node.left), value(node.right))
        raise ValueError("not plain arithmetic")

    try:
        result = value(tree.body)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return result if math.isfinite(result) else None


def _number_sets(screen: str) -> list[list[float]]:
    """The numbers a recipe may be about: the last then the first column of each block of numeric lines
    (not a column that only numbers the rows), each line with several numbers (most first), then every
    number of the screen (boxed examples left out)."""
    text = _BOXED_ANYWHERE.sub(" ", screen[:TEXT_CHARS])
    rows = [[v for v in (as_number(n) for n in _SCREEN_NUMBER.findall(line)) if v is not None]
            for line in text.splitlines()]
    sets: list[list[float]] = []
    block: list[list[float]] = []
    for row in [*rows, []]:
        if row:
            block.append(row)
            continue
        if len(block) >= 2:
            # values stand last on a line ("Gus: 36"); a first column that counts 1, 2, 3... numbers the rows
            last, first = [r[-1] for r in block], [r[0] for r in block]
            counting = first == [float(i) for i in range(int(first[0]), int(first[0]) + len(first))]
            sets += [last] + ([first] if first != last and not counting else [])
        block = []
    sets += sorted((r for r in rows if len(r) >= 2), key=len, reverse=True)[:6]
    sets.append([v for r in rows for v in r])
    out: list[list[float]] = []
    for numbers in sets:
        if numbers and numbers[:60] not in out:
            out.append(numbers[:60])
    return out


#: A name, then its number ("modulus 7", "rate: 3", "the rate is 3"; not a list: "numbers: 23, 45").
_NAME_NUMBER = re.compile(r"(?<![^\W\d_])([^\W\d_]{3,})\s*(?:[:=]|\s(?:is|are|was|of|equals)\s)?\s*"
                          r"(-?\d+(?:\.\d+)?)(?![\w.]*\s*[,;/]\s*-?\d)")
#: A number, then what it counts ("7 coins").
_NUMBER_NAME = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?) ([^\W\d_]{3,})")
#: A number of the screen, at the end of a sentence too ("... and 67.").
_SCREEN_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)")


def _named_numbers(screen: str) -> dict[str, float]:
    """Numbers the screen gives a name to (``modulus 7``, ``rate: 3``, ``7 coins``): word -> number."""
    text = spelled(_BOXED_ANYWHERE.sub(" ", screen[:TEXT_CHARS]))
    out: dict[str, float] = {}
    for name, number in _NAME_NUMBER.findall(text):
        out.setdefault(name.casefold(), float(number))
    for number, name in _NUMBER_NAME.findall(text):
        out.setdefault(name.casefold(), float(number))
    return out


def _named(named: dict[str, float], word: str) -> float | None:
    """The number the screen names with ``word`` or a word of the same stem ("modulus", "modulo")."""
    if not (word.isalpha() and len(word) >= 3):
        return None
    if word in named:
        return named[word]
    stem = word_stem(word)[:5]
    return next((v for w, v in named.items() if len(stem) >= 5 and word_stem(w)[:5] == stem), None)


def _aggregate(name: str, values: list[float]) -> float | None:
    if not values:
        return None
    if name == "sum":
        return sum(values)
    if name == "product":
        result = math.prod(values)
        return result if abs(result) < 1e15 else None
    if name == "max":
        return max(values)
    if name == "min":
        return min(values)
    if name == "mean":
        return sum(values) / len(values)
    if name == "median":
        ordered = sorted(values)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    if name == "range":
        return max(values) - min(values)
    return float(len(values))  # count


def _post(op: str, value: float, constant: float) -> float | None:
    try:
        if op == "mul":
            return value * constant
        if op == "add":
            return value + constant
        if op == "sub":
            return value - constant
        if op == "div":
            return value / constant
        if op == "mod":
            return math.fmod(value, constant)
        return value ** constant if abs(value) < 1e5 else None  # pow
    except (ZeroDivisionError, OverflowError, ValueError):
        return None


def recipes(hint: str, screen: str, limit: int = 48) -> list[str]:
    """The answers the arithmetic a hint states gives over the numbers on the screen, the recipe
    that explains most of the hint's words first: an aggregate (sum, product, largest...), optionally
    of the k largest / smallest / first / last values (k named in the hint), then operations with the
    hint's constants (times 3, plus 5, halved). Expressions written out in the hint come first."""
    # numbers in words become digits ("two largest" -> "2 largest"), but "first" stays a selector
    text = spelled(re.sub(r"(?i)\bfirst\b", "leading", hint[:TEXT_CHARS]))
    words = tokens_of(text)
    where: dict[str, list[int]] = {}
    for index, word in enumerate(words):
        where.setdefault(word, []).append(index)
    constants = [(i, float(w)) for i, w in enumerate(words) if as_number(w) is not None]

    def claims(vocabulary) -> list[int]:
        return [i for word in vocabulary for i in where.get(word, [])]

    # "divide by the modulus": a constant the screen gives next to a word the hint uses
    operators = {w for vocabulary in (*_AGGREGATES.values(), *_POST.values(), *_SELECT.values()) for w in vocabulary}
    named = _named_numbers(screen)
    operands = constants + [(i, value) for i, w in enumerate(words) if w not in operators
                            for value in [_named(named, w)] if value is not None]

    scored: list[tuple[int, int, float]] = []  # (-score, order, value)
    for order, match in enumerate(_LITERAL.finditer(text)):
        value = _literal_value(match.group(0))
        if value is not None and len(NUMBER.findall(match.group(0))) >= 2:
            scored.append((-100, order, value))
    aggregates = [(name, i) for name, vocabulary in _AGGREGATES.items() for i in claims(vocabulary)]
    selectors: list[tuple[str, int, int, int]] = []  # (how, k, word position, count position)
    for how, vocabulary in _SELECT.items():
        for i in claims(vocabulary):
            for j, k in constants:
                if 0 < abs(j - i) <= 2 and float(k).is_integer() and 1 <= k <= 60:
                    selectors.append((how, int(k), i, j))
    posts: list[tuple[str, float, tuple[int, ...]]] = [(op, float(c), (i,)) for i, word in enumerate(words)
                                                       for op, c in [_IMPLIED.get(word, (None, 0))] if op]
    for op, vocabulary in _POST.items():
        for i in claims(vocabulary):
            posts += [(op, c, (i, j)) for j, c in operands if 0 < abs(j - i) <= 6]
    options_sel: list[tuple[str, int, tuple[int, ...]] | None] = [None, *((h, k, (i, j)) for h, k, i, j in selectors)]
    # "the remainder after dividing by 7" is one operation, not two
    remainders = {post[2][-1] for post in posts if post[0] == "mod"}
    posts = [post for post in posts if not (post[0] == "div" and post[2][-1] in remainders)]
    # the nearest operand first: "modulo 7" before the numbers listed further back
    posts.sort(key=lambda post: abs(post[2][-1] - post[2][0]))
    options_post: list[tuple[str, float, tuple[int, ...]] | None] = [None, *posts[:12]]
    number_sets = _number_sets(screen)
    order = len(scored)
    for (name, at), select, post in product(aggregates[:12], options_sel[:12], options_post):
        used = [at] + (list(select[2]) if select else []) + (list(post[2]) if post else [])
        if len(set(used)) < len(used):
            continue  # one word, one role
        for numbers in number_sets:
            values = numbers
            if post is not None and post[1] in numbers and _named(named, words[post[2][-1]]) is not None:
                values = list(numbers)
                values.remove(post[1])  # the screen's modulus is not one of the numbers it divides
            if select is not None:
                how, k, _ = select
                if k > len(values):
                    continue
                values = {"top": sorted(values, reverse=True)[:k], "bottom": sorted(values)[:k],
                          "first": values[:k], "last": values[-k:]}[how]
            result = _aggregate(name, values)
            if result is not None and post is not None:
                result = _post(post[0], result, post[1])
            if result is not None and math.isfinite(result) and abs(result) < 1e15:
                scored.append((-len(used), order, result))
                order += 1
    out: list[str] = []
    for _, _, value in sorted(scored):
        rendered = render_number(round(value, 6))
        if rendered not in out:
            out.append(rendered)
        if len(out) >= limit:
            break
    return out
