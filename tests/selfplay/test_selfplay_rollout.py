"""The design half of a self-play iteration, without a model: which designs are accepted,
registered once, rejected (and kept) — the decisions the designer's reward rests on."""

from __future__ import annotations

import random

import pytest

from spade_gym.contract import GAME_KIND
from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS
from spade_gym.selfplay.designing import Designs
from spade_gym.selfplay.presets import load_preset
from spade_gym.selfplay.progress import Progress
from spade_gym.selfplay.rewards import learning_potential
from spade_gym.selfplay.rollout import DesignResult, SpadeRollout
from spade_gym.selfplay.warmstart import designer_completion

MOD_SUM = DEMO_DESIGNS[0]


def design(text: str, index: int) -> DesignResult:
    return DesignResult("Mathematical Reasoning", False, text, index=index)


# A name belongs to the first suite that registers it: each test forgets the ids it registered.
pytestmark = pytest.mark.usefixtures("fresh_process_registry")

@pytest.fixture()
def rollout(tmp_path, monkeypatch):
    # Other tests in this process register run suites holding the demo programs; the
    # registered suites seen here are the bundled one only, so the outcome is this test's.
    import spade_gym.validation.novelty as novelty

    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])
    config = load_preset("cpu-test")
    config.validation_seeds = 4
    return SpadeRollout(config, tmp_path / "run", Suite(bundled_suite_path()).entries(), _state())


def _state():
    from spade_gym.selfplay.rollout import RunState

    return RunState()


def validate(rollout, designs):
    with Progress(enabled=False).phase("validating") as phase:
        verdicts = rollout.admission_stage.run(designs, 1, "test-model", random.Random(0), phase)
    assert verdicts.designs is designs
    assert verdicts.registered == [d.env_id for d in designs if d.valid]
    return designs


def test_design_without_a_hint_is_rejected_and_kept(rollout):
    no_hint_source = MOD_SUM.source[:MOD_SUM.source.index("    def hint(self):")] + MOD_SUM.source[MOD_SUM.source.index("    def step(self"):]
    assert "def hint" not in no_hint_source
    text = f"```python\n{no_hint_source}\n```\n"  # no <hint> either
    (result,) = validate(rollout, [design(text, 0)])
    assert not result.valid and result.failed_check == "hint"
    assert result.reward == rollout.config.reward.invalid_penalty
    assert Suite(rollout.suite.path).entries() == []
    kept = sorted(p.name for p in rollout.rejected_dir.iterdir())
    assert kept == ["iter0001-rank0-000.report.json", "iter0001-rank0-000.txt"]


def test_copy_of_a_bundled_program_is_not_new(rollout):
    entry = next(e for e in Suite(bundled_suite_path()).entries() if e.card.kind == GAME_KIND)
    renamed = "# designed in self-play\n" + entry.read_source().replace(entry.card.class_name, "FreshNameEnv")
    (result,) = validate(rollout, [design(designer_completion(renamed, entry.card.hint), 0)])
    assert not result.valid and result.failed_check == "novelty", result.failure
    assert rollout.suite.entries() == []


def test_copies_within_a_batch_register_once(rollout):
    original = designer_completion(MOD_SUM.source, MOD_SUM.hint)
    commented = designer_completion("# a comment makes the text differ\n" + MOD_SUM.source.replace(
        "self.mod = 7", "self.mod = 7  # default modulus"), MOD_SUM.hint)
    first, second = validate(rollout, [design(original, 0), design(commented, 1)])
    assert first.valid and first.env_id == "spade/ModSum-v0"
    assert not second.valid and second.duplicate_of == (0, 0)
    assert [e.id for e in rollout.suite.entries()] == ["spade/ModSum-v0"]
    # the next iteration's copy is not new either
    (again,) = validate(rollout, [design(original, 0)])
    assert not again.valid and again.failed_check == "novelty"


def test_learning_potential_prefers_the_frontier():
    assert learning_potential([1.0, 0.0] * 4) > learning_potential([1.0] * 7 + [0.0])
    assert learning_potential([1.0, 0.0]) > learning_potential([0.0] * 8) > 0
    assert learning_potential([]) == learning_potential([1.0, 0.0])  # unplayed counts as the frontier


# ---------------------------------------------------------------- the designer's reward and the frontier

def _registered_design(rollout):
    (result,) = validate(rollout, [design(designer_completion(MOD_SUM.source, MOD_SUM.hint), 0)])
    assert result.valid
    result.regret, result.win_rate_hint = 0.1, 1.0  # as the paired plays would have measured them
    return result


