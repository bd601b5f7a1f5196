"""``spade-gym selfplay --plan``: the cost of one iteration, from the configuration and
stated assumptions (selfplay/plan.py; formulas in its docstring and docs/selfplay.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from spade_gym.cli import main
from spade_gym.errors import ConfigError
from spade_gym.selfplay.config import SelfPlayConfig, TinyModelConfig
from spade_gym.selfplay.plan import (
    KNOWN_MODELS,
    Assumptions,
    parse_assumptions,
    plan_iteration,
)
from spade_gym.selfplay.presets import load_preset


def test_a_hand_computed_plan():
    """A tiny model (hidden 64, 2 layers, 2 heads of 32, vocab 1000, MLP 256), 3 GPUs (1 vLLM
    server + 2 training ranks); designer_groups=2, agent_groups=6, G=4, paired_seeds=4,
    whole-episode samples, max_program_tokens=1000, max_turn_tokens=100, max_turns=5,
    max_episode_tokens=400, micro-batch 1, gradient checkpointing, beta 0. Assumptions:
    1,000 tokens/s (server), 10 tokens/s per sequence, programs half the cap, half the
    designs valid, design prompt 200, first prompt 100, feedback 20, 1e12 FLOP/s at 50%
    MFU, 10 s per validation (4 workers), weight push 1 GB/s.

    Parameters: attention 64*64 + 2*64*64 + 64*64 = 16,384; MLP 3*64*256 = 49,152; 2 layers
    = 131,072; embedding + LM head 2*1000*64 = 128,000; P = 259,072.

    Work: 2*4 = 8 designs of 0.5*1000 = 500 tokens = 4,000 generated, 8*(200+500) = 5,600
    trained. An episode: min(5*100, 400) = 400 generated, 100 + min(5*(100+20), 400) = 500
    trained. Valid 0.5*8 = 4 designs: 2*4*4 = 32 regret episodes, 32*400 = 12,800 tokens,
    5 turns each = 160 prompts; their no-hint plays train min(4, 6) = 4 groups = 16 samples,
    4*4*500 = 8,000 tokens. Pool tasks 6 - 4 = 2: 8 episodes, 3,200 tokens, 8 samples,
    4,000 trained. Samples per step: 8 + 16 + 8 = 32 (ranks: designs [1, 1], tasks [3, 3],
    4 slot groups each, no padding).

    Time: design max(4,000/1,000, 1,000/10) = 100 s; regret plays: rank loads [16, 16]
    episodes (the designs' no-hint groups alternate between the ranks, the 16 with-hint
    plays are dealt evenly), one wave (play_concurrency 32), max(12,800/1,000,
    1*5*100/10) = 50 s; task plays (4 episodes a rank) max(3.2, 50) = 50 s; validation
    ceil(4 designs a rank / 4 workers) * 10 = 10 s; push 259,072*2/1e9 = 0.000518 s;
    training: 5 passes (3 + recompute + old log-probabilities), FLOPs per token 2P + 2*2*64*L
    = 518,144 + 256 L; designs 5,600*(518,144 + 256*700) = 3,905,126,400; agent samples
    (longest 100 + 400 = 500) 12,000*(518,144 + 128,000) = 7,753,728,000; 5 * 11,658,854,400
    / (2 * 1e12 * 0.5) = 0.0583 s. Total 210.06 s.

    Memory per training rank (no sharding): state 16 P = 4,145,152 B; one micro-batch at the
    longest sample, max(200 + 1,000, 500) = 1,200 tokens: checkpoints 1,200*64*2*2 = 307,200
    + one layer 1,200*2*(6*64 + 4*256) = 3,379,200 + LM head input 1,200*64*4 = 307,200 =
    3,993,600 B; peak (4,145,152 + 3,993,600)*1.1 + 2e9 = 2,008,952,627 B = 2.009 GB.
    vLLM GPU: 80e9*0.9 - 518,144 - 2e9 = 69,999,481,856 B of KV cache at 2*2*2*32*2 = 512 B a
    token = 136.7M tokens.
    """
    config = SelfPlayConfig(
        model="tiny", tiny=TinyModelConfig(vocab_size=1000, hidden_size=64, num_layers=2, num_heads=2),
        designer_groups=2, agent_groups=6, num_generations=4, paired_seeds=4, sample_unit="episode",
        max_program_tokens=1000, max_turn_tokens=100, max_turns=5, max_episode_tokens=400, beta=0.0,
        grpo={"use_vllm": True, "vllm_mode": "server", "gradient_checkpointing": True,
              "per_device_train_batch_size": 1})
    assumptions = Assumptions(tokens_per_s=1000, seq_tokens_per_s=10, program_fill=0.5, design_prompt_tokens=200,
                              first_prompt_tokens=100, feedback_tokens=20, gpu_flops=1e12, mfu=0.5, validate_s=10,
                              sync_gb_per_s=1)
    plan = plan_iteration(config, gpus=3, assumptions=assumptions)
    assert (plan.params, plan.train_ranks, plan.vllm_gpus) == (259_072, 2, 1)
    roles = {r.role: (r.prompts, r.episodes, r.samples, r.tokens_generated, r.tokens_trained) for r in plan.roles}
    assert roles == {"designer": (8, 0, 8, 4_000, 5_600), "agent: regret plays": (160, 32, 16, 12_800, 8_000),
                     "agent: task plays": (40, 8, 8, 3_200, 4_000)}
    assert (plan.samples_per_step, plan.padding_samples, plan.micro_batch, plan.padded_length) == (32, 0, 1, 1200)
    assert plan.generation_s == {"design": 100.0, "regret plays": 50.0, "task plays": 50.0}
    assert plan.validation_s == 10.0
    assert plan.sync_s == pytest.approx(0.000518144)
    assert plan.training_s == pytest.approx(5 * 11_658_854_400 / 1e12)
    assert plan.iteration_s == pytest.approx(210.0588, abs=1e-3)
    assert plan.memory_gb["state"] * 1e9 == pytest.approx(4_145_152)
    assert plan.memory_gb["activations"] * 1e9 == pytest.approx(3_993_600)
    assert plan.memory_gb["peak"] == pytest.approx(2.008952627)
    assert plan.vllm_memory_gb["kv_tokens"] == pytest.approx(136_717_737, abs=2)


def hand_computed_config(**changes) -> SelfPlayConfig:
    config = SelfPlayConfig(
        model="tiny", tiny=TinyModelConfig(vocab_size=1000, hidden_size=64, num_layers=2, num_heads=2),
        designer_groups=2, agent_groups=6, num_generations=4, paired_seeds=4, sample_unit="episode",
        max_program_tokens=1000, max_turn_tokens=100, max_turns=5, max_episode_tokens=400, beta=0.0,
        grpo={"use_vllm": True, "vllm_mode": "server", "gradient_checkpointing": True})
    for key, value in changes.items():
        setattr(config, key, value)
    return config


HAND_ASSUMPTIONS = Assumptions(tokens_per_s=1000, seq_tokens_per_s=10, program_fill=0.5, design_prompt_tokens=200,
                               first_prompt_tokens=100, feedback_tokens=20, gpu_flops=1e12, mfu=0.5, validate_s=10,
                               sync_gb_per_s=1)


def test_the_recipe_options_and_the_token_budget_in_the_hand_computed_plan():
    """The example above with self_hint (hints of up to 200 tokens), design_every=2 and a
    2,000-token budget per micro-batch (no per_device_train_batch_size: 1 row a micro-batch
    nominally, 16 micro-batches a rank, rows packed by length).

    Design iteration: as above (210.0588 s) + hints: 8 prompts, 8*200 = 1,600 tokens,
    max(1,600/1,000, 200/10) = 20 s: 230.0588 s. Between design rounds: no design, no
    validation, no regret plays; the 6 tasks all from the pool: 24 episodes, 9,600 tokens
    (12 a rank, one wave): max(9.6, 5*100/10) = 50 s; push 0.000518 s; training 24*500 =
    12,000 tokens * (518,144 + 256*500) * 5 / 1e12 = 0.0387686 s: 50.0392866 s. Mean of the
    cycle (230.0588 + 50.0393)/2 = 140.049 s.

    Memory: a micro-batch at the budget, T = max(2,000, longest 1,200, 8,800 tokens a rank /
    16) = 2,000: checkpoints 2,000*64*2*2 = 512,000 + one layer 2,000*2*(6*64 + 4*256) =
    5,632,000 + LM head input 2,000*64*4 = 512,000 = 6,656,000 B."""
    config = hand_computed_config(self_hint=True, self_hint_max_tokens=200, design_every=2, micro_batch_tokens=2000)
    plan = plan_iteration(config, gpus=3, assumptions=HAND_ASSUMPTIONS)
    roles = {r.role: (r.prompts, r.samples, r.tokens_generated, r.tokens_trained) for r in plan.roles}
    assert roles["designer: hints"] == (8, 0, 1_600, 0)
    assert plan.generation_s["hints"] == 20.0
    assert plan.iteration_s == pytest.approx(230.0588, abs=1e-3)
    assert plan.between_s == pytest.approx(50.0392866, abs=1e-6)
    assert plan.mean_iteration_s == pytest.approx((230.0588 + 50.0392866) / 2, abs=1e-3)
    assert (plan.micro_batch, plan.micro_batches, plan.memory_gb["micro_batch_tokens"]) == (1, 16, 2000)
    assert plan.memory_gb["activations"] * 1e9 == pytest.approx(6_656_000)
    between = plan_iteration(config, gpus=3, assumptions=HAND_ASSUMPTIONS, designing=False)
    assert between.generation_s == {"design": 0.0, "regret plays": 0.0, "task plays": 50.0, "hints": 0.0}
    assert between.validation_s == 0.0
    # packed without flash attention: a (tokens)^2 block mask on top; flash attention: none
    packed = plan_iteration(hand_computed_config(micro_batch_tokens=2000, padding_free=True), gpus=3,
                            assumptions=HAND_ASSUMPTIONS)
    assert packed.memory_gb["attention"] * 1e9 == pytest.approx(2000 ** 2)
    flash = plan_iteration(hand_computed_config(micro_batch_tokens=2000, padding_free=True,
                                                attn_implementation="flash_attention_2"), gpus=3,
                           assumptions=HAND_ASSUMPTIONS)
    assert flash.memory_gb["attention"] == 0.0
    assert flash.memory_gb["activations"] * 1e9 == pytest.approx(6_656_000)


def test_qwen3_8b_plans_within_an_hour_on_eight_80gb_gpus():
    """The target: 1 GPU for `trl vllm-serve`, 7 training ranks (ZeRO-3), at 4,000 generated
    tokens/s on the server GPU, with every reply and program running to its cap."""
    plan = plan_iteration(load_preset("qwen3-8b"), gpus=8)
    assert plan.train_ranks == 7 and plan.vllm_gpus == 1
    assert plan.iteration_s <= 3600, plan.iteration_s
    assert plan.fits and plan.memory_gb["peak"] <= 80
    assert plan.samples_per_step == 896 and plan.padding_samples == 112
    # and the same global batch on 16 GPUs
    assert plan_iteration(load_preset("qwen3-8b"), gpus=16, vllm_gpus=2).samples_per_step - \
        plan_iteration(load_preset("qwen3-8b"), gpus=16, vllm_gpus=2).padding_samples == 784


def test_the_old_recipe_did_not_fit():
    """Unsharded (DDP), the 8B policy with fp32 weights, gradients and Adam state needs
    ~131 GB per device: the plan says so."""
    config = load_preset("qwen3-8b")
    config.sharding = "none"
    plan = plan_iteration(config, gpus=8)
    assert not plan.fits and plan.memory_gb["state"] > 130


def test_every_known_model_has_its_published_size():
    sizes = {name: shape.params / 1e9 for name, shape in KNOWN_MODELS.items()}
    assert sizes["Qwen/Qwen3-8B"] == pytest.approx(8.19, abs=0.01)
    assert sizes["Qwen/Qwen3-4B"] == pytest.approx(4.02, abs=0.01)
    assert sizes["Qwen/Qwen3-30B-A3B"] == pytest.approx(30.5, abs=0.1)
    assert KNOWN_MODELS["Qwen/Qwen3-30B-A3B"].active_params / 1e9 == pytest.approx(3.3, abs=0.1)


def test_plan_from_the_cli_for_any_preset_and_overrides(tmp_path):
    out = tmp_path / "r"
    result = CliRunner().invoke(main, ["selfplay", "--preset", "qwen3-8b", "--output", str(out), "--plan",
                                       "--gpus", "8", "--tokens-per-s", "4000"])
    assert result.exit_code == 0, result.output
    for text in ("7 training rank(s) + 1 for `trl vllm-serve`", "agent: regret plays", "samples per optimizer step",
                 "Peak memory per training device", "tokens_per_s=4000"):
        assert text in result.output
    assert not out.exists()  # nothing run, nothing written
    result = CliRunner().invoke(main, ["selfplay", "--preset", "qwen3-4b", "--output", str(out), "--plan", "--json",
                                       "--set", "agent_groups=48", "--assume", "turns=6", "--gpus", "16"])
    data = json.loads(result.output)
    assert data["roles"][2]["samples"] > 0 and data["assumptions"]["turns"] == 6 and data["train_ranks"] == 15
    result = CliRunner().invoke(main, ["selfplay", "--preset", "cpu-tiny", "--output", str(out), "--plan",
                                       "--gpus", "1"])
    assert result.exit_code == 0 and "generation: transformers" in result.output


def test_plan_and_show_config_need_no_run_directory():
    result = CliRunner().invoke(main, ["selfplay", "--preset", "qwen3-8b", "--plan", "--gpus", "8"])
    assert result.exit_code == 0 and "Peak memory per training device" in result.output, result.output
    assert CliRunner().invoke(main, ["selfplay", "--show-config"]).exit_code == 0
    result = CliRunner().invoke(main, ["selfplay", "--preset", "cpu-tiny"])
    assert result.exit_code == 2 and "Missing option '--output'" in result.output, result.output


def test_plan_refusals_are_one_line(tmp_path):
    for args, message in ((["--gpus", "1"], "leaves no GPU for training"),
                          (["--assume", "bogus=1"], "expected KEY=VALUE"),
                          (["--assume", "mfu=-1"], "must be a number > 0"),
                          (["--gpus", "2", "--set", "agent_groups=0", "--set", "designer_groups=0"], "at least one")):
        result = CliRunner().invoke(main, ["selfplay", "--preset", "qwen3-8b", "--output", str(tmp_path / "r"),
                                           "--plan", *args])
        assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output, result.output
    with pytest.raises(ConfigError):
        parse_assumptions(["turns"])


def test_the_plan_imports_no_torch():
    code = ("import sys; from spade_gym.selfplay.plan import plan_iteration; from spade_gym.selfplay import "
            "load_preset; plan_iteration(load_preset('qwen3-8b'), gpus=8); "
            "print(sorted(m for m in ('torch', 'transformers', 'trl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
