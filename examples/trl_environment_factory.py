"""Train an agent on spade-gym environments with a stock TRL GRPOTrainer.

spade_gym.integrations.trl turns registered spade/* ids into TRL environments (a game is
one `act` tool; a tool-use env brings its own tools) and a dataset of (env_id, seed)
rows. Everything else is plain TRL: vLLM generation (--use-vllm), accelerate, DeepSpeed.

    python examples/trl_environment_factory.py                       # tiny local model, 1 step, CPU
    python examples/trl_environment_factory.py --model Qwen/Qwen3-1.7B --steps 200 --use-vllm \\
        --envs spade/LetterFeedbackHunt-v0 spade/AlienNumerals-v0
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

import spade_gym  # noqa: F401,E402  (registers the bundled suite)
from spade_gym.integrations.trl import environment_factory, task_dataset  # noqa: E402


def tiny_model(directory: Path):
    """A tiny random model with Qwen3's chat template (TRL parses its tool calls)."""
    import trl
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from spade_gym.generate.tiny_model import build_tiny_model

    build_tiny_model(directory, ["Play the environment below by calling the act tool."] * 4, vocab_size=400,
                     hidden_size=32, num_layers=1, num_heads=2, max_position_embeddings=1024)
    tokenizer = AutoTokenizer.from_pretrained(directory)
    tokenizer.chat_template = (Path(trl.__file__).parent / "chat_templates" / "qwen3.jinja").read_text()
    return AutoModelForCausalLM.from_pretrained(directory), tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="checkpoint or hub id (default: a tiny local model, CPU)")
    parser.add_argument("--envs", nargs="+", default=["spade/AlienNumerals-v0"])
    parser.add_argument("--seeds", type=int, default=8, help="task seeds per environment")
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--use-vllm", action="store_true")
    args = parser.parse_args()

    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    workdir = Path(tempfile.mkdtemp(prefix="spade-trl-"))
    if args.model:
        model, tokenizer = AutoModelForCausalLM.from_pretrained(args.model), AutoTokenizer.from_pretrained(args.model)
    else:
        model, tokenizer = tiny_model(workdir / "tiny")
    config = GRPOConfig(output_dir=str(workdir / "out"), max_steps=args.steps, per_device_train_batch_size=2,
                        num_generations=2, max_completion_length=64 if not args.model else 2048,
                        use_cpu=not args.model, bf16=bool(args.model), use_vllm=args.use_vllm, report_to=[])
    trainer = GRPOTrainer(model=model, args=config, processing_class=tokenizer,
                          train_dataset=Dataset.from_list(task_dataset(args.envs, seeds=args.seeds)),
                          environment_factory=environment_factory(args.envs))
    trainer.train()
    print(f"trained {trainer.state.global_step} step(s) on {', '.join(args.envs)}; output in {workdir / 'out'}")


if __name__ == "__main__":
    main()
