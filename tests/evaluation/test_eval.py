"""`spade-gym eval`: oracle/random bounds, paired hint arms, resumable results, reports, HTTP agent."""

from __future__ import annotations

import dataclasses
import json
import math
import sys

import pytest
from click.testing import CliRunner
from fakes import FakeOpenAI, Reply
from hypothesis import given
from hypothesis import strategies as st
from testkit import representative_bundled_ids

from spade_gym.cli import main
from spade_gym.errors import ConfigError, RegistryError
from spade_gym.evaluation import (
    AgentConfig,
    Evaluation,
    ResultsStore,
    episode_seeds,
    hint_gain,
    paired_difference_interval,
    select_envs,
    wilson_interval,
)


@pytest.fixture()
def runner():
    return CliRunner()


@pytest.fixture(scope="module")
def suite_envs(benign_suite):
    """The benign corpus and three representative bundled envs, chosen through ``spade/*``
    (test_bundled_suite.py plays every bundled env; this module tests eval, not the suite)."""
    wanted = set(benign_suite.values()) | set(representative_bundled_ids())
    envs = [e for e in select_envs("spade/*") if e.env_id in wanted]
    assert {e.env_id for e in envs} == wanted
    return envs


def _invoke(runner, args):
    result = runner.invoke(main, ["eval", *args])
    assert result.exit_code == 0, result.output
    return result


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


# ----------------------------------------------------------------------------- bounds


def test_oracle_wins_every_suite_env(suite_envs, tmp_path):
    run = Evaluation(AgentConfig("oracle"), suite_envs, episodes=2, results_path=tmp_path / "r.jsonl").run()
    lost = sorted({(r["env_id"], r["seed"]) for r in run.records if not r["success"]})
    assert not lost, f"the oracle lost {lost}"
    assert run.played == 2 * len(suite_envs) and run.reused == 0


def test_random_agent_mostly_loses(suite_envs, tmp_path):
    run = Evaluation(AgentConfig("random"), suite_envs, episodes=2, results_path=tmp_path / "r.jsonl").run()
    rate = sum(r["success"] for r in run.records) / len(run.records)
    assert rate <= 0.3


# ----------------------------------------------------------------------------- CLI: arms, resume, reports


def test_both_arms_use_the_same_seeds_and_report_a_paired_gain(runner, benign_suite, tmp_path):
    out = tmp_path / "out" / "eval.json"
    md = tmp_path / "out" / "eval.md"
    _invoke(runner, ["--agent", "oracle", "--envs", "spade/NumberHunt-v0,spade/EmojiTrail-v0", "--episodes", "3",
                     "--both", "--seed", "7", "--json", str(out), "--markdown", str(md)])
    records = _records(out.with_suffix(".episodes.jsonl"))
    assert len(records) == 2 * 3 * 2
    for env_id in (benign_suite["NumberHunt"], benign_suite["EmojiTrail"]):
        seeds = {hint: sorted(r["seed"] for r in records if r["env_id"] == env_id and r["hint"] == hint)
                 for hint in (False, True)}
        assert seeds[False] == seeds[True] == sorted(episode_seeds(7, 3))
    report = json.loads(out.read_text())
    assert report["arms"] == "both" and report["agent"]["kind"] == "oracle"
    for row in report["envs"]:
        assert row["no_hint"]["success_rate"] == row["hint"]["success_rate"] == 1.0
        assert row["hint_gain"]["pairs"] == 3 and row["hint_gain"]["gain"] == 0.0
        assert row["hint_gain"]["ci_low"] < 0 < row["hint_gain"]["ci_high"]
    assert report["overall"]["hint_gain"]["pairs"] == 6
    text = md.read_text()
    assert text.startswith("# Evaluation: oracle") and "## Per environment" in text and "## Per skill" in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert len({line.count("|") for line in table[:4]}) == 1  # header, separator and rows line up
    assert "`spade/NumberHunt-v0`" in text and "hint gain (95% CI)" in text


def test_rerun_plays_nothing_and_reports_the_same(runner, benign_suite, tmp_path):
    results = tmp_path / "results.jsonl"

    def run(episodes, name):
        _invoke(runner, ["--agent", "random", "--envs", "spade/NumberHunt-v0,spade/WordSet-v0", "--max-turns", "3",
                         "--episodes", str(episodes), "--results", str(results), "--json", str(tmp_path / name)])
        return json.loads((tmp_path / name).read_text())

    a = run(3, "a.json")
    lines = results.read_text().splitlines()
    b = run(3, "b.json")
    assert results.read_text().splitlines() == lines  # nothing appended
    assert (a["played"], a["reused"]) == (6, 0) and (b["played"], b["reused"]) == (0, 6)
    for key in ("envs", "skills", "overall", "agent"):
        assert a[key] == b[key]
    c = run(4, "c.json")  # more episodes later: only the new seeds are played
    assert (c["played"], c["reused"]) == (2, 6)


