"""Self-play generation: the log-probabilities the rollouts return are the ones TRL's loss
recomputes (for both roles, whatever their sampling temperature), and the generation path
is the one the trainer is configured for (vLLM server / colocate, else transformers)."""

from __future__ import annotations

import types

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from spade_gym.errors import ConfigError  # noqa: E402
from spade_gym.selfplay.generation import (  # noqa: E402
    TransformersGenerator,
    VLLMColocateGenerator,
    VLLMServerGenerator,
    check_temperatures,
    make_generator,
    sample_seeds,
)
from spade_gym.selfplay.policy import TokenAgent, TokenPolicy  # noqa: E402

pytestmark = pytest.mark.train

LOSS_TEMPERATURE = 0.8


@pytest.fixture(scope="module")
def trainer(tmp_path_factory):
    """A real GRPOTrainer around a tiny locally built model (no download)."""
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from spade_gym.generate.tiny_model import build_tiny_model

    root = tmp_path_factory.mktemp("gen")
    texts = ["Design a single-turn text environment. Reply with one python block and a hint.",
             "class GuessEnv:\n    def reset(self, seed=None):\n        return 'guess', {}\n"] * 4
    build_tiny_model(root / "model", texts, vocab_size=512, hidden_size=32, num_layers=2, num_heads=2,
                     max_position_embeddings=512, seed=0)
    model = AutoModelForCausalLM.from_pretrained(root / "model")
    tokenizer = AutoTokenizer.from_pretrained(root / "model")
    args = GRPOConfig(output_dir=str(root / "out"), per_device_train_batch_size=4, num_generations=4,
                      temperature=LOSS_TEMPERATURE, use_cpu=True, bf16=False, report_to=[], max_steps=1,
                      max_completion_length=32, logging_steps=1)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "x"}]}] * 8)
    return GRPOTrainer(model=model, reward_funcs=lambda completions, **kw: [0.0] * len(completions), args=args,
                       train_dataset=data, processing_class=tokenizer)


def trl_recompute(trainer, prompt_ids: list[int], completion_ids: list[int]) -> list[float]:
    """TRL's own recompute of the per-token log-probabilities (what its loss uses)."""
    ids = torch.tensor([prompt_ids + completion_ids])
    logps, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, torch.ones_like(ids),
                                                             len(completion_ids))
    return logps[0].tolist()


@pytest.mark.parametrize("role_temperature", [0.15, LOSS_TEMPERATURE], ids=["designer", "agent"])
def test_returned_logprobs_equal_trls_recompute(trainer, role_temperature):
    generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
    assert isinstance(generator, TransformersGenerator)
    policy = TokenPolicy(generator, trainer.processing_class)
    prompt = policy.chat_ids([{"role": "user", "content": "Design a single-turn text environment."}])
    samples = policy.sample([prompt, prompt[3:]], max_new_tokens=12, temperature=role_temperature, seed=3)
    for prompt_ids, sample in zip([prompt, prompt[3:]], samples):
        assert sample.completion_ids
        recomputed = trl_recompute(trainer, prompt_ids, sample.completion_ids)
        assert sample.logprobs == pytest.approx(recomputed, abs=1e-4)
    # The importance ratio TRL's correction would form is 1, not 1e-16.
    total = sum(abs(a - b) for a, b in zip(samples[0].logprobs, trl_recompute(trainer, prompt, samples[0].completion_ids)))
    assert total < 1e-3


def test_multi_turn_agent_logprobs_equal_trls_recompute(trainer):
    """A two-turn episode: policy tokens carry the loss-temperature logprobs, env tokens are masked."""
    from spade_gym.agents.base import ActRequest

    generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
    agent = TokenAgent(TokenPolicy(generator, trainer.processing_class), temperature=0.3, max_turn_tokens=6,
                       max_episode_tokens=64, seed=1)
    messages = [{"role": "user", "content": "Guess the number."}]
    reply = agent.act([ActRequest(messages, "Guess the number.", 0, None, episode_id=0)])[0]
    messages += [{"role": "assistant", "content": reply.text}, {"role": "user", "content": "Too low."}]
    agent.act([ActRequest(messages, "Too low.", 1, None, episode_id=0)])
    trace = agent.traces[0]
    assert 0 in trace.env_mask and 1 in trace.env_mask
    recomputed = trl_recompute(trainer, trace.prompt_ids, trace.completion_ids)
    for mask, mine, theirs in zip(trace.env_mask, trace.logprobs, recomputed):
        if mask:
            assert mine == pytest.approx(theirs, abs=1e-4)


