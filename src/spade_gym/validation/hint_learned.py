"""The ``hint_learned`` script: where, on other seeds, the privileged policy's move stood in the hint.

A designer's hint is a template: the same words around a changing part ("The rival's cycle from round
1, by initials: S, P, R."). A script trained on other seeds learns, per turn, the place of the hint the
move is read at (the k-th token, the token after a word, the k-th from the end) and how: copied into
the move's form, or translated by a table the seeds agree on ("R" -> ``paper``), one vocabulary for
every turn. On a fresh seed it reads the move off the same place.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable

from spade_gym.validation.hint_readers import NOTHING, ReadsForms
from spade_gym.validation.hint_text import parse_form, tokens_of

#: Hint tokens a feature may point at: by index from the start, from the end, after a word.
_FEATURE_START, _FEATURE_END, _AFTER = 60, 20, 3
#: Turns a learned plan covers (the script's episode ends after them).
_LEARNED_TURNS = 30


@functools.lru_cache(maxsize=2048)
def _features(hint: str) -> dict[tuple, str]:
    """Where a token stands in a hint: its index, its index from the end, its offset after each word."""
    tokens = tokens_of(hint)
    out: dict[tuple, str] = {}
    for index, token in enumerate(tokens[:_FEATURE_START]):
        out[("at", index)] = token
    for index in range(1, min(_FEATURE_END, len(tokens)) + 1):
        out[("end", index)] = tokens[-index]
    for index, anchor in enumerate(tokens[:_FEATURE_START]):
        if anchor.isalpha():
            for offset in range(1, _AFTER + 1):
                if index + offset < len(tokens):
                    out.setdefault(("after", anchor.casefold(), offset), tokens[index + offset])
    return out


def _places(examples: list[tuple[dict[tuple, str], list[str]]], mine: dict[tuple, str]) -> list[tuple]:
    """The places of a hint that can tell tasks apart: their token changes from seed to seed (a fixed
    token would only replay the other seeds' moves, which the blind script does unhinted), this seed's
    hint has one, and of places holding the same tokens on every seed (the 9th token, the one after
    "initials", the 3rd from the end) one stands for all."""
    seen: dict[tuple, list[str | None]] = {}
    for index, (features, _) in enumerate(examples):
        for place, token in features.items():
            if place in mine:
                seen.setdefault(place, [None] * len(examples))[index] = token.casefold()
    out: list[tuple] = []
    signatures: set[tuple] = set()
    for place, tokens in seen.items():
        present = [t for t in tokens if t is not None]
        signature = (tuple(tokens), mine[place].casefold())
        if len(set(present)) > 1 and 2 * len(present) >= len(examples) and signature not in signatures:
            signatures.add(signature)
            out.append(place)
    return out


def _where(features: dict[tuple, str]) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for place, token in features.items():
        out.setdefault(token, []).append(place)
    return out


class HintLearned(ReadsForms):
    """*hint learned*: for each turn, where on other seeds the privileged policy's move stood in their
    hints (copied from the token at one place, or translated from it by a table those seeds agree on),
    read off this seed's hint; a turn with nothing learned plays the other seeds' most common move."""

    def begin(self, observation):
        super().begin(observation)
        self.plan: list[str] | None = None

    def _learn(self) -> list[str]:
        examples = [(_features(self.other_hint(hint, screen)), actions)
                    for hint, actions, screen in self.prior.hints_and_actions]
        mine = _features(self.hint or "")
        places = _places(examples, mine)
        # each other seed's tokens at those places, and where each token stands (for copies)
        rows = [({p: features[p] for p in places if p in features}, actions) for features, actions in examples]
        where = [_where(features) for features, _ in rows]
        learned = [self._learn_turn(turn, rows, where, mine, places)
                   for turn in range(min(len(self.prior.actions_by_turn), _LEARNED_TURNS))]
        # One vocabulary for every turn ("R" is answered by paper wherever it stands): a token this
        # seed has at a place where no other seed had it is translated by what it meant elsewhere.
        pooled: dict[str, Counter[str]] = {}
        for turn, (_, learned_place, _) in enumerate(learned):
            if learned_place is not None:
                for features, actions in rows:
                    if turn < len(actions) and learned_place in features:
                        pooled.setdefault(features[learned_place].casefold(), Counter())[actions[turn]] += 1
        vocabulary = {token: counts.most_common(1)[0][0] for token, counts in pooled.items()}
        plan: list[str] = []
        for turn, (copy, feature, table) in enumerate(learned):
            moves = self.prior.actions_by_turn[turn]
            action = copy
            if action is None and vocabulary:
                # The place this turn's move stands, judged through the shared vocabulary: a place
                # whose tokens happen to go with the turn's most common move fits one turn, not all.
                moved = [(features, actions[turn]) for features, actions in rows if turn < len(actions)]
                fits = {p: sum(vocabulary.get(features[p].casefold()) == move
                               for features, move in moved if p in features) for p in places}
                best_place: tuple | None = max(fits, key=lambda p: fits[p], default=None)
                if best_place is not None and fits[best_place] >= max(2, math.ceil(len(moved) / 2)):
                    feature, table = best_place, {}
            if action is None and feature is not None:
                token = mine[feature].casefold()
                seen = table.get(token)
                action = seen.most_common(1)[0][0] if seen else vocabulary.get(token)
            plan.append(action or (Counter(moves).most_common(1)[0][0] if moves else NOTHING))
        return plan

    @staticmethod
    def _learn_turn(turn: int, examples: list[tuple[dict[tuple, str], list[str]]], where: list[dict[str, list]],
                    mine: dict[tuple, str], places: list[tuple]) -> tuple[str | None, tuple | None, dict]:
        """What turn ``turn``'s move is on other seeds: ``(copied move, translated place, its table)``,
        the better-fitting of the two (a translation's fits counted leave-one-out)."""
        rows = [(features, actions[turn], at) for (features, actions), at in zip(examples, where)
                if turn < len(actions)]
        if len(rows) < 2 or not places:
            return None, None, {}
        needed = max(2, math.ceil(len(rows) / 2))
        # copy: the move holds the token standing at one place of the hint
        copies: Counter[tuple[tuple, tuple, int]] = Counter()
        shapes: dict[tuple[tuple, tuple, int], tuple[tuple[str, ...], Callable]] = {}
        for _, action, at in rows:
            form = parse_form(action)
            if form is None:
                continue
            key, tokens, render = form
            for position, value in enumerate(tokens):
                for place in at.get(value, ()):
                    copies[(place, key, position)] += 1
                    shapes.setdefault((place, key, position), (tokens, render))
        best_copy: tuple[int, str] | None = None
        for (place, form_key, position), fits in copies.most_common():
            if fits < needed:
                break
            tokens, render = shapes[(place, form_key, position)]
            action = render(tokens[:position] + (mine[place],) + tokens[position + 1:])
            if action:
                best_copy = (fits, action)
                break
        # translate: the move other seeds with the same token at this place played
        best_table: tuple[int, tuple, dict[str, Counter[str]]] | None = None
        for place in places:
            table: dict[str, Counter[str]] = {}
            for features, action, _ in rows:
                if place in features:
                    table.setdefault(features[place].casefold(), Counter())[action] += 1
            if len(table) < 2:
                continue
            fits = 0
            for features, action, _ in rows:
                if place in features:
                    counts = table[features[place].casefold()]
                    own = counts[action] - 1  # leave this seed out
                    fits += own > 0 and all(n < own for a, n in counts.items() if a != action)
            if fits >= needed and (best_table is None or fits > best_table[0]):
                best_table = (fits, place, table)
        if best_copy is not None and (best_table is None or best_copy[0] >= best_table[0]):
            return best_copy[1], None, {}
        if best_table is not None:
            return None, best_table[1], best_table[2]
        return None, None, {}

    def act(self, observation, turn, solution):
        if self.plan is None:
            self.plan = self._learn() if self.hint else []
        if turn >= len(self.plan) or not self.plan[turn]:
            return self.stop()
        return self.plan[turn]
