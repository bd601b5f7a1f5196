"""``spade-gym serve``: registered envs behind openenv-core's server, played on loopback by
OpenEnv's own client against local twins (the same id and seed made here with gym.make)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time

import gymnasium as gym
import httpx
import pytest

pytest.importorskip("openenv", reason="needs the openenv extra (openenv-core)")

from click.testing import CliRunner
from openenv import GenericEnvClient
from testkit import build_suite
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import spade_gym  # noqa: F401  (registers the bundled suite)
from spade_gym import privileged, toolcalls
from spade_gym.integrations import openenv as served

GAME = "spade/LetterFeedbackHunt-v0"  # multi-turn game, card kind "game"
TOOL_USE = "spade/AccountProvisioning-v1"  # card kind "tool-use"
TOKEN = "test-token-3f9a"
WRONG = {GAME: "\\boxed{zzzzz}", TOOL_USE: "<answer>not it</answer>"}
# a step that never returns (the host kills the worker at its deadline) and one that exhausts memory
LOOP_STEP = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
MEMORY_STEP = "x = bytearray(1 << 34)"


def hostile_program(class_name: str, step: str) -> str:
    body = "\n".join("        " + line for line in step.splitlines())
    return (f"class {class_name}:\n"
            "    def __init__(self, max_turns=3, **kwargs):\n        self.max_turns = max_turns\n"
            "    def reset(self, seed=None):\n        return 'ready', {}\n"
            "    def solution(self):\n        return '1'\n"
            f"    def step(self, action):\n{body}\n        return 'ok', 0.0, False, False, {{}}\n")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LoopbackServer:
    """An app served by uvicorn in a thread of this process, on a free loopback port."""

    def __init__(self, app):
        import uvicorn

        self.app = app
        self.url = f"http://127.0.0.1:{_free_port()}"
        port = int(self.url.rsplit(":", 1)[1])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                                    ws_max_size=served.WS_MAX_BYTES))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(15)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"


@pytest.fixture(scope="module")
def hostile_ids(tmp_path_factory):
    from spade_gym.registry import register_suite

    directory = tmp_path_factory.mktemp("hostile-suite")
    entries = build_suite(directory, {"loop": hostile_program("HostileLoopEnv", step=LOOP_STEP),
                                      "memory": hostile_program("HostileMemoryEnv", step=MEMORY_STEP)})
    register_suite(directory)
    yield [entry.id for entry in entries]
    for entry in entries:
        del gym.registry[entry.id]


@pytest.fixture(scope="module")
def server(hostile_ids):
    loopback = LoopbackServer(served.build_app([GAME, TOOL_USE, "spade/Hostile*"], max_sessions=16))
    yield loopback
    loopback.stop()


@pytest.fixture(scope="module")
def guarded():
    loopback = LoopbackServer(served.build_app(GAME, max_sessions=2, idle_timeout=1, token=TOKEN))
    yield loopback
    loopback.stop()


async def play(client, env_id: str, seed: int, *, oracle: bool):
    """One episode over the server, each turn checked against a local twin; the last result."""
    twin = gym.make(env_id)
    try:
        result = await client.reset(env_id=env_id, seed=seed)
        obs, info = twin.reset(seed=seed)
        assert result.observation["text"] == obs and result.observation["seed"] == seed
        assert result.observation["info"].get("tools") == info.get("tools")
        tool_use = info.get("tools") is not None
        script = toolcalls.solution_actions(privileged(twin).solution()) if tool_use else []
        turn = 0
        while not result.done:
            if not oracle:
                action = WRONG[env_id]
            elif tool_use:
                action = script[min(turn, len(script) - 1)]
            else:
                action = "\\boxed{" + privileged(twin).solution() + "}"
            result = await client.step({"action": action})
            obs, reward, terminated, truncated, _ = twin.step(action)
            turn += 1
            assert (result.observation["text"], result.reward) == (obs, reward)
            assert result.done == (terminated or truncated) and turn < 40
        return result
    finally:
        twin.close()


@pytest.mark.parametrize("env_id", [GAME, TOOL_USE])
def test_oracle_episode_earns_one_and_a_wrong_one_zero(server, env_id):
    async def main():
        async with GenericEnvClient(base_url=server.url) as client:
            won = await play(client, env_id, seed=3, oracle=True)
            lost = await play(client, env_id, seed=4, oracle=False)  # the same session plays on
        return won, lost

    won, lost = asyncio.run(main())
    assert won.reward == 1.0 and won.observation["terminated"]
    assert lost.reward == 0.0 and lost.done


def test_the_action_schema_is_one_required_text_field(server):
    schema = httpx.get(f"{server.url}/schema").json()["action"]
    assert schema["required"] == ["action"] and schema["properties"]["action"]["type"] == "string"
    listed = {env["id"]: env for env in httpx.get(f"{server.url}/envs").json()}
    assert listed[TOOL_USE]["kind"] == "tool-use" and listed[GAME]["kind"] == "game"
    assert all("hint" not in env for env in listed.values())


async def _session(url: str, seed: int):
    """A connected client whose first observation is in; retries while earlier sessions close."""
    deadline = time.monotonic() + 20
    while True:
        client = GenericEnvClient(base_url=url)
        try:
            return client, await client.reset(env_id=GAME, seed=seed)
        except (RuntimeError, ConnectionClosed) as exc:  # refused: sent CAPACITY_REACHED, then closed
            await client.close()
            refused = isinstance(exc, ConnectionClosed) or "capacity" in str(exc).lower()
            if not refused or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def test_sixteen_concurrent_sessions_match_their_twins_and_the_seventeenth_is_refused(server):
    seeds = list(range(100, 116))
    twin = gym.make(GAME)
    expected = [twin.reset(seed=seed)[0] for seed in seeds]
    twin.close()

    async def main():
        sessions = await asyncio.gather(*(_session(server.url, seed) for seed in seeds))
        try:
            async with ws_connect(server.ws_url) as ws:
                refusal = json.loads(await ws.recv())
            return [result.observation["text"] for _, result in sessions], refusal
        finally:
            await asyncio.gather(*(client.close() for client, _ in sessions))

    observed, refusal = asyncio.run(main())
    assert observed == expected
    assert refusal["type"] == "error" and refusal["data"]["code"] == "CAPACITY_REACHED"
    assert "16/16" in refusal["data"]["message"]


def test_a_hostile_program_ends_only_its_own_session(server, hostile_ids):
    loop_id, memory_id = sorted(hostile_ids)  # HostileLoop, HostileMemory

    async def main():
        clients = [GenericEnvClient(base_url=server.url) for _ in range(3)]
        for client in clients:
            await client.connect()
        looping, bombing, playing = clients
        try:
            await looping.reset(env_id=loop_id, seed=0)
            await bombing.reset(env_id=memory_id, seed=0)
            await playing.reset(env_id=GAME, seed=5)
            hang = asyncio.create_task(looping.step({"action": "go"}))  # its worker is killed at the deadline
            bombed = await bombing.step({"action": "go"})
            played = await playing.step({"action": WRONG[GAME]})
            still_hanging = not hang.done()
            killed = await hang
            again = await looping.reset(env_id=loop_id, seed=1)  # the same session, a fresh worker
            after = await playing.step({"action": WRONG[GAME]})
            return bombed, played, still_hanging, killed, again, after
        finally:
            for client in clients:
                await client.close()

    bombed, played, still_hanging, killed, again, after = asyncio.run(main())
    assert bombed.done and bombed.observation["truncated"] and bombed.observation["info"]["error"]["kind"] == "memory"
    assert killed.done and killed.observation["info"]["error"]["kind"] == "timeout"
    assert still_hanging, "the other sessions answered while the hostile step was still running"
    assert not played.done and played.observation["info"]["turn"] == 1 and after.observation["info"]["turn"] == 2
    assert again.observation["text"] == "ready" and not again.done
    assert httpx.get(f"{server.url}/health").json() == {"status": "healthy"}


@pytest.mark.parametrize("method, path, body, status", [
    ("post", "/reset", b"{not json", 422),
    ("post", "/reset", {"seed": -1}, 422),
    ("post", "/reset", {"seed": "abc"}, 422),
    ("post", "/reset", {"env_id": "spade/NoSuchEnv-v0"}, 400),
    ("post", "/reset", {"seed": 1}, 400),  # several envs served: which one?
    ("post", "/reset", {"env_id": GAME, "bogus": 1}, 400),
    ("post", "/reset", {"env_id": GAME, "hint": True}, 400),
    ("post", "/reset", {"env_id": GAME, "difficulty": "impossible"}, 400),
    ("post", "/step", {}, 422),
    ("post", "/step", {"action": {}}, 422),
    ("post", "/step", {"action": {"action": 7, "extra": 1}}, 422),
    ("post", "/step", {"action": {"action": "\\boxed{x}"}}, 409),  # HTTP is stateless: no episode to step
    ("get", "/no-such-path", None, 404),
])
def test_malformed_http_requests_get_a_4xx(server, method, path, body, status):
    kwargs = {"content": body, "headers": {"content-type": "application/json"}} if isinstance(body, bytes) else (
        {"json": body} if body is not None else {})
    response = getattr(httpx, method)(f"{server.url}{path}", **kwargs)
    assert response.status_code == status, response.text
    if status in (400, 409):
        assert response.json()["detail"]
    assert httpx.get(f"{server.url}/health").status_code == 200


def test_http_reset_shows_a_first_observation(server):
    response = httpx.post(f"{server.url}/reset", json={"env_id": TOOL_USE, "seed": 3}, timeout=30)
    twin = gym.make(TOOL_USE)
    obs, info = twin.reset(seed=3)
    twin.close()
    assert response.status_code == 200
    assert response.json()["observation"]["text"] == obs
    assert response.json()["observation"]["info"]["tools"] == info["tools"]


def test_malformed_websocket_messages_get_errors_and_the_session_survives(server):
    async def main():
        replies = []
        async with ws_connect(server.ws_url) as ws:
            for message in ("{not json", json.dumps({"type": "bogus"}),
                            json.dumps({"type": "step", "data": {"action": "x"}}),  # before any reset
                            json.dumps({"type": "step", "data": {}}),
                            json.dumps({"type": "reset", "data": {"env_id": "spade/NoSuchEnv-v0"}}),
                            json.dumps({"type": "reset", "data": {"env_id": GAME, "seed": 2}})):
                await ws.send(message)
                replies.append(json.loads(await ws.recv()))
        return replies

    *errors, ok = asyncio.run(main())
    assert [e["data"]["code"] for e in errors] == ["INVALID_JSON", "UNKNOWN_TYPE", "EXECUTION_ERROR",
                                                   "VALIDATION_ERROR", "EXECUTION_ERROR"]
    assert "send a reset first" in errors[2]["data"]["message"]
    assert "not served here" in errors[4]["data"]["message"]
    assert ok["type"] == "observation" and ok["data"]["observation"]["seed"] == 2


def test_the_token_guards_every_request_but_health(guarded):
    assert httpx.get(f"{guarded.url}/health").status_code == 200
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        assert httpx.get(f"{guarded.url}/schema", headers=headers).status_code == 401
        assert httpx.post(f"{guarded.url}/reset", json={}, headers=headers).status_code == 401
    assert httpx.get(f"{guarded.url}/schema", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200

    async def refused():
        with pytest.raises(InvalidStatus) as info:
            async with ws_connect(guarded.ws_url):
                pass
        return info.value.response.status_code

    assert asyncio.run(refused()) == 401

    async def allowed():
        async with served.SpadeEnvClient(base_url=guarded.url, token=TOKEN) as client:
            return await client.reset(seed=7)  # one env served: env_id may be left out

    twin = gym.make(GAME)
    assert asyncio.run(allowed()).observation["text"] == twin.reset(seed=7)[0]
    twin.close()


def test_an_idle_session_expires_and_frees_its_slot(guarded):
    config = guarded.app.state.spade_config

    async def main():
        async with served.SpadeEnvClient(base_url=guarded.url, token=TOKEN) as client:
            await client.reset(seed=1)
            deadline = time.monotonic() + 20  # OpenEnv's reaper looks every 5 s
            while not any(env.closed for env in config.sessions()) and time.monotonic() < deadline:
                await asyncio.sleep(0.25)
            with pytest.raises(RuntimeError, match="session has ended"):
                await client.step({"action": WRONG[GAME]})
        async with served.SpadeEnvClient(base_url=guarded.url, token=TOKEN) as client:
            return await client.reset(seed=1)

    assert not asyncio.run(main()).done


def test_hints_only_where_the_server_allows_them():
    allowed = served.SpadeSessionEnv(served.ServeConfig((GAME,), allow_hint=True))
    refused = served.SpadeSessionEnv(served.ServeConfig((GAME,)))
    try:
        shown = allowed.reset(seed=3, hint=True)
        assert "HINT:" in shown.text and shown.info["hint"]
        plain = allowed.reset(seed=3)
        assert "HINT:" not in plain.text and "hint" not in plain.info
        with pytest.raises(served.ServeError, match="--allow-hint"):
            refused.reset(seed=3, hint=True)
    finally:
        allowed.close()
        refused.close()


def test_serve_command_passes_its_options_and_warns_on_an_open_port(monkeypatch):
    from spade_gym.cli import main

    calls = []
    monkeypatch.setattr(served, "serve", lambda patterns, **kwargs: calls.append((patterns, kwargs)))
    monkeypatch.setenv("SPADE_GYM_SERVE_TOKEN", "from-env")
    result = CliRunner().invoke(main, ["serve", "spade/Letter*", "--port", "9001", "--max-sessions", "4"])
    assert result.exit_code == 0, result.output
    patterns, kwargs = calls[-1]
    assert patterns == ["spade/Letter*"] and kwargs["token"] == "from-env" and kwargs["max_sessions"] == 4
    assert kwargs["port"] == 9001 and kwargs["host"] == "127.0.0.1" and not kwargs["allow_hint"]
    monkeypatch.delenv("SPADE_GYM_SERVE_TOKEN")
    result = CliRunner().invoke(main, ["serve", GAME, "--host", "0.0.0.0", "--idle-timeout", "0"])
    assert result.exit_code == 0 and "without a token" in result.output
    assert calls[-1][1]["token"] is None and calls[-1][1]["idle_timeout"] is None


def test_the_manifest_app_is_configured_by_environment_variables(monkeypatch):
    monkeypatch.setenv("SPADE_GYM_SERVE_IDS", "spade/Letter*")
    monkeypatch.setenv("SPADE_GYM_SERVE_MAX_SESSIONS", "3")
    monkeypatch.setenv("SPADE_GYM_SERVE_TOKEN", TOKEN)
    config = served.app_from_environment().state.spade_config
    assert GAME in config.env_ids and config.max_sessions == 3 and config.token == TOKEN and not config.allow_hint


def test_import_spade_gym_loads_no_server_stack():
    code = "import spade_gym, sys; print([m for m in ('openenv', 'fastapi', 'torch') if m in sys.modules])"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"
