"""spade-gym through verifiers (v1): the loader, the taskset, and real rollouts, offline.

The rollouts run the ``vf-eval spade-gym`` command: verifiers' own runner, with the seat on the
``subprocess`` runtime (verifiers' ``null`` chat program), its interception server and, for the
tool-use env, the MCP tool server. The model is a scripted OpenAI-compatible server on loopback
(tests/support/fakes.py's, streaming as the interception relays it) that plays, per task, the oracle
(the privileged solution of a local twin env, same id and seed, found from the prompt) making
its tool calls natively or writing them as ``<tool_call>`` text, or a wrong policy.

Offline: verifiers installs its chat program's dependencies with ``uv sync --script``; a
stand-in ``uv`` on ``PATH`` points it at this interpreter, which has them (they are
verifiers' own dependencies). HOME, and so verifiers' cache, is a temporary directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

pytest.importorskip("verifiers.v1")

import gymnasium as gym
import verifiers.v1 as vf
from fakes import FakeOpenAI

import spade_gym
from spade_gym import toolcalls
from spade_gym.errors import ConfigError
from spade_gym.integrations import verifiers as spade_vf

GAME = "spade/DieRoll-v0"  # a single-turn game
TOOL_USE = "spade/MisplacedFileMove-v0"  # 4 tool calls, then the answer


class ScriptedModel(FakeOpenAI):
    """An OpenAI-compatible server playing a policy per task, ``oracle`` or ``wrong``; a task is
    recognised by its first observation, from a local twin. The tool-use oracle makes the first
    half of its calls natively (one per reply), writes the rest as text in one reply, then answers:
    both kinds of call must step the same episode for it to win."""

    def __init__(self, tasks: list[tuple[str, int, dict, str]]):
        self.twins: dict[str, tuple[list[str], str, str]] = {}
        for env_id, seed, kwargs, policy in tasks:
            env = gym.make(env_id, **kwargs)
            try:
                observation, info = env.reset(seed=seed)
                solution = spade_gym.privileged(env).solution()
            finally:
                env.close()
            actions = toolcalls.solution_actions(solution) if "tools" in info else ["\\boxed{" + solution + "}"]
            self.twins[observation] = (actions, solution, policy)
        super().__init__()

    def reply(self, body: dict) -> dict:
        messages = body["messages"]
        actions, _, policy = self.twins[next(m["content"] for m in messages if m["role"] == "user")]
        taken = sum(m["role"] == "assistant" for m in messages)
        if policy == "wrong":  # a wrong answer; tool-use: a call that finds nothing, until time runs out
            return {"role": "assistant", "content": self.reply_for_wrong_tool_use(20) if len(actions) > 1
                    else "\\boxed{-1}"}
        native = (len(actions) - 1) // 2
        if taken >= native:
            written = "\n".join(actions[native:-1])
            return {"role": "assistant", "content": written if taken == native and written else actions[-1]}
        calls = toolcalls.parse_action(actions[taken]).calls
        return {"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call_{taken}", "type": "function",
             "function": {"name": calls[0].name, "arguments": json.dumps(calls[0].arguments)}}]}

    @staticmethod
    def reply_for_wrong_tool_use(calls: int) -> str:
        return "\n".join([toolcalls.format_call("ls", {"path": "/nowhere"})] * calls)

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # /v1/models
                self._send(json.dumps({"object": "list", "data": []}).encode(), "application/json")

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake.lock:
                    fake.requests.append((dict(self.headers), body))
                message = fake.reply(body)
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                head = {"id": "chatcmpl-test", "created": 0, "model": body["model"],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
                if not body.get("stream"):
                    payload = {**head, "object": "chat.completion",
                               "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
                    return self._send(json.dumps(payload).encode(), "application/json")
                delta = {**message, "tool_calls": [{**call, "index": i} for i, call in
                                                   enumerate(message.get("tool_calls") or [])] or None}
                chunk = {**head, "object": "chat.completion.chunk",
                         "choices": [{"index": 0, "delta": {k: v for k, v in delta.items() if v is not None},
                                      "finish_reason": finish}]}
                self._send(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode(), "text/event-stream")

            def _send(self, data: bytes, content_type: str):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def bodies(self) -> str:
        return json.dumps([body for _, body in self.requests])


FAKE_UV = textwrap.dedent(f"""\
    #!/bin/sh
    # stand-in for uv: the script's dependencies are this interpreter's already
    if [ "$2" = "--help" ]; then echo "--script"; exit 0; fi
    if [ "$1" = "python" ]; then echo "{sys.executable}"; fi
    exit 0
    """)


@pytest.fixture
def offline(tmp_path_factory) -> dict:
    """The environment of an offline ``vf-eval``: HOME (verifiers' cache) in a temporary
    directory, the stand-in uv first on PATH."""
    root = tmp_path_factory.mktemp("verifiers")
    (root / "bin").mkdir()
    (root / "bin" / "uv").write_text(FAKE_UV)
    (root / "bin" / "uv").chmod(0o755)
    (root / "home").mkdir()
    return dict(os.environ, HOME=str(root / "home"), PATH=f"{root / 'bin'}{os.pathsep}{os.environ['PATH']}")


def test_import_spade_gym_imports_no_verifiers():
    code = "import spade_gym, sys; print([m for m in ('verifiers', 'torch', 'openai') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_loader_resolves_the_id_to_the_package():
    exported = [getattr(spade_gym, name) for name in spade_gym.__all__]
    assert [c for c in exported if isinstance(c, type) and issubclass(c, vf.Taskset)] == [spade_vf.SpadeGymTaskset]
    assert [c for c in exported if isinstance(c, type) and issubclass(c, vf.Env)] == [spade_vf.SpadeGymEnv]
    assert vf.environment_class("spade-gym") is spade_vf.SpadeGymEnv
    assert vf.taskset_config_type("spade-gym") is spade_vf.SpadeGymConfig
    assert vf.task_type("spade-gym") is spade_vf.SpadeGymTask
    config = vf.resolve_env_config({"taskset": {"id": "spade-gym", "envs": [GAME], "seeds": "2:4"}})
    assert isinstance(config, spade_vf.SpadeGymEnvConfig)
    assert config.taskset.seed_list() == [2, 3]
    # the seat: verifiers' tool-less chat loop on the subprocess runtime
    assert config.player.harness.id == "null" and config.player.runtime.type == "subprocess"
    env = vf.load_environment(config)
    assert isinstance(env, spade_vf.SpadeGymEnv) and isinstance(env.taskset, spade_vf.SpadeGymTaskset)


def test_task_prompts_are_first_observations_and_hold_nothing_privileged():
    config = spade_vf.SpadeGymConfig(id="spade-gym", envs=[GAME, "MisplacedFile*"], seeds=[5, 6])
    tasks = list(spade_vf.SpadeGymTaskset(config))
    assert [t.data.name for t in tasks] == [f"{GAME}#5", f"{GAME}#6", f"{TOOL_USE}#5", f"{TOOL_USE}#6"]
    for task in tasks:
        env = gym.make(task.data.env_id)
        try:
            observation, info = env.reset(seed=task.data.seed)
            solution = spade_gym.privileged(env).solution()
            hint = spade_gym.privileged(env).hint()
        finally:
            env.close()
        assert task.data.prompt == observation
        assert task.data.tools == info.get("tools", [])
        assert task.data.kind == ("tool-use" if "tools" in info else "game")
        wire = task.data.model_dump_json()
        assert task.data.program and hint
        secrets = [toolcalls.parse_action(solution).answer or solution, hint]
        assert not [s for s in secrets if json.dumps(s)[1:-1] in wire]
    assert spade_vf.SpadeGymTaskset.toolsets(config)
    assert spade_vf.SpadeGymTaskset.toolsets(config.model_copy(update={"envs": [GAME]})) == []


def test_taskset_levels_and_config_errors():
    hard = spade_vf.SpadeGymConfig(id="spade-gym", envs=[GAME], seeds=1, difficulty=["h*"])
    (task,) = spade_vf.SpadeGymTaskset(hard)
    env = gym.make(GAME, difficulty="hard")
    try:
        assert task.data.prompt == env.reset(seed=0)[0]
    finally:
        env.close()
    assert (task.data.name, task.data.difficulty) == (f"{GAME}[hard]#0", "hard")
    with pytest.raises(ConfigError, match="no task"):
        list(spade_vf.SpadeGymTaskset(hard.model_copy(update={"difficulty": ["legendary"]})))
    with pytest.raises(ConfigError, match="envs"):
        list(spade_vf.SpadeGymTaskset(hard.model_copy(update={"envs": ["spade/NoSuchThing*"]})))
    for bad in (0, [], "1:x"):
        with pytest.raises(ValueError, match="seeds"):
            spade_vf.SpadeGymConfig(id="spade-gym", seeds=bad)


def test_vf_eval_scores_the_oracle_one_and_a_wrong_policy_zero(offline, tmp_path):
    """``vf-eval spade-gym`` on a game and a tool-use env: the oracle wins (tool calls made
    natively through the MCP server and written as text, in one episode), a wrong policy loses,
    and the observation that ends a lost tool-use episode (it shows the solution) never reaches
    the model."""
    policies = {(GAME, 3): "oracle", (GAME, 4): "wrong", (TOOL_USE, 3): "oracle", (TOOL_USE, 4): "wrong"}
    model = ScriptedModel([(env_id, seed, {}, policy) for (env_id, seed), policy in policies.items()])
    lost = next(solution for actions, solution, policy in model.twins.values() if policy == "wrong" and len(actions) > 1)
    answer = toolcalls.parse_action(lost).answer
    twin = gym.make(TOOL_USE)
    try:
        twin.reset(seed=4)
        ends = [twin.step(model.reply_for_wrong_tool_use(1)) for _ in range(twin.unwrapped.max_turns)][-1]
        assert ends[3] and answer in ends[0]  # the observation that ends it shows the solution
    finally:
        twin.close()
    command = [str(Path(sys.executable).with_name("vf-eval")), "spade-gym",
               "--env.taskset.envs", GAME, TOOL_USE, "--env.taskset.seeds", "3:5", "-m", "scripted",
               "--client.base-url", model.url, "--client.api-key-var", "SPADE_TEST_KEY",
               "--no-push", "--no-rich", "-o", str(tmp_path)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=150, env=offline, check=False)
    finally:
        model.close()
    assert done.returncode == 0, done.stderr[-3000:]
    (traces_file,) = tmp_path.glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces_file.read_text().splitlines()]
    assert all(e["ok"] for e in episodes), [e.get("errors") for e in episodes]
    traces = {e["traces"][0]["task"]["data"]["name"]: e["traces"][0] for e in episodes}
    rewards = {name: t["rewards"]["spade_reward"]["score"] for name, t in traces.items()}
    assert rewards == {f"{env_id}#{seed}": float(policy != "wrong") for (env_id, seed), policy in policies.items()}
    outcome = {name: t["info"]["spade_gym"] for name, t in traces.items()}

    def messages(name, role):
        return [n["message"] for n in traces[name]["nodes"] if n["message"]["role"] == role]

    # the episode's tools, advertised under their own names; two calls ran through MCP, two were
    # written as text (their results came back together as one user turn), then the answer
    won = f"{TOOL_USE}#3"
    assert {t["name"] for t in traces[won]["tools"]} == {t["function"]["name"] for t in traces[won]["task"]["data"]["tools"]}
    results = [m["content"] for m in messages(won, "tool")]
    assert len(results) == 2 and all(r.startswith("Tool result:") for r in results)
    assert [m["content"].count("Tool result:") for m in messages(won, "user")] == [0, 2]
    assert outcome[won]["turns"] == 5 and outcome[won]["terminated"]
    # the lost tool-use episode ran out of turns in one reply; the model never saw how it ended
    lost_name = f"{TOOL_USE}#4"
    assert outcome[lost_name]["truncated"] and outcome[lost_name]["program_error"] is None
    assert len(messages(lost_name, "assistant")) == 1
    assert answer not in model.bodies() and answer not in traces_file.read_text()
    assert outcome[f"{GAME}#4"]["turns"] == 1 and traces[f"{GAME}#4"]["metrics"]["env_turns"] == 1
