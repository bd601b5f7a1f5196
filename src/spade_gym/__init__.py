"""spade-gym: sandboxed, validated, Gymnasium-registered text environments written by LLMs.

``import spade_gym`` registers the bundled suite and every directory listed in
``$SPADE_GYM_SUITES`` as ``spade/<Name>-v<N>`` ids (from the entries' directory names;
cards are parsed when an environment is first made). It never
imports torch, transformers or trl; the self-play loop and local model backends
import them lazily.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0.dev0"

from spade_gym.env import HintWrapper, PrivilegedInfo, SpadeEnv, UnicodeText, privileged, tools  # noqa: E402
from spade_gym.errors import (  # noqa: E402
    IntegrityError,
    PolicyViolation,
    ProgramError,
    ProgramTimeout,
    RegistryError,
    SandboxError,
    SpadeError,
    SuiteWarning,
)
from spade_gym.registry import Card, Suite, register_suite  # noqa: E402
from spade_gym.registry.registration import install_unknown_id_message, register_default_suites  # noqa: E402


def load_source(source: str, **kwargs: Any) -> SpadeEnv:
    """A sandboxed env straight from program text, without validation.

    ``kwargs`` go to :class:`SpadeEnv` (``max_turns``, ``limits``, ``render_mode``) and
    on to the program (``difficulty=...``).
    """
    return SpadeEnv(source, **kwargs)


def make(env_id: str, **kwargs: Any):
    """Shorthand for ``gymnasium.make`` (which works just as well)."""
    import gymnasium

    return gymnasium.make(env_id, **kwargs)


def __getattr__(name: str):
    # Heavier layers load on first use, keeping ``import spade_gym`` fast.
    if name in ("validate_source", "ValidationReport", "ValidationConfig"):
        from spade_gym import validation

        return getattr(validation, name)
    if name in ("SpadeGymTaskset", "SpadeGymEnv"):
        # verifiers' loader (`vf-eval spade-gym`) takes these from __all__; needs the [verifiers] extra
        from spade_gym.integrations import verifiers

        return getattr(verifiers, name)
    raise AttributeError(f"module 'spade_gym' has no attribute {name!r}")


install_unknown_id_message()
register_default_suites()

__all__ = [
    "Card", "HintWrapper", "IntegrityError", "PolicyViolation", "PrivilegedInfo", "ProgramError",
    "ProgramTimeout", "RegistryError", "SandboxError", "SpadeEnv", "SpadeError", "SpadeGymEnv", "SpadeGymTaskset",
    "Suite", "SuiteWarning",
    "UnicodeText", "load_source", "make", "privileged", "register_suite", "tools",
]
