"""Token-budget micro-batches and padding-free forward passes (``micro_batch_tokens``,
``padding_free``; selfplay/trainer.py).

TRL shuffles a rank's batch and cuts it into micro-batches of equal row counts, so a long
design sample lands beside short turns and every row of that micro-batch is padded to its
width. With a budget the trainer cuts the batch by length into the same number of
micro-batches; packed, a forward pass holds no padding at all. Training means the same:
the loss (TRL's default dapo) is normalised over the whole batch, so one optimizer step
gives the same update however the rows are grouped.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.errors import ConfigError
from spade_gym.selfplay.presets import load_preset

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from spade_gym.selfplay.trainer import micro_batch_cost, pack_micro_batches  # noqa: E402

G = 2


def trl_split(prompt_len, completion_len, chunks, seed):
    """TRL's way: a random permutation cut into equal-count micro-batches."""
    order = list(range(len(prompt_len)))
    random.Random(seed).shuffle(order)
    size = len(order) // chunks
    return [order[i * size:(i + 1) * size] for i in range(chunks)]


# ------------------------------------------------------------------ the packing (pure)

@settings(max_examples=300, deadline=None)
@given(data=st.data(), padding_free=st.booleans())
def test_packing_is_a_partition_no_worse_than_an_equal_cut_of_the_sorted_rows(data, padding_free):
    rows = data.draw(st.integers(1, 40))
    prompt = data.draw(st.lists(st.integers(1, 5000), min_size=rows, max_size=rows))
    completion = data.draw(st.lists(st.integers(1, 5000), min_size=rows, max_size=rows))
    first = data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
    chunks = data.draw(st.integers(1, rows))
    groups = pack_micro_batches(prompt, completion, chunks, padding_free=padding_free, first=first)
    assert len(groups) == chunks and all(groups)
    assert sorted(i for g in groups for i in g) == list(range(rows))

    def worst(cut):
        return max(micro_batch_cost([prompt[i] for i in g], [completion[i] for i in g], padding_free=padding_free)
                   for g in cut)

    # any cut of the same order into `chunks` runs is one the packer considered
    order = sorted(range(rows), key=lambda i: (not first[i], -(prompt[i] + completion[i]), i))
    sizes = [rows // chunks + (1 if r < rows % chunks else 0) for r in range(chunks)]
    equal = [order[sum(sizes[:r]):sum(sizes[:r + 1])] for r in range(chunks)]
    assert worst(groups) <= worst(equal)
    # no micro-batch costs less than its longest row; none is worse than one row alone needs
    assert worst(groups) >= max(prompt[i] + completion[i] for i in range(rows))
    assert groups == pack_micro_batches(prompt, completion, chunks, padding_free=padding_free, first=first)


def test_rows_of_very_different_lengths_stay_within_the_budget():
    """Two 12k-token designs (short prompt, long program), six 3k-token agent turns (long
    prompt, short reply) and twelve padding slots, in 5 micro-batches under a 16k budget.
    TRL's equal-count random cuts (4 rows each) pad every micro-batch holding a design to the
    design's width: 4 x 12k, far over the budget, every time. The packing gives each design a
    micro-batch of its own, the turns theirs, the padding slots one."""
    prompt = [500, 500] + [2800] * 6 + [1] * 12
    completion = [11500, 11500] + [200] * 6 + [1] * 12
    budget, chunks = 16_384, 5
    groups = pack_micro_batches(prompt, completion, chunks, first=[True, True] + [False] * 18, budget=budget)
    costs = [micro_batch_cost([prompt[i] for i in g], [completion[i] for i in g]) for g in groups]
    assert max(costs) <= budget, costs
    assert groups[:2] == [[0], [1]] and list(range(8, 20)) in groups
    assert sum(costs) == sum(prompt) + sum(completion)  # like rows together: not one padding token
    for seed in range(50):
        cut = trl_split(prompt, completion, chunks, seed)
        assert max(micro_batch_cost([prompt[i] for i in g], [completion[i] for i in g]) for g in cut) > budget
    # packed (padding-free), the cost is the rows' own tokens
    packed = pack_micro_batches(prompt, completion, chunks, padding_free=True, budget=budget)
    assert max(micro_batch_cost([prompt[i] for i in g], [completion[i] for i in g], padding_free=True)
               for g in packed) <= budget


def test_budget_settings_are_checked():
    config = load_preset("cpu-test")
    config.micro_batch_tokens = 0
    with pytest.raises(ConfigError, match="micro_batch_tokens must be"):
        config.validate()
    config.micro_batch_tokens = 4096
    config.grpo["loss_type"] = "grpo"
    with pytest.raises(ConfigError, match="normalised over the whole batch"):
        config.validate()
    config.grpo["loss_type"] = "dapo"
    config.validate()
    assert config.micro_batch_rows(16) == 1  # a budget packs a rank's share into micro-batches of 1 row each
    config.grpo["per_device_train_batch_size"] = 4
    assert config.micro_batch_rows(16) == 4
    config.attn_implementation = "fastest"
    with pytest.raises(ConfigError, match="attn_implementation"):
        config.validate()


# ------------------------------------------------------------------ through TRL

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from spade_gym.generate.tiny_model import build_tiny_model

    root = tmp_path_factory.mktemp("microbatch")
    build_tiny_model(root / "model", ["a design and a turn \\boxed{1} observation"] * 8, vocab_size=512,
                     hidden_size=32, num_layers=2, num_heads=2, max_position_embeddings=2048, seed=0)
    return AutoModelForCausalLM.from_pretrained(root / "model"), AutoTokenizer.from_pretrained(root / "model"), root


def make_trainer(tiny, *, rows, micro, accumulation, rollout=None, trainer_class=None, generations=G, **extra):
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    model, tokenizer, root = tiny

    def spade_reward(prompts, completions, spade_reward, **kwargs):
        return [None if r is None else float(r) for r in spade_reward]

    args = GRPOConfig(output_dir=str(root / "out"), per_device_train_batch_size=micro, num_generations=generations,
                      gradient_accumulation_steps=accumulation, temperature=0.8, use_cpu=True, bf16=False,
                      report_to=[], max_steps=1, max_completion_length=128, logging_steps=1, optim="sgd",
                      learning_rate=0.5, save_strategy="no", seed=0)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "x"}]}] * (4 * rows))
    return (trainer_class or GRPOTrainer)(model=copy.deepcopy(model), reward_funcs=spade_reward, args=args,
                                          train_dataset=data, processing_class=tokenizer, rollout_func=rollout,
                                          **extra)


