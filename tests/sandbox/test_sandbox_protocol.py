"""The host trusts nothing a worker says: forged replies from a fake worker process.

A program that escapes the language layer controls its worker and can send any bytes.
Here a forked stand-in plays that worker: it introduces itself, answers ``load``
properly, then sends exactly the forged reply under test. Every one must end as a
:class:`ProtocolError` (or be clamped into range), with the worker killed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.errors import ProgramTimeout, ProtocolError
from spade_gym.sandbox import Limits, ProgramHandle
from spade_gym.sandbox.process.host import Zygote
from spade_gym.sandbox.wire import framing, protocol, replies

LOAD_OK = {"class_name": "FakeEnv", "dropped_kwargs": [], "has_hint": True, "has_solution": True,
           "max_turns": 5, "sha256": "0" * 64}
HELLO = {"hello": True, "pid": 1, "uid": 1, "confinement": {}}


def _frame(text: str) -> bytes:
    data = text.encode()
    return struct.pack("!I", len(data)) + data


def _ok(result) -> bytes:
    return _frame(json.dumps({"ok": True, "result": result}))


@pytest.fixture
def fake_worker(monkeypatch):
    """``fake_worker(*replies, load=<load result JSON>)`` -> a ProgramHandle talking to a forger."""
    pids = []

    def make(*replies: bytes, load: str = json.dumps(LOAD_OK), limits=None):
        def spawn(self, limits, role="serve"):
            host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            pid = os.fork()
            if pid == 0:  # the forger: never returns into pytest
                try:
                    os.setsid()
                    host.close()
                    child.sendall(_frame(json.dumps(HELLO)))
                    for reply in (_frame('{"ok":true,"result":' + load + "}"), *replies):
                        framing.recv_blocking(child, 1 << 24)
                        child.sendall(reply)
                    framing.recv_blocking(child, 1 << 24)
                finally:
                    os._exit(0)
            child.close()
            pids.append(pid)
            return host, pid

        monkeypatch.setattr(Zygote, "spawn", spawn)
        monkeypatch.setattr(Zygote, "get", classmethod(lambda cls: object.__new__(cls)))
        monkeypatch.setattr(Zygote, "exit_status", lambda self, pid, wait=0.5: None)
        return ProgramHandle("class FakeEnv: pass", limits=limits or Limits(call_timeout=2.0, kill_grace=0.5))

    yield make
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


FORGED_STEPS = {
    "nan_literal": ('{"ok":true,"result":["o",NaN,false,false,{}]}', "non-finite"),
    "infinity_literal": ('{"ok":true,"result":["o",Infinity,false,false,{}]}', "non-finite"),
    "overflowing_float": ('{"ok":true,"result":["o",1e999,false,false,{}]}', "overflows"),
    "observation_not_str": ('{"ok":true,"result":[42,0.0,false,false,{}]}', "observation must be a str"),
    "observation_too_long": ('{"ok":true,"result":["' + "x" * 70_000 + '",0.0,false,false,{}]}', "the limit is"),
    "flag_yes": ('{"ok":true,"result":["o",0.0,"yes",false,{}]}', "true or false"),
    "flag_int": ('{"ok":true,"result":["o",0.0,1,false,{}]}', "true or false"),
    "reward_text": ('{"ok":true,"result":["o","1",false,false,{}]}', "must be a number"),
    "info_list": ('{"ok":true,"result":["o",0.0,false,false,[]]}', "must be an object"),
    "four_items": ('{"ok":true,"result":["o",0.0,false,{}]}', "must be \\[observation"),
    "not_an_object": ('[1,2,3]', "must be an object"),
    "ok_missing": ('{"result":1}', "ok true or false"),
    "unknown_error_kind": ('{"ok":false,"error":{"kind":"pwned","message":"x"}}', "unknown error kind"),
    "error_message_not_str": ('{"ok":false,"error":{"kind":"program","message":7}}', "malformed error"),
    "not_json": ('{"ok":tru', "malformed data"),
    "not_utf8": (None, "not UTF-8"),
}


@pytest.mark.parametrize("name", sorted(FORGED_STEPS))
def test_forged_step_reply_is_a_protocol_error_and_kills_the_worker(name, fake_worker):
    text, message = FORGED_STEPS[name]
    reply = _frame(text) if text is not None else struct.pack("!I", 2) + b"\xff\xfe"
    handle = fake_worker(reply)
    with pytest.raises(ProtocolError, match=message):
        handle.step("x")
    assert not handle.alive


def test_huge_frame_is_refused_from_its_header(fake_worker):
    handle = fake_worker(struct.pack("!I", 27 << 20) + b"x" * 1024)
    start = time.monotonic()
    with pytest.raises(ProtocolError, match="oversized reply"):
        handle.step("x")
    assert time.monotonic() - start < 5.0 and not handle.alive


def test_frames_are_capped_far_below_32_mib():
    limits = Limits()
    cap = replies.reply_limit(limits.max_observation_chars, limits.max_info_bytes)
    assert cap < 1 << 20, cap


def test_out_of_range_reward_is_clamped(fake_worker):
    handle = fake_worker(_ok(["o", 1e300, False, False, {}]), _ok(["o", -7, False, False, {}]))
    assert handle.step("x").reward == 1.0
    assert handle.step("x").reward == -1.0


def test_program_info_cannot_set_host_keys(fake_worker):
    handle = fake_worker(_ok(["o", 0.0, False, False, {"error": "forged", "truncated_by": "x", "k": 1}]))
    info = handle.step("x").info
    assert "error" not in info and "truncated_by" not in info
    assert info == {"program_error": "forged", "program_truncated_by": "x", "k": 1}


@pytest.mark.parametrize("max_turns", ["Infinity", "1e400", "10" + "0" * 30, "true", '"10"', "-1", "0"])
def test_insane_max_turns_fails_the_load(max_turns, fake_worker):
    load = json.dumps(LOAD_OK).replace('"max_turns": 5', f'"max_turns": {max_turns}')
    with pytest.raises(ProtocolError):
        fake_worker(load=load)


def test_late_success_does_not_count(fake_worker):
    """A reply that arrives after the budget (an interruption swallowed) is a timeout."""
    handle = fake_worker(_ok(["o", 0.0, False, False, {}]), limits=Limits(call_timeout=0.3, kill_grace=2.0))
    original = handle._worker.send

    def slow_send(request, what, budget, *, hard=False):
        original(request, what, budget, hard=hard)
        handle._worker.sent_at -= 1.0  # as if the worker had taken a second past its budget

    handle._worker.send = slow_send
    with pytest.raises(ProgramTimeout):
        handle.step("x")
    assert not handle.alive


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers(-(1 << 70), 1 << 70) | st.floats() | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=20))
def test_framing_round_trip_or_refusal(value):
    """Any value either round-trips through a frame exactly or is refused as non-finite."""
    a, b = socket.socketpair()
    try:
        try:
            data = framing.encode(value)
        except ValueError:
            return  # NaN/Infinity are never sent
        a.sendall(data)
        assert framing.recv_blocking(b, 1 << 24) == value
    finally:
        a.close()
        b.close()


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
                    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6),
                    max_leaves=12))
def test_decode_step_accepts_only_the_contract(value):
    """Whatever a worker sends as a step result, the decoder returns a well-typed record or refuses."""
    try:
        result = replies.decode_step(value, 1000)
    except protocol.ReplyRejected:
        return
    assert type(result.observation) is str and len(result.observation) <= 1000
    assert type(result.reward) is float and -1.0 <= result.reward <= 1.0
    assert type(result.terminated) is bool and type(result.truncated) is bool
    assert type(result.info) is dict and not replies.HOST_INFO_KEYS & set(result.info)