def test_seeded_sampling_restores_the_rng(trainer):
    generator = TransformersGenerator(trainer.model, trainer.processing_class, loss_temperature=0.8)
    torch.manual_seed(5)
    before = torch.random.get_rng_state()
    first = generator.sample([[1, 2, 3]], max_new_tokens=5, temperature=1.0, seed=9)
    assert torch.equal(before, torch.random.get_rng_state())
    again = generator.sample([[1, 2, 3]], max_new_tokens=5, temperature=1.0, seed=9)
    assert first == again


# ---------------------------------------------------------------- dispatch (fakes: no GPU, no vLLM here)

class FakeTokenizer:
    eos_token_id = 2
    pad_token_id = 0
    eos_token = "<eos>"


def fake_trainer(**args):
    model = types.SimpleNamespace(generation_config=types.SimpleNamespace(eos_token_id=2))
    return types.SimpleNamespace(args=types.SimpleNamespace(**args), use_vllm=args.get("use_vllm", False),
                                 model=model, vllm_generation=types.SimpleNamespace(tensor_parallel_size=1))


class FakeClient:
    def __init__(self):
        self.calls = []

    def generate(self, **kwargs):
        self.calls.append(kwargs)
        rows = [[7, 8, 2, 9]] * len(kwargs["prompts"])
        return {"completion_ids": rows, "logprobs": [[[-0.5], [-0.25], [-0.125], [-1.0]]] * len(rows)}


def test_vllm_server_is_used_when_configured():
    trainer = fake_trainer(use_vllm=True, vllm_mode="server")
    generator = make_generator(trainer, FakeTokenizer(), loss_temperature=0.6)
    assert isinstance(generator, VLLMServerGenerator)
    client = FakeClient()
    generator._client = client
    samples = generator.sample([[1, 2], [3]], max_new_tokens=8, temperature=0.6, seed=4)
    # The server applies a request's seed to all its prompts: one request per sample, each its own seed.
    calls = sorted(client.calls, key=lambda c: c["prompts"])
    assert [c["prompts"] for c in calls] == [[[1, 2]], [[3]]]
    assert [c["generation_kwargs"] for c in calls] == [{"seed": s} for s in sample_seeds(4, 2)]
    assert all(c["temperature"] == 0.6 and c["max_tokens"] == 8 and c["n"] == 1 for c in calls)
    # cut after the end-of-turn token, with its logprob
    assert samples[0].completion_ids == [7, 8, 2] and samples[0].logprobs == [-0.5, -0.25, -0.125]
    assert samples[0].finished
    # unseeded: one request for the whole call (the server's own stream differs per sample)
    client.calls.clear()
    generator.sample([[1, 2], [3]], max_new_tokens=8, temperature=0.6)
    assert len(client.calls) == 1 and client.calls[0]["generation_kwargs"] == {}


def test_sample_seeds_are_distinct_and_reproducible():
    seeds = sample_seeds(11, 64)
    assert len(set(seeds)) == 64 and seeds == sample_seeds(11, 64) and all(0 <= s < 2**31 for s in seeds)
    assert sample_seeds(11, 3) == seeds[:3]  # a sample's seed does not depend on the call's size
    assert not set(sample_seeds(12, 64)) & set(seeds)  # the next call (an agent's next turn) is elsewhere


