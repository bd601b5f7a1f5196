"""The hint rule's scripts: the shortcut zoo with the hint shown, and scripts that only read the hint.

In self-play the designer is paid in regret (the agent's return with the hint minus without it), so
the cheapest regret is a hint that makes the game *mechanical*: it names the moves to play, the final
holding, the first move, the recipe to apply to the numbers on the screen. A hint may help a
reasoning agent; it must not let a script win. These baselines are the scripts: none of them reasons
about the task, each sees the hint exactly as an agent does (``HINT_TEMPLATE``: the first observation,
then ``"\\n\\nHINT: "`` and the hint; later observations carry no hint) and what *other* seeds taught it
(:class:`~spade_gym.validation.baselines.base.Prior`):

* ``hinted:<kind>`` (:class:`Hinted`): any zoo baseline (games' or tool-use's) playing the hinted screen;
* ``hint_moves``: the moves the hint names, in order: its tokens re-bound into the privileged policy's
  action forms seen on other seeds (``\\boxed{pull 37}``, a tool call's argument...), see :class:`Forms`;
* ``hint_first``: the best-attested move the hint names, then the ``enumeration`` baseline;
* ``hint_options``: the options of the screen whose lines share the hint's words (the final holding,
  the lots to win), as many of each as the hint counts, the largest number first among equals;
* ``hint_arithmetic``: the arithmetic the hint states ("the sum of the two largest values, times 3")
  evaluated over the numbers on the screen, best-matching recipe first;
* ``hint_decode``: every reading of the hint (:mod:`spade_gym.decoding`), answer-shaped ones first;
* ``hint_learned``: where, on other seeds, the privileged policy's move stood in the hint (the k-th
  token, the token after a word, or a fixed translation of it: "rock" in the hint, "paper" played),
  read off this seed's hint at the same place.

The host offers each episode its hint through :meth:`HintReader.offer_hint` (the program's ``hint()``
right after ``reset``, else the hint given with the program, as ``SpadeEnv`` shows it). Every choice is
a function of the observations, the hint, the prior and a seeded RNG, so a probe run replays exactly.
The pieces: :mod:`~spade_gym.validation.hint_text` (tokens, the action forms moves are read through),
:mod:`~spade_gym.validation.hint_readers` (how a script gets the hint, and its control),
:mod:`~spade_gym.validation.hint_arithmetic`, :mod:`~spade_gym.validation.hint_learned`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

from spade_gym import toolcalls
from spade_gym.validation.baselines.base import Baseline, Prior
from spade_gym.validation.hint_arithmetic import recipes
from spade_gym.validation.hint_learned import HintLearned
from spade_gym.validation.hint_readers import Hinted, HintReader, ReadsForms
from spade_gym.validation.hint_text import (
    TEXT_CHARS,
    Form,
    Forms,
    answer_form,
    klass,
    prior_actions,
    shown_with_hint,
    tokens_of,
    word_stem,
)
from spade_gym.validation.observations import NUMBER, as_number, decoded_candidates, shape

#: ``hinted:enumeration`` is the ``enumeration`` baseline playing the hinted screen.
HINTED_PREFIX = "hinted:"
#: ``control:hint_moves`` is ``hint_moves`` shown no hint, reading the first screen in its place.
CONTROL_PREFIX = "control:"


class HintMoves(ReadsForms):
    """*hint moves*: the moves the hint names, in its order, one per turn (tokens attested on other
    seeds or on the screen when there are any, else every token that fits a move's form)."""

    def begin(self, observation):
        super().begin(observation)
        self.plan: list[str] | None = None

    def act(self, observation, turn, solution):
        if self.plan is None:
            moves = self.named_moves()
            attested = [m for m in moves if m[1] <= 1]
            self.plan = [action for _, _, action in (attested or moves)]
        if turn >= len(self.plan):
            return self.stop()
        return self.plan[turn]


class HintFirst(ReadsForms):
    """*hint first move*: the best-attested move the hint names, then the ``enumeration`` baseline
    (candidates of the hinted screen and every feedback, answer-shaped first)."""

    def __init__(self, rng, prior: Prior | None = None, then: Callable[[], Baseline] | None = None, *,
                 control: bool = False):
        super().__init__(rng, prior, control=control)
        self.then = then

    def begin(self, observation):
        super().begin(observation)
        self.rest: Baseline | None = None

    def act(self, observation, turn, solution):
        if turn == 0:
            moves = sorted(self.named_moves(), key=lambda m: (m[1], m[0]))
            if not moves or self.then is None:
                return self.stop()
            self.rest = self.then()
            self.rest.begin(self.shown())
            return moves[0][2]
        if self.rest is None:
            return self.stop()
        if turn == 1:  # the rest sees the hinted first screen after the feedback to the first move
            observation = observation + "\n" + self.shown()
        return self.rest.act(observation, turn, solution)


#: Small counts before a word of the hint ("two tomes", "3 lamps"); a named thing without one counts once.
_COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "both": 2, "single": 1, "pair": 2, "a": 1, "an": 1}



