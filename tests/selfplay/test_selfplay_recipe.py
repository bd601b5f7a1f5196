"""The SPADE reference's recipe options, each behind a config field (docs/selfplay.md):
self-hint, designer reward scaling, designing every k iterations on a subset of skills,
invalid designs dropped instead of penalised, a step-timeout penalty; and a share of agent
tasks that comes from the pool on any number of ranks.

No model here: the policy is the vLLM stand-in of ``tests/support/fakes.py`` (a completion is a
function of the prompt and the request's seed), the programs are the demo designs.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import types

import pytest
from fakes import FakeVLLM

from spade_gym.agents.driver import Episode
from spade_gym.errors import ConfigError, ProgramTimeout
from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.selfplay.batch import batch_layout, reserve_pool_tasks
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS
from spade_gym.selfplay.designing import Designs
from spade_gym.selfplay.generation import make_generator
from spade_gym.selfplay.overrides import apply_overrides
from spade_gym.selfplay.policy import TokenPolicy, Trace
from spade_gym.selfplay.presets import load_preset
from spade_gym.selfplay.progress import Progress
from spade_gym.selfplay.records import DesignResult, RunState
from spade_gym.selfplay.rewards import RewardConfig, centre_per_skill, designer_reward_scale
from spade_gym.selfplay.rollout import SpadeRollout
from spade_gym.selfplay.rows import TrainingRow
from spade_gym.selfplay.warmstart import designer_completion

pytestmark = pytest.mark.usefixtures("fresh_process_registry")

MOD_SUM = DEMO_DESIGNS[0]
#: ModSum without its hint() method: its only hint is the one the design text carries.
BARE_MOD_SUM = MOD_SUM.source[:MOD_SUM.source.index("    def hint(self):")] + \
    MOD_SUM.source[MOD_SUM.source.index("    def step(self"):]
WRITTEN = "Add all the numbers first, then take the remainder. Answer with one whole number."


@pytest.fixture()
def rollout(tmp_path, monkeypatch):
    import spade_gym.validation.novelty as novelty

    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])
    config = load_preset("cpu-test")
    config.validation_seeds = 4
    config.max_program_tokens = 8000  # the stand-in's programs are characters, not tokens
    return SpadeRollout(config, tmp_path / "run", Suite(bundled_suite_path()).entries(), RunState())


def vllm_policy(respond, monkeypatch) -> tuple[TokenPolicy, FakeVLLM]:
    fake = FakeVLLM(respond)
    monkeypatch.setitem(sys.modules, "vllm", fake.vllm_module)
    return TokenPolicy(make_generator(fake.trainer("server"), fake.tokenizer, loss_temperature=0.8),
                       fake.tokenizer), fake


def designer(prompt: str, seed: int) -> str:
    """Designs BARE_MOD_SUM with no <hint>; asked for a hint, writes one (after thinking)."""
    if "Write the hint" in prompt:
        return f"<think>the sum, then modulo</think><hint>{WRITTEN}</hint>"
    return f"```python\n{BARE_MOD_SUM.rstrip()}\n```\n"


def validate(rollout, designs):
    with Progress(enabled=False).phase("validating") as phase:
        rollout.admission_stage.run(designs, 1, "test-model", random.Random(0), phase)
    return designs


# ------------------------------------------------------------------ self-hint

def test_self_hint_writes_the_hint_after_the_program_at_its_own_temperature(rollout, monkeypatch):
    """The designer forgets its <hint>: without self-hint the design is rejected for having
    none; with it, the policy is asked (a second generation, prompted with the program, at
    self_hint_temperature 0.3) and the registered card carries the hint it wrote."""
    policy, fake = vllm_policy(designer, monkeypatch)
    G = rollout.config.num_generations
    with Progress(enabled=False).phase("designing") as phase:
        plain = rollout.design_stage.run(policy, 1, 1, random.Random(7), phase).designs
    assert len(fake.requests) == G  # one generation per design, no hint request
    (first, *_) = validate(rollout, plain[:1])
    assert not first.valid and first.failed_check == "hint"

    rollout.config.self_hint = True
    policy, fake = vllm_policy(designer, monkeypatch)
    with Progress(enabled=False).phase("designing") as phase:
        drawn = rollout.design_stage.run(policy, 1, 1, random.Random(7), phase)
    designs, samples = drawn.designs, drawn.samples
    hint_requests = [r for r in fake.requests if "Write the hint" in r["prompt"]]
    assert len(hint_requests) == G and {r["temperature"] for r in hint_requests} == {0.3}
    assert all(BARE_MOD_SUM.strip() in r["prompt"] for r in hint_requests)  # prompted with the program
    assert all(f"<hint>{WRITTEN}</hint>" in d.text for d in designs)
    # the trained samples are the designs' own tokens, not the hint's
    assert all("Write the hint" not in fake.tokenizer.decode(s.completion_ids) for s in samples[0])
    (design, *_) = validate(rollout, designs[:1])
    assert design.valid, design.failure
    assert rollout.suite.get(str(design.env_id)).card.hint == WRITTEN


def test_self_hint_settings_are_checked():
    config = load_preset("cpu-test")
    config.self_hint, config.self_hint_temperature = True, -0.1
    with pytest.raises(ConfigError, match="self_hint_temperature"):
        config.validate()
    config.self_hint_temperature, config.designer = 0.3, "openai"
    config.designer_base_url, config.designer_model = "http://x/v1", "m"
    with pytest.raises(ConfigError, match="self_hint"):
        config.validate()


def test_a_written_hint_is_read_out_of_tags_thinking_and_fences():
    from spade_gym.selfplay.designers import written_hint

    assert written_hint("<think>x</think>Use parity.") == "Use parity."
    assert written_hint("draft <hint>one</hint> better: <hint>two\n ```</hint>") == "two"
    assert written_hint("<think>never finished") == ""


# ------------------------------------------------------------------ design every k, a subset of skills

def test_design_rounds_every_k_iterations_on_a_subset_of_skills(rollout):
    config = rollout.config
    config.design_every, config.design_skills, config.designer_groups = 3, 2, 4
    rollout.design_stage.targets = [(s, False) for s in ("A", "B", "C", "D", "E", "F")]
    assert [i for i in range(1, 11) if config.designs_at(i)] == [1, 4, 7, 10]
    rounds = []
    for iteration in (1, 4, 7, 10):
        targets = [rollout.design_stage.target(iteration, g) for g in range(4)]
        assert len(set(targets)) == 2 and targets[:2] == targets[2:]  # 2 skills, taken in turn
        rounds.append(frozenset(targets))
    assert len(set(rounds)) > 1  # drawn afresh each round
    # the same on every rank: a rank's groups are a block of the iteration's (offset)
    assert [rollout.design_stage.target(4, 2 + g) for g in range(2)] == [rollout.design_stage.target(4, g) for g in range(2)]
    with pytest.raises(ConfigError, match="design_skills=5 exceeds designer_groups=4"):
        dataclasses.replace(config, design_skills=5).validate()
    with pytest.raises(ConfigError, match="design_every"):
        dataclasses.replace(config, design_every=0).validate()


def fake_trainer(fake: FakeVLLM):
    trainer = fake.trainer("server")
    trainer.processing_class = fake.tokenizer
    trainer.args.temperature = 0.8
    trainer.model.name_or_path = "fake-model"
    return trainer


def test_between_design_rounds_the_designer_slots_carry_no_loss_and_no_design_is_asked_for(rollout, monkeypatch):
    """design_every=2: iteration 1 designs; iteration 2 samples no design, its designer slots
    are masked padding, and the agent plays the pool (ModSum, registered at iteration 1)."""
    config = rollout.config
    config.design_every = 2
    config.multi_turn_ratio = 0.0
    rollout.play_stage.seed_entries = []  # the agent's pool: the run suite alone
    policy_text = {"design": designer_completion(MOD_SUM.source, MOD_SUM.hint)}

    def respond(prompt, seed):
        return policy_text["design"] if "Design a" in prompt else "\\boxed{0}"

    fake = FakeVLLM(respond)
    monkeypatch.setitem(sys.modules, "vllm", fake.vllm_module)
    G = config.num_generations
    slots = batch_layout(config, 1).slots_per_rank
    first = rollout([None] * slots, fake_trainer(fake))
    assert rollout.last_metrics["design_round"] and rollout.last_metrics["designed"] == G
    assert any("Design a" in r["prompt"] for r in fake.requests)
    fake.requests.clear()
    second = rollout([None] * slots, fake_trainer(fake))
    assert not any("Design a" in r["prompt"] for r in fake.requests)
    assert not rollout.last_metrics["design_round"] and rollout.last_metrics["designed"] == 0
    roles = second["spade_role"]
    assert roles.count("designer") == G == first["spade_role"].count("designer")  # the same slots
    design_rows = [i for i, role in enumerate(roles) if role == "designer"]
    assert all(not any(second["env_mask"][i]) for i in design_rows)  # no loss
    assert rollout.last_metrics["agent_samples"] == slots - G


# ------------------------------------------------------------------ invalid designs dropped

def test_dropped_invalid_designs_leave_the_batch_and_every_baseline(rollout, monkeypatch):
    """reward.invalid_designs=drop: an invalid design's reward is None (TRL then leaves it out
    of its group's baseline and gives it no advantage), its samples carry no loss, and the
    per-skill centring runs over the valid designs only."""
    config = rollout.config
    config.reward = dataclasses.replace(config.reward, skill_centring=True)
    policy, _ = vllm_policy(lambda prompt, seed: "\\boxed{0}", monkeypatch)
    good = designer_completion(MOD_SUM.source, MOD_SUM.hint)
    designs = [DesignResult("Mathematical Reasoning", False, text, index=i)
               for i, text in enumerate([good, "no program", "```python\nclass BrokenEnv:\n    pass\n```"])]

    validate(rollout, designs)
    assert [d.valid for d in designs] == [True, False, False]

    def settle(mode):
        config.reward = dataclasses.replace(config.reward, invalid_designs=mode)
        batch = [dataclasses.replace(d) for d in designs]
        regret = rollout.play_stage.measure_regret(policy, batch, 1, random.Random(5))
        rollout.play_stage.settle_designer_rewards(batch, 1, regret.plays)
        samples = [[types.SimpleNamespace(completion_ids=[7, 8], logprobs=[-0.1, -0.2]) for _ in batch]]
        rollout.config.num_generations = len(batch)
        return batch, rollout.delayed_stage.run(Designs(batch, samples, [[1, 2]]), 1).rows

    penalised, rows = settle("penalise")
    assert [d.reward for d in penalised[1:]] == [-1.0, -1.0]
    assert all(any(r.env_mask) for r in rows)
    assert rows[1].advantage == pytest.approx(-1.0 - (penalised[0].reward - 2.0) / 3)  # the -1s are in the mean
    dropped, rows = settle("drop")
    assert dropped[0].valid and [d.reward for d in dropped[1:]] == [None, None]
    assert any(rows[0].env_mask) and not any(rows[1].env_mask) and not any(rows[2].env_mask)  # no loss for the dropped
    assert [r.reward for r in rows[1:]] == [None, None]
    assert rows[0].advantage == pytest.approx(0.0) and rows[1].advantage is None  # the valid one is its skill's only member
    assert centre_per_skill([("a", 1.0), ("a", None), ("a", 0.0)]) == [0.5, None, -0.5]
    with pytest.raises(ConfigError, match="invalid_designs"):
        apply_overrides(load_preset("cpu-test"), ["reward.invalid_designs=ignore"])


# ------------------------------------------------------------------ step-timeout penalty

def hung_plays(rollout, env_id: str, *, hinted_hang: bool, plain_hang: bool = False):
    """Stand-in plays of the regret stage: every episode of ``env_id`` loses; the with-hint
    ones (or none), and the no-hint ones if asked, end as SpadeEnv ends an episode whose
    step() overran its deadline."""
    def play(policy, specs, temperature, seed):
        episodes = []
        for spec in specs:
            episode = Episode(spec, first_observation="obs")
            if (spec.hint and hinted_hang) or (not spec.hint and plain_hang):
                episode.truncated = True
                episode.error = {"kind": ProgramTimeout.kind, "where": "step", "message": "step() timed out"}
            episodes.append(episode)
        # what the policy left of each episode: a two-token reply
        traces = {i: Trace([1], [2, 3], [1, 1], [-0.1, -0.1]) for i in range(len(specs))}
        return episodes, types.SimpleNamespace(sample_unit="episode", traces=traces, turns={})
    return play


@pytest.mark.parametrize("penalty", [None, -0.5])
def test_a_design_whose_step_hangs_in_its_plays_earns_the_timeout_penalty(rollout, monkeypatch, penalty):
    config = rollout.config
    config.reward = dataclasses.replace(config.reward, step_timeout_penalty=penalty)
    (design,) = validate(rollout, [DesignResult("Mathematical Reasoning", False,
                                                designer_completion(MOD_SUM.source, MOD_SUM.hint))])
    assert design.valid, design.failure
    policy, _ = vllm_policy(lambda prompt, seed: "x", monkeypatch)
    play = rollout.play_stage
    monkeypatch.setattr(play, "_play", hung_plays(rollout, str(design.env_id), hinted_hang=True))
    play.settle_designer_rewards([design], 1, play.measure_regret(policy, [design], 1, random.Random(5)).plays)
    assert design.step_timeout and design.valid
    assert design.reward == (0.0 if penalty is None else -0.5)  # regret 0 - 0, or the penalty
    # a program that did not hang earns its regret
    monkeypatch.setattr(play, "_play", hung_plays(rollout, str(design.env_id), hinted_hang=False))
    play.settle_designer_rewards([design], 2, play.measure_regret(policy, [design], 2, random.Random(6)).plays)
    assert not design.step_timeout and design.reward == 0.0
    # the agent is not charged for the hang: with the penalty set its hung episodes carry no
    # loss and no reward (out of the group's baseline); without it they are losses as before
    monkeypatch.setattr(play, "_play", hung_plays(rollout, str(design.env_id), hinted_hang=True, plain_hang=True))
    groups = play.measure_regret(policy, [design], 3, random.Random(7)).groups
    rows = play.agent_groups(policy, 1, groups, 3, random.Random(8), n_tasks=1, n_pool=0).rows
    G = rollout.config.num_generations
    assert len(rows) == G
    if penalty is None:
        assert [r.reward for r in rows] == [0.0] * G and all(any(r.env_mask) for r in rows)
    else:
        assert [r.reward for r in rows] == [None] * G and not any(any(r.env_mask) for r in rows)
    with pytest.raises(ConfigError, match="step_timeout_penalty"):
        apply_overrides(load_preset("cpu-test"), ["reward.step_timeout_penalty=-3"])


def test_a_delayed_design_keeps_its_timeout_for_its_reward(rollout):
    config = rollout.config
    config.num_generations = 1
    config.reward = dataclasses.replace(config.reward, designer_reward_delay=1, step_timeout_penalty=-0.5)
    hung = DesignResult("Maths", False, "p", valid=True, env_id="spade/Hung-v0", regret=0.5, win_rate=0.5,
                        reward=0.5, step_timeout=True)
    sample = types.SimpleNamespace(completion_ids=[3], logprobs=[-0.1])
    rollout.delayed_stage.run(Designs([hung], [[sample]], [[9]]), 1)
    assert rollout.state.pending_designs[0]["step_timeout"] is True
    rollout.state.iteration = 1
    out = rollout.delayed_stage.run(Designs(), 2, slots=1)
    assert out.trained_from == 1 and out.rows[0].reward == -0.5


# ------------------------------------------------------------------ designer reward scaling

def test_centred_designer_advantages_are_scaled_by_the_sample_ratio_and_interval(rollout):
    config = rollout.config
    config.design_every = 2
    config.reward = dataclasses.replace(config.reward, skill_centring=True, scale_designer_rewards=True,
                                        max_designer_reward_scale=50.0)
    trained, masked = [1, 1], [0, 0]
    rows = [TrainingRow([1], [2, 3], [0.0, 0.0], trained, 0.5, "designer", 0.25),
            TrainingRow([1], [2, 3], [0.0, 0.0], trained, -0.5, "designer", -0.25),
            TrainingRow([1], [2, 3], [0.0, 0.0], masked, None, "designer", None)]
    rows += [TrainingRow([4], [5, 6], [0.0, 0.0], trained, 1.0, "agent")] * 6 + [TrainingRow.padding()] * 2
    scale = rollout._scale_designer_advantages(rows)
    assert scale == 6 / 2 * 2  # 6 trained agent samples per 2 trained design samples, every 2nd iteration
    assert [r.advantage for r in rows[:3]] == [0.25 * 6, -0.25 * 6, None]
    assert designer_reward_scale(1000, 2, interval=4, cap=50.0) == 50.0  # capped
    assert designer_reward_scale(10, 0, interval=4, cap=50.0) == 1.0
    with pytest.raises(ValueError, match="skill_centring"):
        RewardConfig(scale_designer_rewards=True)


# ------------------------------------------------------------------ a share of the tasks from the pool

@pytest.mark.parametrize("world", [1, 3, 7, 24])
def test_the_pool_share_is_of_the_iterations_tasks_on_any_number_of_ranks(world):
    """qwen3-8b: 24 agent tasks, pool_task_share 0.25: 6 always come from the pool. Rounded per
    rank (24 ranks of one task: floor(0.25) = 0 each; 7 ranks of 3-4 tasks: 3 in all) the pool
    would again go unplayed once new designs fill the tasks."""
    config = load_preset("qwen3-8b")
    layout = batch_layout(config, world)
    assert sum(s.pool_tasks for s in layout.shares) == 6
    assert all(0 <= s.pool_tasks <= s.agent_tasks for s in layout.shares)
    assert sum(s.regret_capacity for s in layout.shares) == 18
    # floor(0.5 x 14) = 7, dealt to the ranks with the most tasks not yet reserved
    assert reserve_pool_tasks([3, 3, 4, 4], 0.5) == [2, 1, 2, 2]
    assert reserve_pool_tasks([1] * 24, 0.25) == [1] * 6 + [0] * 18
