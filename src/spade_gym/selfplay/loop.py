"""The self-play loop: TRL's ``GRPOTrainer`` driven by :class:`SpadeRollout`.

One trainer step is one SPADE iteration: the rollout function designs, validates,
plays and scores (both roles); TRL computes the GRPO loss over both roles' samples and
updates the shared policy. Everything TRL offers around that — optimiser, logging to
TensorBoard, ``accelerate``/DeepSpeed scaling, vLLM generation — comes with it.

Two entry points, :func:`start_selfplay` and :func:`resume_selfplay`, over small steps.

Run directory layout (its files are read and written by :mod:`~spade_gym.selfplay.run_directory`)::

    config.json         the resolved configuration (a resume reuses it)
    warmstart/          the warm-started model + tokenizer (CPU presets); warmstart/DONE
                        is written last, so an interrupted warm start is redone
    checkpoint-<N>/     TRL checkpoint after iteration N (every ``save_steps`` iterations and
                        after the last; the newest ``save_total_limit`` are kept): policy,
                        optimiser, scheduler, RNG, plus spade_state.json (committed
                        registrations, their cards' stats, outcomes) and, with delayed
                        designer rewards, spade_samples-rank<R>.json
    suite/              every valid program designed so far, registered with cards
    rejected/           rejected designs with their validation reports (capped)
    metrics.jsonl       one line per finished iteration (TRL's train metrics included)
    final/              the policy after the last iteration, with a model card
    runs/               TensorBoard event files (through TRL's reporting)

A kill at any moment loses at most the iterations since the last checkpoint (the one in
progress with ``save_steps=1``). An iteration's registrations are committed with a
checkpoint: on resume, programs registered after it are rolled back and the cards of
the committed ones get back the stats they had then (later iterations refresh them,
and the design prompts read them), and since every random choice of an iteration
derives from (seed, rank, iteration), the replay designs the same programs and earns
the same rewards.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.designers import make_designer
from spade_gym.selfplay.run_directory import (
    STATE_FILE,
    latest_checkpoint,
    pending_samples,
    roll_back,
    run_summary,
    truncate_metrics,
    write_json,
    write_model_card,
)

WARMSTART_DONE = "DONE"
#: Two run-directory steps under the names they had here (tests import them from the loop).
_pending_samples, _roll_back = pending_samples, roll_back



# ------------------------------------------------------------------ entry points

def start_selfplay(config: SelfPlayConfig, output_dir: str | os.PathLike, *, progress=None) -> dict:
    """Start a new run in ``output_dir`` (which must be empty); returns the summary."""
    _require_training_extra()
    from spade_gym.selfplay.distributed import Ranks

    config.validate()  # before any process group: a bad config fails fast, on every rank alike
    ranks = Ranks.current(cpu=_uses_cpu(config), timeout_s=config.ddp_timeout_s)
    run_dir = Path(output_dir)
    config.validate(world=ranks.world)
    if ranks.is_main:
        if run_dir.exists() and any(run_dir.iterdir()):
            raise ConfigError(f"{run_dir} is not empty; use --resume to continue that run, or a new --output")
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json(run_dir / "config.json", config.to_dict())
    ranks.barrier()
    return _run(config, run_dir, None, _state_class()(), ranks, progress)


def resume_selfplay(output_dir: str | os.PathLike, *, iterations: int | None = None, progress=None) -> dict:
    """Continue the run in ``output_dir`` from its last checkpoint (to ``iterations`` in all)."""
    _require_training_extra()
    from spade_gym.selfplay.distributed import Ranks

    run_dir = Path(output_dir)
    config_path = run_dir / "config.json"
    if not config_path.exists():
        raise ConfigError(f"nothing to resume in {run_dir}: no config.json")
    config = SelfPlayConfig.from_dict(json.loads(config_path.read_text()))
    if iterations is not None:
        config.iterations = iterations
    config.validate()
    ranks = Ranks.current(cpu=_uses_cpu(config), timeout_s=config.ddp_timeout_s)
    config.validate(world=ranks.world)
    checkpoint = latest_checkpoint(run_dir)
    state = _state_class()()
    if checkpoint is not None:
        state = _state_class().from_dict(json.loads((checkpoint / STATE_FILE).read_text()))
        state.pending_samples = pending_samples(checkpoint, ranks.rank, state)
    if ranks.is_main:
        roll_back(run_dir, state)
        truncate_metrics(run_dir / "metrics.jsonl", state.iteration)
        write_json(config_path, config.to_dict())
    ranks.barrier()
    return _run(config, run_dir, checkpoint, state, ranks, progress)


def _uses_cpu(config: SelfPlayConfig) -> bool:
    import torch

    return bool(config.grpo.get("use_cpu")) or not torch.cuda.is_available()



# ------------------------------------------------------------------ steps

def _run(config: SelfPlayConfig, run_dir: Path, checkpoint: Path | None, state, ranks, progress) -> dict:
    from spade_gym.selfplay import warmstart
    from spade_gym.selfplay.progress import Progress, quiet_libraries
    from spade_gym.selfplay.rollout import SpadeRollout

    if progress is None or not ranks.is_main:
        progress = Progress(enabled=ranks.is_main and progress is None)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    if config.torch_threads:
        import torch

        torch.set_num_threads(config.torch_threads)
    with quiet_libraries():
        seed_entries = warmstart.suite_entries(config)
        phases = _ensure_warm_start(config, run_dir, seed_entries, ranks, progress)
        model, tokenizer = _load_policy(config, run_dir)
        rollout = SpadeRollout(config, run_dir, seed_entries, state, ranks=ranks, progress=progress)
        trainer = _build_trainer(config, run_dir, model, tokenizer, rollout, ranks, progress)
        started = time.monotonic()
        if state.iteration >= config.iterations:
            progress.log(f"already at iteration {state.iteration} of {config.iterations}; nothing to do")
        else:
            trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
        train_seconds = time.monotonic() - started
        trainer.save_model(str(run_dir / "final"))
    if not ranks.is_main:
        return {}
    tokenizer.save_pretrained(run_dir / "final")
    metrics = truncate_metrics(run_dir / "metrics.jsonl", config.iterations)
    summary = run_summary(config, run_dir, metrics, train_seconds, phases)
    write_model_card(run_dir / "final", config, summary)
    write_json(run_dir / "summary.json", summary)
    return summary


def _ensure_warm_start(config: SelfPlayConfig, run_dir: Path, seed_entries, ranks, progress) -> dict:
    """Build and warm-start the tiny model once; ``warmstart/DONE`` marks it finished."""
    if config.model != "tiny":
        return {}
    model_dir = run_dir / "warmstart"
    done = model_dir / WARMSTART_DONE
    if done.exists():
        return json.loads(done.read_text())
    phases: dict = {}
    if ranks.is_main:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from spade_gym.selfplay import warmstart

        shutil.rmtree(model_dir, ignore_errors=True)  # an interrupted warm start starts over
        with progress.phase("building the tiny model and its tokenizer"):
            t = time.monotonic()
            # A served designer needs no designer lessons: only the agent is trained.
            examples = warmstart.designer_examples(seed_entries, config) if make_designer(config).trains else []
            examples += warmstart.agent_examples(seed_entries, config)
            warmstart.build_model(config, examples, model_dir)
            tokenizer = AutoTokenizer.from_pretrained(model_dir)
            model = AutoModelForCausalLM.from_pretrained(model_dir)
            phases["build_s"] = round(time.monotonic() - t, 1)
        if config.warmstart.enabled:
            progress.log(f"warm start on {len(examples)} examples from {len(seed_entries)} suite environments")
            t = time.monotonic()
            phases["warmstart"] = warmstart.supervised_warm_start(model, tokenizer, examples, config,
                                                                  progress=progress)
            phases["warmstart_s"] = round(time.monotonic() - t, 1)
        model.save_pretrained(model_dir)
        tokenizer.save_pretrained(model_dir)
        write_json(done, phases)
    ranks.barrier()
    return json.loads(done.read_text())


def _load_policy(config: SelfPlayConfig, run_dir: Path):
    """The policy and tokenizer, loaded once (from the warm start, or the configured checkpoint)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = run_dir / "warmstart" if config.model == "tiny" else config.model
    kwargs = {}
    if config.attn_implementation is not None:
        kwargs["attn_implementation"] = resolve_attention(config.attn_implementation)
    try:
        model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
    except (ImportError, ValueError) as exc:
        if not kwargs:
            raise
        raise ConfigError(f"attn_implementation={config.attn_implementation!r} "
                          f"({kwargs['attn_implementation']}) cannot load {source}: {exc}") from None
    return model, AutoTokenizer.from_pretrained(source)


