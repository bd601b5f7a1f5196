"""Worker side: the request loop. Decode a request record, dispatch on its type, reply.

The first frame a worker sends is its :class:`~spade_gym.sandbox.wire.protocol.Hello`
(who it runs as, which confinement took effect); then it answers one request per
frame until the host hangs up.
"""

from __future__ import annotations

import socket

from spade_gym.sandbox.limits import Limits
from spade_gym.sandbox.wire import framing
from spade_gym.sandbox.wire import protocol as p
from spade_gym.sandbox.wire.protocol import ErrorKind, ErrorRecord
from spade_gym.sandbox.worker import deadline
from spade_gym.sandbox.worker.results import CallFailed, describe_failure, internal_failure
from spade_gym.sandbox.worker.runtime import ProgramRuntime

#: Requests are small (a program source at most); anything bigger is refused unread.
MAX_REQUEST_BYTES = 8 << 20


def _configure(runtime: ProgramRuntime, request: p.Configure) -> None:
    runtime.strict = request.strict


def _batch(runtime: ProgramRuntime, request: p.Batch) -> list:
    """Several calls on different instances in one round-trip (vector envs, probes)."""
    results = []
    for item in request.items:
        try:
            results.append({"ok": True, "result": HANDLERS[type(item)](runtime, item)})
        except CallFailed as failure:
            results.append({"ok": False, "error": failure.error.to_wire()})
    return results


HANDLERS = {
    p.Load: lambda rt, r: rt.load(r.source, r.kwargs, r.count),
    p.Reset: lambda rt, r: rt.reset(r.i, r.seed),
    p.Step: lambda rt, r: rt.step(r.i, r.action),
    p.Solution: lambda rt, r: rt.solution(r.i),
    p.Hint: lambda rt, r: rt.hint(r.i),
    p.Tools: lambda rt, r: rt.tools(r.i),
    p.Close: lambda rt, r: rt.close_instance(r.i),
    p.Configure: _configure,
    p.Ping: lambda rt, r: "pong",
    p.Batch: _batch,
}


def serve(sock: socket.socket, limits: Limits, hello: p.Hello) -> None:
    """Answer requests from the host until it hangs up."""
    deadline.install_signal_handlers()
    runtime = ProgramRuntime(limits)
    framing.send(sock, hello.to_wire())
    while True:
        try:
            message = framing.recv_blocking(sock, MAX_REQUEST_BYTES)
        except (framing.FramingError, OSError, ValueError, deadline.Deadline, deadline.CPUExhausted):
            deadline.stop_ticking()  # the host hung up: no tick may outlive the loop
            return
        try:
            try:
                request = p.decode_request(message)
            except p.ReplyRejected as exc:
                raise CallFailed(ErrorRecord(ErrorKind.PROTOCOL, str(exc))) from None
            deadline.begin_request()
            try:
                reply = {"ok": True, "result": HANDLERS[type(request)](runtime, request)}
            finally:
                deadline.end_request()
        except CallFailed as failure:
            reply = {"ok": False, "error": failure.error.to_wire()}
        except (deadline.Deadline, deadline.CPUExhausted) as exc:
            reply = {"ok": False, "error": describe_failure(exc, "the call", limits).to_wire()}
        except MemoryError:
            reply = {"ok": False, "error": ErrorRecord(ErrorKind.MEMORY, "the worker ran out of memory").to_wire()}
        except Exception as exc:  # a bug in the runtime itself, reported rather than hidden
            reply = {"ok": False, "error": internal_failure(exc).to_wire()}
        try:
            framing.send(sock, reply)
        except (OSError, ValueError):
            try:
                framing.send(sock, {"ok": False, "error": ErrorRecord(
                    ErrorKind.PROTOCOL, "the result could not be encoded").to_wire()})
            except OSError:
                deadline.stop_ticking()
                return
