"""The benchmark workers' protocol: the worker's request loop and the host's client, shared by BFCL and tau2.

Needs neither bfcl-eval nor tau2: the loop is run in-process, and the real worker scripts are
started the way the hosts start them, on requests that reach no benchmark code.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from spade_gym.adapters import _worker_loop, bfcl_multi_turn, tau2_data
from spade_gym.adapters.worker_client import WorkerClient, decode_reply, end_worker, start_worker
from spade_gym.errors import SpadeError


class Failed(SpadeError):
    pass


def serve_lines(handle, lines, **options) -> list[dict]:
    protocol = io.StringIO()
    _worker_loop.serve(handle, [line + "\n" for line in lines], protocol, **options)
    return [json.loads(line) for line in protocol.getvalue().splitlines()]


# ----------------------------------------------------------------------------- the worker's loop


def test_a_request_that_fails_is_answered_with_a_failure_and_the_loop_goes_on():
    def handle(request):
        if request["op"] == "boom":
            raise ValueError("no such thing")
        return {"echo": request["op"]}

    replies = serve_lines(handle, ["not json", '{"op": "boom"}', '{"missing": "op"}', '{"op": "ping"}'])
    assert replies == [{"failure": "JSONDecodeError: Expecting value: line 1 column 1 (char 0)"},
                       {"failure": "ValueError: no such thing"},
                       {"failure": "KeyError: 'op'"},
                       {"echo": "ping"}]


def test_a_reply_json_cannot_hold_is_a_failure_unless_the_worker_names_a_default():
    def handle(request):
        return {"value": {1, 2}} if request["op"] == "set" else {"text": "Zürich ✓"}

    assert serve_lines(handle, ['{"op": "set"}', '{"op": "text"}']) == [
        {"failure": "reply is not JSON: Object of type set is not JSON serializable"}, {"text": "Zürich ✓"}]
    assert serve_lines(handle, ['{"op": "set"}'], default=str) == [{"value": "{1, 2}"}]
    protocol = io.StringIO()
    _worker_loop.serve(handle, ['{"op": "text"}\n'], protocol)
    assert "Zürich ✓" in protocol.getvalue()  # not escaped: the host reads UTF-8


def test_each_reply_is_flushed_before_the_next_request_is_read():
    class Protocol(io.StringIO):
        flushed = ""

        def flush(self):
            self.flushed = self.getvalue()

    protocol = Protocol()
    seen = []

    def requests():
        for n in range(3):
            seen.append(protocol.flushed.count("\n"))  # what the host could read by now
            yield json.dumps({"n": n}) + "\n"

    _worker_loop.serve(lambda request: {"n": request["n"]}, requests(), protocol)
    assert seen == [0, 1, 2] and protocol.flushed.count("\n") == 3


@pytest.mark.parametrize("script", [bfcl_multi_turn.WORKER, tau2_data.WORKER], ids=["bfcl", "tau2"])
def test_a_worker_script_imports_nothing_of_the_spade_gym_package(script):
    run = subprocess.run([sys.executable, "-X", "importtime", str(script)], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    modules = [line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    assert "_worker_loop" in modules
    assert not [m for m in modules if re.fullmatch(r"spade_gym(\..*)?", m)]


# ----------------------------------------------------------------------------- the real workers, as the hosts start them


def test_a_malformed_line_to_a_real_worker_gets_a_failure_and_the_worker_keeps_serving():
    process = start_worker(bfcl_multi_turn.WORKER)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("{not json\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["failure"].startswith("JSONDecodeError: ")
        process.stdin.write('{"op": "compare"}\n')  # a fresh session's two (empty) sets of simulators
        process.stdin.flush()
        assert json.loads(process.stdout.readline()) == {"valid": True, "differences": []}
    finally:
        end_worker(process)
    assert process.poll() is not None


def test_the_hosts_raise_their_own_failures_with_the_workers_reason_and_keep_the_worker(monkeypatch):
    simulators = bfcl_multi_turn.Simulators(request_deadline=30)
    try:
        assert simulators.request({"op": "compare"}) == {"valid": True, "differences": []}
        pid = simulators._process.pid
        with pytest.raises(bfcl_multi_turn.SimulatorFailure,
                           match=r"^BFCL's simulators failed a 'nope' request: ValueError: unknown request 'nope'$"):
            simulators.request({"op": "nope"})
        assert simulators.request({"op": "compare"})["valid"] and simulators._process.pid == pid
    finally:
        simulators.close()
    assert simulators._process is None

    monkeypatch.setattr(tau2_data, "_IDLE", [])  # a fresh worker, not one with an earlier test's episode
    worker = tau2_data.DomainWorker(request_deadline=30)
    try:
        with pytest.raises(tau2_data.Tau2Failure,
                           match=r"^tau2's domain worker failed a 'calls' request: ValueError: no episode: "
                                 r"send 'start' first$"):
            worker.request({"op": "calls", "calls": []})
    finally:
        worker.kill()


# ----------------------------------------------------------------------------- the host's client


def test_a_reply_is_an_object_without_a_failure_or_it_is_the_benchmarks_failure():
    assert decode_reply('{"ok": true}\n', {"op": "x"}, "the worker", Failed) == {"ok": True}
    for line, reason in (("garbage\n", "'garbage\\n'"), ("[1, 2]\n", "'[1, 2]\\n'"),
                         ('{"failure": "KeyError: 1"}\n', "KeyError: 1"), ("x" * 500, repr("x" * 200))):
        with pytest.raises(Failed) as caught:
            decode_reply(line, {"op": "start"}, "the worker", Failed)
        assert str(caught.value) == f"the worker failed a 'start' request: {reason}"


def _client(code: str, starts: list) -> WorkerClient:
    def spawn():
        starts.append(1)
        return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, encoding="utf-8", bufsize=1)

    return WorkerClient(spawn, name="the worker", failure=Failed, request_deadline=0.5)


def test_a_late_worker_is_killed_and_the_next_request_starts_a_fresh_one():
    starts: list = []
    client = _client("import sys, time\nsys.stdin.readline()\ntime.sleep(60)", starts)
    with pytest.raises(Failed, match=r"^the worker did not answer a 'slow' request within 0\.5 s$"):
        client.request({"op": "slow"})
    assert client._process is None  # its late reply can never be read as the next request's
    with pytest.raises(Failed, match=r"within 1\.5 s$"):
        client.request({"op": "slow"}, deadline=1.5)
    assert len(starts) == 2
    client.kill()


def test_a_worker_that_ends_is_a_failure_that_says_it_stopped():
    starts: list = []
    client = _client("import sys\nsys.stdin.readline()", starts)
    with pytest.raises(Failed, match=r"^the worker stopped"):
        client.request({"op": "start"})
    assert client._process is None


def test_a_worker_starts_with_a_pared_down_environment(monkeypatch, tmp_path):
    script = tmp_path / "env_worker.py"
    script.write_text("import json, os, sys\nsys.stdin.readline()\nprint(json.dumps(dict(os.environ)), flush=True)\n")
    monkeypatch.setenv("SPADE_TEST_SECRET", "do-not-pass")
    monkeypatch.setenv("LANG", "C.UTF-8")
    client = WorkerClient(lambda: start_worker(Path(script)), name="the worker", failure=Failed, request_deadline=30)
    try:
        environment = client.request({"op": "env"})
    finally:
        client.kill()
    assert "SPADE_TEST_SECRET" not in environment and environment.get("LANG") == "C.UTF-8"
