"""The self-play presets: each a complete :class:`SelfPlayConfig`.

* ``cpu-tiny``: a tiny model built and tokenised locally from the bundled suite, warm-
  started by supervised fine-tuning, then a few self-play iterations — runs end to end
  on 2 CPU cores in minutes, no download, no GPU.
* ``cpu-test``: ``cpu-tiny`` cut down further, for the test-suite.
* ``qwen3-4b`` / ``qwen3-8b`` / ``qwen3-30b-a3b`` (and their ``-tools`` variants, designing tool-use
  environments): GPU presets for Qwen3-class checkpoints (bf16, TRL's vLLM
  generation server, ``accelerate launch`` with ZeRO-3). Their sizes are global per
  iteration; ``spade-gym selfplay --plan`` prices them. Not run here.
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


#: The GPU presets' per-iteration workload, global (all ranks; selfplay/batch.py divides it).
#: 24 agent tasks of G episodes (the new designs' no-hint regret plays first, then pool
#: tasks), as the reference's 24 games per rollout (its 8B games launcher,
#: cmd/games/train_spade_8b.sh: --spade-num-games-per-rollout 24, --rollout-batch-size 24),
#: and 2 design prompts of G designs. The reference plays 16 trajectories per game, up to 25
#: turns of 8,192 tokens; here G = 8 and 12 turns of 3,072, so that an iteration plans at under
#: an hour on 8 x 80 GB (docs/selfplay.md, "Presets").
QWEN3_AGENT_TASKS = 24
QWEN3_DESIGN_PROMPTS = 2
QWEN3_G = 8


def _qwen3(size: str) -> SelfPlayConfig:
    config = SelfPlayConfig(
        preset=f"qwen3-{size}",
        model=f"Qwen/Qwen3-{size.upper()}",
        warmstart=WarmStartConfig(enabled=False),
        iterations=400,
        designer_groups=QWEN3_DESIGN_PROMPTS,
        num_generations=QWEN3_G,
        designer_prompt="full",
        designer_temperature=0.6,
        # thinking, then a program and its hint: 12k tokens (a 16k cap alone took 6 of the
        # 60 minutes on one server GPU, see --plan)
        max_program_tokens=12288,
        agent_groups=QWEN3_AGENT_TASKS,
        paired_seeds=QWEN3_G,
        agent_temperature=0.6,
        # both regret arms (with and without the hint) at one temperature, the loss's: the
        # no-hint arm is trained on, and vLLM reports log-probabilities at what it sampled
        regret_temperature=0.6,
        temperature=0.6,
        # 12 turns (the bundled games' most common limit) of up to 3k thinking tokens: at worst
        # (every reply to the cap) an iteration generates ~9.6M tokens, ~40 minutes on one
        # server GPU (--plan). 8k tokens and 25 turns would be ~5x that: hours per iteration.
        max_turn_tokens=3072,
        max_episode_tokens=16384,
        max_turns=12,
        # Qwen3 thinks before every reply: one sample per turn, earlier reasoning stripped
        # (the reference's way), so a 12-turn episode fits the 16k budget of one sample.
        sample_unit="turn",
        turn_samples=4,
        # every rank's share of episodes (about 20 per play phase on 7 ranks) in one wave
        play_concurrency=64,
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
        # The policy, its gradients and Adam's state (16 bytes a parameter: 131 GB for 8B) fit
        # no 80 GB GPU whole: sharded over the training ranks (accelerate's ZeRO-3 config).
        sharding="zero3",
        # flash attention where the flash-attn package is installed (else sdpa)
        attn_implementation="auto",
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
            # One sample per micro-batch, trimmed to its own length (selfplay/trainer.py): the
            # activations are one sample's, and no FLOP goes to another sample's padding. The
            # accumulation steps are the rest of a rank's share (the loop sets them).
            "per_device_train_batch_size": 1,
            # Ranks wait for each other at every stage of an iteration (the slowest rank's
            # episodes, the weight push): 30 minutes, TRL's default, is within one iteration.
            "ddp_timeout": 3 * 3600,
        },
    )
    return config


def _qwen3_moe() -> SelfPlayConfig:
    """Qwen3-30B-A3B (mixture of experts: 30.5B parameters, 3.3B active per token) on 8 GPUs.

    Its bf16 weights (61 GB) leave one 80 GB GPU no room for a KV cache, so the vLLM server
    is tensor-parallel over 2 GPUs (``trl vllm-serve --tensor-parallel-size 2``; expert
    parallelism is not among trl vllm-serve's options). Its training state (16 bytes a
    parameter: 488 GB) does not fit 6 GPUs even sharded, so ZeRO-3 keeps Adam's state in
    host memory (``offload_optimizer: cpu``; one optimizer step per iteration, so the host
    step costs seconds an hour). No reference model (beta 0): another 61 GB.
    """
    config = _qwen3("8b")
    config.preset = "qwen3-30b-a3b"
    config.model = "Qwen/Qwen3-30B-A3B"
    config.beta = 0.0
    config.sharding = "zero3-offload"
    config.vllm_gpus = 2
    config.vllm_tensor_parallel = 2
    return config


def _qwen3_tools(size: str) -> SelfPlayConfig:
    """The GPU recipe designing tool-use environments (SPADE's second setting)."""
    config = _qwen3_moe() if size == "30b-a3b" else _qwen3(size)
    config.preset = f"qwen3-{size}-tools"
    config.kind = "tool-use"
    return config


PRESETS = {
    "cpu-tiny": _cpu_tiny,
    "cpu-test": _cpu_test,
    "qwen3-4b": lambda: _qwen3("4b"),
    "qwen3-8b": lambda: _qwen3("8b"),
    "qwen3-30b-a3b": _qwen3_moe,
    "qwen3-4b-tools": lambda: _qwen3_tools("4b"),
    "qwen3-8b-tools": lambda: _qwen3_tools("8b"),
    "qwen3-30b-a3b-tools": lambda: _qwen3_tools("30b-a3b"),
}


def load_preset(name: str) -> SelfPlayConfig:
    try:
        return PRESETS[name]()
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}") from None

