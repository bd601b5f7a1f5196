"""Host side: decode a worker's replies into checked records (trust nothing a worker says).

A worker whose program escaped the language layer can send any JSON it likes. Every
reply is decoded here, once: types, ranges, finiteness and sizes; anything malformed
raises :class:`~spade_gym.sandbox.wire.protocol.ReplyRejected`, which the handle turns into a
:class:`~spade_gym.errors.ProtocolError` (a program failure) and kills the worker. The
checks are a handful of ``type()`` tests per reply, cheap next to the round-trip.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from spade_gym.contract import REWARD_RANGE
from spade_gym.sandbox.wire.protocol import (
    MAX_ERROR_TEXT,
    MAX_REPORTED_TURNS,
    ErrorRecord,
    Hint,
    ReplyRejected,
    Reset,
    Solution,
    Step,
    sane_max_turns,
)

#: Keys the host writes into an episode's ``info`` only on some steps (a failure, the
#: turn limit); a program's own keys with these names are moved under ``program_<key>``
#: so it can never forge them. (``turn``/``max_turns``/``remaining_turns`` the env
#: writes on every step, over whatever the program said.)
HOST_INFO_KEYS = frozenset({"error", "truncated_by", "reward_out_of_range"})
#: Set by :func:`decode_step` (and by nothing a program sends: the key is host-only)
#: when it clamped a reward into the contract's range; the env's monitor reads it.
REWARD_CLAMPED_KEY = "reward_out_of_range"


class ResetResult(NamedTuple):
    observation: str
    info: dict


class StepResult(NamedTuple):
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict


@dataclass(frozen=True, slots=True)
class LoadInfo:
    class_name: str
    dropped_kwargs: tuple[str, ...]
    has_hint: bool
    has_solution: bool
    max_turns: int | None
    sha256: str

    def as_dict(self) -> dict:
        data = asdict(self)
        data["dropped_kwargs"] = list(self.dropped_kwargs)
        return data


def decode_text(value, what: str, limit: int) -> str:
    if type(value) is not str:
        raise ReplyRejected(f"{what} must be a str, got {type(value).__name__}")
    if len(value) > limit:
        raise ReplyRejected(f"{what} is {len(value)} characters; the limit is {limit}")
    return value


def decode_info(value, what: str) -> dict:
    """Program ``info``: a JSON object (the frame parser already bounded its size and depth)."""
    if type(value) is not dict:
        raise ReplyRejected(f"{what} must be an object, got {type(value).__name__}")
    if value and not HOST_INFO_KEYS.isdisjoint(value):
        value = {(f"program_{k}" if k in HOST_INFO_KEYS else k): v for k, v in value.items()}
    return value


_LOW, _HIGH = REWARD_RANGE


def decode_reward(value) -> float:
    """A finite number, clamped into the contract's range (a lying worker gains nothing)."""
    if type(value) is int:
        value = float(value)
    elif type(value) is not float:
        raise ReplyRejected(f"step() reward must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ReplyRejected(f"step() reward must be finite, got {value}")
    return _LOW if value < _LOW else _HIGH if value > _HIGH else value


def decode_reset(value, obs_limit: int) -> ResetResult:
    if type(value) is not list or len(value) != 2:
        raise ReplyRejected("reset() reply must be [observation, info]")
    return ResetResult(decode_text(value[0], "reset() observation", obs_limit), decode_info(value[1], "reset() info"))


def decode_step(value, obs_limit: int) -> StepResult:
    if type(value) is not list or len(value) != 5:
        raise ReplyRejected("step() reply must be [observation, reward, terminated, truncated, info]")
    obs, reward, terminated, truncated, info = value
    if type(terminated) is not bool or type(truncated) is not bool:
        raise ReplyRejected("step() terminated/truncated must be true or false")
    if (type(obs) is str and len(obs) <= obs_limit and type(reward) is float and _LOW <= reward <= _HIGH
            and type(info) is dict and (not info or HOST_INFO_KEYS.isdisjoint(info))):
        return StepResult(obs, reward, terminated, truncated, info)  # the common reply, checked inline
    info = decode_info(info, "step() info")
    clamped = decode_reward(reward)
    if clamped != reward:  # (an int reward equals its float)
        info = dict(info, **{REWARD_CLAMPED_KEY: float(reward)})
    return StepResult(decode_text(obs, "step() observation", obs_limit), clamped, terminated, truncated, info)


def decode_hint(value, limit: int) -> str | None:
    return None if value is None else decode_text(value, "hint()", limit)


def decode_load_info(value) -> LoadInfo:
    if type(value) is not dict:
        raise ReplyRejected("load reply must be an object")
    try:
        class_name = decode_text(value["class_name"], "class name", 1000)
        dropped = value["dropped_kwargs"]
        if type(dropped) is not list or not all(type(k) is str for k in dropped):
            raise ReplyRejected("dropped_kwargs must be a list of str")
        flags = value["has_hint"], value["has_solution"]
        if not all(type(f) is bool for f in flags):
            raise ReplyRejected("has_hint/has_solution must be true or false")
        max_turns = value["max_turns"]
        if max_turns is not None and sane_max_turns(max_turns) is None:
            raise ReplyRejected(f"max_turns must be an int in [1, {MAX_REPORTED_TURNS}] or null")
        sha = decode_text(value["sha256"], "sha256", 64)
    except KeyError as exc:
        raise ReplyRejected(f"load reply lacks {exc}") from None
    return LoadInfo(class_name, tuple(dropped), flags[0], flags[1], max_turns, sha)


def decoder_for(item, obs_limit: int):
    """The host-side decoder of ``item``'s result."""
    if isinstance(item, Step):
        return lambda v: decode_step(v, obs_limit)
    if isinstance(item, Reset):
        return lambda v: decode_reset(v, obs_limit)
    if isinstance(item, Solution):
        return lambda v: decode_text(v, "solution()", obs_limit)
    if isinstance(item, Hint):
        return lambda v: decode_hint(v, obs_limit)
    return lambda v: v


def split_reply(reply) -> tuple[bool, Any]:
    """``(True, result)`` or ``(False, ErrorRecord)``; raises ReplyRejected if neither."""
    if type(reply) is not dict:
        raise ReplyRejected(f"a reply must be an object, got {type(reply).__name__}")
    ok = reply.get("ok")
    if ok is True:
        return True, reply.get("result")
    if ok is False:
        return False, ErrorRecord.from_wire(reply.get("error"))
    raise ReplyRejected("a reply must say ok true or false")


# ----------------------------------------------------------------------------- sizes


def reply_limit(obs_chars: int, info_bytes: int, items: int = 1) -> int:
    """Largest reply frame the host accepts for a call returning ``items`` results.

    An observation of ``obs_chars`` characters is at most 6 bytes per character as JSON
    (``\\u001f`` escapes); with the info dict and an error report that bounds an honest
    reply. Anything larger is a worker misbehaving, refused before it is buffered.
    """
    per_item = 6 * obs_chars + 2 * info_bytes + 2 * MAX_ERROR_TEXT * 3 + 1024
    return per_item * max(1, items) + 4096