def _words(text: str) -> list[str]:
    return [word_stem(t) for t in tokens_of(text) if t.isalpha() and len(t) >= 3]


class HintOptions(ReadsForms):
    """*hint options*: the screen's options (lines that begin with a label of a one-slot move form)
    scored by the hint's words on their line (weighted by how few lines carry each); the best
    untried one each turn, a line the hint counts ("two tomes") as often as it counts it, the largest
    number first among equals."""

    def begin(self, observation):
        super().begin(observation)
        self.tried: set[str] = set()
        self.budget: Counter[str] | None = None

    def _options(self, text: str) -> list[tuple[str, str, list[str], float]]:
        """``(action, line, words, largest number)`` for each option line of ``text``."""
        out = []
        forms = self.forms.single_slot()
        for line in text[:TEXT_CHARS].splitlines():
            for token in tokens_of(line)[:2]:
                form = next((f for f in forms if f.fits(0, token)), None)
                if form is not None:
                    action = form.render((token,))
                    numbers = [as_number(n) for n in NUMBER.findall(line)]
                    if action:  # the line's words in order, once each (a float sum must not depend on hashing)
                        out.append((action, line, list(dict.fromkeys(_words(line))),
                                    max([n for n in numbers if n is not None], default=0.0)))
                    break
        return out

    def _budget(self) -> Counter[str]:
        budget: Counter[str] = Counter()
        tokens = [t.casefold() for t in tokens_of(self.hint or "")]
        for index, token in enumerate(tokens):
            if token.isalpha() and len(token) >= 3 and token not in _COUNT_WORDS:
                before = tokens[index - 1] if index else ""
                count = _COUNT_WORDS.get(before) or (int(before) if before.isdigit() and int(before) <= 20 else 1)
                budget[word_stem(token)] += count
        return budget

    def act(self, observation, turn, solution):
        if self.budget is None:
            self.budget = self._budget()
        first = self._options(self.obs0 or "")
        current = self._options(observation) if turn else first
        options = current if len(current) >= 2 else first
        lines0 = {action: line for action, line, _, _ in first}
        if not options or not self.budget:
            return self.stop()
        frequency = Counter(w for _, _, words, _ in options for w in words)
        best = None
        for position, (action, line, words, largest) in enumerate(options):
            if action in self.tried:
                continue
            shared = [w for w in words if self.budget.get(w, 0) > 0]
            score = sum(math.log((len(options) + 1) / frequency[w]) for w in shared)
            if score <= 0:
                continue
            key = (-score, lines0.get(action, line) != line, -largest, position)
            if best is None or key < best[0]:
                best = (key, action, shared)
        if best is None:
            return self.stop()
        _, action, shared = best
        self.tried.add(action)
        for word in shared:
            self.budget[word] -= 1
        return action


class HintArithmetic(ReadsForms):
    """*hint arithmetic*: the answers of the recipe the hint states, over the numbers of the first
    screen (:func:`recipes`), best-matching first, one per turn."""

    def begin(self, observation):
        super().begin(observation)
        self.queue: list[str] | None = None

    def act(self, observation, turn, solution):
        if self.queue is None:
            self.queue = recipes(self.hint, self.obs0 or observation) if self.hint else []
        while self.queue:
            action = self.answer(self.queue.pop(0))
            if action:
                return action
        return self.stop()


class HintDecode(ReadsForms):
    """*hint decode*: every reading of the hint (Roman numerals, number words, other bases, reversed,
    first letters... :mod:`spade_gym.decoding`), those shaped like other seeds' answers first, never one
    twice."""

    def begin(self, observation):
        super().begin(observation)
        self.queue: list[str] | None = None

    def act(self, observation, turn, solution):
        if self.queue is None:
            found = decoded_candidates(self.hint) if self.hint else []
            shapes = self.prior.shapes()
            self.queue = [c for c in found if shape(c) in shapes] + [c for c in found if shape(c) not in shapes]
        while self.queue:
            action = self.answer(self.queue.pop(0))
            if action:
                return action
        return self.stop()


