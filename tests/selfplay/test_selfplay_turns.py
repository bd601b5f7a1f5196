"""Per-turn agent samples (``sample_unit="turn"``): a fixed, group-aligned number of samples
per task whatever the episodes' lengths, padding that carries no gradient, prompts without
earlier reasoning, log-probabilities equal to TRL's recompute, and long thinking episodes
that fit the per-sample token budget where one whole-episode sample cannot."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.selfplay.policy import strip_reasoning, visible_reply
from spade_gym.selfplay.turns import layout_turn_samples

# ---------------------------------------------------------------- layout (pure)

@settings(max_examples=200, deadline=None)
@given(G=st.integers(2, 5), T=st.integers(1, 6), data=st.data())
def test_layout_is_fixed_group_aligned_and_keeps_turn_order(G, T, data):
    n_groups = data.draw(st.integers(0, 3))
    groups = [[([f"g{g}e{e}t{t}" for t in range(data.draw(st.integers(0, 12)))], data.draw(st.floats(-1, 1)))
               for e in range(G)] for g in range(n_groups)]
    slots = layout_turn_samples(groups, T, random.Random(data.draw(st.integers(0, 99))))
    # (a) a fixed number of samples, whatever the episodes' lengths
    assert len(slots) == n_groups * T * G
    for g, episodes in enumerate(groups):
        block = slots[g * T * G:(g + 1) * T * G]
        for b in range(T):
            # each GRPO group (G consecutive slots) holds the G episodes' returns, once each,
            # so TRL's per-group normalisation is the normalisation over episodes
            assert [r for _, r in block[b * G:(b + 1) * G]] == [r for _, r in episodes]
        for e, (turns, _) in enumerate(episodes):
            mine = [block[b * G + e][0] for b in range(T)]
            kept = [m for m in mine if m is not None]
            assert len(kept) == min(len(turns), T)
            assert all(m is None for m in mine[len(kept):])  # padding only after the turns
            assert kept == sorted(kept, key=turns.index)  # in the episode's order, no repeats
            assert set(kept) <= set(turns) and len(set(kept)) == len(kept)


def test_long_episodes_are_trained_on_turns_drawn_uniformly():
    counts = [0] * 10
    rng = random.Random(0)
    for _ in range(2000):
        slots = layout_turn_samples([[(list(range(10)), 1.0), ([], 0.0)]], 3, rng)
        for turn, _ in slots[::2]:
            counts[turn] += 1
    assert all(abs(c / 2000 - 0.3) < 0.05 for c in counts)  # each turn kept with probability T/n


def test_reasoning_is_stripped_from_assistant_turns_only():
    messages = [{"role": "user", "content": "<think>user text stays</think> go"},
                {"role": "assistant", "content": "<think>plan A</think>\n\\boxed{1}"},
                {"role": "user", "content": "again"},
                {"role": "assistant", "content": "<think>cut off mid-thought"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c"}]}]
    stripped = strip_reasoning(messages)
    assert [m["content"] for m in stripped] == ["<think>user text stays</think> go", "\\boxed{1}", "again", "", ""]
    assert stripped[4]["tool_calls"] == [{"id": "c"}]
    assert messages[1]["content"].startswith("<think>")  # the caller's messages are untouched
    assert visible_reply("no reasoning at all") == "no reasoning at all"
    assert visible_reply("<think>a</think>b<think>c</think>d") == "d"


def test_thinking_presets_train_per_turn_and_trls_batch_is_one_iteration():
    from spade_gym.selfplay.presets import PRESETS, load_preset

    for name in PRESETS:
        config = load_preset(name)
        # Qwen3 presets think before every reply; the tiny CPU model does not (nothing to strip)
        assert config.sample_unit == ("turn" if name.startswith("qwen3") else "episode"), name
        # the loop sets the accumulation steps: one iteration is one optimizer step
        assert "gradient_accumulation_steps" not in config.grpo, name
        assert config.batch_size == (config.designer_groups + config.agent_groups
                                     * (config.turn_samples if config.sample_unit == "turn" else 1)
                                     ) * config.num_generations, name


# ---------------------------------------------------------------- with a tiny model and TRL

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

LOSS_TEMPERATURE = 0.8
G = 2


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from spade_gym.generate.tiny_model import build_tiny_model

    root = tmp_path_factory.mktemp("turns")
    build_tiny_model(root / "model", ["<think>reasoning</think> \\boxed{1} turn observation"] * 8, vocab_size=512,
                     hidden_size=32, num_layers=2, num_heads=2, max_position_embeddings=2048, seed=0)
    return AutoModelForCausalLM.from_pretrained(root / "model"), AutoTokenizer.from_pretrained(root / "model"), root


def make_trainer(tiny, rollout_func=None, batch=4 * G, trainer_class=None):
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    trainer_class = trainer_class or GRPOTrainer

    model, tokenizer, root = tiny

    def spade_reward(prompts, completions, spade_reward, **kwargs):
        return [float(r) for r in spade_reward]

    args = GRPOConfig(output_dir=str(root / "out"), per_device_train_batch_size=batch, num_generations=G,
                      temperature=LOSS_TEMPERATURE, use_cpu=True, bf16=False, report_to=[], max_steps=1,
                      max_completion_length=64, logging_steps=1)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "x"}]}] * (2 * batch))
    return trainer_class(model=model, reward_funcs=spade_reward, args=args, train_dataset=data,
                         processing_class=tokenizer, rollout_func=rollout_func)


def trl_recompute(trainer, prompt_ids, completion_ids):
    ids = torch.tensor([prompt_ids + completion_ids])
    logps, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, torch.ones_like(ids),
                                                             len(completion_ids))
    return logps[0].tolist()


def test_turn_prompts_hold_no_earlier_reasoning_and_logprobs_equal_trls_recompute(tiny):
    from spade_gym.agents.base import ActRequest
    from spade_gym.selfplay.generation import make_generator
    from spade_gym.selfplay.policy import TokenAgent, TokenPolicy

    trainer = make_trainer(tiny)
    generator = make_generator(trainer, trainer.processing_class, loss_temperature=trainer.args.temperature)
    policy = TokenPolicy(generator, trainer.processing_class)
    agent = TokenAgent(policy, temperature=0.5, max_turn_tokens=6, max_episode_tokens=512, seed=1,
                       sample_unit="turn")
    messages = [{"role": "user", "content": "Guess the number."}]
    for turn in range(3):
        agent.act([ActRequest(list(messages), messages[-1]["content"], turn, None, episode_id=0)])
        # what the driver appends: the reply as sampled (here a thinking reply), then the feedback
        messages += [{"role": "assistant", "content": f"<think>SECRET-{turn} plan</think>\\boxed{{{turn}}}"},
                     {"role": "user", "content": f"Too low ({turn})."}]
    turns = agent.turns[0]
    assert len(turns) == 3 and not agent.traces
    for k, sample in enumerate(turns):
        prompt = policy.tokenizer.decode(sample.prompt_ids)
        assert "SECRET" not in prompt and "<think>" not in prompt  # (c)
        assert all(f"\\boxed{{{j}}}" in prompt and f"Too low ({j})." in prompt for j in range(k))
        assert sample.completion_ids
        # (d) each turn's sample is scored by TRL exactly as it was sampled
        recomputed = trl_recompute(trainer, sample.prompt_ids, sample.completion_ids)
        assert sample.logprobs == pytest.approx(recomputed, abs=1e-4)


def test_padding_slots_carry_no_gradient_and_turns_get_the_episode_advantage(tiny):
    """Through TRL's own scoring and loss: a batch of per-turn samples with padding slots;
    replacing what the padding slots hold leaves the gradient unchanged, and every turn
    sample's advantage is its episode's GRPO advantage over the G episodes."""
    from spade_gym.selfplay.episode_rows import training_rows
    from spade_gym.selfplay.policy import TurnSample
    from spade_gym.selfplay.rows import trl_batch

    model, tokenizer, _ = tiny
    T = 4
    gen = random.Random(3)

    def turn():  # a finished turn: it ends with the end-of-turn token
        completion = [gen.randrange(5, 200) for _ in range(gen.randint(2, 6))] + [tokenizer.eos_token_id]
        return TurnSample([gen.randrange(5, 200) for _ in range(gen.randint(3, 9))], completion,
                          [0.0] * len(completion))

    # one task of G=2 episodes: 1 turn (won) and 3 turns (lost) -> 3 + 1 padding slots
    episodes = [([turn()], 1.0), ([turn(), turn(), turn()], 0.0)]
    rows = training_rows(episodes, G, T, random.Random(0))
    assert len(rows) == T * G
    padded = [i for i, row in enumerate(rows) if not row.completion_ids]
    assert len(padded) == T * G - 4

    def gradient(batch):
        trainer = make_trainer(tiny, rollout_func=lambda prompts, trainer: batch, batch=T * G)
        trainer.model.zero_grad()
        trainer.model.train()
        trainer.current_gradient_accumulation_steps = 1  # set by the training loop, which is not run here
        inputs = trainer._generate_and_score_completions([{"prompt": [{"role": "user", "content": "x"}]}
                                                          for _ in range(T * G)])
        mask = inputs["completion_mask"] * inputs["tool_mask"]
        assert all(mask[i].sum() == 0 for i in padded)  # no token of a padding slot is in the loss
        loss = trainer.compute_loss(trainer.model, inputs)
        loss.backward()
        grads = torch.cat([p.grad.flatten() for p in trainer.model.parameters() if p.grad is not None])
        return grads, inputs["advantages"]

    assert all(row.role == "agent" for row in rows)
    plain = trl_batch(rows, tokenizer.pad_token_id)
    junk = trl_batch(rows, tokenizer.pad_token_id)
    for i in padded:  # what a padding slot holds, as long as it is masked, must not matter
        junk["prompt_ids"][i] = [gen.randrange(5, 200) for _ in range(12)]
        junk["completion_ids"][i] = [gen.randrange(5, 200) for _ in range(7)]
        junk["logprobs"][i] = [-1.0] * 7
        junk["env_mask"][i] = [0] * 7
    g_plain, advantages = gradient(plain)
    g_junk, _ = gradient(junk)
    assert g_plain.abs().sum() > 0
    assert torch.allclose(g_plain, g_junk, atol=1e-7)
    # GRPO over the G episodes (returns 1 and 0): the winner's every turn +, the loser's every turn -
    expected = torch.tensor([1.0, 0.0])
    expected = (expected - expected.mean()) / (expected.std() + 1e-4)
    for b in range(T):
        assert advantages[b * G:(b + 1) * G].tolist() == pytest.approx(expected.tolist(), abs=1e-5)


class LongThinker:
    """A stand-in generator whose every turn thinks ``reasoning`` words before a short answer."""

    def __init__(self, tokenizer, reasoning: int):
        text = "<think>" + " step" * reasoning + "</think>\\boxed{1}"
        self.reply = tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        self.loss_temperature = LOSS_TEMPERATURE

    def session(self):
        import contextlib

        return contextlib.nullcontext()

    def sample(self, prompts, *, max_new_tokens, temperature, seed=None):
        from spade_gym.selfplay.generation import Sample

        ids = self.reply[:max_new_tokens]
        return [Sample(list(ids), [-0.1] * len(ids), len(ids) == len(self.reply)) for _ in prompts]


def play_long_episode(tokenizer, sample_unit: str, *, budget: int, turns: int = 25, reasoning: int = 45):
    import gymnasium as gym

    from spade_gym.agents import EpisodeSpec, play_episodes
    from spade_gym.selfplay.policy import TokenAgent, TokenPolicy

    class Corridor(gym.Env):
        """``turns`` steps to the exit; the last one wins."""

        def reset(self, *, seed=None, options=None):
            self.t = 0
            return "You are in a corridor. Step forward.", {}

        def step(self, action):
            self.t += 1
            done = self.t >= turns
            return f"Step {self.t} taken. Step forward.", 1.0 if done else 0.0, done, False, {}

    agent = TokenAgent(TokenPolicy(LongThinker(tokenizer, reasoning), tokenizer), temperature=LOSS_TEMPERATURE,
                       max_turn_tokens=256, max_episode_tokens=budget, sample_unit=sample_unit)
    (episode,) = play_episodes(agent, [EpisodeSpec("corridor", 0, make=Corridor)], max_turns=30)
    return episode, agent


def test_a_25_turn_thinking_episode_fits_per_turn_where_one_sequence_cannot(tiny):
    _, tokenizer, _ = tiny
    budget = 2048
    episode, agent = play_long_episode(tokenizer, "turn", budget=budget)
    assert len(episode.turns) == 25 and episode.terminated and episode.won
    samples = agent.turns[0]
    assert len(samples) == 25 and all(s.finished for s in samples)  # every turn thought to its end
    longest = max(len(s.prompt_ids) + len(s.completion_ids) for s in samples)
    assert longest <= budget
    assert all("step step" not in tokenizer.decode(s.prompt_ids) for s in samples)  # (c) in a real episode
    # The same episode as one sequence: cut off by the same budget after a few turns ...
    cut, _ = play_long_episode(tokenizer, "episode", budget=budget)
    assert cut.truncated and not cut.won and len(cut.turns) < 25
    # ... because all 25 turns would need several times that budget.
    whole, whole_agent = play_long_episode(tokenizer, "episode", budget=10**6)
    assert len(whole.turns) == 25
    trace = whole_agent.traces[0]
    assert len(trace.prompt_ids) + len(trace.completion_ids) > 3 * budget > 3 * longest


def test_advantages_computed_by_self_play_replace_trls_where_given(tiny):
    """Per-skill centring of the designer's rewards cannot be expressed through GRPO's
    per-group normalisation: the self-play trainer takes the rollout's advantages for the
    designer rows and keeps TRL's for the rest."""
    from trl import GRPOTrainer

    from spade_gym.selfplay.rows import TrainingRow, trl_batch
    from spade_gym.selfplay.trainer import SpadeGRPOTrainer

    _, tokenizer, _ = tiny
    eos = tokenizer.eos_token_id
    # two design groups of one skill (rewards 1, 0 | 0.5, 0.5) centred on the skill mean 0.5,
    # then two agent groups with TRL's own advantages
    rows = [TrainingRow([5, 6], [7, eos], [0.0, 0.0], [1, 1], r, "designer", r - 0.5) for r in (1.0, 0.0, 0.5, 0.5)]
    rows += [TrainingRow([5, 6], [8, eos], [0.0, 0.0], [1, 1], r, "agent") for r in (1.0, 0.0, 0.0, 0.0)]
    batch = trl_batch(rows, tokenizer.pad_token_id)

    def advantages(trainer_class):
        trainer = make_trainer(tiny, rollout_func=lambda prompts, trainer: batch, batch=8, trainer_class=trainer_class)
        inputs = [{"prompt": [{"role": "user", "content": "x"}]} for _ in range(8)]
        return trainer._generate_and_score_completions(inputs)["advantages"].tolist()

    mine, theirs = advantages(SpadeGRPOTrainer), advantages(GRPOTrainer)
    assert mine[:4] == pytest.approx([0.5, -0.5, 0.0, 0.0])
    assert theirs[:4] != pytest.approx(mine[:4])  # GRPO per group: (+0.7, -0.7), (0, 0)
    assert mine[4:] == pytest.approx(theirs[4:]) and mine[4] > 0 > mine[5]


