"""Framing between host and worker: 4-byte length prefix + UTF-8 JSON.

JSON, never pickle: the host only ever parses plain data from a worker, so even a
worker fully taken over by its program can send nothing but strings, numbers,
lists and dicts — and oversized or malformed messages are refused before parsing.
``NaN``/``Infinity`` (and float literals that overflow to infinity) are refused by
the parser itself, so no non-finite number ever reaches a record decoder.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import time

HEADER = struct.Struct("!I")

_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _refuse_constant(name: str):
    raise ValueError(f"non-finite number {name} in a frame")


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf (1e999) — NaN cannot be spelled without a constant
        raise ValueError(f"number {text[:40]} overflows")
    return value


_decoder = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


class FramingError(Exception):
    """The peer closed the connection or sent a malformed frame."""


class FrameTimeout(Exception):
    """No complete frame arrived before the deadline."""


def encode(obj) -> bytes:
    text = _encoder.encode(obj)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from program strings
        data = text.encode("utf-8", "replace")
    return HEADER.pack(len(data)) + data


def send(sock: socket.socket, obj) -> None:
    sock.sendall(encode(obj))


INCOMPLETE = object()


class _Frame:
    """Accumulates received bytes until one whole frame is in; refuses oversized frames."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.buf = bytearray()
        self.length: int | None = None

    @property
    def wanted(self) -> int:
        need = HEADER.size if self.length is None else HEADER.size + self.length
        return max(65536, need - len(self.buf))

    def feed(self, chunk: bytes):
        """Add ``chunk``; return the decoded message once complete, else ``INCOMPLETE``
        (not None: ``null`` is a message too)."""
        if not chunk:
            raise FramingError("connection closed")
        self.buf += chunk
        if self.length is None and len(self.buf) >= HEADER.size:
            (self.length,) = HEADER.unpack_from(self.buf)
            if self.length > self.max_bytes:
                raise FramingError(f"frame of {self.length} bytes exceeds the {self.max_bytes}-byte limit")
        if self.length is None or len(self.buf) < HEADER.size + self.length:
            return INCOMPLETE
        if len(self.buf) > HEADER.size + self.length:
            raise FramingError("unexpected bytes after a frame")
        try:
            return _decoder.decode(bytes(self.buf[HEADER.size:]).decode("utf-8"))
        except RecursionError:
            raise ValueError("frame nested too deeply") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"frame is not UTF-8: {exc}") from None


def recv_blocking(sock: socket.socket, max_bytes: int):
    """Worker side: wait as long as it takes (EOF -> FramingError)."""
    frame = _Frame(max_bytes)
    while True:
        message = frame.feed(sock.recv(frame.wanted))
        if message is not INCOMPLETE:
            return message


#: How long the host busy-polls for a reply before sleeping in poll(). A reply that
#: arrives within this window skips a scheduler wake-up, which on small VMs costs more
#: than a typical ``step`` itself; longer calls pay at most this much extra CPU.
SPIN_SECONDS = 50e-6


def recv_deadline(sock: socket.socket, deadline: float, max_bytes: int, spin: float = SPIN_SECONDS):
    """Host side: read one frame before ``deadline`` (a ``time.monotonic()`` value).

    Raises FrameTimeout, FramingError (EOF, oversized frame) or ValueError (bad JSON).
    """
    sock.setblocking(False)
    frame = _Frame(max_bytes)
    spin_until = time.perf_counter() + spin
    poller = None
    while True:
        try:
            chunk = sock.recv(frame.wanted)
        except BlockingIOError:
            if time.perf_counter() < spin_until:
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise FrameTimeout() from None
            if poller is None:
                poller = select.poll()
                poller.register(sock, select.POLLIN | select.POLLERR | select.POLLHUP)
            if not poller.poll(max(1, int(remaining * 1000) + 1)) and time.monotonic() >= deadline:
                raise FrameTimeout() from None
            continue
        except (ConnectionResetError, BrokenPipeError) as exc:
            raise FramingError(f"connection lost: {exc}") from None
        message = frame.feed(chunk)
        if message is not INCOMPLETE:
            return message
