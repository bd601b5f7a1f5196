"""Agents on tool-use environments: native tool calling in, text-protocol actions out.

The oracle plays ``solution()`` one action per turn; the OpenAI agent sends ``tools=`` and
turns the reply's ``tool_calls`` into actions; the transformers agent renders the tools with
the chat template and reads Qwen-style ``<tool_call>`` blocks; results go back as ``tool``
messages carrying the call's id.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from fakes import FakeOpenAI, Reply

import spade_gym
from spade_gym import toolcalls
from spade_gym.agents import AgentReply, EpisodeSpec, OracleAgent, RandomAgent, play_episodes, toolchat
from spade_gym.generate.backends import Completion


@pytest.fixture(scope="module")
def tool_ids(tool_use_suite):
    return tool_use_suite[1]


def script_for(env_id: str, seed: int) -> list[str]:
    env = gym.make(env_id)
    env.reset(seed=seed)
    script = toolcalls.solution_actions(spade_gym.privileged(env).solution())
    env.close()
    return script


def test_oracle_plays_the_solution_one_action_per_turn(tool_ids, benign_suite):
    names = ["FileOrganizer", "BankLedger", "WarehouseSteps", "UnitConverter"]
    specs = [EpisodeSpec(tool_ids[n], seed) for n in names for seed in (3, 11)]
    episodes = play_episodes(OracleAgent(), specs + [EpisodeSpec(benign_suite["NumberHunt"], 3)])
    assert all(e.won for e in episodes)
    for spec, episode in zip(specs, episodes):
        script = script_for(spec.env_id, spec.seed)
        assert [t.action for t in episode.turns] == script
        # tool results went back as tool messages answering each call's id
        tool_messages = [m for m in episode.messages if m["role"] == "tool"]
        assert len(tool_messages) == len(script) - 1
        calls = [c for m in episode.messages if m.get("tool_calls") for c in m["tool_calls"]]
        assert [c["id"] for c in calls] == [m["tool_call_id"] for m in tool_messages]
        assert all(m["content"].startswith("Tool result:\n") for m in tool_messages)
        assert episode.messages[0] == {"role": "user", "content": episode.first_observation}
    assert episodes[-1].messages[0]["content"].startswith("You are playing a text game")  # games unchanged


def test_random_agent_calls_tools_and_loses(tool_ids):
    specs = [EpisodeSpec(tool_ids[n], seed) for n in ("FileOrganizer", "BankLedger", "UnitConverter")
             for seed in range(6)]
    episodes = play_episodes(RandomAgent(seed=1), specs)
    actions = [t.action for e in episodes for t in e.turns]
    assert sum(a.startswith("<tool_call>") for a in actions) > len(actions) / 2
    assert sum(e.won for e in episodes) / len(episodes) < 0.1
    assert all(e.error is None for e in episodes)


def test_plan_reads_the_answer_first_then_native_calls_then_written_calls():
    answer = AgentReply("<think><answer>no</answer></think>Done: <answer>42</answer>",
                        tool_calls=[{"id": "x", "type": "function", "function": {"name": "a", "arguments": "{}"}}])
    planned, message = toolchat.plan(answer)
    assert [p.action for p in planned] == ["Done: <answer>42</answer>"] and "tool_calls" not in message
    native = AgentReply("", tool_calls=[
        {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": "cd", "arguments": '{"path": "docs"}'}}])
    planned, message = toolchat.plan(native)
    assert [toolcalls.parse_action(p.action).calls[0].name for p in planned] == ["ls", "cd"]
    assert [p.call_id for p in planned] == ["c1", "c2"] and message["tool_calls"][1]["id"] == "c2"
    written = AgentReply('Let me look.\n<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>')
    planned, message = toolchat.plan(written, id_prefix="call_3_")
    assert planned[0].call_id == "call_3_0" and message["content"] == "Let me look."
    assert toolcalls.parse_action(planned[0].action).calls == (toolcalls.ToolCall("ls", {}),)
    plain = AgentReply("I think it is 4")
    planned, message = toolchat.plan(plain)
    assert [p.action for p in planned] == ["I think it is 4"] and planned[0].call_id is None
    assert toolchat.result_message(planned[0], "Format error") == {"role": "user", "content": "Format error"}


def _tool_call(call_id: str, name: str, arguments: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_openai_agent_sends_tools_and_plays_native_tool_calls(tool_ids):
    from spade_gym.agents.llm import OpenAIAgent

    env_id = tool_ids["UnitConverter"]
    calls = [toolcalls.parse_action(a).calls[0] for a in script_for(env_id, 5)[:2]]
    answer = script_for(env_id, 5)[-1]
    fake = FakeOpenAI()

    def reply(message: dict) -> Reply:
        return Reply(body={"choices": [{"index": 0, "message": {"role": "assistant", **message},
                                        "finish_reason": "stop"}], "usage": {}})

    fake.script = [
        reply({"content": None, "tool_calls": [_tool_call("t1", calls[0].name, calls[0].arguments),
                                               _tool_call("t2", calls[1].name, calls[1].arguments)]}),
        reply({"content": f"The answer: {answer}"}),
    ]
    agent = OpenAIAgent(fake.url, "m", concurrency=1)
    try:
        episode = play_episodes(agent, [EpisodeSpec(env_id, 5)])[0]
    finally:
        agent.close()
        fake.close()
    assert episode.won and len(episode.turns) == 3
    first, second = (body for _, body in fake.requests)
    assert [t["function"]["name"] for t in first["tools"]] == ["factor", "multiply"]
    assert first["messages"] == [{"role": "user", "content": episode.first_observation}]
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["user", "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in second["messages"][2:]] == ["t1", "t2"]
    assert second["messages"][2]["content"].startswith("Tool result:\n")


class _ScriptedBackend:
    """Stands in for TransformersBackend: records what it was asked, answers from a script."""

    def __init__(self, texts):
        self.texts = list(texts)
        self.calls = []

    def complete_batch(self, conversations, *, temperature, max_tokens, seed, tools):
        self.calls.append((conversations, tools))
        return [Completion(self.texts.pop(0)) for _ in conversations]

    def close(self):
        pass


def test_transformers_agent_reads_qwen_style_tool_calls(tool_ids):
    from spade_gym.agents.llm import TransformersAgent

    env_id = tool_ids["UnitConverter"]
    script = script_for(env_id, 8)
    qwen = [f"<think>need the factor</think>\n<tool_call>\n{json.dumps({'name': c.name, 'arguments': c.arguments})}\n"
            f"</tool_call>" for c in (toolcalls.parse_action(a).calls[0] for a in script[:2])]
    agent = TransformersAgent.__new__(TransformersAgent)
    agent.backend = _ScriptedBackend(qwen + [script[-1]])
    agent.temperature, agent.max_tokens, agent.seed, agent._calls = 0.0, 64, None, 0
    episode = play_episodes(agent, [EpisodeSpec(env_id, 8)])[0]
    assert episode.won and [t.action for t in episode.turns][-1] == script[-1]
    conversations, tools = agent.backend.calls[1]
    assert [t["function"]["name"] for t in tools[0]] == ["factor", "multiply"]
    assistant = conversations[0][1]
    assert assistant["content"] == "<think>need the factor</think>" and assistant["tool_calls"][0]["function"]["name"] \
        == "factor"
    assert conversations[0][2]["role"] == "tool"


def test_transformers_backend_renders_tools_with_the_chat_template(tmp_path):
    from spade_gym.generate.backends import TransformersBackend
    from spade_gym.generate.tiny_model import build_tiny_model

    model = build_tiny_model(tmp_path / "tiny", ["<tool_call> {\"name\": \"ls\"} </tool_call>"], hidden_size=16,
                             num_layers=1)
    tools = [{"type": "function", "function": {"name": "ls", "description": "List files",
                                               "parameters": {"type": "object", "properties": {}}}}]
    messages = [{"role": "user", "content": "Find the report."},
                {"role": "assistant", "content": "", "tool_calls": [_tool_call("c", "ls", {"path": "/"})]},
                {"role": "tool", "tool_call_id": "c", "content": "Tool result:\n[]"}]
    with TransformersBackend(model) as backend:
        prompt, templated = backend.format_prompt(messages, tools)
        assert templated and '"name": "ls", "description": "List files"' in prompt
        assert '<tool_call>\n{"name": "ls", "arguments": {"path": "/"}}\n</tool_call>' in prompt
        assert "<tool_response>\nTool result:\n[]\n</tool_response>" in prompt
        plain, _ = backend.format_prompt(messages[:1])
        assert "<tools>" not in plain
        out = backend.complete_batch([messages[:1]], max_tokens=4, seed=0, tools=[tools])
        assert len(out) == 1
