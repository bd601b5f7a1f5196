"""The CPU presets' model: built locally, then warm-started on the bundled suite.

A freshly initialised tiny model cannot write a program that passes validation, so
self-play would have nothing to learn from. The warm start teaches it, by supervised
fine-tuning, the two roles on the suite the package ships:

* designer: design prompt -> the suite program + its hint (the shortest few programs,
  which a model this size can actually learn);
* agent: observation -> the winning answer, taken from the privileged solution by
  replaying oracle episodes (first turns, and later turns of multi-turn games).

The tokenizer is trained on the same texts, so programs compress well.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from spade_gym.agents import OracleAgent, first_message, followup_message
from spade_gym.agents.driver import EpisodeSpec, play_episodes
from spade_gym.registry import Suite, SuiteEntry, register_suite
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS, DemoDesign


@dataclass
class Example:
    messages: list[dict]
    completion: str
    role: str


def compact_design_messages(skill: str, multi_turn: bool) -> list[dict]:
    """The short design prompt of the tiny presets (a tiny model's context is small)."""
    from spade_gym.generate.prompts import skill_by_name

    if skill_by_name(skill).kind == "tool-use":
        what = "tool-use environment (a class ending in Env that subclasses ToolUseBaseEnv)"
    else:
        what = ("multi-turn" if multi_turn else "single-turn") + " text environment"
    return [{"role": "user", "content": f"Design a {what} that trains {skill}. "
                                        "Reply with one ```python block and a <hint>...</hint>."}]


def designer_completion(source: str, hint: str | None) -> str:
    return f"```python\n{source.rstrip()}\n```\n<hint>{hint or 'Think step by step.'}</hint>"


def suite_entries(config: SelfPlayConfig) -> list[SuiteEntry]:
    from spade_gym.registry import bundled_suite_path

    path = Path(config.seed_suite) if config.seed_suite else bundled_suite_path()
    register_suite(path)
    return Suite(path).entries()


def warm_start_programs(entries: list[SuiteEntry], config: SelfPlayConfig) -> list[DemoDesign]:
    """The programs the designer part learns: the demo designs (not in any registered suite,
    so their reproductions can register), or the seed suite's shortest programs."""
    if config.warmstart.designer_source == "demo":
        designs = list(DEMO_DESIGNS)
    else:
        ranked = sorted(entries, key=lambda e: (len(e.read_source()), e.id))
        designs = [DemoDesign(e.card.skill, e.card.multi_turn, e.read_source(), e.card.hint or "") for e in ranked]
    n = config.warmstart.designer_programs
    return designs[:n] if n else designs


def warm_start_targets(entries: list[SuiteEntry], config: SelfPlayConfig) -> list[tuple[str, bool]]:
    return [(d.skill, d.multi_turn) for d in warm_start_programs(entries, config)]


def designer_examples(entries: list[SuiteEntry], config: SelfPlayConfig) -> list[Example]:
    from spade_gym.generate.prompts import build_design_messages

    out = []
    for design in warm_start_programs(entries, config):
        if config.designer_prompt == "compact":
            messages = compact_design_messages(design.skill, design.multi_turn)
        else:
            messages = build_design_messages(design.skill, multi_turn=design.multi_turn,
                                             rng=random.Random(design.source[:64]))
        out.append(Example(messages, designer_completion(design.source, design.hint), "designer"))
    return out


def agent_examples(entries: list[SuiteEntry], config: SelfPlayConfig) -> list[Example]:
    """Oracle play, turned into (conversation so far -> boxed solution) examples."""
    rng = random.Random(config.seed)
    if not entries or config.warmstart.agent_examples <= 0:
        return []
    specs = [EpisodeSpec(rng.choice(entries).id, rng.randrange(1_000_000))
             for _ in range(config.warmstart.agent_examples)]
    episodes = play_episodes(OracleAgent(), specs, max_turns=3, batch_size=16)
    out = []
    for episode in episodes:
        if episode.error or not episode.turns:
            continue
        messages = [first_message(episode.first_observation)]
        for turn in episode.turns[:2]:
            out.append(Example(list(messages), turn.action, "agent"))
            messages += [{"role": "assistant", "content": turn.action}, followup_message(turn.observation)]
    return out[: config.warmstart.agent_examples]


def build_model(config: SelfPlayConfig, examples: list[Example], output_dir: Path) -> Path:
    """Train the tokenizer on the warm-start texts and build the tiny model there."""
    from spade_gym.generate.tiny_model import build_tiny_model

    texts = []
    for example in examples:
        texts += [m["content"] for m in example.messages] + [example.completion]
    tiny = config.tiny
    return build_tiny_model(output_dir, texts, vocab_size=tiny.vocab_size, hidden_size=tiny.hidden_size,
                            num_layers=tiny.num_layers, num_heads=tiny.num_heads,
                            max_position_embeddings=tiny.max_position_embeddings, seed=config.seed)


def tokenize_example(tokenizer, example: Example, max_tokens: int) -> tuple[list[int], list[int]] | None:
    prompt = tokenizer.apply_chat_template(example.messages, tokenize=False, add_generation_prompt=True)
    full = tokenizer.apply_chat_template(example.messages + [{"role": "assistant", "content": example.completion}],
                                         tokenize=False)
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    full_ids = tokenizer(full, add_special_tokens=False)["input_ids"]
    if full_ids[: len(prompt_ids)] != prompt_ids or len(full_ids) > max_tokens:
        return None
    labels = [-100] * len(prompt_ids) + full_ids[len(prompt_ids):]
    return full_ids, labels


def supervised_warm_start(model, tokenizer, examples: list[Example], config: SelfPlayConfig,
                          progress=None) -> dict:
    """Plain next-token training on the completions (prompt tokens masked), in two phases.

    1. Agent examples (short, batched) until their loss is below ``agent_target_loss``
       or ``epochs`` epochs have run: the answer format.
    2. Designer programs (batch of one: they are long), round after round, until every
       program's loss is below ``target_loss`` or ``designer_steps_per_program`` steps per
       program are spent, with an agent batch rehearsed every few steps. A model this
       size needs on the order of a hundred steps per program; the programs come last
       because they are what validity depends on, and short agent batches interleaved
       from the start kept them from ever being learned.
    """
    from spade_gym.selfplay.progress import Progress

    progress = progress or Progress(enabled=False)
    log = progress.log
    ws = config.warmstart
    designer = [t for t in (tokenize_example(tokenizer, e, ws.max_tokens) for e in examples if e.role == "designer")
                if t is not None]
    agent = [t for t in (tokenize_example(tokenizer, e, ws.max_tokens) for e in examples if e.role == "agent")
             if t is not None]
    dropped = len(examples) - len(designer) - len(agent)
    if dropped:
        log(f"warm start: {dropped} example(s) longer than {ws.max_tokens} tokens left out")
    optimizer = torch.optim.AdamW(model.parameters(), lr=ws.learning_rate, weight_decay=0.0)
    rng = random.Random(config.seed)
    pad = tokenizer.pad_token_id
    model.train()
    start = time.monotonic()
    losses: dict[str, float | None] = {"designer": None, "agent": None}
    steps = 0

    def train_on(batch, role):
        nonlocal steps
        width = max(len(ids) for ids, _ in batch)
        ids = torch.tensor([i + [pad] * (width - len(i)) for i, _ in batch])
        labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in batch])
        mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i, _ in batch])
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        losses[role] = float(loss.detach())
        steps += 1
        phase.advance(1)

    batches = [agent[i:i + ws.batch_size] for i in range(0, len(agent), ws.batch_size)]
    # At most this many steps (both parts stop early once their loss target is met).
    designer_budget = ws.designer_steps_per_program * len(designer)
    most = len(batches) * ws.epochs + designer_budget + designer_budget // 8
    with progress.phase("warm start (steps, at most)", total=most) as phase:
        for _epoch in range(ws.epochs if batches else 0):
            rng.shuffle(batches)
            epoch_losses: list[float] = []
            for batch in batches:
                train_on(batch, "agent")
                epoch_losses.append(float(losses["agent"] or 0.0))
            if sum(epoch_losses) / len(epoch_losses) < ws.agent_target_loss:
                break
        log(f"warm start: agent examples to loss {_fmt(losses['agent'])} ({steps} steps)")
        budget = steps + designer_budget
        while designer and steps < budget:
            rng.shuffle(designer)
            round_losses: list[float] = []
            for item in designer:
                train_on([item], "designer")
                round_losses.append(float(losses["designer"] or 0.0))
                if batches and steps % 8 == 0:
                    train_on(rng.choice(batches), "agent")
            if max(round_losses) < ws.target_loss:
                break
        phase.set_total(steps)
    if designer:
        log(f"warm start: designer programs to loss {_fmt(losses['designer'])} ({steps} steps in all)")
    model.eval()
    return {"designer_examples": len(designer), "agent_examples": len(agent), "steps": steps,
            "seconds": round(time.monotonic() - start, 1), "final_designer_loss": losses["designer"],
            "final_agent_loss": losses["agent"]}


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3g}"