def batch_of_different_lengths(n=8, seed=1):
    """Rows as a self-play batch holds them: designs (short prompt, long completion), agent
    turns (long prompt, short reply), a padding slot; G=2 rows per group with different rewards."""
    from spade_gym.selfplay.rows import TrainingRow, trl_batch

    gen = random.Random(seed)
    shapes = [(4, 60, "designer"), (5, 55, "designer"), (50, 4, "agent"), (45, 6, "agent"), (30, 8, "agent"),
              (28, 9, "agent"), (1, 1, "pad"), (1, 1, "pad")][:n]
    rows = []
    for i, (p, c, role) in enumerate(shapes):
        if role == "pad":
            rows.append(TrainingRow.padding())
            continue
        completion = [gen.randrange(5, 250) for _ in range(c)]
        rows.append(TrainingRow([gen.randrange(5, 250) for _ in range(p)], completion, [-6.0] * c, [1] * c,
                                float(i % 2), role))
    return trl_batch(rows, 0)


def train_once(tiny, **settings):
    from spade_gym.selfplay.trainer import SpadeGRPOTrainer

    batch = batch_of_different_lengths()
    trainer = make_trainer(tiny, rows=8, micro=2, accumulation=4, rollout=lambda prompts, trainer: batch,
                           trainer_class=SpadeGRPOTrainer, **settings)
    seen = []
    original = trainer._compute_loss

    def counting(model, inputs):
        mask = inputs["completion_mask"] * inputs["tool_mask"]
        prompt, completion = inputs["prompt_mask"].sum(dim=1).tolist(), inputs["completion_mask"].sum(dim=1).tolist()
        tokens = micro_batch_cost(prompt, completion, padding_free=bool(settings.get("padding_free")))
        seen.append((inputs["prompt_ids"].size(0), int((mask.sum(dim=1) > 0).sum()), tokens))
        return original(model, inputs)

    trainer._compute_loss = counting
    result = trainer.train()
    return trainer, result, seen


