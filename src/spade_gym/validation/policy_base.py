"""What every probe policy is: :class:`Policy` (one strategy for one episode) and :class:`Prior`
(what a script learned from other seeds). Policy families live in their own modules and
register in :mod:`spade_gym.validation.policies`."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from spade_gym.validation.observations import as_number, shape

# ----------------------------------------------------------------------------- what a policy knows


@dataclass
class Prior:
    """What a script could have learned from *other* seeds of the same level: their first
    solutions and the privileged policy's actions per turn (leave-one-out, so a seed's own
    answer never leaks into its own baseline)."""

    solutions: list[str] = field(default_factory=list)
    #: Turn index -> the privileged policy's actions at that turn on the other seeds.
    actions_by_turn: list[list[str]] = field(default_factory=list)

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




class Policy:
    """One agent strategy for one episode; ``act`` is called once per turn."""

    needs_solution = False
    #: True when the policy has nothing left to send (its episode stops there).
    exhausted = False

    def __init__(self, rng: random.Random):
        self.rng = rng

    def begin(self, observation: str) -> None:  # new episode
        pass

    def act(self, observation: str, turn: int, solution: str | None) -> str:
        raise NotImplementedError