def resolve_attention(name: str) -> str:
    """``attn_implementation="auto"``: flash attention where its package and a GPU are there
    (variable-length kernels: a packed micro-batch costs no (tokens)^2 mask), else sdpa."""
    if name != "auto":
        return name
    import importlib.util

    import torch

    return "flash_attention_2" if torch.cuda.is_available() and importlib.util.find_spec("flash_attn") else "sdpa"


def _build_trainer(config: SelfPlayConfig, run_dir: Path, model, tokenizer, rollout, ranks, progress):
    from datasets import Dataset
    from transformers import PrinterCallback
    from trl import GRPOConfig

    from spade_gym.selfplay.batch import batch_layout
    from spade_gym.selfplay.callback import SpadeCallback
    from spade_gym.selfplay.trainer import SpadeGRPOTrainer

    def spade_reward(prompts, completions, spade_reward, **kwargs):
        # None: a dropped design (reward.invalid_designs="drop"): TRL leaves it out of its
        # group's baseline and gives it no advantage.
        return [None if r is None else float(r) for r in spade_reward]

    layout = batch_layout(config, ranks.world)
    slots = Dataset.from_list([{"prompt": [{"role": "user", "content": "spade-gym self-play slot"}]}]
                              * max(64, layout.slots * 4))
    # One iteration is one optimizer step over a rank's whole share: the micro-batch
    # (grpo.per_device_train_batch_size, default the share) times the accumulation steps.
    micro = config.micro_batch_rows(layout.slots_per_rank)
    grpo_args: dict[str, Any] = dict(
        output_dir=str(run_dir),
        per_device_train_batch_size=micro,
        num_generations=config.num_generations,
        gradient_accumulation_steps=layout.slots_per_rank // micro,
        max_steps=config.iterations,
        learning_rate=config.learning_rate,
        beta=config.beta,
        temperature=config.temperature,
        logging_steps=1,
        save_strategy="steps",
        save_steps=config.save_steps,
        save_total_limit=config.save_total_limit,
        report_to=list(config.report_to),
        seed=config.seed,
        max_completion_length=max(config.max_program_tokens, config.max_episode_tokens),
        disable_tqdm=True,
    )
    grpo_args.update(config.grpo)
    grpo_args["per_device_train_batch_size"] = micro
    try:
        args = GRPOConfig(**grpo_args)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad GRPO option in the preset or --set grpo.*: {exc}") from None
    if args.generation_batch_size != layout.slots:
        raise ConfigError(f"TRL's generation batch ({args.generation_batch_size} samples) is not one iteration "
                          f"({layout.slots} samples on {ranks.world} rank(s))")
    callback = SpadeCallback(rollout, run_dir / "metrics.jsonl", ranks=ranks, progress=progress,
                             iterations=config.iterations)
    trainer = SpadeGRPOTrainer(model=model, reward_funcs=spade_reward, args=args, train_dataset=slots,
                               processing_class=tokenizer, rollout_func=rollout,
                               micro_batch_tokens=config.micro_batch_tokens, padding_free=config.padding_free)
    if config.sharding != "none" and ranks.world > 1 and not (trainer.is_deepspeed_enabled or trainer.is_fsdp_enabled):
        progress.log(f"warning: preset {config.preset} assumes sharded training state (sharding={config.sharding}: "
                     "DeepSpeed ZeRO-3 or FSDP), but this launch is plain DDP: every rank holds the whole policy "
                     "and Adam's state. Launch with accelerate's --config_file (see docs/selfplay.md), or check "
                     "--plan's memory with --set sharding=none")
    if config.reward.invalid_designs == "drop":
        # A dropped design's None reward is the rule, not a mistake: TRL would log a warning with
        # the whole completion (the program) for every one of them.
        import logging

        logging.getLogger("trl.trainer.grpo_trainer").addFilter(_NONE_REWARD_FILTER)
    # First in line, so the spade metrics it adds to each log reach TensorBoard too.
    trainer.callback_handler.callbacks.insert(0, callback)
    # The raw log dicts printed on every step say nothing the progress and summary do not.
    trainer.remove_callback(PrinterCallback)
    return trainer


class _NoneRewardFilter:
    """Drops TRL's "All reward functions returned None" warning (see ``_build_trainer``)."""

    def filter(self, record) -> bool:
        return not str(record.getMessage()).startswith("All reward functions returned None")


_NONE_REWARD_FILTER = _NoneRewardFilter()


# ------------------------------------------------------------------ run directory

def _state_class():
    from spade_gym.selfplay.rollout import RunState

    return RunState


def _require_training_extra() -> None:
    try:
        import datasets  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
        import trl  # noqa: F401
    except ImportError as exc:
        # a broken install (e.g. pyarrow built for another numpy) raises ImportError with no name
        what = f"missing: {exc.name}" if exc.name else f"import failed: {exc}"
        raise ConfigError(f"self-play needs the training extra: pip install 'spade-gym[train]' ({what})") from None
