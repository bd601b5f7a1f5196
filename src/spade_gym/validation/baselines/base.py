"""What every probe baseline is: :class:`Baseline` (one strategy for one episode) and :class:`Prior`
(what a script learned from other seeds). Baseline families live in their own modules and
register in :mod:`spade_gym.validation.baselines.zoo`."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from spade_gym.validation.observations import as_number, shape

# ----------------------------------------------------------------------------- what a baseline knows


@dataclass
class Transcript:
    """One episode of another seed as plain data: what the agent saw, did and won, and the
    answer the host read after ``reset`` (``solution``)."""

    seed: int | None
    baseline: str
    solution: str | None
    obs0: str
    actions: list[str]
    #: The observation after each action.
    observations: list[str]
    won: bool


class Transcripts(tuple):
    """Plays of other seeds, read-only: a job is deep-copied before it is played (a deadline retry
    replays it from scratch), and its copies share these instead of copying every observation."""

    def __deepcopy__(self, memo: dict) -> Transcripts:
        return self


@dataclass
class Prior:
    """What a script could have learned from *other* seeds of the same level: their first
    solutions and the privileged policy's actions per turn (leave-one-out, so a seed's own
    answer never leaks into its own baseline). Read-only once built: baselines copy what they
    change."""

    solutions: list[str] = field(default_factory=list)
    #: Turn index -> the privileged policy's actions at that turn on the other seeds.
    actions_by_turn: list[list[str]] = field(default_factory=list)
    #: Per other seed, what the privileged policy saw and did, turn by turn: (observation, action)
    #: pairs, the first observation the task. A script that copies learns from these *where* a
    #: value it must send was written (the task's fifth token, the word after "pid").
    transcripts: Sequence[Sequence[tuple[str, str]]] = field(default_factory=lambda: Transcripts())
    #: The privileged policy's episodes on the other seeds, as the agent saw them (an opponent's
    #: habits, what the first screen says about the answer).
    episodes: list[Transcript] = field(default_factory=list)
    #: Training probes on the other seeds: episodes whose actions were chosen knowing the answer
    #: (guesses above/below it, k positions right; a fixed probe plan), so a script can learn
    #: what the feedback means (``validation.feedback_model``). Empty where none were played.
    probes: list[Transcript] = field(default_factory=list)
    #: Per other seed, the hint its agent was shown (``hint()`` after reset; None: only the given
    #: hint), the privileged policy's actions and the first screen: the hint rule's scripts learn
    #: from these *where* in a hint the moves stand (``validation.baselines.hinted``).
    hints_and_actions: list[tuple[str | None, list[str], str]] = field(default_factory=list)

    def __deepcopy__(self, memo: dict) -> Prior:
        # Read-only once built (every baseline derives its own state from it): a job's pristine
        # copy (validation.deadlines) shares it instead of copying every episode it holds.
        return self

    def frequent_solutions(self) -> list[str]:
        return [s for s, _ in Counter(self.solutions).most_common()]

    def shapes(self) -> set[str]:
        return {shape(s) for s in self.solutions}

    def numeric_range(self) -> tuple[float, float] | None:
        values = [as_number(s) for s in self.solutions]
        numbers = [v for v in values if v is not None]
        if not self.solutions or len(numbers) < len(self.solutions):
            return None
        return min(numbers), max(numbers)




class Baseline:
    """One agent strategy for one episode; ``act`` is called once per turn."""

    needs_solution = False
    #: True when the baseline has nothing left to send (its episode stops there).
    exhausted = False
    #: Whether the baseline plays with the hint shown (the hint rule's scripts): the host then asks
    #: the program's ``hint()`` after ``reset`` and offers it, as ``gym.make(id, hint=True)`` shows it.
    reads_hint = False
    #: Whether the baseline's actions depend on what it observes at all (``prior`` and ``blind_script``
    #: do not: showing them the hint changes nothing, so the hint rule does not replay them).
    reads_observation = True

    def __init__(self, rng: random.Random):
        self.rng = rng

    def begin(self, observation: str) -> None:  # new episode
        pass

    def act(self, observation: str, turn: int, solution: str | None) -> str:
        raise NotImplementedError

    def offer_hint(self, hint: str | None, *, given: bool = False) -> None:
        """The episode's hint: first the one given with the program (``given``), then ``hint()``'s text."""
