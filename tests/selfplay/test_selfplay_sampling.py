"""GRPO groups on TRL's vLLM paths hold G distinct samples, and regret's two arms sample alike.

vLLM seeds every request on its own: the same prompt with the same seed gives the same
completion. A designer group is G copies of one prompt and an agent task's first turn is
G copies of one observation, so one seed for a whole call would make every group one
sample G times (designs rejected as copies of each other, agent advantages all zero).
The stand-in (``tests/support/fakes.py``) samples exactly that way: its completion is a function
of (prompt, the request's seed). No GPU, no vLLM, no model here.
"""

from __future__ import annotations

import dataclasses
import random
import re
import sys

import pytest
from fakes import FakeVLLM, stable_choice

from spade_gym.errors import SpadeError
from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS
from spade_gym.selfplay.generation import VLLMColocateGenerator, VLLMServerGenerator, make_generator
from spade_gym.selfplay.policy import TokenPolicy
from spade_gym.selfplay.presets import PRESETS, load_preset
from spade_gym.selfplay.progress import Progress
from spade_gym.selfplay.records import DesignResult, RunState
from spade_gym.selfplay.rollout import SpadeRollout
from spade_gym.selfplay.warmstart import designer_completion

# Each test registers ModSum in its own run suite; gymnasium's registry is per process and a
# name belongs to the first suite that registers it, so each test forgets the ids it registered.
pytestmark = pytest.mark.usefixtures("fresh_process_registry")

MOD_SUM = DEMO_DESIGNS[0]
MODES = ["server", "colocate"]
TASK = re.compile(r"Numbers: ([\d, ]+)\. What is their sum modulo (\d+)\?")


def model(prompt: str, seed: int) -> str:
    """The stand-in policy: a design whose text depends on (prompt, seed); on a ModSum
    observation, the right answer or a wrong one, by (prompt, seed)."""
    task = TASK.findall(prompt)
    if not task:
        return f"design {stable_choice(range(10**9), prompt, seed)}"
    numbers, mod = task[-1]
    right = sum(int(n) for n in numbers.split(",")) % int(mod)
    return f"\\boxed{{{right if stable_choice([True, False], prompt, seed) else right + 1}}}"


@pytest.fixture()
def rollout(tmp_path, monkeypatch):
    import spade_gym.validation.novelty as novelty

    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])
    config = load_preset("cpu-test")
    config.validation_seeds = 4
    return SpadeRollout(config, tmp_path / "run", Suite(bundled_suite_path()).entries(), RunState())


def vllm_policy(mode: str, monkeypatch) -> tuple[TokenPolicy, FakeVLLM]:
    fake = FakeVLLM(model)
    monkeypatch.setitem(sys.modules, "vllm", fake.vllm_module)
    generator = make_generator(fake.trainer(mode), fake.tokenizer, loss_temperature=0.8)
    assert isinstance(generator, VLLMServerGenerator if mode == "server" else VLLMColocateGenerator)
    return TokenPolicy(generator, fake.tokenizer), fake


def mod_sum(rollout) -> DesignResult:
    """ModSum validated and registered as the run's one environment (the agent's whole pool)."""
    result = DesignResult("Mathematical Reasoning", False, designer_completion(MOD_SUM.source, MOD_SUM.hint))
    with Progress(enabled=False).phase("validating") as phase:
        rollout.admission_stage.run([result], 1, "test-model", random.Random(0), phase)
    assert result.valid, result.failure
    rollout.play_stage.seed_entries = []
    return result


def groups(values: list, G: int) -> list[list]:
    return [values[i:i + G] for i in range(0, len(values), G)]


@pytest.mark.parametrize("mode", MODES)
def test_each_designer_group_holds_distinct_designs(rollout, mode, monkeypatch):
    policy, fake = vllm_policy(mode, monkeypatch)
    G = rollout.config.num_generations
    with Progress(enabled=False).phase("designing") as phase:
        drawn = rollout.design_stage.run(policy, 3, 1, random.Random(7), phase)
    designs, prompts = drawn.designs, drawn.prompt_ids
    assert len(designs) == 3 * G and len(prompts) == 3
    for group in groups(designs, G):
        assert len({d.text for d in group}) == G, [d.text for d in group]
    # every request carried its own seed
    assert len({r["seed"] for r in fake.requests}) == len(fake.requests) == 3 * G
    # and the iteration's RNG decides them: a replayed iteration designs the same programs
    replay, _ = vllm_policy(mode, monkeypatch)
    with Progress(enabled=False).phase("designing") as phase:
        again = rollout.design_stage.run(replay, 3, 1, random.Random(7), phase).designs
    assert [d.text for d in again] == [d.text for d in designs]


@pytest.mark.parametrize("mode", MODES)
def test_agent_groups_have_different_returns(rollout, mode, monkeypatch):
    """G episodes of one (environment, seed) start from one prompt: with a seed per sample
    their answers, and so their returns, differ, and GRPO's advantages are not all zero."""
    mod_sum(rollout)
    policy, _ = vllm_policy(mode, monkeypatch)
    G = rollout.config.num_generations
    out = rollout.play_stage.agent_groups(policy, 3, [], 1, random.Random(3))
    rewards = [row.reward for row in out.rows]
    assert len(rewards) == 3 * G
    for group in groups(rewards, G):
        mean = sum(group) / G
        assert any(abs(r - mean) > 0 for r in group), f"zero advantages in {group}"


