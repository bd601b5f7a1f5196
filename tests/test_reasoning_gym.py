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
        assert set(info) == {"task", "category", "item_seed"}  # nothing privileged in info
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