def test_win_rate_is_measured_over_the_last_k_iterations(rollout):
    """The plateau term and the cards (the frontier memory) read the environment's no-hint
    outcomes of the last reward.win_rate_window iterations, regret plays and agent tasks alike,
    not only the new environment's own paired plays."""
    import dataclasses

    from spade_gym.selfplay.rewards import designer_reward, plateau

    rollout.config.reward = dataclasses.replace(rollout.config.reward, mode="paper", win_rate_window=2)
    new = _registered_design(rollout)
    env_id = str(new.env_id)
    # iteration 1: its 4 paired no-hint plays lose, the agent tasks of the same iteration win 4 times
    rollout.play_stage.settle_designer_rewards([new], 1, [(env_id, 0.0)] * 4 + [(env_id, 1.0)] * 4)
    assert new.win_rate == 0.5  # the paired plays alone would say 0.0
    assert new.reward == designer_reward(True, regret=0.1, win_rate=0.5, config=rollout.config.reward)
    assert plateau(0.5) == 1.0 and new.reward > designer_reward(True, regret=0.1, win_rate=0.0,
                                                                 config=rollout.config.reward)

    def card():
        return Suite(rollout.suite.path).get(env_id).card.stats

    assert card()["win_rate"] == 0.5 and card()["regret"] == 0.1 and card()["win_rate_plays"] == 8
    # iteration 2: agent tasks win twice more; the card follows (written from the committed
    # state when the next iteration starts), regret stays the design-time one
    rollout.play_stage.settle_designer_rewards([], 2, [(env_id, 1.0)] * 2)
    rollout.play_stage.refresh_frontier()
    assert card()["win_rate"] == 0.6 and card()["regret"] == 0.1 and card()["win_rate_plays"] == 10
    # iteration 3: iteration 1 leaves the 2-iteration window
    rollout.play_stage.settle_designer_rewards([], 3, [(env_id, 0.0)] * 2)
    rollout.play_stage.refresh_frontier()
    assert card()["win_rate"] == 0.5 and card()["win_rate_plays"] == 4
    assert rollout.state.to_dict()["plays"][env_id] == [[2, 1.0], [2, 1.0], [3, 0.0], [3, 0.0]]


def test_designer_advantage_is_centred_per_skill(rollout):
    """reward.skill_centring: the designer's advantage is its reward minus the mean reward of
    the iteration's designs of its skill (the reference's baseline), not GRPO's per-group one."""
    import dataclasses

    new = _registered_design(rollout)
    broken = [DesignResult("Mathematical Reasoning", False, "no program", index=1, reward=-1.0),
              DesignResult("Spatial Reasoning", False, "no program", index=2, reward=-1.0),
              DesignResult("Spatial Reasoning", False, "no program", index=3, reward=0.5)]
    rollout.play_stage.settle_designer_rewards([new, *broken], 1, [(str(new.env_id), 1.0)] * 4)
    assert all(d.advantage is None for d in [new, *broken])  # off: TRL's per-group normalisation
    rollout.config.reward = dataclasses.replace(rollout.config.reward, skill_centring=True)
    rollout.play_stage.settle_designer_rewards([new, *broken], 2, [])
    maths = (new.reward - 1.0) / 2
    assert new.advantage == pytest.approx(new.reward - maths)
    assert broken[0].advantage == pytest.approx(-1.0 - maths)
    assert [d.advantage for d in broken[1:]] == pytest.approx([-0.75, 0.75])


# ------------------------------------------------------------------ delayed designer rewards

def _delayed(rollout, delay: int, **reward):
    import dataclasses

    rollout.config.num_generations = 2
    rollout.config.reward = dataclasses.replace(rollout.config.reward, mode="paper", designer_reward_delay=delay,
                                                **reward)
    return rollout


def _iteration(rollout, iteration: int, plays: list[tuple[str, float]], skills=("Maths", "Maths", "Logic", "Logic")):
    """One iteration's designer side, without a model: two groups of G=2 design samples (the
    first of each group a valid environment, the second an invalid program), this
    iteration's no-hint plays remembered, then the designer's rows."""
    from types import SimpleNamespace

    from spade_gym.selfplay.rewards import remember_plays

    designs, samples = [], []
    for group in range(2):
        env_id = f"spade/Iter{iteration}Group{group}-v0"
        valid = DesignResult(skills[2 * group], False, "program", index=2 * group, valid=True, env_id=env_id,
                             regret=0.05 * (group + 1), win_rate=0.0, reward=0.123)
        broken = DesignResult(skills[2 * group + 1], False, "broken", index=2 * group + 1, reward=-1.0)
        designs += [valid, broken]
        samples.append([SimpleNamespace(completion_ids=[iteration, group, k], logprobs=[-0.5 * iteration, -0.1, -k])
                        for k in range(2)])
        plays = plays + [(env_id, 0.0), (env_id, 0.0)]  # its paired no-hint plays lose
    remember_plays(rollout.state.plays, iteration, plays, rollout.config.reward.plays_kept)
    out = rollout.delayed_stage.run(Designs(designs, samples, [[100 + iteration], [200 + iteration]]), iteration)
    rollout.state.iteration = iteration
    return out.rows, out.trained_from, samples