def test_stale_design_samples_are_importance_corrected_per_token(tiny):
    """Delayed design samples were drawn by an older policy. TRL's transformers path ignores the
    rollout's log-probabilities; the self-play trainer weights each stale token's loss by
    exp(current - sampling-time log-prob), truncated at TRL's clip (3), and every other row by 1."""
    import math

    from spade_gym.selfplay.rows import TrainingRow, trl_batch
    from spade_gym.selfplay.trainer import STALE_RATIO, SpadeGRPOTrainer

    _, tokenizer, _ = tiny
    eos = tokenizer.eos_token_id
    prompt, completions = [5, 6], [[7, 9, eos], [8, eos], [9, 7, 7, eos], [7, eos]]
    trainer = make_trainer(tiny, batch=8, trainer_class=SpadeGRPOTrainer)
    trainer.model.eval()  # deterministic forwards (the module's model may have been left in train mode)
    current = [trl_recompute(trainer, prompt, c) for c in completions]
    # stale rows: drawn with log-probs lower by log 2 (ratio 2), higher by 1 (ratio e^-1), lower by
    # 5 (ratio e^5, truncated to 3); then one on-policy designer row and four agent rows
    shifts = [-math.log(2), 1.0, -5.0]
    rows = [TrainingRow(prompt, c, [lp + shift for lp in logps], [1] * len(c), 0.0, "designer", a, stale=True)
            for c, logps, shift, a in zip(completions, current, shifts, (1.0, -0.5, 0.25))]
    rows.append(TrainingRow(prompt, completions[3], current[3], [1, 1], 0.0, "designer", -0.75))
    rows += [TrainingRow(prompt, c, logps, [1] * len(c), 0.0, "agent", a) for c, logps, a in
             zip(completions, current, (0.5, -0.5, 1.0, -1.0))]
    batch = trl_batch(rows, tokenizer.pad_token_id)
    trainer.rollout_func = lambda prompts, trainer: batch
    inputs = [{"prompt": [{"role": "user", "content": "x"}]} for _ in range(8)]
    output = trainer._generate_and_score_completions(inputs)
    ratio, mask = output[STALE_RATIO], output["completion_mask"]
    expected = [2.0, math.exp(-1.0), 3.0] + [1.0] * 5
    for row, value in enumerate(expected):
        tokens = int(mask[row].sum())
        assert ratio[row, :tokens].tolist() == pytest.approx([value] * tokens, rel=1e-4), row
    # TRL's loss applies it: at the first step the per-token loss is -advantage, so the loss is
    # proportional to -sum(advantage x ratio over the row's tokens)
    weighted = trainer._compute_loss(trainer.model, output).item()
    plain = trainer._compute_loss(trainer.model, {k: v for k, v in output.items() if k != STALE_RATIO}).item()
    advantages = output["advantages"].tolist()

    def total(weights):
        return -sum(a * float((w * m).sum()) for a, w, m in zip(advantages, weights, mask))

    assert weighted / plain == pytest.approx(total(ratio) / total(torch.ones_like(ratio)), rel=1e-4)
    assert weighted != pytest.approx(plain)
    assert trainer.use_vllm is False  # TRL's flags are restored
    assert trainer.vllm_importance_sampling_correction == trainer.args.vllm_importance_sampling_correction


