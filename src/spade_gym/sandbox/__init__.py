"""The sandbox: a language layer (RestrictedPython policy) and a process layer (workers).

Use :class:`ProgramHandle` to run a program; :func:`compile_program` to check one
against the policy without running it. See ``docs/security.md`` for the threat model.
"""

from spade_gym.errors import (
    PolicyViolation,
    ProgramCPULimit,
    ProgramError,
    ProgramMemoryError,
    ProgramTimeout,
    ProtocolError,
    SandboxError,
    SandboxUnavailable,
    WorkerCrashed,
)
from spade_gym.sandbox.compiler import CompiledProgram, compile_program
from spade_gym.sandbox.handle import ProgramHandle
from spade_gym.sandbox.host import Zygote, diagnose
from spade_gym.sandbox.limits import DEFAULT_LIMITS, Limits

__all__ = [
    "CompiledProgram",
    "DEFAULT_LIMITS",
    "Limits",
    "PolicyViolation",
    "ProgramCPULimit",
    "ProgramError",
    "ProgramHandle",
    "ProgramMemoryError",
    "ProgramTimeout",
    "ProtocolError",
    "SandboxError",
    "SandboxUnavailable",
    "WorkerCrashed",
    "Zygote",
    "diagnose",
    "compile_program",
]