def test_cached_episodes_of_another_program_under_the_same_id_are_replayed(suite_envs, tmp_path):
    env = next(e for e in suite_envs if e.env_id == "spade/NumberHunt-v0")
    assert len(env.program) == 64  # the card's sha256 of env.py
    path = tmp_path / "r.jsonl"

    def played(info):
        return Evaluation(AgentConfig("random"), [info], episodes=2, results_path=path).run().played

    first, again = played(env), played(env)
    changed = played(dataclasses.replace(env, program="0" * 64))  # a new program registered under the id
    assert (first, again, changed) == (2, 0, 2)
    assert {r["program"] for r in _records(path)} == {env.program, "0" * 64}


def test_default_results_file_is_per_agent_in_the_working_directory(runner, benign_suite, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _invoke(runner, ["--agent", "oracle", "--envs", "NumberHunt*", "--episodes", "1"])
    fingerprint = AgentConfig("oracle").fingerprint
    assert fingerprint.startswith("oracle-")
    assert len(_records(tmp_path / ".spade-eval" / f"{fingerprint}.jsonl")) == 1
    assert "spade/NumberHunt-v0" in result.output and "100%" in result.output


def test_fingerprint_separates_agents_and_settings():
    base = AgentConfig("openai", model="m", base_url="http://x/v1")
    assert base.fingerprint == AgentConfig("openai", model="m", base_url="http://y/v1", concurrency=2).fingerprint
    others = [AgentConfig("openai", model="m2", base_url="http://x/v1"),
              AgentConfig("openai", model="m", base_url="http://x/v1", temperature=0.0),
              AgentConfig("openai", model="m", base_url="http://x/v1", max_tokens=64),
              AgentConfig("openai", model="m", base_url="http://x/v1", max_turns=3)]
    assert len({base.fingerprint, *(o.fingerprint for o in others)}) == 5
    assert AgentConfig("random", seed=1).fingerprint != AgentConfig("random", seed=2).fingerprint



def test_a_baselines_run_of_one_script_is_its_own_agent():
    """``--agent baselines --model bisection`` plays one script: the report's settings name it, so
    its cache, fingerprint and published entry are not the whole zoo's."""
    from spade_gym.evaluation.publish import agent_label

    zoo, one = AgentConfig("baselines"), AgentConfig("baselines", model="bisection")
    assert one.settings()["model"] == "bisection" and "model" not in zoo.settings()
    assert one.fingerprint != zoo.fingerprint
    assert one.fingerprint != AgentConfig("baselines", model="enumeration").fingerprint
    assert agent_label({"agent": one.settings()}) == "baselines bisection"
    assert agent_label({"agent": zoo.settings()}) == "baselines"

def test_results_store_skips_torn_lines_and_other_agents(tmp_path):
    path = tmp_path / "r.jsonl"
    good = {"agent": "a", "env_id": "spade/X-v0", "seed": 1, "hint": False, "success": True}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "agent": "b"}) + "\n" + '{"agent": "a", "env')
    store = ResultsStore(path)
    assert list(store.load("a")) == [("a", "spade/X-v0", "", 1, False)]  # no program recorded: ""
    with store.open_for_append() as handle:
        handle.write(json.dumps({**good, "seed": 2}) + "\n")
    assert len(store.load("a")) == 2


# ----------------------------------------------------------------------------- OpenAI-compatible agent


def test_openai_agent_failures_are_reported_and_replayed(runner, benign_suite, tmp_path):
    fake = FakeOpenAI()
    try:
        fake.script = [Reply(400, {"error": {"message": "model not found"}}) for _ in range(3)]
        args = ["--agent", "openai", "--model", "tiny", "--base-url", fake.url, "--envs", "spade/NumberHunt-v0",
                "--episodes", "3", "--max-turns", "1", "--json", str(tmp_path / "e.json")]
        failed = runner.invoke(main, ["eval", *args])
        assert failed.exit_code == 1
        assert "Error: the agent failed on all 3 episode(s)" in failed.output and "Traceback" not in failed.output
        fake.recorded = ["I think it is \\boxed{5}"] * 3
        _invoke(runner, args)
        report = json.loads((tmp_path / "e.json").read_text())
        assert (report["played"], report["reused"], report["agent_errors"]) == (3, 0, 0)
        bodies = [body for _, body in fake.requests]
        assert {b["model"] for b in bodies} == {"tiny"} and len(bodies) == 6
        assert "\\boxed{}" in bodies[-1]["messages"][0]["content"]  # the driver's first-turn template
    finally:
        fake.close()


