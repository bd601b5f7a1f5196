"""The per-step path between host and worker: framing fast paths, large frames on the
host's non-blocking sockets, and the worker's deadline timer across idle spells."""

from __future__ import annotations

import json
import socket
import struct
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.errors import ProgramTimeout
from spade_gym.sandbox import Limits, ProgramHandle
from spade_gym.sandbox.call_results import Ok
from spade_gym.sandbox.wire import framing

ECHO = '''
class EchoEnv:
    def __init__(self, max_turns=1000, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
        self.turn = 0
        return "ready", {}

    def step(self, action):
        self.turn += 1
        if action == "spin":
            while True:
                pass
        return str(len(action)), 0.0, False, False, {"turn": self.turn}
'''


def test_an_action_larger_than_the_socket_buffer_reaches_the_worker():
    # The host's worker socket is non-blocking; a frame larger than the socket buffer
    # used to fail the whole call (EAGAIN from sendall) and kill the worker.
    with ProgramHandle(ECHO) as handle:
        handle.reset(seed=0)
        obs, *_ = handle.step("x" * 3_000_000)
        assert obs == "3000000"
        results = handle.batch([{"i": 0, "action": "y" * 2_000_000}, {"i": 0, "action": "z" * 1_500_000}],
                               timeout=60)
        assert [r.value.observation for r in results if isinstance(r, Ok)] == ["2000000", "1500000"]
        assert handle.step("ok").observation == "2"
        assert handle.restarts == 0


@pytest.mark.parametrize("idle", [0.0, 0.2])
def test_deadline_interrupts_a_step_after_a_stream_of_steps_and_after_idling(idle):
    # The worker starts its interval timer lazily and stops it on the first tick that
    # finds no request in progress; a call after either must still be interrupted by the
    # worker itself (the polite bound, with the line), long before the host's kill.
    limits = Limits(call_timeout=0.5, kill_grace=20.0)
    with ProgramHandle(ECHO, limits=limits) as handle:
        handle.reset(seed=0)
        for _ in range(300):
            handle.step("a")
        time.sleep(idle)
        start = time.monotonic()
        with pytest.raises(ProgramTimeout) as info:
            handle.step("spin")
        assert time.monotonic() - start < 5.0, "interrupted by the worker, not killed by the host"
        assert "interrupted there" in str(info.value)
        assert info.value.lineno is not None


def _frame(payload: bytes) -> bytes:
    return struct.pack("!I", len(payload)) + payload


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 62), 1 << 62)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(JSON_VALUES, st.integers(1, 7))
def test_frames_round_trip_whole_or_in_pieces(value, pieces):
    # The one-recv fast path and the piecewise path must agree with the standard parser.
    data = framing.encode(value)
    assert json.loads(data[4:]) == value
    host, peer = socket.socketpair()
    try:
        step = max(1, len(data) // pieces)
        for start in range(0, len(data), step):
            peer.sendall(data[start:start + step])
        peer.shutdown(socket.SHUT_WR)
        got = framing.recv_deadline(host, time.monotonic() + 5, 1 << 20)
    finally:
        host.close()
        peer.close()
    assert got == value


@pytest.mark.parametrize("payload, message", [
    (b'{"ok":true} ', "extra data"),
    (b'{"ok":true}{"ok":true}', "extra data"),
    (b' {"ok":true}', "not JSON"),
    (b'[1e999]', "overflows"),
    (b'[NaN]', "non-finite"),
    (b'\xff', "not UTF-8"),
    (b'[' * 100_000, "nested too deeply"),
])
def test_a_malformed_single_chunk_frame_is_refused(payload, message):
    host, peer = socket.socketpair()
    try:
        peer.sendall(_frame(payload))
        with pytest.raises(ValueError, match=message):
            framing.recv_deadline(host, time.monotonic() + 5, 1 << 20)
    finally:
        host.close()
        peer.close()


def test_an_oversized_frame_is_refused_before_it_is_read():
    host, peer = socket.socketpair()
    try:
        peer.sendall(_frame(b'"' + b"a" * 5000 + b'"'))
        with pytest.raises(framing.FramingError, match="exceeds"):
            framing.recv_deadline(host, time.monotonic() + 5, 1000)
    finally:
        host.close()
        peer.close()


def test_encoding_refuses_what_json_cannot_carry():
    cycle: list = []
    cycle.append(cycle)
    for bad in (cycle, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            framing.encode(bad)
    assert framing.encode("é\ud800")[4:].decode("utf-8") == '"é?"'  # lone surrogates replaced


def test_the_worker_timer_stops_itself_when_idle_and_with_the_request_loop():
    import signal

    from spade_gym.sandbox.worker import deadline

    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGALRM, signal.SIGXCPU, signal.SIGXFSZ)}
    deadline.install_signal_handlers()
    try:
        deadline.begin_request()
        assert deadline.clock.ticking and signal.getitimer(signal.ITIMER_REAL)[1] > 0
        deadline.end_request()
        time.sleep(4 * deadline.TICK)  # the first idle tick stops the timer
        assert not deadline.clock.ticking
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        deadline.begin_request()  # a request after the idle spell starts it again
        assert deadline.clock.ticking and signal.getitimer(signal.ITIMER_REAL)[1] > 0
        deadline.end_request()
        deadline.stop_ticking()  # what the request loop does when the host hangs up
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        deadline.clock.ticking = deadline.clock.serving = False
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def _feed(spin: framing.Spin, cost_with: float, cost_without: float, calls: int) -> list[bool]:
    chosen = []
    for _ in range(calls):
        spin.window()
        chosen.append(spin.spinning)
        spin.record(cost_with if spin.spinning else cost_without)
    return chosen


@pytest.mark.parametrize("cost_with, cost_without, expect_spinning", [
    (60e-6, 110e-6, True),   # idle machine: the spin saves a wake-up
    (110e-6, 60e-6, False),  # loaded machine: the spinning host holds up the worker
])
def test_the_host_spins_only_where_spinning_is_measured_to_be_faster(cost_with, cost_without, expect_spinning):
    spin = framing.Spin()
    chosen = _feed(spin, cost_with, cost_without, 400)
    settled = chosen[100:]
    share = sum(settled) / len(settled)
    # the faster mode nearly always, the other one only to keep measuring it
    expected = 1 - 1 / framing.Spin.EXPLORE_EVERY
    assert share == pytest.approx(expected if expect_spinning else 1 - expected, abs=0.02)
    # conditions change: the choice follows
    chosen = _feed(spin, cost_without, cost_with, 400)[200:]
    assert sum(chosen) / len(chosen) == pytest.approx(1 - expected if expect_spinning else expected, abs=0.02)


def test_long_calls_do_not_teach_the_spin():
    spin = framing.Spin()
    _feed(spin, 60e-6, 110e-6, 100)
    before = list(spin.cost)
    _feed(spin, 1.0, 1.0, 50)  # seconds-long calls: the spin is irrelevant to them
    assert spin.cost == before