# ----------------------------------------------------------------------------- registry

def _continuation(prior: Prior, build: Callable[[str], Baseline]) -> Baseline:
    """What ``hint_first`` plays after the hint's move: the zoo's candidate enumeration of this kind
    of program (tool calls and answers where the privileged policy speaks the tool protocol)."""
    tool_use = any(toolcalls.CALL_OPEN in action or toolcalls.ANSWER_OPEN in action for action in prior_actions(prior))
    try:
        return build("tool_enumerate" if tool_use else "enumeration")
    except ValueError:
        return build("enumeration")


#: The hint-reading scripts: name -> factory ``(rng, prior, build)``, where ``build(kind)`` makes a
#: fresh zoo baseline of ``kind`` for this episode (``hint_first`` continues with one).
BY_KIND: dict[str, Callable[..., Baseline]] = {
    "hint_moves": lambda rng, prior, build, control=False: HintMoves(rng, prior, control=control),
    "hint_first": lambda rng, prior, build, control=False: HintFirst(
        rng, prior, lambda: _continuation(prior, build), control=control),
    "hint_options": lambda rng, prior, build, control=False: HintOptions(rng, prior, control=control),
    "hint_arithmetic": lambda rng, prior, build, control=False: HintArithmetic(rng, prior, control=control),
    "hint_decode": lambda rng, prior, build, control=False: HintDecode(rng, prior, control=control),
    "hint_learned": lambda rng, prior, build, control=False: HintLearned(rng, prior, control=control),
}
#: The hint-reading baselines the ``hint_rule`` check runs, in the order reports list them.
HINT_BASELINES: tuple[str, ...] = tuple(BY_KIND)

DESCRIPTIONS = {
    "hint_moves": "plays the moves the hint names, in its order",
    "hint_first": "plays the best-attested move the hint names, then retries candidates of the screen",
    "hint_options": "picks the options whose lines share the hint's words, as many as the hint counts",
    "hint_arithmetic": "answers the arithmetic the hint states, over the numbers on the screen",
    "hint_decode": "answers every reading of the hint (any spelling), answer-shaped first",
    "hint_learned": "reads the move at the place of the hint where other seeds' moves stood",
}

#: What the designer should change when a hinted script wins (``hinted:<kind>`` gets the zoo's own advice
#: plus :data:`HINTED_REPAIR`).
REPAIRS = {
    "hint_moves": "the hint names the moves to play, in order: say how to find them (a rule, a constraint, "
                  "where to start looking), never the moves themselves",
    "hint_first": "the hint names the first move, and the rest of the game then follows mechanically: point to "
                  "the idea that finds the first move instead of naming it, and keep the rest a reasoning task",
    "hint_options": "the hint names the options to pick (the final holding, the lots to win, the pieces to use): "
                    "give a property of the good choice that must be reasoned about, not its name",
    "hint_arithmetic": "the hint states the arithmetic to apply to the numbers on the screen: explain why the "
                       "answer follows (which quantities matter, what the rule means), not the formula",
    "hint_decode": "the hint spells the answer in some form (a number in words, another base, first letters...): "
                   "a hint points to the approach, never to the answer",
    "hint_learned": "the hint always writes the move (or something that fixes it, like the rival's habit) at the "
                    "same place: a script that learned where reads it off; describe the approach instead",
}
HINTED_REPAIR = ("with the hint shown, the script finds what the hint hands over: the hint must help reasoning "
                 "(a strategy, a partial constraint), not add the answer or the winning moves to the candidates")


def hinted_kind(kind: str) -> str | None:
    """The zoo baseline a ``hinted:<kind>`` name wraps, else None."""
    return kind[len(HINTED_PREFIX):] if kind.startswith(HINTED_PREFIX) else None


def control_of(name: str) -> str:
    """What a hinted script is judged against: the same script without the hint (the zoo baseline a
    ``hinted:`` name wraps; a hint-reading script reading the first screen in the hint's place)."""
    return hinted_kind(name) or CONTROL_PREFIX + name


__all__ = ["CONTROL_PREFIX", "DESCRIPTIONS", "HINTED_PREFIX", "HINTED_REPAIR", "HINT_BASELINES", "BY_KIND", "REPAIRS",
           "Form", "Forms", "HintReader", "Hinted", "answer_form", "control_of", "hinted_kind", "klass", "recipes",
           "shown_with_hint"]
