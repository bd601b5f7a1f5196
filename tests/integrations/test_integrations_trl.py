"""spade/* environments as TRL ``environment_factory`` environments."""

from __future__ import annotations

import pytest
from transformers.utils import get_json_schema

import spade_gym  # noqa: F401  (registers the bundled suite)
from spade_gym.env.wrappers import privileged
from spade_gym.errors import SpadeError
from spade_gym.integrations.trl import (
    SpadeGameEnvironment,
    environment_factory,
    task_dataset,
    tool_use_environment_class,
)


@pytest.fixture(scope="module")
def game_id(tmp_path_factory):
    """A one-turn game whose solution() is the winning action (registered for this module only:
    self-play's novelty check reads every registered suite, and the self-play tests expect this
    demo program to be new)."""
    import gymnasium as gym
    from testkit import build_suite

    from spade_gym.registry import register_suite
    from spade_gym.selfplay.demo_designs import DEMO_DESIGNS

    path = tmp_path_factory.mktemp("suite")
    (entry,) = build_suite(path, {"mod_sum": DEMO_DESIGNS[0].source})
    register_suite(path)
    yield entry.id
    del gym.registry[entry.id]


def test_a_game_is_one_tool_and_the_oracle_earns_reward_one(game_id):
    env_id = game_id
    factory = environment_factory([env_id])
    assert factory is SpadeGameEnvironment
    rows = task_dataset([env_id], seeds=3)
    assert [r["seed"] for r in rows] == [0, 1, 2] and all(r["env_id"] == env_id for r in rows)
    env = factory()
    prompt = env.reset(**rows[1])
    assert "`act` tool" in prompt
    assert env.get_reward() == 0.0
    reply = env.act(privileged(env._env).solution())
    assert "episode over" in reply and env.get_reward() == 1.0
    assert "over" in env.act("anything")  # nothing more after the end
    env.reset(**rows[1])
    env.act("a wrong answer \\boxed{-123456}")
    assert env.get_reward() <= 0.0
    schema = get_json_schema(env.act)["function"]
    assert schema["name"] == "act" and schema["parameters"]["required"] == ["action"]


def test_tool_use_tools_become_methods_with_schemas():
    tools = [{"type": "function", "function": {
        "name": "lookup", "description": "Find a record.",
        "parameters": {"type": "object", "properties": {
            "key": {"type": "string", "description": "The record's key."},
            "limit": {"type": "integer", "description": "At most this many."}}, "required": ["key"]}}}]
    cls = tool_use_environment_class("spade/Fake-v0", tools)
    schema = get_json_schema(cls.lookup)["function"]
    assert schema["name"] == "lookup" and schema["parameters"]["required"] == ["key"]
    assert schema["parameters"]["properties"]["limit"]["type"] == "integer"
    sent = []
    env = cls()
    env._send = sent.append
    env.lookup(key="a")
    env.answer("42")
    assert sent == ['<tool_call>{"name": "lookup", "arguments": {"key": "a"}}</tool_call>', "<answer>42</answer>"]
    with pytest.raises(SpadeError, match="cannot be a method"):
        tool_use_environment_class("spade/Fake-v0", [{"function": {"name": "reset"}}])


@pytest.mark.train
def test_grpo_trainer_trains_on_the_factory(tmp_path, game_id):
    trl = pytest.importorskip("trl")
    import os
    from pathlib import Path

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from spade_gym.generate.tiny_model import build_tiny_model

    build_tiny_model(tmp_path / "m", ["play the game"] * 4, vocab_size=400, hidden_size=32, num_layers=1,
                     num_heads=2, max_position_embeddings=512)
    env_id = game_id
    args = GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=8, max_steps=1, use_cpu=True, bf16=False, report_to=[])
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "m")
    # TRL needs a chat template it can parse tool calls from: give the tiny model Qwen3's.
    tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" / "qwen3.jinja").read_text()
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(tmp_path / "m"), args=args,
                          processing_class=tokenizer,
                          train_dataset=Dataset.from_list(task_dataset([env_id], seeds=4)),
                          environment_factory=environment_factory([env_id]))
    trainer.train()
    assert trainer.state.global_step == 1