def test_trimmed_micro_batches_give_trls_log_probabilities(tiny):
    """The self-play trainer drops the columns no row of a chunk attends before each forward
    pass (selfplay/trainer.py): one sample per micro-batch is computed at its own length, and
    its log-probabilities and entropies are TRL's on the padded batch."""
    from trl import GRPOTrainer

    from spade_gym.selfplay.trainer import SpadeGRPOTrainer

    theirs, mine = make_trainer(tiny), make_trainer(tiny, trainer_class=SpadeGRPOTrainer)
    pad = theirs.processing_class.pad_token_id
    rows = [([5, 6, 7, 8, 9, 10], [11, 12]), ([5, 6], [13, 14, 15, 16, 17, 18, 19]), ([7, 8, 9], [20])]
    width_p, width_c = max(len(p) for p, _ in rows), max(len(c) for _, c in rows)
    ids = torch.tensor([[pad] * (width_p - len(p)) + p + c + [pad] * (width_c - len(c)) for p, c in rows])
    mask = torch.tensor([[0] * (width_p - len(p)) + [1] * (len(p) + len(c)) + [0] * (width_c - len(c))
                         for p, c in rows])
    completion = torch.tensor([[1] * len(c) + [0] * (width_c - len(c)) for _, c in rows]).bool()
    widths = []
    model = mine.model
    hook = model.register_forward_pre_hook(lambda module, args, kwargs: widths.append(kwargs["input_ids"].shape[1]),
                                           with_kwargs=True)
    try:
        for batch_size in (1, 2, 3):
            expected, expected_entropy, _ = GRPOTrainer._get_per_token_logps_and_entropies(
                theirs, theirs.model, ids, mask, width_c, batch_size=batch_size, compute_entropy=True)
            assert widths[-1] == width_p + width_c  # TRL: every chunk at the padded width
            widths.clear()
            got, got_entropy, _ = mine._get_per_token_logps_and_entropies(model, ids, mask, width_c,
                                                                        batch_size=batch_size, compute_entropy=True)
            assert got.shape == expected.shape == (3, width_c)
            torch.testing.assert_close(got[completion], expected[completion], atol=1e-5, rtol=1e-4)
            torch.testing.assert_close(got_entropy[completion], expected_entropy[completion], atol=1e-4, rtol=1e-4)
            assert (got[~completion] == 0).all()
            if batch_size == 1:  # each sample at its own length, not the padded 6 + 7
                assert widths == [len(p) + len(c) for p, c in rows], widths
    finally:
        hook.remove()
