"""The records that cross the process boundary, defined once for host and worker.

Requests are small dataclasses with an :class:`Op`; the worker decodes each
frame into one (:func:`decode_request`) before dispatching on its type. Replies are
``{"ok": true, "result": ...}`` or ``{"ok": false, "error": <ErrorRecord>}``.

The host trusts nothing a worker says: every reply is decoded at the host by
``replies.py`` (types, ranges, finiteness and sizes, in one place).
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Union

from spade_gym.errors import (
    PolicyViolation,
    ProgramCPULimit,
    ProgramError,
    ProgramMemoryError,
    ProgramTimeout,
    ProtocolError,
    SandboxError,
    WorkerCrashed,
)

#: ``max_turns`` a program may report; larger values (or non-ints) mean "not given".
MAX_REPORTED_TURNS = 100_000
#: Marker appended to an observation the runtime had to cut (see ``results.cut_text``).
TRUNCATION_MARKER = "… [truncated {n} characters]"


class ReplyRejected(Exception):
    """A worker's reply broke the protocol (wrong type, range, size...)."""


# ----------------------------------------------------------------------------- requests


class Op(str, enum.Enum):
    LOAD = "load"
    RESET = "reset"
    STEP = "step"
    SOLUTION = "solution"
    HINT = "hint"
    TOOLS = "tools"
    CLOSE = "close"
    BATCH = "batch"
    CONFIGURE = "configure"
    PING = "ping"


@dataclass(slots=True)
class Load:
    op: ClassVar[Op] = Op.LOAD
    source: str
    kwargs: dict = field(default_factory=dict)
    count: int = 1


@dataclass(slots=True)
class Reset:
    op: ClassVar[Op] = Op.RESET
    i: int = 0
    seed: int | None = None


@dataclass(slots=True)
class Step:
    op: ClassVar[Op] = Op.STEP
    i: int = 0
    action: str = ""


@dataclass(slots=True)
class Solution:
    op: ClassVar[Op] = Op.SOLUTION
    i: int = 0


@dataclass(slots=True)
class Hint:
    op: ClassVar[Op] = Op.HINT
    i: int = 0


@dataclass(slots=True)
class Tools:
    op: ClassVar[Op] = Op.TOOLS
    i: int = 0


@dataclass(slots=True)
class Close:
    op: ClassVar[Op] = Op.CLOSE
    i: int = 0


@dataclass(slots=True)
class Configure:
    """``strict``: validation mode — non-JSON ``info`` and out-of-range rewards are
    contract failures with a precise message instead of being converted/clamped."""

    op: ClassVar[Op] = Op.CONFIGURE
    strict: bool = False


@dataclass(slots=True)
class Ping:
    op: ClassVar[Op] = Op.PING


#: The calls a batch may carry: one per live instance, in one round-trip.
BatchItem = Union[Reset, Step, Solution, Hint]


@dataclass(slots=True)
class Batch:
    op: ClassVar[Op] = Op.BATCH
    items: tuple


Request = Union[Load, Reset, Step, Solution, Hint, Tools, Close, Configure, Ping, Batch]
_BY_OP: dict[str, type] = {cls.op.value: cls for cls in (Load, Reset, Step, Solution, Hint, Tools, Close, Configure,
                                                         Ping, Batch)}


def encode_request(request) -> dict:
    """The wire form of a request record (a plain dict with its ``op``)."""
    tp = type(request)
    if tp is Step:  # the hot path: one per agent turn
        return {"op": "step", "i": request.i, "action": request.action}
    if tp is Batch:
        return {"op": "batch", "items": [encode_request(item) for item in request.items]}
    wire = {name: getattr(request, name) for name in request.__slots__}
    wire["op"] = request.op.value
    return wire


def batch_item(item) -> BatchItem:
    """Accept a record or the plain-dict shorthand ``{"i", "seed"}`` / ``{"i", "action"}``."""
    if isinstance(item, (Reset, Step, Solution, Hint)):
        return item
    if isinstance(item, dict):
        op = item.get("op") or ("step" if "action" in item else "reset")
        record = decode_request(dict(item, op=op))
        if isinstance(record, (Reset, Step, Solution, Hint)):
            return record
    raise TypeError(f"a batch item must be a Reset/Step/Solution/Hint request, got {item!r:.80}")


def _int(value, what: str, low: int = 0, high: int = 1 << 31) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ReplyRejected(f"{what} must be an int in [{low}, {high}], got {value!r:.40}")
    return value


