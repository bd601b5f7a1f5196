"""The Reasoning Gym adapter: spade/rg-<task>-v0 envs, their oracle, and eval over them."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import pytest
from click.testing import CliRunner
from fakes import FakeOpenAI
from gymnasium.utils.env_checker import check_env

from spade_gym import privileged
from spade_gym.errors import RegistryError

reasoning_gym = pytest.importorskip("reasoning_gym")

from spade_gym.adapters.reasoning_gym import (  # noqa: E402 - after the skip
    ANSWER_INSTRUCTION,
    ReasoningGymEnv,
    register_reasoning_gym,
)
from spade_gym.cli import main  # noqa: E402
from spade_gym.evaluation import AgentConfig, Evaluation, episode_seeds, select_envs  # noqa: E402

#: Cheap tasks of different kinds; propositional_logic stores no answer (only a metadata example).
TASKS = ["leg_counting", "basic_arithmetic", "fraction_simplification", "propositional_logic"]


@pytest.fixture(scope="module", autouse=True)
def registered():
    return register_reasoning_gym(TASKS)


def boxed(text: str) -> str:
    return "\\boxed{" + text + "}"


@pytest.mark.parametrize("task", TASKS)
def test_env_passes_check_env_and_the_oracle_scores_one(task):
    env = gym.make(f"spade/rg-{task}-v0")
    check_env(env.unwrapped, skip_render_check=True)
    for seed in (0, 1, 2):
        obs, info = env.reset(seed=seed)
        assert obs.endswith(ANSWER_INSTRUCTION) and info["task"] == task
        assert set(info) == {"task", "category", "item_seed", "difficulty"}  # nothing privileged in info
        assert info["difficulty"] is None
        solution = privileged(env).solution()
        obs, reward, terminated, truncated, info = env.step(boxed(solution))
        assert (reward, terminated, truncated) == (1.0, True, False), (task, seed, solution, info)
        env.reset(seed=seed)
        assert env.step(boxed("no, not this"))[1] < 1.0
    env.close()


def test_same_seed_same_question_and_partial_credit_is_not_full():
    a, b = ReasoningGymEnv("leg_counting"), ReasoningGymEnv("leg_counting")
    assert a.reset(seed=11)[0] == b.reset(seed=11)[0] != a.reset(seed=12)[0]
    a.reset(seed=11)
    answer = privileged(a).solution()
    assert 0 < a.step(boxed("1" + answer))[1] < 1.0  # the task's own scorer gives partial credit
    a.reset(seed=11)
    obs, reward, *_ , info = a.step(answer)  # not boxed: no answer read
    assert reward == 0.0 and info["answer"] is None and "\\boxed{}" in obs


def test_registration_and_hint_wrapper():
    assert "spade/rg-leg_counting-v0" in gym.registry
    assert register_reasoning_gym(["leg_counting"]) == ["spade/rg-leg_counting-v0"]  # idempotent
    with pytest.raises(RegistryError, match="unknown Reasoning Gym task"):
        register_reasoning_gym(["no_such_task"])
    env = gym.make("spade/rg-leg_counting-v0", hint=True)
    obs, info = env.reset(seed=3)
    assert info["hint"] is None and "HINT" not in obs
    env.close()


def test_rg_envs_are_selected_only_by_rg_patterns(benign_suite):
    # registered or not, held-out tasks never leak into "the suite"
    assert not [e for e in select_envs("spade/*") if e.env_id.startswith("spade/rg-")]
    chosen = select_envs("spade/rg-leg_counting-v0,spade/rg-basic_*")
    assert [(e.env_id, e.skill, e.graded) for e in chosen] == [
        ("spade/rg-basic_arithmetic-v0", "Reasoning Gym (arithmetic)", True),
        ("spade/rg-leg_counting-v0", "Reasoning Gym (arithmetic)", True),
    ]


def test_oracle_eval_over_rg_tasks(tmp_path):
    envs = select_envs(",".join(f"spade/rg-{t}-v0" for t in TASKS))
    run = Evaluation(AgentConfig("oracle"), envs, episodes=2, results_path=tmp_path / "r.jsonl").run()
    assert len(run.records) == 2 * len(TASKS) and all(r["success"] for r in run.records)


class AnsweringServer(FakeOpenAI):
    """Answers leg_counting questions correctly and everything else wrongly."""

    def __init__(self, answers: dict[str, str]):
        super().__init__()
        self.answers = answers

    def completion(self, body):
        prompt = body["messages"][0]["content"]
        text = next((boxed(a) for q, a in self.answers.items() if q in prompt), "\\boxed{-1}")
        return {"choices": [{"index": 0, "message": {"role": "assistant", "content": f"Let me count. {text}"},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


def test_openai_loopback_agent_on_rg_through_the_cli(tmp_path):
    seeds = episode_seeds(0, 3)
    answers = {}
    for seed in seeds:
        entry = reasoning_gym.create_dataset("leg_counting", seed=seed, size=1)[0]
        answers[entry["question"].rstrip()] = entry["answer"]
    server = AnsweringServer(answers)
    try:
        out = tmp_path / "rg.json"
        result = CliRunner().invoke(main, [
            "eval", "--agent", "openai", "--model", "loopback", "--base-url", server.url,
            "--envs", "spade/rg-leg_counting-v0,spade/rg-basic_arithmetic-v0", "--episodes", "3",
            "--concurrency", "4", "--json", str(out)])
        assert result.exit_code == 0, result.output
    finally:
        server.close()
    report = json.loads(out.read_text())
    rates = {row["env_id"]: row["no_hint"]["success_rate"] for row in report["envs"]}
    assert rates == {"spade/rg-basic_arithmetic-v0": 0.0, "spade/rg-leg_counting-v0": 1.0}
    assert report["skills"] == [dict(report["skills"][0], skill="Reasoning Gym (arithmetic)", envs=2)]
    assert report["overall"]["no_hint"]["successes"] == 3 and len(server.requests) == 6


def test_import_spade_gym_does_not_import_reasoning_gym():
    code = ("import sys, spade_gym, spade_gym.adapters, spade_gym.evaluation; "
            "print('reasoning_gym' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- levels

from spade_gym.adapters import reasoning_gym as rg  # noqa: E402
from spade_gym.adapters.reasoning_gym_levels import curriculum_config  # noqa: E402
from spade_gym.errors import ConfigError  # noqa: E402

#: Cheap tasks with curricula (each level builds in milliseconds).
LEVEL_TASKS = ["leg_counting", "basic_arithmetic", "chain_sum"]


@pytest.mark.parametrize("task", LEVEL_TASKS)
def test_difficulty_sets_the_dataset_configuration_and_changes_the_task(task):
    configs = {level: rg.level_config(task, level) for level in rg.LEVELS}
    assert configs["hard"] == rg.HARD_SPLIT[task]  # the reference's hard split
    assert len({json.dumps(c, sort_keys=True) for c in configs.values()}) == 3
    fields = set(reasoning_gym.factory.DATASETS[task][1].__dataclass_fields__)
    assert all(set(c) <= fields for c in configs.values())  # the dataset's own configuration fields
    questions = {}
    for level in rg.LEVELS:
        env = gym.make(f"spade/rg-{task}-v0", difficulty=level)
        obs, info = env.reset(seed=5)
        assert info["difficulty"] == level
        # the item is the dataset's item at that configuration, and the oracle still wins it
        entry = reasoning_gym.create_dataset(task, **configs[level], seed=5, size=1)[0]
        assert obs.startswith(entry["question"].rstrip())
        assert env.step(boxed(privileged(env).solution()))[1] == 1.0
        questions[level] = obs
        env.close()
    assert len(set(questions.values())) == 3
    plain = gym.make(f"spade/rg-{task}-v0").reset(seed=5)[0]
    assert plain == ReasoningGymEnv(task).reset(seed=5)[0]  # no difficulty: the dataset's defaults


def test_level_ids_are_the_levels_and_plain_patterns_do_not_match_them():
    [hard_id] = rg.matching_ids("spade/rg-leg_counting-hard-v0")
    assert hard_id == "spade/rg-leg_counting-hard-v0" and rg.difficulty_of(hard_id) == "hard"
    a = gym.make(hard_id).reset(seed=9)[0]
    b = gym.make("spade/rg-leg_counting-v0", difficulty="hard").reset(seed=9)[0]
    assert a == b != gym.make("spade/rg-leg_counting-v0").reset(seed=9)[0]
    # registered or not, "spade/rg-*" stays one id per task; a pattern naming a level gets that level
    plain = [e.env_id for e in select_envs("spade/rg-*")]
    assert len(plain) == len(rg.available_tasks()) and not [i for i in plain if i.endswith("-hard-v0")]
    easy = [e.env_id for e in select_envs("spade/rg-*-easy-v0")]
    assert easy == sorted(rg.env_id(t, "easy") for t in rg.available_tasks())
    assert rg.skill_label(rg.env_id("leg_counting", "easy")) == "Reasoning Gym easy (arithmetic)"
    with pytest.raises(ConfigError, match="unknown difficulty"):
        gym.make("spade/rg-leg_counting-v0", difficulty="brutal")
    with pytest.raises(ConfigError, match="unknown difficulty"):
        rg.register_reasoning_gym(["leg_counting"], levels=["brutal"])


def test_the_hard_split_resolves_as_a_named_set():
    chosen = select_envs("@rg-hard")
    assert [e.env_id for e in chosen] == sorted(rg.env_id(t, "hard") for t in rg.HARD_SPLIT)
    assert len(chosen) == 100 and all(e.graded for e in chosen)
    # played as the reference plays it: 8 episodes per task, seeds 0..7, however many --episodes ask for
    assert all(e.tasks == 8 and e.seeds(0, 1000) == list(range(8)) for e in chosen)
    assert all(e.tasks is None for e in select_envs("spade/rg-leg_counting-hard-v0"))
    groups: dict[str, int] = {}
    for e in chosen:
        groups[e.skill] = groups.get(e.skill, 0) + 1
    # the reference's game table reports the split under four groups
    assert groups == {"Reasoning Gym hard (Math)": 31, "Reasoning Gym hard (Algorithmic)": 36,
                      "Reasoning Gym hard (Cognition)": 24, "Reasoning Gym hard (Logic)": 9}
    # every hard configuration names fields its dataset has, with values its dataset accepts
    for task, config in rg.HARD_SPLIT.items():
        config_class = reasoning_gym.factory.DATASETS[task][1]
        made = config_class(**config)
        if hasattr(made, "validate"):
            made.validate()
        assert rg.level_source(task, "hard").startswith("the reference's hard split")
    assert [e.env_id for e in select_envs("leg_counting*,@rg-hard")] == [e.env_id for e in chosen]  # no duplicates
    with pytest.raises(ConfigError, match="unknown set"):
        select_envs("@rg-impossible")


def test_oracle_eval_over_hard_level_ids_through_the_cli(tmp_path):
    out = tmp_path / "hard.json"
    result = CliRunner().invoke(main, ["eval", "--agent", "oracle", "--envs",
                                       "spade/rg-leg_counting-hard-v0,spade/rg-chain_sum-hard-v0",
                                       "--episodes", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["overall"]["no_hint"]["successes"] == 4
    assert {row["skill"] for row in report["skills"]} == {"Reasoning Gym hard (Math)"}


def test_a_curriculum_point_the_dataset_refuses_steps_down(monkeypatch):
    """Close the class (a curriculum level its dataset refuses), not the instances this version has."""
    refused_above = 0.25
    calls = []

    def builds(task, config):
        calls.append(config)
        return config == curriculum_config(task, refused_above) or config == curriculum_config(task, 0.0)

    monkeypatch.setattr(rg, "_builds", builds)
    monkeypatch.setattr(rg, "_resolved", {})
    assert rg.level_config("leg_counting", "medium") == curriculum_config("leg_counting", 0.25)
    assert "refused" in rg.level_source("leg_counting", "medium")
    assert len(calls) == 3  # 0.5 and 0.375 refused, 0.25 taken
    monkeypatch.setattr(rg, "_builds", lambda task, config: False)
    monkeypatch.setattr(rg, "_resolved", {})
    assert rg.level_config("leg_counting", "easy") == {}
    assert "defaults" in rg.level_source("leg_counting", "easy")
    # the reference's hard configuration is taken as the reference registers it, never stepped down
    assert rg.level_config("leg_counting", "hard") == rg.HARD_SPLIT["leg_counting"]


def test_agent_task_pool_offers_every_level_of_each_task():
    pool = rg.agent_task_pool(["leg_counting", "chain_sum"])
    assert pool == [rg.env_id(t, level) for level in rg.LEVELS for t in ["leg_counting", "chain_sum"]]
    assert all(spec in gym.registry for spec in pool)
    assert rg.agent_task_pool(["leg_counting"], levels=["hard"]) == ["spade/rg-leg_counting-hard-v0"]
    with pytest.raises(ConfigError):
        rg.agent_task_pool(["leg_counting"], levels=[])
    # the ids play through the driver self-play uses, as (env id, seed) tasks
    from spade_gym.agents import EpisodeSpec, OracleAgent, play_episodes

    played = play_episodes(OracleAgent(), [EpisodeSpec(env_id, 17) for env_id in pool], max_turns=2)
    assert [e.won for e in played] == [True] * len(pool)
    assert len({e.first_observation for e in played}) == len(pool)  # each level its own question
