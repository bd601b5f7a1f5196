"""Reading a hint the way a no-reasoning script does: its tokens, and the action forms moves take.

A script learns from other seeds how the privileged policy writes its moves (``\\boxed{pull 37}``, a
tool call with an argument, an ``<answer>``): the fixed text, with *slots* where the moves differ
(:class:`Form`). A window of a hint's tokens that fits a form's slots is a move the hint names
(:class:`Forms`). Shared by the hint rule's scripts (:mod:`spade_gym.validation.baselines.hinted`).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from spade_gym import toolcalls
from spade_gym.env.wrappers import HINT_TEMPLATE
from spade_gym.validation.baselines.base import Prior
from spade_gym.validation.observations import as_number, boxed

#: Characters of a hint or a screen a script reads (beyond, a model would not read either).
TEXT_CHARS = 20_000
#: A token of a text: letters and digits, with ``_ . -`` inside (``a1``, ``x.conf``, ``B``, ``37``).
_TOKEN = re.compile(r"[^\W_](?:[\w.\-]*[^\W_])?")
_BOXED = re.compile(r"\A\s*\\boxed\{(.*)\}\s*\Z", re.DOTALL)
#: Action forms a script learns from other seeds, and hint tokens it reads.
_MAX_FORMS = 16
_MAX_TOKENS = 400
_MAX_MOVES = 64


def shown_with_hint(observation: str, hint: str | None) -> str:
    """What an agent playing with the hint sees first (``gym.make(id, hint=True)``)."""
    return HINT_TEMPLATE.format(observation=observation, hint=hint) if hint else observation


@functools.lru_cache(maxsize=4096)
def tokens_of(text: str) -> tuple[str, ...]:
    """The tokens of ``text`` in order (its first :data:`TEXT_CHARS` characters, at most 400)."""
    return tuple(m.group(0) for m in _TOKEN.finditer(text[:TEXT_CHARS]))[:_MAX_TOKENS]


@functools.lru_cache(maxsize=65536)
def klass(token: str) -> str:
    """A token's character classes, runs collapsed: ``a1`` -> ``ad``, ``B`` -> ``A``, ``amber`` -> ``a``,
    ``Pull`` -> ``Aa``, ``x.conf`` -> ``a.a``, ``37`` -> ``d`` (a slot's values share one)."""
    out: list[str] = []
    for char in token:
        c = "d" if char.isdigit() else "A" if char.isupper() else "a" if char.isalpha() else char
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _letters(token: str) -> int:
    return sum(char.isalpha() for char in token)


# ----------------------------------------------------------------------------- action forms


class Form:
    """One way the privileged policy's actions are written, learned from other seeds: the fixed
    text with *slots* where the actions differ (``\\boxed{pull <d>}``; a tool call's argument
    values); :meth:`render` writes it with new slot values."""

    def __init__(self, key: tuple, render: Callable[[tuple[str, ...]], str | None], values: list[tuple[str, ...]]):
        self.key, self._render, self.count = key, render, len(values)
        columns = list(zip(*values)) if values else []
        varying = [i for i, column in enumerate(columns) if len(set(column)) > 1]
        if not varying and len(values) == 1:  # seen once: every token may be a slot
            varying = list(range(len(columns)))
        self.slots = varying
        self.fixed = tuple(Counter(column).most_common(1)[0][0] for column in columns)
        self.values = [frozenset(columns[i]) for i in varying]
        self.classes = [klass(next(iter(v))) for v in self.values]
        lengths = [[_letters(x) for x in v] for v in self.values]
        self.letters = [(min(ls), max(ls)) for ls in lengths]

    def __deepcopy__(self, memo: dict) -> Form:
        return self  # immutable once built, as :class:`Forms`

    def fits(self, index: int, token: str) -> bool:
        """Whether ``token`` could fill slot ``index``: same character classes, a letter count like the
        values seen (single letters stay single letters: an option label is not a word)."""
        if klass(token) != self.classes[index]:
            return False
        low, high = self.letters[index]
        slack = 0 if high <= 2 else 2
        return low - slack <= _letters(token) <= high + slack

    def rank(self, index: int, token: str, screen: frozenset[str]) -> int:
        """How well ``token`` is attested for slot ``index``: 0 played on other seeds, 1 on the screen, 2 neither."""
        return 0 if token in self.values[index] else 1 if token in screen else 2

    def render(self, slot_values: tuple[str, ...]) -> str | None:
        tokens = list(self.fixed)
        for index, value in zip(self.slots, slot_values):
            tokens[index] = value
        return self._render(tuple(tokens))


def _split(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``text`` as the literal pieces between its tokens, and its tokens."""
    literals, tokens, at = [], [], 0
    for match in _TOKEN.finditer(text):
        literals.append(text[at:match.start()])
        tokens.append(match.group(0))
        at = match.end()
    literals.append(text[at:])
    return tuple(literals), tuple(tokens)


def _join(literals: tuple[str, ...], tokens: tuple[str, ...]) -> str:
    return "".join(piece for pair in zip(literals, (*tokens, "")) for piece in pair)


@functools.lru_cache(maxsize=8192)
def parse_form(action: str) -> tuple[tuple, tuple[str, ...], Callable[[tuple[str, ...]], str | None]] | None:
    """``(key, slot tokens, render)`` of one action: a single tool call's argument values, an
    ``<answer>``'s or a ``\\boxed{}``'s tokens, else the action's own tokens."""
    if len(action) > 2000:
        return None
    if toolcalls.CALL_OPEN in action or toolcalls.ANSWER_OPEN in action:
        parsed = toolcalls.parse_action(action)
        if len(parsed.calls) == 1 and parsed.answer is None and not parsed.errors:
            call = parsed.calls[0]
            arguments = call.arguments if isinstance(call.arguments, dict) else {}
            if all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in arguments.values()):
                keys = tuple(sorted(arguments))
                kinds = tuple(type(arguments[k]).__name__ for k in keys)
                values = tuple(str(arguments[k]) for k in keys)
                name = call.name

                def render_call(values: tuple[str, ...]) -> str | None:
                    typed: dict[str, Any] = {}
                    for key, kind, value in zip(keys, kinds, values):
                        if kind == "str":
                            typed[key] = value
                            continue
                        number = as_number(value)
                        if number is None:
                            return None
                        typed[key] = int(number) if kind == "int" else number
                    return toolcalls.format_call(name, typed)

                return ("call", name, keys, kinds, tuple(klass(v) for v in values)), values, render_call
        if not parsed.calls and parsed.answer is not None and not parsed.text:
            literals, tokens = _split(parsed.answer)
            return (("answer", literals, tuple(map(klass, tokens))), tokens,
                    lambda t: None if toolcalls.ANSWER_CLOSE in _join(literals, t)
                    else toolcalls.format_answer(_join(literals, t)))
    match = _BOXED.match(action)
    body, wrap = (match.group(1), boxed) if match else (action, lambda text: text)
    literals, tokens = _split(body)
    if not tokens:
        return None
    return ("text", match is not None, literals, tuple(map(klass, tokens))), tokens, lambda t: wrap(_join(literals, t))


class Forms:
    """The action forms of the privileged policy on other seeds, most used first; a hint is read
    through them: a window of its tokens that fits a form's slots is a move it names."""

    def __init__(self, actions: list[str]):
        groups: dict[tuple, list[tuple[str, ...]]] = {}
        renders: dict[tuple, Callable[[tuple[str, ...]], str | None]] = {}
        for action in actions:
            parsed = parse_form(action)
            if parsed is None:
                continue
            key, tokens, render = parsed
            groups.setdefault(key, []).append(tokens)
            renders.setdefault(key, render)
        forms = [Form(key, renders[key], values) for key, values in groups.items()]
        forms = [f for f in forms if f.slots]
        # More slots first (a whole move beats a fragment of it), then the most used.
        self.forms = sorted(forms, key=lambda f: (-len(f.slots), -f.count))[:_MAX_FORMS]

    def __deepcopy__(self, memo: dict) -> Forms:
        # Immutable once built (learned from the prior): a job's pristine copy shares it.
        return self

    def moves(self, text: str, screen: frozenset[str]) -> list[tuple[int, int, str]]:
        """``(position, rank, action)`` for every move ``text`` names, in order of appearance."""
        tokens = tokens_of(text)
        out: list[tuple[int, int, str]] = []
        seen_at: set[int] = set()
        for form in self.forms:
            width = len(form.slots)
            for start in range(len(tokens) - width + 1):
                if start in seen_at:
                    continue
                window = tokens[start:start + width]
                if not all(form.fits(i, token) for i, token in enumerate(window)):
                    continue
                action = form.render(window)
                if action:
                    rank = max(form.rank(i, token, screen) for i, token in enumerate(window))
                    out.append((start, rank, action))
                    seen_at.add(start)
        return sorted(out)[:_MAX_MOVES]

    def single_slot(self) -> list[Form]:
        return [f for f in self.forms if len(f.slots) == 1]


def prior_actions(prior: Prior) -> list[str]:
    return [action for actions in prior.actions_by_turn for action in actions]


def answer_form(prior: Prior) -> Callable[[str], str | None]:
    """How this program takes an answer: ``<answer>`` where the privileged policy wrote one, else ``\\boxed{}``."""
    if any(toolcalls.ANSWER_OPEN in action for action in prior_actions(prior)):
        return lambda text: None if toolcalls.ANSWER_CLOSE in text else toolcalls.format_answer(text)
    return boxed


def word_stem(word: str) -> str:
    """A word without its plural ending, case folded ("tomes" -> "tome", "berries" -> "berry")."""
    word = word.casefold()
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word
