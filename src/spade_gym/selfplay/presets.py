"""The self-play presets: each a complete :class:`SelfPlayConfig`.

* ``cpu-tiny``: a tiny model built and tokenised locally from the bundled suite, warm-
  started by supervised fine-tuning, then a few self-play iterations — runs end to end
  on 2 CPU cores in minutes, no download, no GPU.
* ``cpu-test``: ``cpu-tiny`` cut down further, for the test-suite.
* ``qwen3-4b`` / ``qwen3-8b``: GPU presets for Qwen3-class checkpoints (bf16, TRL's vLLM
  generation server, ``accelerate launch``). Documented in the README; not run here.
"""

from __future__ import annotations

from spade_gym.errors import ConfigError
from spade_gym.selfplay.config import SelfPlayConfig, TinyModelConfig, WarmStartConfig
from spade_gym.selfplay.rewards import RewardConfig


def _cpu_tiny() -> SelfPlayConfig:
    return SelfPlayConfig(
        preset="cpu-tiny",
        model="tiny",
        tiny=TinyModelConfig(vocab_size=4096, hidden_size=128, num_layers=3, num_heads=4),
        # The agent part is the costly one (batches of long observations): 16 short examples
        # teach the answer format; the designer part needs ~90 steps per program.
        warmstart=WarmStartConfig(designer_source="demo", designer_programs=2, agent_examples=16, epochs=20,
                                  learning_rate=3e-3, batch_size=8, max_tokens=512, target_loss=0.03,
                                  designer_steps_per_program=250),
        iterations=3,
        designer_groups=1,
        num_generations=4,
        designer_prompt="compact",
        designer_targets="warmstart",
        designer_temperature=0.15,
        max_program_tokens=640,
        agent_groups=2,
        paired_seeds=4,
        agent_temperature=0.8,
        max_turn_tokens=48,
        max_episode_tokens=384,
        max_turns=6,
        validation_seeds=6,
        learning_rate=1e-4,
        beta=0.0,
        grpo={"use_cpu": True, "bf16": False},
        torch_threads=1,
    )


def _cpu_test() -> SelfPlayConfig:
    config = _cpu_tiny()
    config.preset = "cpu-test"
    # The designer part must reproduce its one program reliably, not just about (a loss near 0.08
    # leaves the tiny model one token-slip from garbled code), so it trains to cpu-tiny's target.
    config.warmstart = WarmStartConfig(designer_source="demo", designer_programs=1, agent_examples=8, epochs=8,
                                       learning_rate=3e-3, batch_size=8, max_tokens=768, target_loss=0.03,
                                       designer_steps_per_program=250)
    config.max_program_tokens = 320
    config.iterations = 2
    config.num_generations = 4
    config.designer_temperature = 0.2
    config.agent_groups = 1
    config.paired_seeds = 4
    config.max_turn_tokens = 24
    config.max_episode_tokens = 96
    config.max_turns = 3
    config.validation_seeds = 4
    config.report_to = ()
    return config


def _qwen3(size: str) -> SelfPlayConfig:
    config = SelfPlayConfig(
        preset=f"qwen3-{size}",
        model=f"Qwen/Qwen3-{size.upper()}",
        warmstart=WarmStartConfig(enabled=False),
        iterations=400,
        designer_groups=8,
        num_generations=16,
        designer_prompt="full",
        designer_temperature=0.6,
        max_program_tokens=16384,
        agent_groups=16,
        paired_seeds=16,
        agent_temperature=0.6,
        # both regret arms (with and without the hint) at one temperature, the loss's: the
        # no-hint arm is trained on, and vLLM reports log-probabilities at what it sampled
        regret_temperature=0.6,
        temperature=0.6,
        max_turn_tokens=8192,
        max_episode_tokens=32768,
        max_turns=25,
        # Qwen3 thinks before every reply: one sample per turn, earlier reasoning stripped
        # (the reference's way), so a 25-turn episode fits the 32k budget of one sample.
        sample_unit="turn",
        turn_samples=4,
        validation_seeds=16,
        # the reference: blend, win rate over a 4-iteration window, per-skill centred designer
        # advantage, designs trained 4 iterations after they were drawn (rewarded then)
        reward=RewardConfig(mode="paper", win_rate_window=4, skill_centring=True, designer_reward_delay=4),
        # the delay above already keeps the designer's loss off for the first 4 iterations
        designer_training_delay=0,
        learning_rate=1e-6,
        beta=0.0 if size == "4b" else 0.005,
        # A checkpoint holds the policy and Adam's state (about 14 bytes a parameter: ~110 GB
        # for 8B): one every 5 iterations, the newest 2 kept (the fewest that survive a kill
        # while TRL writes the next). A kill replays at most 5 iterations, exactly.
        save_steps=5,
        save_total_limit=2,
        grpo={
            "bf16": True,
            "gradient_checkpointing": True,
            "use_vllm": True,
            "vllm_mode": "server",
            # per-token truncated importance sampling (the reference's TIS) of samples drawn by
            # vLLM or, for delayed designs, by the policy of 4 updates ago
            "vllm_importance_sampling_mode": "token_truncate",
            "epsilon": 0.2,
            "epsilon_high": 0.28,
            # the reference's optimiser: Adam, constant lr 1e-6, weight decay 0.1, beta2 0.98
            "weight_decay": 0.1,
            "adam_beta2": 0.98,
            "lr_scheduler_type": "constant",
            "per_device_train_batch_size": 8,
        },
    )
    # TRL's generation batch (per device x accumulation steps) is one iteration's samples.
    config.grpo["gradient_accumulation_steps"] = config.batch_size // config.grpo["per_device_train_batch_size"]
    return config


def _qwen3_tools(size: str) -> SelfPlayConfig:
    """The GPU recipe designing tool-use environments (SPADE's second setting)."""
    config = _qwen3(size)
    config.preset = f"qwen3-{size}-tools"
    config.kind = "tool-use"
    return config


PRESETS = {
    "cpu-tiny": _cpu_tiny,
    "cpu-test": _cpu_test,
    "qwen3-4b": lambda: _qwen3("4b"),
    "qwen3-8b": lambda: _qwen3("8b"),
    "qwen3-4b-tools": lambda: _qwen3_tools("4b"),
    "qwen3-8b-tools": lambda: _qwen3_tools("8b"),
}


def load_preset(name: str) -> SelfPlayConfig:
    try:
        return PRESETS[name]()
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}") from None

