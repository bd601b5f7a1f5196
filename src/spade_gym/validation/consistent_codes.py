"""The next code consistent with every mark so far, found lazily in a code space too big to list.

A code-breaking game over 6 colours and 5 pegs has 7,776 codes; over 10 colours and 6 places a
million. The ``marks`` baseline lists small spaces whole; in a big one it looks for the first
consistent code by depth-first search, one place at a time, pruning a prefix as soon as a mark
rules it out: a per-position mark fixes or forbids the element at its place, an exact-match count
bounds how many places may still match. Marks that only a whole code can be judged by (elsewhere
counts) are checked at the leaves. The search visits at most ``budget`` nodes per call, so a move
costs the same whether or not a consistent code exists; the orders of the elements at each place
are the caller's (shuffled per episode), so "first" is not a fixed answer prior.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from spade_gym.validation.feedback_marks import CountRule, MarkModel, PositionRule

#: Nodes one search may visit: a full 6^5 tree has 9,331, so a small space is searched whole.
SEARCH_BUDGET = 20_000

Marks = dict  # rule -> value, as MarkModel.read returns


def _place_tests(constraints: Sequence[tuple[tuple[str, ...], Marks]], length: int):
    """Per constraint, what a prefix can be judged by: (guess, needed matches or None, per-place
    "must equal" flags or None)."""
    tests = []
    for guess, marks in constraints:
        matches: int | None = None
        equal: list[bool | None] | None = None
        for rule, value in marks.items():
            if isinstance(rule, CountRule) and rule.scheme in ("b", "L-b"):
                b = value if rule.scheme == "b" else length - value
                if float(b).is_integer():
                    matches = int(b)
            elif isinstance(rule, PositionRule):
                equal = [v == (1 if rule.scheme == "exact" else 2) for v in value]
        tests.append((guess, matches, equal))
    return tests


def next_consistent(orders: Sequence[Sequence[str]], constraints: Sequence[tuple[tuple[str, ...], Marks]],
                    skip: Container[tuple[str, ...]], budget: int = SEARCH_BUDGET) -> tuple[str, ...] | None:
    """The first code (in ``orders``: the elements to try at each place, in turn) that would have
    drawn every ``(guess, marks)`` of ``constraints`` and is not in ``skip``; None when there is
    none or the budget ran out first."""
    length = len(orders)
    tests = _place_tests(constraints, length)
    visited = 0
    prefix: list[str] = []
    # per constraint, matches of the prefix so far (a stack: one entry per place)
    matched: list[list[int]] = [[0] for _ in tests]

    def viable(place: int, element: str) -> bool:
        remaining = length - place - 1
        for t, (guess, needed, equal) in enumerate(tests):
            hit = guess[place] == element
            if equal is not None and equal[place] != hit:
                return False
            if needed is not None:
                count = matched[t][-1] + hit
                if count > needed or needed - count > remaining:
                    return False
        return True

    def search(place: int) -> tuple[str, ...] | None:
        nonlocal visited
        for element in orders[place]:
            visited += 1
            if visited > budget:
                return None
            if not viable(place, element):
                continue
            prefix.append(element)
            for t, (guess, _, _) in enumerate(tests):
                matched[t].append(matched[t][-1] + (guess[place] == element))
            if place + 1 == length:
                code = tuple(prefix)
                found = code if code not in skip and all(MarkModel.fits(g, code, m) for g, m in constraints) else None
            else:
                found = search(place + 1)
            prefix.pop()
            for stack in matched:
                stack.pop()
            if found is not None or visited > budget:
                return found
        return None

    return search(0)


__all__ = ["SEARCH_BUDGET", "next_consistent"]