def test_a_budget_step_trains_the_same_rows_to_the_same_update(tiny):
    """One optimizer step (4 micro-batches of 2 rows, SGD): TRL's shuffled equal cuts and the
    packing by length train the same 6 rows with finite losses and end at the same weights;
    the packed micro-batches stay within the budget and compute fewer padded tokens."""
    plain, plain_result, plain_seen = train_once(tiny)
    packed, packed_result, packed_seen = train_once(tiny, micro_batch_tokens=120, padding_free=True)
    for result in (plain_result, packed_result):
        assert torch.isfinite(torch.tensor(result.training_loss))
    assert len(plain_seen) == len(packed_seen) == 4  # every rank runs TRL's number of passes
    assert sum(r for r, _, _ in packed_seen) == sum(r for r, _, _ in plain_seen) == 8
    assert sum(t for _, t, _ in packed_seen) == sum(t for _, t, _ in plain_seen) == 6  # trained rows
    assert len(packed.spade_micro_batches) == 4 and max(packed.spade_micro_batches) <= 120
    assert [c for *_, c in packed_seen] == packed.spade_micro_batches
    assert sum(c for *_, c in packed_seen) < sum(c for *_, c in plain_seen)  # fewer tokens computed
    before = dict(tiny[0].named_parameters())
    moved = 0.0
    for (name, a), (_, b) in zip(plain.model.named_parameters(), packed.model.named_parameters()):
        torch.testing.assert_close(a, b, atol=2e-5, rtol=1e-4, msg=name)
        moved += float((a - before[name]).abs().sum())
    assert moved > 0  # the step did update the weights


def test_packed_forward_gives_trls_log_probabilities(tiny):
    """Padding-free: the chunk's rows as one sequence, positions restarting per row; the
    log-probabilities and entropies are TRL's on the padded batch, for any chunking."""
    from trl import GRPOTrainer

    from spade_gym.selfplay.trainer import SpadeGRPOTrainer

    theirs = make_trainer(tiny, rows=4, micro=4, accumulation=1)
    mine = make_trainer(tiny, rows=4, micro=4, accumulation=1, trainer_class=SpadeGRPOTrainer, padding_free=True)
    pad = theirs.processing_class.pad_token_id
    rows = [([5, 6, 7, 8, 9, 10], [11, 12]), ([5, 6], [13, 14, 15, 16, 17, 18, 19]), ([7, 8, 9], [20])]
    width_p, width_c = max(len(p) for p, _ in rows), max(len(c) for _, c in rows)
    ids = torch.tensor([[pad] * (width_p - len(p)) + p + c + [pad] * (width_c - len(c)) for p, c in rows])
    mask = torch.tensor([[0] * (width_p - len(p)) + [1] * (len(p) + len(c)) + [0] * (width_c - len(c))
                         for p, c in rows])
    completion = torch.tensor([[1] * len(c) + [0] * (width_c - len(c)) for _, c in rows]).bool()
    shapes = []
    hook = mine.model.register_forward_pre_hook(
        lambda module, args, kwargs: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True)
    try:
        for batch_size in (1, 2, 3):
            expected, expected_entropy, _ = GRPOTrainer._get_per_token_logps_and_entropies(
                theirs, theirs.model, ids, mask, width_c, batch_size=batch_size, compute_entropy=True)
            shapes.clear()
            got, got_entropy, _ = mine._get_per_token_logps_and_entropies(
                mine.model, ids, mask, width_c, batch_size=batch_size, compute_entropy=True)
            torch.testing.assert_close(got[completion], expected[completion], atol=1e-5, rtol=1e-4)
            torch.testing.assert_close(got_entropy[completion], expected_entropy[completion], atol=1e-4, rtol=1e-4)
            assert (got[~completion] == 0).all()
            assert all(s[0] == 1 for s in shapes)  # one packed sequence per pass
            assert sum(s[1] for s in shapes) == sum(len(p) + len(c) for p, c in rows)  # no padding token
    finally:
        hook.remove()


def test_trl_leaves_a_dropped_design_out_of_its_groups_baseline(tiny):
    """What reward.invalid_designs="drop" rests on: a sample whose reward is None is out of
    its GRPO group's mean and std in TRL's scoring, and its advantage is 0."""
    from spade_gym.selfplay.rows import TrainingRow, trl_batch
    from spade_gym.selfplay.trainer import SpadeGRPOTrainer

    rows = [TrainingRow([5, 6], [7, 8, 9], [-1.0] * 3, [1, 1, 1] if r is not None else [0, 0, 0], r, "designer")
            for r in (0.2, None, 0.6, None)]
    batch = trl_batch(rows, 0)
    trainer = make_trainer(tiny, rows=4, micro=4, accumulation=1, rollout=lambda prompts, trainer: batch,
                           trainer_class=SpadeGRPOTrainer, generations=4)  # one group: G designs of one prompt
    trainer.model.train()
    out = trainer._generate_and_score_completions([{"prompt": [{"role": "user", "content": "x"}]} for _ in range(4)])
    expected = 0.2 / (0.2 * 2 ** 0.5 + 1e-4)  # (r - 0.4) / (std of the two scored rewards + 1e-4)
    assert out["advantages"].tolist() == pytest.approx([-expected, 0.0, expected, 0.0], abs=1e-4)
