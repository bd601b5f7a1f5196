"""What moves along the admission path: submissions, validation units, outcomes.

A :class:`ValidationUnit` is plain, picklable data, so the validation step can run in another
process or on another machine; a :class:`Candidate` has a dict form for the same reason (self-play's
ranks send theirs to the one process that writes the suite).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from spade_gym.registry.card import Card, Findings
from spade_gym.registry.suite import SuiteEntry


class Facts(Findings, Protocol):
    """What admission reads of a report's facts (:class:`~spade_gym.validation.report.ProgramFacts`)."""

    @property
    def hint(self) -> str | None: ...
    @property
    def multi_turn(self) -> bool | None: ...


class Report(Protocol):
    """What admission reads of a validation report (:class:`~spade_gym.validation.ValidationReport`)."""

    name: str

    @property
    def facts(self) -> Facts: ...
    @property
    def valid(self) -> bool: ...
    @property
    def first_failure(self) -> Any: ...
    @property
    def failures(self) -> list[Any]: ...
    def summary(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    def card_summary(self) -> dict[str, Any]: ...


class Form(Enum):
    """What a submission's text is."""

    PROGRAM = "program"
    DESIGNER_OUTPUT = "designer output"


@dataclass(frozen=True)
class Submission:
    """A program offered to a suite, with what only its caller knows."""

    text: str
    form: Form = Form.PROGRAM
    #: The hint given apart from the program (``--hints``, a card); a ``<hint>`` in a completion wins.
    hint: str | None = None
    skill: str = "Unknown"
    provenance: Mapping[str, Any] = field(default_factory=dict)
    #: What was asked for; the validator's measurement wins.
    multi_turn: bool | None = None
    #: The kind asked for (``"game"``, ``"tool-use"``); a program of another kind is rejected.
    kind: str | None = None
    #: Labels the report (a file, an id); default: the environment class.
    name: str | None = None
    #: The kept rejection's file name (see :class:`Keep`), and fields added to its report.
    label: str = "program"
    record: Mapping[str, Any] = field(default_factory=dict)
    #: The registered entry a refresh re-checks.
    entry: SuiteEntry | None = None


@dataclass(frozen=True)
class ValidationUnit:
    """One validation as plain data: what may be shipped to another process or machine."""

    source: str
    hint: str | None
    #: A ``ValidationConfig`` (a frozen dataclass).
    config: Any
    #: The suite whose entries the validator's novelty check compares with (a path).
    suite: str | None
    name: str | None = None

    def run(self, validate: Callable[..., Report]) -> Report:
        return validate(self.source, hint=self.hint, suite=self.suite, config=self.config, name=self.name)


@dataclass(frozen=True)
class Prepared:
    """A submission ready to validate: its program, its hint and the unit that validates it."""

    submission: Submission
    code: str
    hint: str | None
    unit: ValidationUnit


class Gate(Enum):
    """Where a program was turned away."""

    PARSE = "parse"
    KIND = "kind"
    VALIDATION = "validation"
    HINT = "hint"
    NOVELTY = "novelty"
    REGISTRATION = "registration"


@dataclass(frozen=True)
class Admitted:
    """The program is in the suite: ``entry`` (``added`` False when the suite already held it)."""

    entry: SuiteEntry
    report: Report | None = None
    added: bool = True


@dataclass(frozen=True)
class Rejected:
    """The program is not in the suite, and why: ``check`` names the failed check (or the gate)."""

    gate: Gate
    check: str
    reason: str
    submission: Submission | None = None
    code: str | None = None
    report: Report | None = None
    #: The files it was kept in (the program or design first).
    kept: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """The validator's whole summary when validation failed, else the reason."""
        return self.report.summary() if self.gate is Gate.VALIDATION and self.report is not None else self.reason

    @property
    def failed_checks(self) -> list[str]:
        if self.gate is Gate.VALIDATION and self.report is not None:
            return [check.name for check in self.report.failures] or [self.check]
        return [self.check]


@dataclass(frozen=True)
class Candidate:
    """A program that passed every rule, with its card: what registration writes. ``to_dict``
    is what crosses between processes (self-play's ranks send theirs to the one writer)."""

    code: str
    card: Card | None
    prepared: Prepared | None = None
    report: Report | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "card": self.card.to_dict() if self.card is not None else None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Candidate:
        return cls(str(data["code"]), Card.from_dict(data["card"]) if data.get("card") is not None else None)


Outcome = Admitted | Rejected
