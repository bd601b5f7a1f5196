"""Validation: is a program a sound, solvable, shortcut-proof environment?

``validate_source(source)`` runs every registered check (see :mod:`spade_gym.validation.checks`)
through the sandbox, driving each probe episode from the host, and returns a
:class:`ValidationReport`; ``validate_many`` does the same for many programs in parallel.
Defaults live in :class:`ValidationConfig`. :func:`check_novelty` compares a program with
every registered suite and a batch of other candidates.
"""

from spade_gym.contract import GAME_KIND, TOOL_USE_KIND
from spade_gym.validation.config import DEFAULT_CONFIG, ValidationConfig, check_names
from spade_gym.validation.novelty import NoveltyVerdict, check_novelty
from spade_gym.validation.pipeline import validate_many, validate_source
from spade_gym.validation.report import Check, ValidationReport

#: The checks a game gets, in run order.
CHECK_NAMES = check_names(GAME_KIND)
#: The checks a tool-use program gets, in run order (see ``docs/tool-use.md``).
TOOL_USE_CHECK_NAMES = check_names(TOOL_USE_KIND)

__all__ = [
    "CHECK_NAMES", "TOOL_USE_CHECK_NAMES", "Check", "DEFAULT_CONFIG", "NoveltyVerdict", "ValidationConfig",
    "ValidationReport", "check_novelty", "validate_many", "validate_source",
]
