"""BFCL multi_turn_base: simulators in a worker, turn-by-turn checking, hazards contained."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import pytest

import spade_gym
from spade_gym.adapters import _bfcl_worker as worker
from spade_gym.adapters import bfcl
from spade_gym.toolcalls import ToolCall, solution_actions

pytestmark = pytest.mark.skipif(importlib.util.find_spec("bfcl_eval") is None,
                                reason="needs the bfcl-eval package (pip install --no-deps bfcl-eval)")
ID = "spade/bfcl-multi_turn_base-v0"


@pytest.fixture
def env():
    from spade_gym.adapters.bfcl_multi_turn import BfclMultiTurnEnv

    environment = BfclMultiTurnEnv(request_deadline=2.0)
    yield environment
    environment.close()


def call(name: str, **arguments) -> str:
    return ToolCall(name, arguments).to_text()


def test_oracle_wins_and_random_loses_through_the_driver():
    from spade_gym.agents import EpisodeSpec, OracleAgent, RandomAgent, play_episodes

    bfcl.register_bfcl([bfcl.MULTI_TURN_CATEGORIES[0]])
    specs = [EpisodeSpec(ID, seed) for seed in (0, 15, 57, 101, 150, 199)]
    oracle = play_episodes(OracleAgent(), specs)
    assert all(e.won and e.error is None for e in oracle), [e.spec.seed for e in oracle if not e.won]
    assert all(len(e.turns) > 3 for e in oracle)  # several calls and several user turns each
    assert not any(e.won for e in play_episodes(RandomAgent(seed=0), specs))


def test_a_turn_passes_only_with_the_same_state_and_results(env):
    obs, info = env.reset(seed=0)  # turn 1: cd document, mkdir temp, mv final_report.pdf temp
    assert obs.startswith("Move 'final_report.pdf'") and info["turns"] == 4 and spade_gym.tools(env) == info["tools"]
    assert env.step(call("cd", folder="document"))[0] == 'Tool result:\n{"current_working_directory": "document"}'
    obs, reward, terminated, _, info = env.step("Done.")  # mkdir and mv are missing
    assert (reward, terminated, info["reason_type"]) == (0.0, True, "state")
    with pytest.raises(gym.error.ResetNeeded):
        env.step("again")
    env.reset(seed=0)
    assert env.step("I would rather not.")[1:4] == (0.0, True, False)  # no call in a turn that needs some
    env.reset(seed=0)
    for action in (call("cd", folder="document"), call("mkdir", dir_name="temp"),
                   call("mv", source="final_report.pdf", destination="temp")):
        assert env.step(action)[2] is False
    obs, reward, terminated, _, info = env.step("<answer>done</answer>")
    assert (reward, terminated, info["valid"]) == (0.0, False, True)
    assert obs.startswith("Perform a detailed search using grep")  # the next user turn


def test_unknown_and_failing_calls_are_results_not_crashes(env):
    env.reset(seed=0)
    assert "Error during execution" in env.step(call("cp", source="a", destination="b"))[0]  # excluded here
    assert "Error during execution" in env.step(call("nonexistent"))[0]
    assert "Error during execution" in env.step(call("cd", wrong_argument=1))[0]


def test_a_call_that_would_hang_the_host_ends_the_episode_in_time(env):
    import time

    env.reset(seed=15)  # has MathAPI
    started = time.monotonic()
    _, reward, terminated, _, info = env.step(call("power", base=7, exponent=10**11))
    assert (reward, terminated, info["reason_type"]) == (0.0, True, "simulator")
    assert time.monotonic() - started < 10
    env.reset(seed=15)  # the next episode gets a fresh worker
    assert env.step(call("add", a=1, b=2))[0] == 'Tool result:\n{"result": 3}'


def test_solution_from_a_later_turn_plays_the_rest(env):
    env.reset(seed=0)
    actions = solution_actions(spade_gym.privileged(gym.wrappers.PassiveEnvChecker(env)).solution())
    first_turn_end = actions.index("<answer>done</answer>") + 1
    for action in actions[:first_turn_end]:
        env.step(action)
    rest = solution_actions(env._privileged_solution())
    assert rest == actions[first_turn_end:]
    for action in rest:
        _, reward, terminated, _, _ = env.step(action)
    assert (reward, terminated) == (1.0, True)


def test_ground_truth_text_is_parsed_never_evaluated():
    class Files:
        def cd(self, folder):
            return folder

    methods = {"cd": Files().cd}
    assert worker._parse_call("cd(folder='x')", methods) == ("cd", {"folder": "x"})
    assert worker._parse_call("cd('x')", methods) == ("cd", {"folder": "x"})
    for hostile in ("__import__('os').system('true')", "cd(folder=open('/etc/passwd').read())", "cd", "1 + 1"):
        with pytest.raises((ValueError, SyntaxError)):
            worker._parse_call(hostile, methods)


def test_eval_plays_each_multi_turn_task_once():
    from spade_gym.evaluation import select_envs

    (chosen,) = select_envs("spade/bfcl-multi_turn*")
    assert (chosen.env_id, chosen.skill, chosen.tasks) == (ID, "BFCL (multi_turn_base)", 200)
    assert chosen.seeds(0, 500) == list(range(200))