def _check_aligned(rows, G=2):
    assert len(rows) == 4  # the designer's slots: 2 groups of G, whatever the delay
    for start in range(0, len(rows), G):
        assert len({tuple(r.prompt_ids) for r in rows[start:start + G]}) == 1  # one prompt per group


def test_designs_are_trained_delay_iterations_later_on_the_window_since(rollout):
    """reward.designer_reward_delay=2: a design drawn at iteration 1 is trained at iteration 3,
    with its sampling-time tokens and log-probabilities, on a reward whose win rate covers its
    environment's no-hint plays of iterations 1-3; until then the slots are loss-free padding."""
    from spade_gym.selfplay.rewards import designer_reward

    _delayed(rollout, 2)
    config = rollout.config.reward
    first = "spade/Iter1Group0-v0"
    rows1, trained1, samples1 = _iteration(rollout, 1, [])
    rows2, trained2, _ = _iteration(rollout, 2, [(first, 1.0)] * 2)
    for rows in (rows1, rows2):
        _check_aligned(rows)
        assert all(not r.trained for r in rows)  # nothing due yet: no designer loss
    assert trained1 is None and trained2 is None
    rows3, trained3, _ = _iteration(rollout, 3, [(first, 1.0), (first, 0.0)])
    _check_aligned(rows3)
    assert trained3 == 1
    assert [r.completion_ids for r in rows3] == [s.completion_ids for g in samples1 for s in g]
    assert [r.logprobs for r in rows3] == [s.logprobs for g in samples1 for s in g]
    assert [r.prompt_ids for r in rows3] == [[101], [101], [201], [201]]
    assert all(all(r.env_mask) and len(r.env_mask) == len(r.completion_ids) for r in rows3)
    # iteration 1's own plays (0, 0) and the agent's since (1, 1, 1, 0): win rate 0.5
    expected = designer_reward(True, regret=0.05, win_rate=0.5, config=config)
    assert [r.reward for r in rows3] == pytest.approx([expected, -1.0, designer_reward(True, regret=0.1, win_rate=0.0,
                                                                                   config=config), -1.0])
    assert expected != 0.123  # not the design-time reward
    assert all(r.advantage is None for r in rows3)  # GRPO's per-group normalisation
    # iteration 1's designs are done; 2 and 3 wait
    assert sorted({p["iteration"] for p in rollout.state.pending_designs}) == [2, 3]
    assert sorted({p["iteration"] for p in rollout.state.pending_samples}) == [2, 3]
    rows4, trained4, _ = _iteration(rollout, 4, [])
    assert trained4 == 2 and [r.prompt_ids for r in rows4] == [[102], [102], [202], [202]]


def test_delayed_designs_are_centred_per_skill_at_training_time(rollout):
    _delayed(rollout, 1, skill_centring=True)
    _iteration(rollout, 1, [], skills=("Maths", "Maths", "Maths", "Logic"))
    rows, trained, _ = _iteration(rollout, 2, [], skills=("Logic",) * 4)
    assert trained == 1
    rewards = [r.reward for r in rows]
    maths = sum(rewards[:3]) / 3
    assert [r.advantage for r in rows] == pytest.approx([rewards[0] - maths, rewards[1] - maths, rewards[2] - maths, 0.0])


def test_without_a_delay_each_iteration_trains_its_own_designs(rollout):
    rollout.config.num_generations = 2
    rows, trained, samples = _iteration(rollout, 1, [])
    _check_aligned(rows)
    assert trained == 1 and rollout.state.pending_designs == []
    assert [r.completion_ids for r in rows] == [s.completion_ids for g in samples for s in g]
    assert [r.reward for r in rows] == [0.123, -1.0, 0.123, -1.0]  # the rewards settled this iteration
    rollout.config.designer_training_delay = 5
    rows, trained, _ = _iteration(rollout, 2, [])
    assert trained is None and all(not any(r.env_mask) for r in rows)


