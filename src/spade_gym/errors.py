"""Exception hierarchy shared by every layer.

Every error a user (or a designer model in a repair loop) can meet is a subclass of
:class:`SpadeError`, with a message that says what went wrong and, where there is one,
the line of the program that caused it. Errors raised *by a program* never escape as
the program's own exception objects: they cross the process boundary as text and are
re-raised here as :class:`ProgramError`.
"""

from __future__ import annotations


class SpadeError(Exception):
    """Base class of all spade-gym errors."""


# --------------------------------------------------------------------------- sandbox


class SandboxError(SpadeError):
    """A program could not be run to completion inside the sandbox.

    ``kind`` is a short machine-readable tag (``"policy"``, ``"timeout"``, ...) used in
    validation reports and metrics; ``lineno`` is the program line, when known.
    """

    kind = "sandbox"

    def __init__(self, message: str, *, lineno: int | None = None, details: str | None = None):
        super().__init__(message)
        self.message = message
        self.lineno = lineno
        self.details = details

    def __reduce__(self):  # picklable across multiprocessing boundaries (host side only)
        return (_rebuild_sandbox_error, (type(self), self.message, self.lineno, self.details))


def _rebuild_sandbox_error(cls, message, lineno, details):
    return cls(message, lineno=lineno, details=details)


class PolicyViolation(SandboxError):
    """The program uses a construct the sandbox forbids (import, dunder, eval, ...)."""

    kind = "policy"


class ProgramTimeout(SandboxError):
    """A call into the program did not return before its wall-clock deadline."""

    kind = "timeout"


class ProgramMemoryError(SandboxError):
    """The program exhausted the worker's memory limit."""

    kind = "memory"


class ProgramCPULimit(SandboxError):
    """The program used up the worker's CPU-seconds budget."""

    kind = "cpu"


class ProgramError(SandboxError):
    """The program raised an exception. ``details`` holds its traceback (program frames only)."""

    kind = "program"


class ProtocolError(SandboxError):
    """The program returned something that breaks the contract (wrong types, oversized...)."""

    kind = "protocol"


class WorkerCrashed(SandboxError):
    """The worker process died without answering (killed by a signal, C-level crash...)."""

    kind = "crash"


class SandboxUnavailable(SandboxError):
    """The sandbox machinery itself could not start (not a fault of the program)."""

    kind = "unavailable"


# --------------------------------------------------------------------------- contract


class DesignerOutputError(SpadeError):
    """A designer completion could not be parsed into a program and a hint."""


# --------------------------------------------------------------------------- registry


class RegistryError(SpadeError):
    """A suite or card is malformed, or an id is unknown."""


class IntegrityError(RegistryError):
    """A program file does not match the checksum recorded on its card."""


class QuarantinedError(RegistryError):
    """The program broke the contract while running (a deployment monitor caught it) and
    is quarantined: it is not built again until someone releases it."""


class ConfigError(SpadeError):
    """A configuration value (preset, CLI option, config file) is invalid."""


class SuiteWarning(UserWarning):
    """A suite (or an entry of one) was skipped, or shadows another: registration goes on
    without it, because one bad directory must never stop ``import spade_gym``."""
