"""The designer's memory: which earlier environments to show, and how.

References near the agent's frontier show what good calibration looks like; named
negatives show what to steer away from.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from spade_gym.generate.prompts.skills import Skill, skill_by_name, slug_of

#: Characters of a reference environment's code shown in the prompt.
SNIPPET_CHARS = 1500


#: Win-rate band of the agent's frontier: hard enough to teach, easy enough to learn from.
#: The one definition: memory selection and the prompt's wording both read it.
FRONTIER = (0.15, 0.85)
TOO_EASY = 0.9
TOO_HARD = 0.1


@dataclass(frozen=True)
class MemoryEntry:
    """An environment from the pool, with how the agent fared on it (None: not played yet)."""

    name: str
    skill: str
    source: str
    win_rate: float | None = None
    regret: float | None = None


@dataclass(frozen=True)
class DesignMemory:
    """What the designer is shown about earlier environments.

    References near the agent's frontier show what good calibration looks like; named
    negatives show what to steer away from. Build one with :meth:`select`.
    """

    references: tuple[MemoryEntry, ...] = ()
    negatives: tuple[MemoryEntry, ...] = ()

    def __post_init__(self) -> None:
        unmeasured = [e.name for e in self.negatives if e.win_rate is None]
        if unmeasured:
            raise ValueError(f"negative examples need a win rate: {', '.join(unmeasured)}")

    @classmethod
    def select(
        cls,
        entries: Sequence[MemoryEntry],
        skill: str | Skill,
        k: int = 2,
        rng: random.Random | None = None,
        max_negatives: int = 2,
    ) -> DesignMemory:
        """Pick up to ``k`` frontier references and up to ``max_negatives`` negatives.

        References are entries of the same skill with a win rate inside :data:`FRONTIER`;
        high-regret ones are preferred (the hint mattered there), with some randomness
        among the best so consecutive prompts do not show the same pair. Entries never
        played are shown only when no frontier entry exists, since their calibration is
        unknown. Negatives are same-skill entries that were far too easy or too hard.
        """
        rng = rng or random.Random()
        slug = skill_by_name(skill).slug
        same = [e for e in entries if slug_of(e.skill) == slug]
        frontier = [e for e in same if e.win_rate is not None
                    and FRONTIER[0] <= e.win_rate <= FRONTIER[1]]
        if frontier:
            frontier.sort(key=lambda e: e.regret if e.regret is not None else float("-inf"),
                          reverse=True)
            pool = frontier[: 2 * k]
        else:
            pool = [e for e in same if e.win_rate is None]
        references = rng.sample(pool, min(k, len(pool)))
        bad = [e for e in same if e.win_rate is not None
               and (e.win_rate > TOO_EASY or e.win_rate < TOO_HARD)]
        negatives = rng.sample(bad, min(max_negatives, len(bad)))
        return cls(tuple(references), tuple(negatives))

    def __bool__(self) -> bool:
        return bool(self.references or self.negatives)


def render_memory(memory: DesignMemory) -> str:
    """The memory as a prompt section: references with their code and stats, then negatives."""
    parts = []
    if memory.references:
        parts.append(
            "# Reference environments\n"
            "These environments from the current pool are shown for calibration: those with a "
            f"win rate between {FRONTIER[0]:.0%} and {FRONTIER[1]:.0%} sit at the agent's frontier, and a "
            "high regret means "
            "the hint made a real difference. Learn from them, then create a DIFFERENT "
            "environment: new mechanics, not a renamed or re-skinned copy."
        )
        for entry in memory.references:
            if entry.win_rate is None:
                stats = "not played yet"
            else:
                regret = "n/a" if entry.regret is None else f"{entry.regret:.2f}"
                stats = f"win rate {entry.win_rate:.2f}, regret {regret}"
            parts.append(
                f"## {entry.name} (skill: {entry.skill}; {stats})\n"
                f"```python\n{_snippet(entry.source)}\n```"
            )
    if memory.negatives:
        lines = ["Avoid environments like these:"]
        for entry in memory.negatives:
            # negatives always carry a win rate (DesignMemory checks it)
            label = "too easy" if (entry.win_rate or 0.0) >= 0.5 else "too hard"
            lines.append(f"- {label} (win rate {entry.win_rate:.2f}): {entry.name}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _snippet(source: str) -> str:
    """The start of a program, cut at a line boundary so the model sees whole lines."""
    source = source.strip("\n")
    if len(source) <= SNIPPET_CHARS:
        return source
    cut = source.rfind("\n", 0, SNIPPET_CHARS)
    return source[: cut if cut > 0 else SNIPPET_CHARS] + "\n# ... (truncated)"