def test_pending_designs_round_trip_the_checkpoint(rollout, tmp_path):
    """A run resumed from the checkpoint written after iteration 2 (the state and this rank's
    samples file) trains, at iteration 3, exactly the samples and rewards the uninterrupted run does."""
    import copy
    import json
    from types import SimpleNamespace

    from spade_gym.selfplay.callback import SpadeCallback
    from spade_gym.selfplay.loop import STATE_FILE, _pending_samples
    from spade_gym.selfplay.rollout import RunState

    _delayed(rollout, 2, skill_centring=True)
    _iteration(rollout, 1, [])
    _iteration(rollout, 2, [("spade/Iter1Group0-v0", 1.0)])
    (tmp_path / "checkpoint-2").mkdir()
    callback = SpadeCallback(rollout, tmp_path / "metrics.jsonl", ranks=rollout.ranks,
                             progress=Progress(enabled=False), iterations=3)
    callback.on_save(SimpleNamespace(output_dir=str(tmp_path)), SimpleNamespace(global_step=2), None)
    saved = json.loads((tmp_path / "checkpoint-2" / STATE_FILE).read_text())
    assert len(saved["pending_designs"]) == 8 and "pending_samples" not in saved  # tokens stay per rank
    state = RunState.from_dict(saved)
    state.pending_samples = _pending_samples(tmp_path / "checkpoint-2", 0, state)
    assert len(state.pending_samples) == 8
    resumed = SpadeRollout(copy.deepcopy(rollout.config), tmp_path / "resumed", rollout.seed_entries, state)
    plays = [("spade/Iter1Group0-v0", 0.0)]
    assert _iteration(resumed, 3, plays)[:2] == _iteration(rollout, 3, plays)[:2]
    assert resumed.state == rollout.state
    # a checkpoint without this rank's samples cannot resume it
    (tmp_path / "checkpoint-2" / "spade_samples-rank0.json").unlink()
    with pytest.raises(Exception, match="spade_samples-rank0.json"):
        _pending_samples(tmp_path / "checkpoint-2", 0, RunState.from_dict(saved))


def test_delayed_designs_of_each_rank_stay_on_it(rollout):
    """Two ranks: each trains its own designs of D iterations ago, centred with the other's."""
    from spade_gym.selfplay.distributed import Ranks
    from spade_gym.selfplay.rollout import RunState

    class SecondRank(Ranks):
        def gather(self, items):  # rank 0 contributed the same items (as its own)
            theirs = [dict(i, rank=0) if isinstance(i, dict) else i for i in items]
            return theirs + list(items)

    _delayed(rollout, 1, skill_centring=True)
    rollout = SpadeRollout(rollout.config, rollout.run_dir, rollout.seed_entries, RunState(),
                           ranks=SecondRank(rank=1, world=2))
    _iteration(rollout, 1, [])
    assert sorted(p["rank"] for p in rollout.state.pending_designs) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert len(rollout.state.pending_samples) == 4  # its own tokens only
    rows, trained, _ = _iteration(rollout, 2, [])
    assert trained == 1 and len(rows) == 4 and [r.prompt_ids for r in rows] == [[101], [101], [201], [201]]


def test_resume_gives_committed_cards_back_their_checkpoint_stats(rollout, tmp_path):
    """With save_steps > 1 a resume replays several iterations; those after the checkpoint
    refreshed the committed programs' cards (their window win rates, which the design
    prompts' frontier memory reads), so the roll-back restores the checkpoint's stats and
    removes what was registered after it."""
    import json
    from types import SimpleNamespace

    from spade_gym.selfplay.callback import SpadeCallback
    from spade_gym.selfplay.loop import STATE_FILE, _roll_back
    from spade_gym.selfplay.rollout import RunState

    new = _registered_design(rollout)
    env_id = str(new.env_id)
    rollout.play_stage.settle_designer_rewards([new], 1, [(env_id, 0.0)] * 4)
    rollout.state.iteration = 1
    (rollout.run_dir / "checkpoint-1").mkdir()
    callback = SpadeCallback(rollout, tmp_path / "metrics.jsonl", ranks=rollout.ranks,
                             progress=Progress(enabled=False), iterations=3)
    callback.on_save(SimpleNamespace(output_dir=str(rollout.run_dir)), SimpleNamespace(global_step=1), None)
    saved = json.loads((rollout.run_dir / "checkpoint-1" / STATE_FILE).read_text())
    at_checkpoint = Suite(rollout.suite.path).get(env_id).card.stats
    assert saved["card_stats"] == {env_id: at_checkpoint} and at_checkpoint["win_rate"] == 0.0
    # iterations 2 and 3 (never checkpointed): the agent wins there, the card follows; 3 registers OddOne
    rollout.play_stage.settle_designer_rewards([], 2, [(env_id, 1.0)] * 4)
    rollout.state.iteration = 2
    rollout.play_stage.refresh_frontier()
    later = validate(rollout, [design(designer_completion(DEMO_DESIGNS[1].source, DEMO_DESIGNS[1].hint), 1)])[0]
    assert later.valid
    assert Suite(rollout.suite.path).get(env_id).card.stats["win_rate"] == 0.5
    _roll_back(rollout.run_dir, RunState.from_dict(saved))
    suite = Suite(rollout.suite.path)
    assert [e.id for e in suite.entries()] == [env_id]
    assert suite.get(env_id).card.stats == at_checkpoint
