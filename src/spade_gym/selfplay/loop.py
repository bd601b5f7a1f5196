"""The self-play loop: TRL's ``GRPOTrainer`` driven by :class:`SpadeRollout`.

One trainer step is one SPADE iteration: the rollout function designs, validates,
plays and scores (both roles); TRL computes the GRPO loss over both roles' samples and
updates the shared policy. Everything TRL offers around that — optimiser, logging to
TensorBoard, ``accelerate``/DeepSpeed scaling, vLLM generation — comes with it.

Run directory layout::

    config.json         the resolved configuration (a resume reuses it)
    warmstart/          the warm-started model + tokenizer (CPU presets)
    checkpoint-<N>/     TRL checkpoint after iteration N (policy, optimiser, scheduler,
                        RNG) plus spade_state.json (pool cursor, sampling RNG)
    suite/              every valid program designed so far, registered with cards
    metrics.jsonl       one line per finished iteration
    final/              the policy after the last iteration
    runs/               TensorBoard event files (through TRL's reporting)

A kill at any moment loses at most the iteration in progress: checkpoints are taken
after every iteration, suite writes are atomic, and on ``--resume`` the metrics file is
cut back to the last checkpoint.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from spade_gym.errors import ConfigError
from spade_gym.selfplay.config import SelfPlayConfig

STATE_FILE = "spade_state.json"


def latest_checkpoint(run_dir: Path) -> Path | None:
    checkpoints = [p for p in run_dir.glob("checkpoint-*") if re.fullmatch(r"checkpoint-\d+", p.name)
                   and (p / STATE_FILE).is_file()]
    return max(checkpoints, key=lambda p: int(p.name.split("-")[1]), default=None)


def _truncate_metrics(path: Path, iterations: int) -> list[dict]:
    if not path.exists():
        return []
    kept = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    kept = [m for m in kept if m.get("iteration", 0) <= iterations]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(m) + "\n" for m in kept))
    tmp.replace(path)
    return kept


def run_selfplay(config: SelfPlayConfig, output_dir: str | os.PathLike, *, resume: bool = False,
                 iterations: int | None = None, log=print) -> dict:
    """Run (or resume) self-play; returns a summary dict. See the module docstring."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    try:
        import torch
        from datasets import Dataset
        from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as exc:
        raise ConfigError("self-play needs the training extra: pip install 'spade-gym[train]' "
                          f"(missing: {exc.name})") from None
    from spade_gym.selfplay import warmstart
    from spade_gym.selfplay.rollout import RunState, SpadeRollout

    run_dir = Path(output_dir)
    config_path = run_dir / "config.json"
    checkpoint = None
    state = RunState()
    if resume:
        if not config_path.exists():
            raise ConfigError(f"nothing to resume in {run_dir}: no config.json")
        config = SelfPlayConfig.from_dict(json.loads(config_path.read_text()))
        checkpoint = latest_checkpoint(run_dir)
        if checkpoint is not None:
            state = RunState.from_dict(json.loads((checkpoint / STATE_FILE).read_text()))
        _truncate_metrics(run_dir / "metrics.jsonl", state.iteration)
    else:
        if run_dir.exists() and any(run_dir.iterdir()):
            raise ConfigError(f"{run_dir} is not empty; use --resume to continue that run, or a new --output")
        run_dir.mkdir(parents=True, exist_ok=True)
    if iterations is not None:
        config.iterations = iterations
    config.validate()
    config_path.write_text(json.dumps(config.to_dict(), indent=2))

    torch.manual_seed(config.seed)
    seed_entries = warmstart.suite_entries(config)
    phases: dict = {}
    model_dir = run_dir / "warmstart"
    if config.model == "tiny":
        if not (model_dir / "config.json").exists():
            t = time.monotonic()
            examples = warmstart.designer_examples(seed_entries, config)
            examples += warmstart.agent_examples(seed_entries, config)
            warmstart.build_model(config, examples, model_dir)
            tokenizer = AutoTokenizer.from_pretrained(model_dir)
            model = AutoModelForCausalLM.from_pretrained(model_dir)
            phases["build_s"] = round(time.monotonic() - t, 1)
            if config.warmstart.enabled:
                log(f"warm start on {len(examples)} examples from {len(seed_entries)} suite environments")
                phases["warmstart"] = warmstart.supervised_warm_start(model, tokenizer, examples, config, log=log)
            model.save_pretrained(model_dir)
            tokenizer.save_pretrained(model_dir)
        source = model_dir
    else:
        source = config.model
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForCausalLM.from_pretrained(source)

    rollout = SpadeRollout(config, run_dir, seed_entries, state, log=log)
    metrics_path = run_dir / "metrics.jsonl"

    class SpadeCallback(TrainerCallback):
        """Writes one metrics line per iteration and the loop's state into each checkpoint."""

        def on_step_end(self, args, trainer_state, control, **kwargs):
            metrics = dict(rollout.last_metrics)
            metrics["update_s"] = round(time.monotonic() - rollout.rollout_finished, 3)
            logs = [h for h in trainer_state.log_history if h.get("step") == trainer_state.global_step]
            for entry in logs:
                for key in ("loss", "grad_norm", "reward", "entropy"):
                    if key in entry:
                        metrics[f"train_{key}"] = entry[key]
            with open(metrics_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(metrics) + "\n")
            return control

        def on_save(self, args, trainer_state, control, **kwargs):
            target = Path(args.output_dir) / f"checkpoint-{trainer_state.global_step}"
            if target.is_dir():
                tmp = target / (STATE_FILE + ".tmp")
                tmp.write_text(json.dumps(rollout.state.to_dict()))
                tmp.replace(target / STATE_FILE)
            return control

    def spade_reward(prompts, completions, spade_reward, **kwargs):
        return [float(r) for r in spade_reward]

    slots = Dataset.from_list([{"prompt": [{"role": "user", "content": "spade-gym self-play slot"}]}]
                              * max(64, config.batch_size * 4))
    grpo_args = dict(
        output_dir=str(run_dir),
        per_device_train_batch_size=config.batch_size,
        num_generations=config.num_generations,
        gradient_accumulation_steps=1,
        max_steps=config.iterations,
        learning_rate=config.learning_rate,
        beta=config.beta,
        temperature=config.agent_temperature,
        logging_steps=1,
        save_strategy="steps",
        save_steps=1,
        save_total_limit=2,
        report_to=list(config.report_to),
        seed=config.seed,
        max_completion_length=max(config.max_program_tokens, config.max_episode_tokens),
    )
    grpo_args.update(config.grpo)
    try:
        args = GRPOConfig(**grpo_args)
    except TypeError as exc:
        raise ConfigError(f"bad GRPO option in the preset or --set grpo.*: {exc}") from None
    trainer = GRPOTrainer(model=model, reward_funcs=spade_reward, args=args, train_dataset=slots,
                          processing_class=tokenizer, rollout_func=rollout, callbacks=[SpadeCallback()])
    start = time.monotonic()
    if state.iteration >= config.iterations:
        log(f"already at iteration {state.iteration} of {config.iterations}; nothing to do")
    else:
        trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    trainer.save_model(str(run_dir / "final"))
    tokenizer.save_pretrained(run_dir / "final")
    metrics = _truncate_metrics(metrics_path, config.iterations)
    summary = {
        "run_dir": str(run_dir), "preset": config.preset, "iterations": len(metrics),
        "designed": sum(m.get("designed", 0) for m in metrics),
        "valid": sum(m.get("valid", 0) for m in metrics),
        "registered": [env_id for m in metrics for env_id in m.get("registered", [])],
        "train_seconds": round(time.monotonic() - start, 1), **phases,
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary
