"""What one ``spade-gym generate`` run asks for: its settings and its targets.

A target is one design request (a skill; for games, single- or multi-turn). Targets are
planned from the settings, or read back from a replay log so that a replay asks for
exactly what the recorded run asked for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from spade_gym.contract import GAME_KIND, KINDS, TOOL_USE_KIND
from spade_gym.errors import SpadeError
from spade_gym.generate.backends import DesignerBackend, ReplayBackend
from spade_gym.generate.prompts import skill_by_name, skills_for


@dataclass(frozen=True)
class Target:
    """What one design request asks for."""

    index: int
    skill: str
    multi_turn: bool


@dataclass
class GenerateConfig:
    """Settings of one generation run (CLI flags map onto these one to one)."""

    n: int = 1
    #: ``"game"`` or ``"tool-use"``: which kind of environment to design.
    kind: str = GAME_KIND
    skills: tuple[str, ...] = ()
    multi_turn_ratio: float = 0.5
    attempts: int = 3
    concurrency: int = 4
    seed: int = 0
    temperature: float = 0.7
    max_tokens: int = 8192
    difficulty: str = "medium"
    memory_k: int = 2
    #: The designer model named in card provenance (default: the backend's model, or for
    #: a replay the model recorded in the log).
    designer: str | None = None
    #: Explicit targets (e.g. reproduced from a replay log); overrides n/skills/ratio.
    targets: tuple[Target, ...] = ()

    def __post_init__(self):
        if self.n < 0:
            raise SpadeError("n must be >= 0")
        if not 0.0 <= self.multi_turn_ratio <= 1.0:
            raise SpadeError("multi_turn_ratio must be between 0 and 1")
        if self.attempts < 1:
            raise SpadeError("attempts must be >= 1")
        if self.concurrency < 1:
            raise SpadeError("concurrency must be >= 1")
        if self.kind not in KINDS:
            raise SpadeError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        skills = [skill_by_name(s) for s in self.skills]
        wrong = [s.name for s in skills if s.kind != self.kind]
        if wrong:
            raise SpadeError(f"skill(s) {', '.join(wrong)} are not {self.kind} skills; {self.kind} skills are: "
                             f"{', '.join(skills_for(self.kind))}")
        self.skills = tuple(s.name for s in skills)

    #: Settings that shape the requests (and so what a replay must reuse to reproduce a run).
    REQUEST_SETTINGS = ("n", "kind", "skills", "multi_turn_ratio", "attempts", "seed", "temperature", "max_tokens",
                        "difficulty", "memory_k")

    def request_settings(self) -> dict:
        return {name: list(value) if isinstance(value, tuple) else value
                for name in self.REQUEST_SETTINGS for value in [getattr(self, name)]}


def plan_targets(config: GenerateConfig) -> list[Target]:
    """Skills rotate in the given order (all of the kind's skills by default); a game target
    is multi-turn with probability ``multi_turn_ratio``, drawn from ``config.seed``; a tool-use
    task always takes several turns."""
    if config.targets:
        return list(config.targets)
    skills = list(config.skills) or list(skills_for(config.kind))
    rng = random.Random(f"targets:{config.seed}")
    if config.kind == TOOL_USE_KIND:
        return [Target(i, skills[i % len(skills)], True) for i in range(config.n)]
    return [Target(i, skills[i % len(skills)], rng.random() < config.multi_turn_ratio) for i in range(config.n)]


def replay_targets(backend: DesignerBackend) -> list[Target] | None:
    """Targets recorded in a replay log (every completion tagged with a skill), else None."""
    if not isinstance(backend, ReplayBackend):
        return None
    pending = backend.pending_targets()
    recorded = [t for t in pending if t is not None]
    if not recorded or len(recorded) < len(pending):
        return None
    if all("index" in t for t in recorded):  # a generate log: one target, several attempts
        unique = {t["index"]: t for t in recorded}
        return [Target(i, skill_by_name(unique[i]["skill"]).name, bool(unique[i].get("multi_turn")))
                for i in sorted(unique)]
    return [Target(i, skill_by_name(t["skill"]).name, bool(t.get("multi_turn"))) for i, t in enumerate(recorded)]