def _temperature_fields(source: SelfPlayConfig, target: SelfPlayConfig) -> None:
    for f in dataclasses.fields(SelfPlayConfig):
        if "temperature" in f.name:
            setattr(target, f.name, getattr(source, f.name))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_both_regret_arms_sample_at_one_temperature(rollout, preset, monkeypatch):
    """Regret is the with-hint return minus the without-hint one: an arm sampled at another
    temperature would add what that temperature is worth. Every preset's temperature
    settings (copied onto the test config) give both arms the same one."""
    design = mod_sum(rollout)
    _temperature_fields(load_preset(preset), rollout.config)
    policy, fake = vllm_policy("server", monkeypatch)
    rollout.play_stage.measure_regret(policy, [design], 1, random.Random(5))
    hinted = {r["temperature"] for r in fake.requests if "HINT:" in r["prompt"]}
    plain = {r["temperature"] for r in fake.requests if "HINT:" not in r["prompt"]}
    assert hinted and plain
    assert hinted == plain, f"with the hint at {hinted}, without at {plain}"
    assert plain == {rollout.config.regret_play_temperature}


def test_a_design_that_breaks_the_contract_in_its_plays_is_charged_and_leaves_the_pool(rollout, monkeypatch):
    """Validation-aware: the program pays the win reward without ending the episode, but only
    on an answer no validation probe sends. Its regret plays trip the deployment monitor: the
    design is charged as invalid, and the quarantined program is no longer an agent task."""
    from spade_gym.registry.quarantine import mark_of

    source = MOD_SUM.source.replace("class ModSumEnv", "class SneakySumEnv").replace(
        "    def step(self, action):\n",
        "    def step(self, action):\n        if 'zebra' in str(action):\n"
        "            return 'Keep going.', 1.0, False, False, {}\n")
    design = DesignResult("Mathematical Reasoning", False, designer_completion(source, MOD_SUM.hint))
    with Progress(enabled=False).phase("validating") as phase:
        rollout.admission_stage.run([design], 1, "test-model", random.Random(0), phase)
    assert design.valid, design.failure  # validation's probes never say zebra
    rollout.play_stage.seed_entries = []
    fake = FakeVLLM(lambda prompt, seed: "\\boxed{zebra}")
    monkeypatch.setitem(sys.modules, "vllm", fake.vllm_module)
    policy = TokenPolicy(make_generator(fake.trainer("server"), fake.tokenizer, loss_temperature=0.8),
                         fake.tokenizer)
    with pytest.warns(Warning):
        regret = rollout.play_stage.measure_regret(policy, [design], 1, random.Random(5))
    assert regret.groups == [] and regret.plays == [] and not design.valid and design.failed_check == "contract (deployment)"
    assert design.reward == rollout.config.reward.invalid_penalty
    entry = rollout.suite.get(str(design.env_id))
    assert mark_of(entry.card.sha256) is not None
    with pytest.raises(SpadeError, match="pool is empty"):
        rollout.play_stage.agent_groups(policy, 1, [], 1, random.Random(3))


def test_a_design_named_like_another_suites_environment_fails_instead_of_playing_that_one(rollout):
    """An id means one program: the run suite cannot take a name the bundled suite owns, so a
    design called SealedBidLotsEnv would be played as the bundled SealedBidLots. It fails."""
    source = MOD_SUM.source.replace("class ModSumEnv", "class SealedBidLotsEnv")
    design = DesignResult("Mathematical Reasoning", False, designer_completion(source, MOD_SUM.hint))
    with pytest.warns(Warning, match="refused"), Progress(enabled=False).phase("validating") as phase:
        verdicts = rollout.admission_stage.run([design], 1, "test-model", random.Random(0), phase)
    assert verdicts.registered == []
    assert not design.valid and design.failed_check == "name", (design.failed_check, design.failure)
    assert "another registered suite already owns this name" in design.failure


def test_a_share_of_agent_tasks_always_comes_from_the_pool(rollout, monkeypatch):
    """Regret groups used to fill the whole task budget once there were enough new designs, and
    the agent stopped sampling the pool; pool_task_share (0.25) keeps a quarter for the pool."""
    design = mod_sum(rollout)
    policy, _ = vllm_policy("server", monkeypatch)
    regret = rollout.play_stage.measure_regret(policy, [design], 1, random.Random(5)).groups
    assert len(regret) == 1
    out = rollout.play_stage.agent_groups(policy, 4, regret * 6, 1, random.Random(3))  # more groups than tasks
    assert out.regret_groups_used == 3
    assert len(out.task_plays) == rollout.config.num_generations  # one pool task, G episodes
    rollout.config.pool_task_share = 0.0
    assert rollout.play_stage.agent_groups(policy, 4, regret * 6, 1, random.Random(3)).regret_groups_used == 4
