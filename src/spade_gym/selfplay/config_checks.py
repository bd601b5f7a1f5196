"""What a self-play config may not be: the refusals of :meth:`SelfPlayConfig.validate`.

:mod:`~spade_gym.selfplay.config` holds the options (each documented where it is declared);
this module holds the rules across them (ranges, combinations TRL or the loop cannot run,
settings that belong to the loop, not to ``grpo.*``), so that a bad config fails with a
message naming the fix before any process group or model load. No torch here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spade_gym.errors import ConfigError

if TYPE_CHECKING:
    from spade_gym.selfplay.config import SelfPlayConfig

#: TRL losses normalised by the tokens of the whole accumulated batch: exact under any
#: split of the batch into micro-batches (``micro_batch_tokens`` needs one).
BUDGET_LOSSES = ("dapo", "cispo", "vespo")
#: ``attn_implementation`` values transformers knows by name (hub kernels "owner/name" too).
ATTENTION_KERNELS = ("auto", "eager", "sdpa", "flash_attention_2", "flash_attention_3", "flex_attention")


def check_config(config: SelfPlayConfig, world: int | None = None) -> None:
    """Refuse what cannot run. With ``world`` (the number of training ranks, known once the
    run is launched, or planned) also whether the global batch divides over them
    (``selfplay/batch.py``)."""
    if config.iterations < 1:
        raise ConfigError("iterations must be >= 1")
    _check_recipe_options(config)
    if not 0.0 <= config.pool_task_share <= 1.0:
        raise ConfigError(f"pool_task_share must lie in [0, 1], got {config.pool_task_share}")
    if config.num_generations < 2:
        raise ConfigError("num_generations must be >= 2 (GRPO compares samples within a group)")
    if config.designer_groups < 0 or config.agent_groups < 0 or config.designer_groups + config.agent_groups < 1:
        raise ConfigError("need at least one designer or agent group per iteration")
    if config.paired_seeds < 1:
        raise ConfigError("paired_seeds must be >= 1")
    if config.play_concurrency < 1:
        raise ConfigError("play_concurrency must be >= 1")
    if config.sharding not in ("none", "zero3", "zero3-offload"):
        raise ConfigError("sharding must be 'none', 'zero3' or 'zero3-offload'")
    if config.vllm_gpus < 0 or config.vllm_tensor_parallel < 1 or \
            (config.vllm_gpus and config.vllm_gpus % config.vllm_tensor_parallel):
        raise ConfigError("vllm_gpus must be a multiple of vllm_tensor_parallel (>= 1)")
    if config.sample_unit not in ("episode", "turn"):
        raise ConfigError("sample_unit must be 'episode' or 'turn'")
    if config.turn_samples < 1:
        raise ConfigError("turn_samples must be >= 1")
    if config.designer_targets not in ("rotate", "warmstart"):
        raise ConfigError("designer_targets must be 'rotate' or 'warmstart'")
    if config.designer_prompt not in ("full", "compact"):
        raise ConfigError("designer_prompt must be 'full' or 'compact'")
    if not 0 <= config.multi_turn_ratio <= 1:
        raise ConfigError("multi_turn_ratio must be in [0, 1]")
    if config.designer == "openai" and not (config.designer_base_url and config.designer_model):
        raise ConfigError("the served designer needs designer_base_url and designer_model "
                          "(--base-url URL --model NAME)")
    if config.designer == "openai" and config.agent_groups < 1:
        raise ConfigError("with a served designer only the agent trains: agent_groups must be >= 1")
    if config.skills:
        from spade_gym.generate.prompts import skill_by_name

        for skill in config.skills:
            try:
                found = skill_by_name(skill)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
            if config.kind != "mix" and found.kind != config.kind:
                raise ConfigError(f"skill {found.name!r} designs {found.kind} environments, not {config.kind} "
                                  "ones (set kind=mix to use both)")
    if not 0 < config.novelty_threshold <= 1:
        raise ConfigError("novelty_threshold must be in (0, 1]")
    if config.designer_training_delay < 0 or config.keep_rejected < 0:
        raise ConfigError("designer_training_delay and keep_rejected must be >= 0")
    if config.temperature <= 0:
        raise ConfigError("temperature (the loss temperature) must be > 0")
    if config.save_steps < 1:
        raise ConfigError("save_steps must be >= 1 (a checkpoint every that many iterations)")
    if config.save_total_limit is not None and config.save_total_limit < 2:
        raise ConfigError("save_total_limit must be >= 2 (or null: keep all): TRL deletes old checkpoints "
                          "before the new one is committed, so a kill in between needs the previous one")
    for key in ("gradient_accumulation_steps", "steps_per_generation", "generation_batch_size"):
        if key in config.grpo:
            raise ConfigError(f"grpo.{key} is the loop's own setting: one iteration is one optimizer step over "
                              "the iteration's samples (designer_groups and agent_groups, global); choose the "
                              "micro-batch with grpo.per_device_train_batch_size")
    micro = config.grpo.get("per_device_train_batch_size")
    if micro is not None and (not isinstance(micro, int) or isinstance(micro, bool) or micro < 1):
        raise ConfigError("grpo.per_device_train_batch_size (the micro-batch) must be a whole number >= 1")
    timeout = config.grpo.get("ddp_timeout", 1800)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError("grpo.ddp_timeout must be a number of seconds > 0")
    for key in ("save_steps", "save_total_limit", "save_strategy"):
        if key in config.grpo:
            hint = f"set {key}={config.grpo[key]} instead" if key != "save_strategy" else \
                "a checkpoint is what commits an iteration; choose how often with save_steps"
            raise ConfigError(f"grpo.{key} is the loop's own setting: {hint}")
    if config.designer_temperature < 0 or config.agent_temperature < 0 or config.regret_play_temperature < 0:
        raise ConfigError("sampling temperatures must be >= 0")
    if config.reward.designer_reward_delay and config.designer == "policy":
        _check_delayed_designer_correction(config.grpo)
    if config.grpo.get("use_vllm"):
        from spade_gym.selfplay.generation import check_temperatures

        trained = {"designer": config.designer_temperature, "agent": config.agent_temperature}
        if config.regret_plays_trained and config.regret_temperature is not None:
            trained["regret"] = config.regret_temperature
        check_temperatures(use_vllm=True, loss_temperature=config.temperature, role_temperatures=trained)
    if world is not None:
        config.check_ranks(world)


def _check_recipe_options(config: SelfPlayConfig) -> None:
    """The reference's recipe options and the memory settings."""
    if config.design_every < 1:
        raise ConfigError(f"design_every must be >= 1 (design every that many iterations), got {config.design_every}")
    if config.design_skills < 0:
        raise ConfigError(f"design_skills must be >= 0 (0: every skill in rotation), got {config.design_skills}")
    if config.design_skills and config.designer_groups and config.design_skills > config.designer_groups:
        raise ConfigError(f"design_skills={config.design_skills} exceeds designer_groups={config.designer_groups}: "
                          "each design round's groups take its skills in turn, so some drawn skill would get "
                          "no design; raise designer_groups or lower design_skills")
    if config.self_hint:
        if config.designer != "policy":
            raise ConfigError("self_hint has the trained policy write the hint after its program; with a served "
                              "designer (designer=openai) the served model's <hint> is used: set self_hint=false")
        if config.self_hint_max_tokens < 1:
            raise ConfigError("self_hint_max_tokens must be >= 1")
        if config.self_hint_temperature < 0:
            raise ConfigError("self_hint_temperature must be >= 0")
    if config.micro_batch_tokens is not None:
        if isinstance(config.micro_batch_tokens, bool) or config.micro_batch_tokens < 1:
            raise ConfigError(f"micro_batch_tokens must be a whole number of tokens >= 1 (or null), got "
                              f"{config.micro_batch_tokens}")
        loss = config.grpo.get("loss_type", "dapo")
        if loss not in BUDGET_LOSSES:
            # Packing by tokens gives micro-batches different numbers of rows; these losses
            # average per micro-batch, so a row's weight would depend on its neighbours.
            raise ConfigError(f"micro_batch_tokens needs a loss normalised over the whole batch "
                              f"(grpo.loss_type one of {', '.join(BUDGET_LOSSES)}; TRL's default is dapo), not "
                              f"{loss!r}, whose per-micro-batch mean would weigh a sample by how many share its "
                              "micro-batch")
    if config.attn_implementation is not None and config.attn_implementation not in ATTENTION_KERNELS and \
            "/" not in str(config.attn_implementation):
        raise ConfigError(f"attn_implementation={config.attn_implementation!r}: choose one of "
                          f"{', '.join(ATTENTION_KERNELS)}, a hub kernel (owner/name), or null")


def _check_delayed_designer_correction(grpo: dict) -> None:
    """Delayed designer samples were drawn by a policy D updates old: on TRL's vLLM path TRL
    importance-corrects them (the self-play trainer does elsewhere), so its correction must be
    on and per token."""
    if not grpo.get("use_vllm"):
        return
    if grpo.get("vllm_importance_sampling_correction") is False:
        raise ConfigError("reward.designer_reward_delay > 0 trains design samples drawn by an older policy; with "
                          "grpo.use_vllm TRL importance-corrects them only with "
                          "grpo.vllm_importance_sampling_correction on (or set reward.designer_reward_delay=0)")
    # A whole program's sequence-level ratio after D updates is nearly always outside the clip
    # range: "sequence_mask" would drop every delayed design, "sequence_truncate" clip them all.
    mode = grpo.get("vllm_importance_sampling_mode", "sequence_mask")
    if mode not in ("token_truncate", "token_mask"):
        raise ConfigError(f"reward.designer_reward_delay > 0 needs a per-token importance correction "
                          f"(grpo.vllm_importance_sampling_mode=token_truncate, the reference's truncated "
                          f"importance sampling), not {mode!r}")
