"""The batch of an iteration is global: ``designer_groups`` and ``agent_groups`` are divided
across the ranks (selfplay/batch.py), so a batch means the same on 1 and on 64 GPUs.

(Before, both were per rank: the Qwen3 preset on 8 ranks designed 1,024 programs and
trained 9,216 samples per optimizer step.) Multi-process checks: tests/selfplay/test_selfplay_ranks.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_gym.errors import ConfigError
from spade_gym.selfplay.batch import assign_regret_plays, batch_layout, split_in_turn
from spade_gym.selfplay.overrides import apply_overrides
from spade_gym.selfplay.presets import load_preset


def config(**values):
    return apply_overrides(load_preset("cpu-test"), [f"{k}={v}" for k, v in values.items()])


@pytest.mark.parametrize("world", [1, 2, 3, 7, 8, 24])
def test_the_qwen3_batch_is_the_same_on_any_number_of_ranks(world):
    preset = load_preset("qwen3-8b")
    layout = batch_layout(preset, world)
    assert sum(s.design_groups for s in layout.shares) == preset.designer_groups
    assert sum(s.agent_tasks for s in layout.shares) == preset.agent_groups
    assert layout.trained_slots == preset.batch_size == 784
    # every rank has the same number of slots (TRL's per-device batch), the padding makes up the rest
    assert all(s.slot_groups == layout.slot_groups for s in layout.shares)
    assert layout.slots == layout.trained_slots + layout.padding_slots


def test_remainders_go_to_the_first_ranks_for_designs_and_to_the_emptiest_for_tasks():
    layout = batch_layout(config(designer_groups=3, agent_groups=5), 2)
    assert [s.design_groups for s in layout.shares] == [2, 1]
    assert [s.design_offset for s in layout.shares] == [0, 2]
    # tasks one by one to the rank with the fewest slot groups (the higher one on a tie)
    assert [s.agent_tasks for s in layout.shares] == [2, 3]
    assert [s.padding_groups for s in layout.shares] == [0, 0] and layout.slots_per_rank == 4 * 4
    uneven = batch_layout(config(designer_groups=1, agent_groups=2), 2)
    assert [(s.design_groups, s.agent_tasks, s.padding_groups) for s in uneven.shares] == [(1, 0, 1), (0, 2, 0)]


def test_per_turn_tasks_take_turn_samples_groups_each():
    layout = batch_layout(load_preset("qwen3-8b"), 7)
    assert [s.agent_tasks for s in layout.shares] == [3, 3, 3, 3, 4, 4, 4]
    assert [s.design_groups for s in layout.shares] == [1, 1, 0, 0, 0, 0, 0]
    assert layout.slot_groups == 16 and layout.padding_slots == (3 + 3 + 4 + 4) * 8


def test_a_served_designer_takes_no_slots_but_its_requests_are_shared():
    layout = batch_layout(config(designer="openai", designer_base_url="http://x/v1", designer_model="m",
                                 designer_groups=3, agent_groups=2), 2)
    assert [s.design_groups for s in layout.shares] == [2, 1]
    assert [s.design_slot_groups for s in layout.shares] == [0, 0] and layout.slots == 2 * 4


def test_a_global_batch_smaller_than_the_ranks_is_refused():
    with pytest.raises(ConfigError, match=r"3 GRPO group\(s\) per iteration cannot be divided across 4 ranks.*"
                                          r"global.*at least 4"):
        batch_layout(config(designer_groups=1, agent_groups=2), 4)
    with pytest.raises(ConfigError, match="across 2 ranks"):
        config(designer_groups=1, agent_groups=0).validate(world=2)
    config(designer_groups=1, agent_groups=1).validate(world=2)


def test_the_micro_batch_must_divide_a_ranks_share():
    preset = load_preset("qwen3-8b")
    preset.validate(world=7)
    preset.grpo["per_device_train_batch_size"] = 3
    with pytest.raises(ConfigError, match=r"does not divide a rank's 128 samples per iteration \(7 rank"):
        preset.validate(world=7)
    with pytest.raises(ConfigError, match="loop's own setting"):
        apply_overrides(load_preset("cpu-test"), ["grpo.gradient_accumulation_steps=4"])


@given(total=st.integers(0, 200), world=st.integers(1, 64))
def test_split_in_turn_is_exact_and_even(total, world):
    parts = split_in_turn(total, world)
    assert sum(parts) == total and max(parts) - min(parts) <= 1 and parts == sorted(parts, reverse=True)


def test_regret_plays_are_balanced_by_episodes_and_keep_groups_whole():
    # three designs of rank 0 (K=4), two ranks with room for two groups each
    plan = assign_regret_plays([("a", 4), ("b", 4), ("c", 4)], [2, 2])
    assert [len(p) for p in plan] == [12, 12]
    for rank in plan:  # a design's no-hint plays are one group, on one rank
        plain = [e for e, hint, _ in rank if not hint]
        assert all(plain.count(e) in (0, 4) for e in "abc")
    plain_ranks = {e: r for r, p in enumerate(plan) for e, hint, _ in p if not hint}
    assert sorted(plain_ranks.values()) == [0, 0, 1]
    # a rank with no room for groups gets only with-hint plays
    crowded = assign_regret_plays([("a", 4), ("b", 4)], [2, 0])
    assert all(hint for _, hint, _ in crowded[1]) and [len(p) for p in crowded] == [8, 8]
