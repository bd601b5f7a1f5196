"""The sandbox, in four layers, one sub-package each (bottom to top of a call):

* :mod:`~spade_gym.sandbox.language` — the language layer: the compile-time rules (a
  RestrictedPython transformer) and compiler, the runtime guards, stand-ins and vetted
  module surfaces a program sees, and the tool-use base class. It keeps honest programs
  honest; it is not the boundary.
* :mod:`~spade_gym.sandbox.worker` — the worker runtime: one program's instances, the
  per-call deadline and CPU budget, results turned into plain data, the request loop.
* :mod:`~spade_gym.sandbox.wire` — the typed records that cross the process boundary,
  their framing, and the host's checks of every reply (nothing a worker says is trusted).
* :mod:`~spade_gym.sandbox.process` — the process layer, the boundary: the fork server,
  kernel confinement (Landlock, seccomp), what a worker may read, and the host's worker client.

Beside them, the host's face: :class:`ProgramHandle` (:mod:`~spade_gym.sandbox.handle`)
runs a program, with :mod:`~spade_gym.sandbox.call_results` for batches, and
:mod:`~spade_gym.sandbox.limits` sets every layer's limits. :func:`compile_program`
checks a program against the policy without running it. See ``docs/security.md``.
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
from spade_gym.sandbox.handle import ProgramHandle
from spade_gym.sandbox.language.compiler import CompiledProgram, compile_program
from spade_gym.sandbox.limits import DEFAULT_LIMITS, Limits
from spade_gym.sandbox.process.host import Zygote, diagnose

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
