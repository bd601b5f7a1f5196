"""Host side: the result of one call of a batch, as every consumer sees it.

:meth:`ProgramHandle.batch` decodes each reply once (``replies.decoder_for``) and hands
back one :data:`CallResult` per item: :class:`Ok` with the decoded value (a
``StepResult``, ``ResetResult``, ``str`` or ``None``, checked like the single call's) or
:class:`Failed` with the exception the single call would have raised. Consumers match on
the type; nothing downstream re-checks what the decoder already checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from spade_gym.errors import SandboxError


@dataclass(frozen=True, slots=True)
class Ok:
    """The call returned; ``value`` is what the single call would return."""

    value: Any


@dataclass(frozen=True, slots=True)
class Failed:
    """The call failed; ``error`` is what the single call would raise."""

    error: SandboxError


CallResult: TypeAlias = Ok | Failed

__all__ = ["CallResult", "Failed", "Ok"]
