"""Worker side: turn what a program returns (or raises) into plain, checked data.

The host re-checks every reply (``protocol.decode_*``), so these checks are not the
security boundary. They exist so that the error a designer model sees names the
exact method and value at fault (``step() returned reward nan``) and the program line
it came from, and so that an over-long observation is cut with a visible marker
instead of failing the episode. Every error record is built here, by
:func:`describe_failure` or :func:`protocol_failure`.
"""

from __future__ import annotations

import json
import math
import numbers
import traceback
from decimal import Decimal

import numpy

from spade_gym.contract import REWARD_RANGE
from spade_gym.errors import PolicyViolation
from spade_gym.sandbox.language.compiler import PROGRAM_FILENAME
from spade_gym.sandbox.limits import Limits
from spade_gym.sandbox.wire.protocol import TRUNCATION_MARKER, ErrorKind, ErrorRecord
from spade_gym.sandbox.worker.deadline import CPUExhausted, Deadline


class CallFailed(Exception):
    """A call into the program failed; ``error`` is the record sent to the host."""

    def __init__(self, error: ErrorRecord):
        super().__init__(error.message)
        self.error = error


# ----------------------------------------------------------------------------- error records


def _program_traceback(exc: BaseException, max_chars: int) -> tuple[str, int | None]:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == PROGRAM_FILENAME]
    lineno = frames[-1].lineno if frames else None
    lines = ["Traceback (program frames only):"]
    for f in frames[-12:]:
        lines.append(f"  line {f.lineno}, in {f.name}")
        if f.line:
            lines.append(f"    {f.line.strip()}")
    return "\n".join(lines)[:max_chars], lineno


def _safe_message(exc: BaseException, max_chars: int) -> str:
    try:
        text = str(exc)
    except BaseException:  # a program-defined __str__ that raises
        text = "<exception message could not be rendered>"
    name = type(exc).__name__
    if len(text) > max_chars:
        text = text[:max_chars] + f"... [{len(text) - max_chars} more characters cut]"
    return f"{name}: {text}" if text else name


def describe_failure(exc: BaseException, what: str, limits: Limits, output: str = "") -> ErrorRecord:
    if isinstance(exc, CallFailed):
        return exc.error
    if isinstance(exc, PolicyViolation):
        return ErrorRecord(ErrorKind.POLICY, exc.message, exc.lineno)
    tb, lineno = _program_traceback(exc, limits.max_error_chars)
    where = f" (line {lineno})" if lineno else ""
    kind = ErrorKind.PROGRAM
    if isinstance(exc, Deadline):
        kind = ErrorKind.TIMEOUT
        message = f"{what} did not return within its deadline{where}; it was interrupted there"
    elif isinstance(exc, CPUExhausted):
        kind = ErrorKind.CPU
        message = f"{what} exhausted the CPU budget{where}"
    elif isinstance(exc, MemoryError):
        kind = ErrorKind.MEMORY
        message = f"{what} ran out of memory{where} (limit {limits.memory_bytes // (1 << 20)} MiB)"
    elif isinstance(exc, RecursionError):
        message = f"{what} raised RecursionError{where}: maximum recursion depth exceeded"
    else:
        message = f"{what} raised {_safe_message(exc, limits.max_error_chars)}{where}"
    return ErrorRecord(kind, message, lineno, tb, output[-2000:] or None)


def protocol_failure(message: str) -> CallFailed:
    return CallFailed(ErrorRecord(ErrorKind.PROTOCOL, message))


def internal_failure(exc: BaseException) -> ErrorRecord:
    """A bug in the runtime itself: reported, never hidden."""
    return ErrorRecord(ErrorKind.INTERNAL, f"{type(exc).__name__}: {exc}"[:4000],
                       traceback=traceback.format_exc()[-3000:])


# ----------------------------------------------------------------------------- result checks


def check_text(value, what: str, limit: int) -> str:
    if type(value) is not str:
        if not isinstance(value, str):
            raise protocol_failure(f"{what} must be a str, got {type(value).__name__}")
        value = str.__str__(value)
    if len(value) > limit:
        raise protocol_failure(f"{what} is {len(value)} characters long; the limit is {limit}")
    return value


def cut_text(value, what: str, limit: int) -> str:
    """Like :func:`check_text`, but an over-long text is cut with a visible marker.

    Observations are cut rather than refused: an honest program that echoes a long
    action back (an LLM reply with its reasoning can be 100k characters) must not
    lose its episode over it. The result, marker included, fits ``limit``.
    """
    if type(value) is not str:
        if not isinstance(value, str):
            raise protocol_failure(f"{what} must be a str, got {type(value).__name__}")
        value = str.__str__(value)
    if len(value) <= limit:
        return value
    cut = len(value) - limit
    while True:
        keep = limit - len(TRUNCATION_MARKER.format(n=cut))
        if keep <= 0:
            return value[:limit]
        if len(value) - keep == cut:
            return value[:keep] + TRUNCATION_MARKER.format(n=cut)
        cut = len(value) - keep


