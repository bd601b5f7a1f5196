"""Framing between host and worker: 4-byte length prefix + UTF-8 JSON.

JSON, never pickle: the host only ever parses plain data from a worker, so even a
worker fully taken over by its program can send nothing but strings, numbers,
lists and dicts — and oversized or malformed messages are refused before parsing.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import time

HEADER = struct.Struct("!I")

_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


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


def recv_blocking(sock: socket.socket, max_bytes: int):
    """Worker side: wait as long as it takes (EOF -> FramingError)."""
    buf = bytearray()
    need = HEADER.size
    length = None
    while True:
        chunk = sock.recv(max(65536, need - len(buf)))
        if not chunk:
            raise FramingError("connection closed")
        buf += chunk
        if length is None and len(buf) >= HEADER.size:
            (length,) = HEADER.unpack_from(buf)
            if length > max_bytes:
                raise FramingError(f"frame of {length} bytes exceeds {max_bytes}")
            need = HEADER.size + length
        if length is not None and len(buf) >= need:
            return json.loads(bytes(buf[HEADER.size:need]))


#: How long the host busy-polls for a reply before sleeping in poll(). A reply that
#: arrives within this window skips a scheduler wake-up, which on small VMs costs more
#: than a typical ``step`` itself; longer calls pay at most this much extra CPU.
SPIN_SECONDS = 50e-6


def recv_deadline(sock: socket.socket, deadline: float, max_bytes: int, spin: float = SPIN_SECONDS):
    """Host side: read one frame before ``deadline`` (a ``time.monotonic()`` value).

    Raises FrameTimeout, FramingError (EOF, oversized frame) or ValueError (bad JSON).
    """
    sock.setblocking(False)
    buf = bytearray()
    need = HEADER.size
    length = None
    spin_until = time.perf_counter() + spin
    poller = None
    while True:
        try:
            chunk = sock.recv(max(65536, need - len(buf)))
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
        if not chunk:
            raise FramingError("connection closed")
        buf += chunk
        if length is None and len(buf) >= HEADER.size:
            (length,) = HEADER.unpack_from(buf)
            if length > max_bytes:
                raise FramingError(f"frame of {length} bytes exceeds the {max_bytes}-byte limit")
            need = HEADER.size + length
        if length is not None and len(buf) >= need:
            if len(buf) > need:
                raise FramingError("unexpected bytes after a frame")
            try:
                return json.loads(bytes(buf[HEADER.size:]))
            except RecursionError:
                raise ValueError("frame nested too deeply") from None
