"""What the hint rule's scripts share: the hint offered as an agent gets it, the hinted screen.

:class:`HintReader` is a baseline the host offers each episode's hint (the hint given with the program,
then ``hint()``'s text after ``reset``, which wins, as ``SpadeEnv`` shows it); as a *control* it is shown
no hint and reads the first screen in its place. :class:`Hinted` plays any baseline on the hinted screen.
:class:`ReadsForms` adds the action forms of other seeds a script reads moves through.
"""

from __future__ import annotations

from typing import Any

from spade_gym.validation.baselines.base import Baseline, Prior
from spade_gym.validation.hint_text import TEXT_CHARS, Forms, answer_form, prior_actions, shown_with_hint, tokens_of

#: Where a script's turns end when nothing is left to try (the episode stops there: a loss).
NOTHING = ""


class HintReader(Baseline):
    """A baseline that plays with the hint: the host asks the program's ``hint()`` after ``reset`` and
    offers it (after offering the hint given with the program: ``hint()`` text wins, as in ``SpadeEnv``).

    As a *control* (``control:<kind>``) it is shown no hint and reads the first screen in its place
    (other seeds' first screens in place of theirs): where the control wins as often, the screen, not
    the hint, is what makes the game mechanical."""

    def __init__(self, rng, prior: Prior | None = None, *, control: bool = False):
        super().__init__(rng)
        self.prior = prior or Prior()
        self.control = control
        self.reads_hint = not control
        self.hint: str | None = None
        self.fallback: str | None = None
        self.obs0: str | None = None
        self._done = False

    def offer_hint(self, hint: str | None, *, given: bool = False) -> None:
        if isinstance(hint, str) and hint.strip() and not self.control:
            if given:  # the hint given with the program: every seed's, where its hint() says nothing
                self.fallback = hint[:TEXT_CHARS]
            self.hint = hint[:TEXT_CHARS]

    def other_hint(self, hint: str | None, screen: str = "") -> str:
        """Another seed's hint as its agent saw it (its ``hint()`` text, else the given hint)."""
        if self.control:
            return screen[:TEXT_CHARS]
        return hint if isinstance(hint, str) and hint.strip() else (self.fallback or "")

    def begin(self, observation):
        self.obs0 = observation
        self._done = False
        if self.control:
            self.hint = observation[:TEXT_CHARS]

    @property
    def exhausted(self) -> bool:
        return self._done

    @exhausted.setter
    def exhausted(self, value: bool) -> None:
        self._done = bool(value)

    def stop(self) -> str:
        self._done = True
        return NOTHING


class Hinted(HintReader):
    """*hinted*: any baseline playing with the hint shown: its first observation is the hinted screen
    (``HINT_TEMPLATE``), later ones are what the program sends (an agent's later observations carry no
    hint; a script that pools what it saw keeps the hint's tokens, as an agent keeps its context)."""

    def __init__(self, rng, inner: Baseline):
        super().__init__(rng)
        self.inner = inner
        self._started = False

    @property
    def needs_solution(self) -> bool:  # type: ignore[override]
        return self.inner.needs_solution

    @property
    def needs_tools(self) -> bool:
        return bool(getattr(self.inner, "needs_tools", False))

    @property
    def exhausted(self) -> bool:
        return bool(self.inner.exhausted)

    @exhausted.setter
    def exhausted(self, value: bool) -> None:
        self.inner.exhausted = value

    def begin(self, observation):
        super().begin(observation)
        self._started = False

    def _start(self, observation: str) -> str:
        # Deferred to the first call after the reset's batch, which carries the hint() result too.
        shown = shown_with_hint(self.obs0 if self.obs0 is not None else observation, self.hint)
        if not self._started:
            self._started = True
            self.inner.begin(shown)
        return shown

    def see_tools(self, tools: Any) -> None:
        self._start(self.obs0 or "")
        see = getattr(self.inner, "see_tools", None)
        if see is not None:
            see(tools)

    def act(self, observation, turn, solution):
        shown = self._start(observation)
        return self.inner.act(shown if turn == 0 else observation, turn, solution)


class ReadsForms(HintReader):
    """What the hint-reading scripts share: the action forms of other seeds, the screen's tokens."""

    def __init__(self, rng, prior: Prior | None = None, *, control: bool = False):
        super().__init__(rng, prior, control=control)
        self.forms = Forms(prior_actions(self.prior))
        self.answer = answer_form(self.prior)

    def screentokens(self) -> frozenset[str]:
        return frozenset(tokens_of(self.obs0 or ""))

    def shown(self) -> str:
        """The first screen as this script saw it (a control saw no hint)."""
        return (self.obs0 or "") if self.control else shown_with_hint(self.obs0 or "", self.hint)

    def named_moves(self) -> list[tuple[int, int, str]]:
        return self.forms.moves(self.hint or "", self.screentokens()) if self.hint else []