def check_number(value, what: str) -> float:
    if type(value) is float:
        number = value
    elif isinstance(value, (numbers.Real, Decimal, numpy.number, numpy.bool_)):
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise protocol_failure(f"{what} could not be converted to float: {exc}") from None
    else:
        raise protocol_failure(f"{what} must be a number, got {type(value).__name__}")
    if not math.isfinite(number):
        raise protocol_failure(f"{what} must be finite, got {number}")
    return number


_LOW, _HIGH = REWARD_RANGE


def check_reward(value, strict: bool) -> float:
    """A finite float; outside the contract's range it is a failure (strict) or passed on
    as it is, for the host to clamp and its monitor to report (a worker-side clamp would
    hide the breach from the host)."""
    if type(value) is float and _LOW <= value <= _HIGH:  # the common case, NaN excluded
        return value
    reward = check_number(value, "step() reward")
    if _LOW <= reward <= _HIGH:
        return reward
    if strict:
        raise protocol_failure(f"step() returned reward {reward!r}; rewards must be finite and within "
                               f"[{_LOW:g}, {_HIGH:g}] (a win gives 1.0)")
    return reward


def check_flag(value, what: str) -> bool:
    if value is True or value is False:
        return value
    if isinstance(value, numpy.bool_):
        return bool(value)
    raise protocol_failure(f"{what} must be a bool, got {type(value).__name__} {_short_repr(value)}")


def _short_repr(value) -> str:
    try:
        text = repr(value)
    except BaseException:
        return "<unrepresentable>"
    return text if len(text) <= 60 else text[:57] + "..."


def type_and_len(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"a {type(value).__name__}"


class JSONChecker:
    """Turns ``info`` into JSON data. ``strict`` refuses non-JSON values (validation);
    otherwise they are converted to text so a training loop never stops over a set."""

    def __init__(self, limit_bytes: int, strict: bool):
        self.limit = limit_bytes
        self.strict = strict

    def __call__(self, value, what: str) -> dict:
        if not isinstance(value, dict):
            raise protocol_failure(f"{what} must be a dict, got {type(value).__name__}")
        if not value:
            return {}
        self.budget = 20_000
        self.chars = 0
        data = self._convert(value, what, 0)
        # Exact size only when the cheap estimate (characters of strings + 24 per
        # element) says the limit might be near: the common info dict is tiny.
        if self.chars + 24 * (20_000 - self.budget) > self.limit // 4:
            size = len(json.dumps(data, ensure_ascii=False))
            if size > self.limit:
                raise protocol_failure(f"{what} is {size} bytes as JSON; the limit is {self.limit}")
        return data

    def _convert(self, value, path, depth: int):
        # ``path`` is the name of the top value, or a (parent path, key) pair: rendered
        # only when a message needs it, not once per element of every info dict.
        self.budget -= 1
        if self.budget < 0:
            raise protocol_failure(f"{_render(path)} has too many elements")
        if depth > 32:
            raise protocol_failure(f"{_render(path)} is nested more than 32 levels deep")
        t = type(value)
        if t is str:
            self.chars += len(value)
            return value
        if value is None or t is bool or t is int:
            if t is int and abs(value) >= 1 << 63:
                return self._convert_other(value, path, "an integer too large for JSON")
            return value
        if t is float:
            if math.isfinite(value):
                return value
            return self._convert_other(value, path, f"the non-finite float {value}")
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if type(key) is str:
                    skey = key
                    self.chars += len(key)
                elif key is None or isinstance(key, (bool, int, float)):
                    skey = json.dumps(key) if not isinstance(key, str) else key
                else:
                    if self.strict:
                        raise protocol_failure(f"{_render(path)} has a key of type {type(key).__name__}; "
                                               "keys must be str")
                    skey = str(key)
                out[skey] = self._convert(item, (path, skey), depth + 1)
            return out
        if t is list or t is tuple:
            return [self._convert(item, (path, i), depth + 1) for i, item in enumerate(value)]
        if isinstance(value, numpy.generic):
            return self._convert(value.item(), path, depth)
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, (list, tuple)):
            return [self._convert(item, (path, i), depth + 1) for i, item in enumerate(value)]
        return self._convert_other(value, path, f"a {type(value).__name__}")

    def _convert_other(self, value, path, description):
        if self.strict:
            raise protocol_failure(f"{_render(path)} holds {description}, which is not JSON-compatible")
        try:
            return str(value)[:1000]
        except BaseException:
            return f"<{type(value).__name__}>"


def _render(path) -> str:
    """``step() info['a'][0]`` from the (parent, key) pairs :class:`JSONChecker` carries."""
    keys = []
    while type(path) is tuple:
        path, key = path
        keys.append(f"[{key}]" if type(key) is int else f"[{key!r}]")
    return path + "".join(reversed(keys))
