"""The validation checks: one registry, one module per family of checks.

Each check is a function ``(Context) -> Outcome`` registered with :func:`check`, which
states its name, its place in the run order and whether it is *fatal* (when a fatal
check fails, nothing after it can run meaningfully, and the rest are reported as
skipped). :func:`registered` is the one list of checks: the config, the pipeline and the
CLI all read it. A new family of checks is a new module listed in :data:`MODULES`.

A check returns an :class:`~spade_gym.validation.context.Outcome`. When the program
hangs, crashes or exhausts a limit, a check raises
:class:`~spade_gym.validation.context.Abort` instead: that check fails with the reason
and validation stops (a hanging program would otherwise cost a deadline per probe).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spade_gym.contract import KINDS

if TYPE_CHECKING:
    from spade_gym.validation.context import Context, Outcome

#: The modules that register checks (imported on first use of the registry).
MODULES = (
    "spade_gym.validation.checks.program",
    "spade_gym.validation.checks.contract",
    "spade_gym.validation.checks.consistency",
    "spade_gym.validation.checks.play",
    "spade_gym.validation.checks.shortcut",
    "spade_gym.validation.checks.hint_rule",
    "spade_gym.validation.checks.leaks",
    "spade_gym.validation.checks.environment",
    "spade_gym.validation.checks.novelty",
    "spade_gym.validation.checks.tool_use",
    "spade_gym.validation.checks.agent_probes",
)


@dataclass(frozen=True)
class CheckSpec:
    """One registered check."""

    name: str
    order: int
    fatal: bool
    run: Callable[[Context], Outcome]
    #: The kinds of program the check applies to (``"game"``, ``"tool-use"``).
    kinds: frozenset[str] = frozenset(KINDS)

    @property
    def doc(self) -> str:
        return (self.run.__doc__ or "").strip().splitlines()[0] if self.run.__doc__ else ""


_REGISTRY: dict[str, CheckSpec] = {}
_loaded = False


def check(name: str, *, order: int, fatal: bool = False, kinds: tuple[str, ...] = KINDS):
    """Register the decorated function as the check ``name``, run at position ``order``, for
    programs of the given ``kinds`` (a check that does not apply is not run, nor listed)."""

    def register(func: Callable[[Context], Outcome]) -> Callable[[Context], Outcome]:
        existing = _REGISTRY.get(name)
        if existing is not None and existing.run.__qualname__ != func.__qualname__:
            raise ValueError(f"two validation checks named {name!r}")
        _REGISTRY[name] = CheckSpec(name, order, fatal, func, frozenset(kinds))
        return func

    return register


def registered() -> list[CheckSpec]:
    """Every check, in run order."""
    global _loaded
    if not _loaded:
        for module in MODULES:
            importlib.import_module(module)
        _loaded = True
    return sorted(_REGISTRY.values(), key=lambda spec: (spec.order, spec.name))


def get(name: str) -> CheckSpec:
    for spec in registered():
        if spec.name == name:
            return spec
    raise KeyError(f"no validation check named {name!r}")


def replace_check(name: str, func: Callable[[Context], Outcome]) -> CheckSpec:
    """Swap the function behind a registered check (tests of the validator's own robustness);
    returns the previous spec so it can be restored."""
    previous = get(name)
    _REGISTRY[name] = CheckSpec(name, previous.order, previous.fatal, func, previous.kinds)
    return previous


def restore_check(spec: CheckSpec) -> None:
    _REGISTRY[spec.name] = spec