def decode_request(wire) -> Request:
    """Worker side: turn a received frame into a request record (or raise ReplyRejected)."""
    if type(wire) is not dict:
        raise ReplyRejected(f"a request must be an object, got {type(wire).__name__}")
    op = wire.get("op")
    if type(op) is not str:
        raise ReplyRejected(f"a request needs an op, got {op!r:.40}")
    if op == "step":  # the hot path, checked inline
        i, action = wire.get("i", 0), wire.get("action", "")
        if type(i) is int and 0 <= i < 1 << 31 and type(action) is str and len(wire) <= 3:
            return Step(i, action)
    cls: Any = _BY_OP.get(op)
    if cls is None:
        raise ReplyRejected(f"unknown request {wire.get('op')!r:.40}")
    if cls is Batch:
        items = wire.get("items")
        if not isinstance(items, list):
            raise ReplyRejected("batch items must be a list")
        return Batch(tuple(batch_item(item) for item in items))
    args = {name: wire[name] for name in cls.__slots__ if name in wire}
    if "i" in args:
        _int(args["i"], "instance index")
    if cls is Step and not isinstance(args.get("action", ""), str):
        raise ReplyRejected(f"action must be a str, got {type(args['action']).__name__}")
    if cls is Reset and args.get("seed") is not None:
        _int(args["seed"], "seed", -(1 << 63), (1 << 64) - 1)
    if cls is Load:
        if not isinstance(args.get("source"), str) or not isinstance(args.get("kwargs", {}), dict):
            raise ReplyRejected("load needs a source str and a kwargs object")
        _int(args.get("count", 1), "count", 1, 4096)
    try:
        return cls(**args)
    except TypeError as exc:
        raise ReplyRejected(f"malformed {cls.op.value} request: {exc}") from None


# ----------------------------------------------------------------------------- errors


class ErrorKind(str, enum.Enum):
    POLICY = "policy"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    CPU = "cpu"
    PROGRAM = "program"
    PROTOCOL = "protocol"
    CRASH = "crash"
    INTERNAL = "internal"


_ERROR_CLASSES = {
    ErrorKind.POLICY: PolicyViolation,
    ErrorKind.TIMEOUT: ProgramTimeout,
    ErrorKind.MEMORY: ProgramMemoryError,
    ErrorKind.CPU: ProgramCPULimit,
    ErrorKind.PROGRAM: ProgramError,
    ErrorKind.PROTOCOL: ProtocolError,
    ErrorKind.CRASH: WorkerCrashed,
    ErrorKind.INTERNAL: SandboxError,
}
MAX_ERROR_TEXT = 16_000


@dataclass(frozen=True, slots=True)
class ErrorRecord:
    """Why a call failed; built by the worker, re-checked by the host."""

    kind: ErrorKind
    message: str
    lineno: int | None = None
    traceback: str | None = None
    output: str | None = None

    def to_wire(self) -> dict:
        wire = asdict(self)
        wire["kind"] = self.kind.value
        return wire

    @classmethod
    def from_wire(cls, wire) -> ErrorRecord:
        """Host side. A report that is not well-formed is itself a protocol error."""
        if not isinstance(wire, dict):
            raise ReplyRejected("an error report must be an object")
        try:
            kind = ErrorKind(wire.get("kind"))
        except ValueError:
            raise ReplyRejected(f"unknown error kind {wire.get('kind')!r:.40}") from None
        message = wire.get("message")
        lineno = wire.get("lineno")
        if type(message) is not str or not (lineno is None or type(lineno) is int and 0 < lineno < 1 << 31):
            raise ReplyRejected("malformed error report")
        texts = []
        for name in ("traceback", "output"):
            value = wire.get(name)
            if value is not None and type(value) is not str:
                raise ReplyRejected(f"error report field {name} must be a str")
            texts.append(value[:MAX_ERROR_TEXT] if value else None)
        return cls(kind, message[:MAX_ERROR_TEXT], lineno, *texts)

    def to_exception(self) -> SandboxError:
        details = self.traceback
        if self.output:
            details = (details or "") + "\nProgram output (tail):\n" + self.output
        return _ERROR_CLASSES[self.kind](self.message, lineno=self.lineno, details=details)


def sane_max_turns(value) -> int | None:
    """``max_turns`` as a program may report it: a positive int of sensible size, else None."""
    if type(value) is int and 0 < value <= MAX_REPORTED_TURNS:
        return value
    return None


# ----------------------------------------------------------------------------- the worker's hello


@dataclass(frozen=True, slots=True)
class Hello:
    """First frame of every worker: who it runs as and which confinement took effect."""

    pid: int
    uid: int
    confinement: dict

    @classmethod
    def from_wire(cls, wire) -> Hello:
        if type(wire) is not dict or wire.get("hello") is not True:
            error = wire.get("error") if type(wire) is dict else None
            raise ReplyRejected(f"the worker failed to start:\n{error[:3000]}" if type(error) is str
                                else "the worker did not introduce itself")
        pid, uid, confinement = wire.get("pid"), wire.get("uid"), wire.get("confinement")
        if type(pid) is not int or type(uid) is not int or type(confinement) is not dict:
            raise ReplyRejected("malformed worker hello")
        return cls(pid, uid, confinement)

    def to_wire(self) -> dict:
        return {"hello": True, "pid": self.pid, "uid": self.uid, "confinement": self.confinement}