def test_vllm_colocate_seeds_each_prompt(monkeypatch):
    import sys

    from fakes import FakeVLLM

    fake = FakeVLLM(lambda prompt, seed: f"{prompt}|{seed}")
    monkeypatch.setitem(sys.modules, "vllm", fake.vllm_module)
    generator = make_generator(fake.trainer("colocate"), fake.tokenizer, loss_temperature=0.6)
    samples = generator.sample([[65, 66]] * 3, max_new_tokens=64, temperature=0.6, seed=4)
    assert [r["seed"] for r in fake.requests] == sample_seeds(4, 3)
    assert len({tuple(s.completion_ids) for s in samples}) == 3
    assert all(s.finished and s.logprobs == [-0.5] * len(s.completion_ids) for s in samples)


def test_vllm_colocate_is_used_when_configured():
    trainer = fake_trainer(use_vllm=True, vllm_mode="colocate")
    assert isinstance(make_generator(trainer, FakeTokenizer(), loss_temperature=0.6), VLLMColocateGenerator)
    trainer.vllm_generation.tensor_parallel_size = 2
    with pytest.raises(ConfigError, match="tensor_parallel"):
        make_generator(trainer, FakeTokenizer(), loss_temperature=0.6)


def test_transformers_path_without_vllm(trainer):
    assert isinstance(make_generator(trainer, trainer.processing_class, loss_temperature=0.8), TransformersGenerator)


def test_vllm_needs_sampling_at_the_loss_temperature():
    with pytest.raises(ConfigError, match="designer_temperature=0.2 differs"):
        check_temperatures(use_vllm=True, loss_temperature=0.6, role_temperatures={"designer": 0.2, "agent": 0.6})
    check_temperatures(use_vllm=False, loss_temperature=0.6, role_temperatures={"designer": 0.2})
    check_temperatures(use_vllm=True, loss_temperature=0.6, role_temperatures={"designer": 0.6, "agent": 0.6})


def test_trained_regret_plays_sample_at_the_loss_temperature_with_vllm():
    from spade_gym.selfplay.presets import load_preset

    config = load_preset("qwen3-4b")
    config.regret_temperature = 0.3
    with pytest.raises(ConfigError, match="regret_temperature=0.3 differs"):
        config.validate()
    config.train_on_regret_plays = False  # regret plays not trained on: their log-probabilities are unused
    config.validate()


def test_gpu_presets_take_the_vllm_path_at_the_loss_temperature():
    from spade_gym.selfplay.presets import load_preset

    for name in ("qwen3-4b", "qwen3-8b"):
        config = load_preset(name)
        assert config.grpo["use_vllm"] is True
        assert config.designer_temperature == config.agent_temperature == config.temperature
        assert config.regret_play_temperature == config.temperature
        config.validate()


def test_tool_use_turns_render_tools_and_tool_results(trainer):
    """A tool-use episode: the tools are in the prompt, the tool results (and only they)
    are the masked feedback between the policy's turns."""
    from spade_gym.agents.base import ActRequest

    tools = [{"type": "function", "function": {"name": "lookup", "description": "Find a record.",
                                               "parameters": {"type": "object", "properties": {
                                                   "key": {"type": "string"}}, "required": ["key"]}}}]
    generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
    policy = TokenPolicy(generator, trainer.processing_class)
    agent = TokenAgent(policy, temperature=0.8, max_turn_tokens=4, max_episode_tokens=64, seed=2)
    messages = [{"role": "user", "content": "Find record a."}]
    agent.act([ActRequest(messages, "Find record a.", 0, None, episode_id=0, tools=tools)])
    trace = agent.traces[0]
    assert '"lookup"' in policy.tokenizer.decode(trace.prompt_ids)
    policy_tokens = len(trace.completion_ids)
    messages += [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"key": "a"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "RESULT-ONE"},
        {"role": "tool", "tool_call_id": "c2", "content": "RESULT-TWO"}]
    agent.act([ActRequest(messages, "RESULT-TWO", 1, None, episode_id=0, tools=tools)])
    feedback = [t for t, m in zip(trace.completion_ids[policy_tokens:], trace.env_mask[policy_tokens:]) if m == 0]
    text = policy.tokenizer.decode(feedback)
    assert "RESULT-ONE" in text and "RESULT-TWO" in text and text.rstrip().endswith("assistant")
    assert trace.env_mask[:policy_tokens] == [1] * policy_tokens
