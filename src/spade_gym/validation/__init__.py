"""Validation: is a program a sound, solvable, non-trivial environment?

``validate_source(source)`` runs the checks of :data:`CHECK_NAMES` through the sandbox and
returns a :class:`ValidationReport`; ``validate_many`` does the same for many programs in
parallel. Defaults live in :class:`ValidationConfig`.
"""

from spade_gym.validation.config import CHECK_NAMES, DEFAULT_CONFIG, ValidationConfig
from spade_gym.validation.pipeline import validate_many, validate_source
from spade_gym.validation.report import Check, ValidationReport

__all__ = [
    "CHECK_NAMES", "Check", "DEFAULT_CONFIG", "ValidationConfig", "ValidationReport", "validate_many",
    "validate_source",
]