@pytest.mark.train
def test_transformers_agent_through_the_cli(runner, benign_suite, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from spade_gym.generate.tiny_model import build_tiny_model

    model = build_tiny_model(tmp_path / "tiny", ["Guess the number: \\boxed{42}"], hidden_size=16, num_layers=1)
    out = tmp_path / "t.json"
    _invoke(runner, ["--agent", "transformers", "--model", str(model), "--envs", "spade/NumberHunt-v0",
                     "--episodes", "2", "--max-turns", "2", "--max-tokens", "4", "--json", str(out)])
    report = json.loads(out.read_text())
    assert report["agent"]["max_tokens"] == 4 and report["played"] == 2 and report["agent_errors"] == 0
    assert report["overall"]["no_hint"]["mean_turns"] <= 2


# ----------------------------------------------------------------------------- CLI errors


@pytest.mark.parametrize("args, message", [
    (["--agent", "oracle", "--envs", "spade/NoSuchThing-*"], "no registered environment matches spade/NoSuchThing-*"),
    (["--agent", "openai", "--envs", "spade/*", "--base-url", "http://localhost:1/v1"], "--agent openai needs --model"),
    (["--agent", "openai", "--envs", "spade/*", "--model", "m"], "--agent openai needs --base-url"),
    (["--agent", "transformers", "--envs", "spade/*"], "--agent transformers needs --model"),
])
def test_errors_are_one_clear_line(runner, benign_suite, args, message):
    result = runner.invoke(main, ["eval", *args])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {message}") and "Traceback" not in result.output


def test_rg_pattern_without_the_package_is_one_line(runner, monkeypatch):
    monkeypatch.setitem(sys.modules, "reasoning_gym", None)  # as if not installed
    result = runner.invoke(main, ["eval", "--agent", "oracle", "--envs", "spade/rg-*"])
    assert result.exit_code == 1 and result.output.startswith("Error: Reasoning Gym tasks need the reasoning-gym")
    assert "pip install 'spade-gym[reasoning-gym]'" in result.output


def test_hint_flags_are_mutually_exclusive(runner):
    result = runner.invoke(main, ["eval", "--agent", "oracle", "--envs", "spade/*", "--hint", "--both"])
    assert result.exit_code == 2 and "mutually exclusive" in result.output


def test_evaluation_rejects_bad_settings(suite_envs):
    with pytest.raises(ConfigError):
        Evaluation(AgentConfig("oracle"), suite_envs, episodes=0)
    with pytest.raises(ConfigError):
        AgentConfig("human")
    with pytest.raises(RegistryError):
        select_envs("spade/NoSuchThing-v0")


# ----------------------------------------------------------------------------- statistics


def test_episode_seeds_are_stable_and_distinct():
    assert episode_seeds(0, 5) == episode_seeds(0, 8)[:5]
    assert len(set(episode_seeds(0, 50))) == 50
    assert not set(episode_seeds(0, 20)) & set(episode_seeds(1, 20))


def test_wilson_and_newcombe_match_published_values():
    low, high = wilson_interval(81, 263)  # Newcombe (1998), Table I
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    low, high = paired_difference_interval(36, 12, 2, 0)  # Newcombe (1998) paired example, method 10
    assert (round(low, 4), round(high, 4)) == (0.0569, 0.3404)
    assert paired_difference_interval(0, 0, 0, 0) == (-1.0, 1.0)


@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
def test_paired_interval_contains_the_estimate(both, first_only, second_only, neither):
    n = both + first_only + second_only + neither
    low, high = paired_difference_interval(both, first_only, second_only, neither)
    estimate = (first_only - second_only) / n if n else 0.0
    assert -1.0 <= low <= estimate + 1e-12 and estimate - 1e-12 <= high <= 1.0
    assert not (math.isnan(low) or math.isnan(high))


def test_hint_gain_pairs_by_env_and_seed():
    def rec(env, seed, hint, success):
        return {"env_id": env, "seed": seed, "hint": hint, "success": success}

    records = [rec("a", 1, False, False), rec("a", 1, True, True),   # helped
               rec("a", 2, False, True), rec("a", 2, True, True),    # both
               rec("b", 1, False, True), rec("b", 1, True, False),   # hurt
               rec("b", 2, True, True)]                              # unpaired: ignored
    gain = hint_gain(records)
    assert (gain.pairs, gain.helped, gain.hurt, gain.gain) == (3, 1, 1, 0.0)
    assert hint_gain([rec("a", 1, False, True)]) is None
