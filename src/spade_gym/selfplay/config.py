"""Self-play configuration. No torch here: the CLI reads presets cheaply.

A preset (``selfplay/presets.py``) is a complete :class:`SelfPlayConfig`; ``--set
key=value`` overrides any field (``selfplay/overrides.py``). The options are declared here,
each with what it means; the rules across them (what :meth:`SelfPlayConfig.validate` refuses)
are :mod:`~spade_gym.selfplay.config_checks`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from spade_gym.errors import ConfigError
from spade_gym.selfplay.config_checks import ATTENTION_KERNELS as ATTENTION_KERNELS
from spade_gym.selfplay.config_checks import BUDGET_LOSSES as BUDGET_LOSSES
from spade_gym.selfplay.config_checks import check_config
from spade_gym.selfplay.rewards import RewardConfig


@dataclass
class TinyModelConfig:
    """The locally built model of the CPU presets."""

    vocab_size: int = 4096
    hidden_size: int = 128
    num_layers: int = 3
    num_heads: int = 4
    max_position_embeddings: int = 4096


@dataclass
class WarmStartConfig:
    """Supervised warm start: designer (prompt -> program + hint) and agent
    (observation -> winning answer from the privileged solution) examples."""

    enabled: bool = True
    #: What the designer part learns: "demo" (short programs outside every registered
    #: suite, see selfplay/demo_designs.py) or "seed-suite" (its shortest programs; their
    #: reproductions are rejected as copies).
    designer_source: Literal["demo", "seed-suite"] = "seed-suite"
    #: How many of those programs the designer part learns (0 = all).
    designer_programs: int = 8
    agent_examples: int = 64
    #: At most this many epochs over the agent examples (see ``warmstart.supervised_warm_start``).
    epochs: int = 30
    agent_target_loss: float = 1.0
    designer_steps_per_program: int = 150
    target_loss: float = 0.08
    learning_rate: float = 3e-3
    batch_size: int = 8
    max_tokens: int = 4096


@dataclass
class SelfPlayConfig:
    """Everything one self-play run needs (see the README's self-play section)."""

    preset: str = "custom"
    #: "tiny" builds the local model; otherwise a checkpoint path or hub id.
    model: str = "tiny"
    tiny: TinyModelConfig = field(default_factory=TinyModelConfig)
    warmstart: WarmStartConfig = field(default_factory=WarmStartConfig)
    iterations: int = 3
    seed: int = 0
    #: Suite the pool starts from and the warm start learns (default: the bundled suite).
    seed_suite: str | None = None

    # --- design
    #: "policy": the trained policy designs (SPADE). "openai": a served model designs
    #: (any OpenAI-compatible server: ``designer_base_url`` + ``designer_model``); only the
    #: agent trains, and regret still decides the frontier memory and the task sampling.
    designer: Literal["policy", "openai"] = "policy"
    designer_base_url: str | None = None
    designer_model: str | None = None
    designer_api_key_env: str = "OPENAI_API_KEY"
    #: Design prompts per iteration, all ranks together (G designs each); divided across the
    #: ranks by ``selfplay/batch.py``, so the batch is the same on any number of GPUs.
    designer_groups: int = 1
    num_generations: int = 4
    #: What the designer writes: "game", "tool-use" (SPADE's second setting: programs on
    #: ToolUseBaseEnv, played with native tool calls) or "mix" (skills of both, in turn).
    kind: Literal["game", "tool-use", "mix"] = "game"
    #: Skills to design for (default: every skill of ``kind``).
    skills: tuple[str, ...] = ()
    multi_turn_ratio: float = 0.5
    #: "rotate" (skills in turn, multi-turn by ratio) or "warmstart" (the (skill, multi-turn)
    #: pairs the warm start taught — a tiny model can only design what it has seen).
    designer_targets: Literal["rotate", "warmstart"] = "rotate"
    #: "full" (the designer prompt of `generate`) or "compact" (skill + format only; tiny models).
    designer_prompt: Literal["full", "compact"] = "full"
    #: Sampling temperature of designs. Log-probabilities are always reported at the loss
    #: ``temperature``; with vLLM the two must be equal (see ``selfplay/generation.py``).
    designer_temperature: float = 0.7
    max_program_tokens: int = 8192
    memory_k: int = 2
    #: Design every this many iterations (1, 1 + k, 1 + 2k, ...; the reference regenerates every
    #: 4): in between, the agent plays the pool (the new designs among it) and the designer's
    #: slots hold no loss unless delayed design samples are due (``reward.designer_reward_delay``).
    design_every: int = 1
    #: Skills each design round covers (0: all, in rotation): that many are drawn afresh each
    #: round, the same on every rank, and the round's design groups take them in turn (the
    #: reference draws 3 of its 6 skills per regeneration).
    design_skills: int = 0
    #: Self-hint (the reference's hint mode "self"): after its program, the policy writes the
    #: hint in a second generation, prompted with the program, at ``self_hint_temperature``
    #: (the reference's 0.3) and up to ``self_hint_max_tokens``; that hint replaces any
    #: ``<hint>`` of the design. Not trained on. A program's own ``hint()`` still takes precedence
    #: in play (it is part of the program).
    self_hint: bool = False
    self_hint_temperature: float = 0.3
    self_hint_max_tokens: int = 4096

    # --- play
    #: Agent tasks per iteration, all ranks together (G episodes of one environment and seed
    #: each; the no-hint regret plays of new designs first, then pool tasks).
    agent_groups: int = 2
    paired_seeds: int = 4
    agent_temperature: float = 0.8
    #: Temperature of the paired regret plays, both arms: with and without the hint (None:
    #: agent_temperature). One temperature for both, so regret measures what the hint is
    #: worth and nothing of what a temperature is worth. The no-hint arm is trained on
    #: (``train_on_regret_plays``), so with vLLM it must then equal the loss ``temperature``.
    #: (The hint itself is written by the designer, in the same completion as its program:
    #: at ``designer_temperature``.)
    regret_temperature: float | None = None
    max_turn_tokens: int = 1024
    #: Token budget of one agent training sample: a whole episode's completion tokens
    #: (sample_unit "episode"), or one turn's prompt plus its reply ("turn").
    max_episode_tokens: int = 8192
    max_turns: int = 12
    #: What one agent training sample is: "episode" (one sequence, every earlier turn in
    #: context, reasoning included) or "turn" (one sample per turn, generated from the
    #: conversation with earlier turns' reasoning stripped; the reference's way for
    #: thinking models). Every turn of an episode gets the episode's advantage.
    sample_unit: Literal["episode", "turn"] = "episode"
    #: With sample_unit "turn": GRPO groups each agent task takes, one turn of each of its
    #: G episodes per group; shorter episodes are padded with masked samples, longer ones
    #: are trained on this many of their turns, drawn uniformly (see selfplay/turns.py).
    turn_samples: int = 4
    #: Episodes one rank plays at once (each holds a sandbox worker); more wait for a free place.
    play_concurrency: int = 32
    #: Validation seeds for designed programs (the validator's default is 16).
    validation_seeds: int = 8
    #: Reject designs without a hint (regret would compare two identical arms).
    require_hint: bool = True
    #: Structural similarity at or above which a design counts as a copy (of any registered
    #: program, or of another design in the same batch).
    novelty_threshold: float = 0.95
    #: Rejected designs kept with their reports under rejected/ (at most this many).
    keep_rejected: int = 200
    #: Train the agent on its no-hint regret plays (one GRPO group per design; needs
    #: paired_seeds == num_generations).
    train_on_regret_plays: bool = True
    #: How agent tasks are drawn from the pool: "learning-potential" (environments near a
    #: 50% win rate first, as the paper) or "uniform".
    agent_task_sampling: Literal["learning-potential", "uniform"] = "learning-potential"
    #: Share of each rank's agent tasks (rounded down) always drawn from the pool, however many
    #: regret groups there are: without it the agent stops sampling the pool as soon as the
    #: new designs' regret plays fill its task budget.
    pool_task_share: float = 0.25

    # --- rewards and update
    reward: RewardConfig = field(default_factory=RewardConfig)
    #: The loss temperature: TRL recomputes every sample's log-probabilities at it.
    temperature: float = 0.8
    #: Iterations before the designer's samples carry a loss (the paper waits 4): the agent
    #: first adapts, so early regret is not just an untrained agent's noise.
    designer_training_delay: int = 0
    learning_rate: float = 1e-6
    beta: float = 0.0
    #: A checkpoint every this many iterations (and after the last one). A kill loses the
    #: iterations since the last checkpoint; a resume replays them exactly.
    save_steps: int = 1
    #: Checkpoints kept, the newest (None: all). At least 2: TRL deletes the old ones when it
    #: writes a new one, before the loop commits it (``spade_state.json``), so a kill in
    #: between must still find the previous one.
    save_total_limit: int | None = 2
    # --- memory
    #: Token budget of one forward pass in training (None: TRL's micro-batches of
    #: ``grpo.per_device_train_batch_size`` rows, shuffled). Set: a rank's samples are packed
    #: into its micro-batches by length — longest first, each into the micro-batch it adds the
    #: fewest padded tokens to — so a micro-batch holds rows of similar length, as many as the
    #: budget allows, and no more than ``micro_batch_tokens`` padded tokens where the samples
    #: allow it with that many micro-batches (``metrics.jsonl``: ``micro_batch_tokens_max``,
    #: ``micro_batches_over_budget``). The number of micro-batches is still a rank's share /
    #: ``grpo.per_device_train_batch_size`` (default 1 with a budget): every rank runs the same
    #: number of forward and backward passes, which ZeRO-3's collectives need.
    micro_batch_tokens: int | None = None
    #: Pack each forward pass's samples into one sequence, no padding tokens at all, with
    #: positions restarting per sample (transformers then masks attention per sample: with
    #: flash attention by sequence boundaries, otherwise with a block-diagonal mask of
    #: (tokens)^2 bytes). TRL's GRPOConfig has no padding-free option; the trainer does it.
    padding_free: bool = False
    #: The policy's attention kernel, passed to ``from_pretrained`` (None: transformers'
    #: default; "auto": flash_attention_2 where the flash-attn package and a GPU are there, else sdpa).
    attn_implementation: str | None = None
    #: Extra fields passed to TRL's GRPOConfig as they are (bf16, use_vllm, ...). The loop
    #: sets the batch itself: ``per_device_train_batch_size`` is the micro-batch (default: a
    #: rank's whole share), gradient accumulation is the rest of the share (one iteration is
    #: one optimizer step). ``ddp_timeout`` (seconds) bounds every collective of the run.
    grpo: dict[str, Any] = field(default_factory=dict)
    # --- launch: set by the commands that start the run (accelerate's --config_file, trl
    # vllm-serve); stated here so that --plan prices them and the loop warns on a mismatch
    #: How the training state is sharded: "none" (DDP: every rank holds the policy, its
    #: gradients and Adam's state), "zero3" (DeepSpeed ZeRO-3 or FSDP full sharding: held once
    #: across the ranks) or "zero3-offload" (ZeRO-3 with Adam's state in host memory).
    sharding: Literal["none", "zero3", "zero3-offload"] = "none"
    #: GPUs the launch gives `trl vllm-serve` (vllm_mode=server), and its tensor-parallel size.
    vllm_gpus: int = 1
    vllm_tensor_parallel: int = 1
    report_to: tuple[str, ...] = ("tensorboard",)
    #: torch's intra-op threads (None: torch's default). The CPU presets use 1: sandbox
    #: workers run beside the model, and an oversubscribed OpenMP pool spins (measured
    #: 20x slower training steps on a loaded 2-core machine).
    torch_threads: int | None = None

    def validate(self, world: int | None = None) -> None:
        """Refuse what cannot run (:func:`~spade_gym.selfplay.config_checks.check_config`). With
        ``world`` (the number of training ranks, known once the run is launched, or planned) also
        whether the global batch divides over them (``selfplay/batch.py``)."""
        check_config(self, world)

    def micro_batch_rows(self, slots_per_rank: int) -> int:
        """Rows of one of TRL's micro-batches (its ``per_device_train_batch_size``): as set, else 1
        with a token budget (the packer then fills a rank's share of micro-batches by tokens), else
        a rank's whole share (one micro-batch)."""
        micro = self.grpo.get("per_device_train_batch_size")
        if micro is not None:
            return int(micro)
        return 1 if self.micro_batch_tokens is not None else slots_per_rank

    def designs_at(self, iteration: int) -> bool:
        """Whether ``iteration`` (1-based) is a design round (``design_every``)."""
        return (iteration - 1) % self.design_every == 0

    def check_ranks(self, world: int) -> None:
        """The global batch divides over ``world`` training ranks, and the micro-batch over a rank's share."""
        from spade_gym.selfplay.batch import batch_layout

        layout = batch_layout(self, world)
        micro = self.grpo.get("per_device_train_batch_size")
        if micro is not None and layout.slots_per_rank % micro:
            raise ConfigError(
                f"grpo.per_device_train_batch_size={micro} does not divide a rank's {layout.slots_per_rank} samples "
                f"per iteration ({world} rank(s)); choose a divisor (1 always works)")

    @property
    def regret_play_temperature(self) -> float:
        """The one temperature of both regret arms."""
        return self.agent_temperature if self.regret_temperature is None else self.regret_temperature

    @property
    def regret_plays_trained(self) -> bool:
        """Whether the agent trains on its no-hint regret plays (one GRPO group per design)."""
        return self.train_on_regret_plays and self.paired_seeds == self.num_generations

    def skill_names(self) -> list[str]:
        """The skills designs rotate over."""
        from spade_gym.generate.prompts import skill_by_name, skills_for

        if self.skills:
            return [skill_by_name(s).name for s in self.skills]
        if self.kind == "mix":
            games, tools = list(skills_for("game")), list(skills_for("tool-use"))
            # alternate the two kinds, so a design batch holds both
            return [s for pair in zip(games, tools * len(games)) for s in pair]
        return list(skills_for(self.kind))

    @property
    def ddp_timeout_s(self) -> float:
        """Seconds any collective may wait (``grpo.ddp_timeout``, TRL's default 1800)."""
        return float(self.grpo.get("ddp_timeout", 1800))

    @property
    def batch_size(self) -> int:
        """Trained samples per iteration, all ranks together (padding slots not counted, see
        ``selfplay/batch.py``): one GRPO group per designer prompt and per agent task
        (``turn_samples`` per task with per-turn samples); a served designer's designs are
        not trained on, so they take no slot."""
        trained_design_groups = self.designer_groups if self.designer == "policy" else 0
        per_task = self.turn_samples if self.sample_unit == "turn" else 1
        return (trained_design_groups + self.agent_groups * per_task) * self.num_generations

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SelfPlayConfig:
        data = dict(data)
        if "hint_temperature" in data:
            # Removed: the with-hint arm sampled at its own temperature, which confounded regret.
            legacy = data.pop("hint_temperature")
            if legacy is not None:
                raise ConfigError(
                    f"hint_temperature={legacy} is no longer a setting: both regret arms (with and without the "
                    "hint) now sample at regret_temperature (default: agent_temperature), so regret does not "
                    "measure a temperature difference. Remove hint_temperature from the config (a run started "
                    "with it resumes under the new rule, not exactly as it would have gone on)")
        nested = {"tiny": TinyModelConfig, "warmstart": WarmStartConfig, "reward": RewardConfig}
        try:
            for key, kind in nested.items():
                if key in data and isinstance(data[key], dict):
                    data[key] = kind(**data[key])
            for key in ("skills", "report_to"):
                if key in data and isinstance(data[key], list):
                    data[key] = tuple(data[key])
            return cls(**data)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"bad self-play config: {exc}") from None

