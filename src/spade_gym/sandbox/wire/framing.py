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
#: The C scanner behind ``_decoder`` (same hooks), called directly: ``JSONDecoder.decode``
#: adds two Python calls and whitespace handling that frames never need.
_scan = _decoder.scan_once  # type: ignore[attr-defined]  # set by JSONDecoder.__init__
#: The C encoder ``_encoder.encode`` builds afresh on every call, built once. No circular
#: check: every frame is built by the runtime from checked, acyclic data; a cycle would
#: still end in RecursionError, reported as ValueError like any unencodable value.
_make_c_encoder = getattr(json.encoder, "c_make_encoder", None)
_c_encode = None if _make_c_encoder is None else _make_c_encoder(
    None, _encoder.default, json.encoder.encode_basestring, None, ":", ",", False, False, False)


class FramingError(Exception):
    """The peer closed the connection or sent a malformed frame."""


class FrameTimeout(Exception):
    """No complete frame arrived before the deadline."""


def _dumps(obj) -> str:
    if _c_encode is None:
        return _encoder.encode(obj)
    try:
        return "".join(_c_encode(obj, 0))
    except RecursionError:
        raise ValueError("value nested too deeply (or circular) to encode") from None


def _parse(data) -> object:
    """One frame's payload -> plain data; ValueError when it is not exactly one JSON value."""
    try:
        text = str(data, "utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"frame is not UTF-8: {exc}") from None
    try:
        value, end = _scan(text, 0)
    except StopIteration as stop:
        raise ValueError(f"frame is not JSON (at character {stop.value})") from None
    except RecursionError:
        raise ValueError("frame nested too deeply") from None
    if end != len(text):
        raise ValueError(f"frame is not JSON (extra data at character {end})")
    return value


def encode(obj) -> bytes:
    text = _dumps(obj)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from program strings
        data = text.encode("utf-8", "replace")
    return HEADER.pack(len(data)) + data


def send(sock: socket.socket, obj) -> None:
    sock.sendall(encode(obj))


def send_deadline(sock: socket.socket, data: bytes, deadline: float) -> None:
    """Host side: write ``data`` on a non-blocking socket before ``deadline`` (``time.monotonic()``).

    The host keeps worker sockets non-blocking (``recv_deadline`` needs them so); a frame
    larger than the socket buffer (a long action, a batch of them) is written as the
    worker reads it. A worker that stops reading raises FrameTimeout at the deadline.
    """
    try:
        sent = sock.send(data)
    except BlockingIOError:
        sent = 0
    if sent == len(data):  # the common case: the frame fits the socket buffer
        return
    view = memoryview(data)
    poller = None
    while sent < len(view):
        try:
            sent += sock.send(view[sent:])
            continue
        except BlockingIOError:
            pass
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise FrameTimeout()
        if poller is None:
            poller = select.poll()
            poller.register(sock, select.POLLOUT | select.POLLERR | select.POLLHUP)
        poller.poll(max(1, int(remaining * 1000) + 1))


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
        return _parse(memoryview(self.buf)[HEADER.size:])


def _whole(chunk: bytes, max_bytes: int):
    """The message if ``chunk`` is exactly one complete frame within the limit (the common
    case: a small frame arrives in one ``recv``), else INCOMPLETE (then ``_Frame`` decides)."""
    if len(chunk) > HEADER.size:
        (length,) = HEADER.unpack_from(chunk)
        if length == len(chunk) - HEADER.size and length <= max_bytes:
            return _parse(memoryview(chunk)[HEADER.size:])
    return INCOMPLETE


#: First read size: a whole small frame in one system call.
_FIRST_READ = 65536


def recv_blocking(sock: socket.socket, max_bytes: int):
    """Worker side: wait as long as it takes (EOF -> FramingError)."""
    chunk = sock.recv(_FIRST_READ)
    message = _whole(chunk, max_bytes)
    if message is not INCOMPLETE:
        return message
    frame = _Frame(max_bytes)
    while True:
        message = frame.feed(chunk)
        if message is not INCOMPLETE:
            return message
        chunk = sock.recv(frame.wanted)


#: How long the host busy-polls for a reply before sleeping in poll(). A reply that
#: arrives within this window skips a scheduler wake-up, which on small idle VMs costs
#: more than a typical ``step`` itself; longer calls pay at most this much extra CPU.
SPIN_SECONDS = 50e-6


class Spin:
    """Whether busy-polling for one peer's replies pays off, decided by measurement.

    On an idle machine spinning saves a wake-up per call; on a loaded one the spinning
    host holds a core the worker needs, and the same call takes longer. So the host
    keeps a moving average of the round trip with and without the spin, uses the
    faster, and tries the other every ``EXPLORE_EVERY`` calls. Only short calls count
    (``SHORT``): for long ones the spin changes nothing. Until both are measured, spin.
    """

    EXPLORE_EVERY = 16
    SHORT = 2e-3

    def __init__(self, seconds: float = SPIN_SECONDS):
        self.seconds = seconds
        self.cost: list[float | None] = [None, None]  # mean round trip: [sleep at once, spin]
        self.calls = 0
        self.spinning = True

    def window(self) -> float:
        self.calls += 1
        without, with_spin = self.cost
        if with_spin is None or without is None:
            self.spinning = with_spin is None or self.calls % 2 == 0
        else:
            self.spinning = with_spin <= without
            if self.calls % self.EXPLORE_EVERY == 0:
                self.spinning = not self.spinning
        return self.seconds if self.spinning else 0.0

    def record(self, seconds: float) -> None:
        if seconds >= self.SHORT:
            return
        mode = int(self.spinning)
        mean = self.cost[mode]
        self.cost[mode] = seconds if mean is None else mean + (seconds - mean) / 8


def recv_deadline(sock: socket.socket, deadline: float, max_bytes: int, spin: float | Spin = SPIN_SECONDS):
    """Host side: read one frame before ``deadline`` (a ``time.monotonic()`` value),
    busy-polling for ``spin`` seconds first (or as a :class:`Spin` decides).

    Raises FrameTimeout, FramingError (EOF, oversized frame) or ValueError (bad JSON).
    """
    if sock.gettimeout() != 0.0:  # the host's worker sockets already are (no system call per frame)
        sock.setblocking(False)
    learner = spin if isinstance(spin, Spin) else None
    started = time.perf_counter()
    spin_until = started + (learner.window() if learner is not None else spin)  # type: ignore[operator]
    poller = None
    frame = None
    while True:
        try:
            chunk = sock.recv(_FIRST_READ if frame is None else frame.wanted)
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
        if frame is None:
            message = _whole(chunk, max_bytes)
            if message is not INCOMPLETE:
                if learner is not None:
                    learner.record(time.perf_counter() - started)
                return message
            frame = _Frame(max_bytes)
        message = frame.feed(chunk)
        if message is not INCOMPLETE:
            return message
