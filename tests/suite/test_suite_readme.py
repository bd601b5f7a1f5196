"""The suite README's generated parts: each environment's baseline profile (from its card) and
the reference agents' results (``eval --publish`` -> ``EVAL.json`` -> ``list --markdown``)."""

from __future__ import annotations

import json
import shlex

import pytest
from click.testing import CliRunner
from testkit import BENIGN_DIR, build_suite

from spade_gym.cli import main
from spade_gym.cli.eval_cmd import command as eval_command_cli
from spade_gym.cli.list_cmd import NO_PROFILE, collect, evaluation_section, markdown_document, markdown_table
from spade_gym.errors import ConfigError
from spade_gym.evaluation.publish import EVAL_FILE, eval_command, load, publish
from spade_gym.registry import Suite, register_suite

PROFILE = [{"level": "easy", "best_baseline": "prior", "best_rate": 0.125, "best_wins": 1, "seeds": 8,
            "oracle_turns": 3.0, "solution_chars": 2.0, "oracle_win_rate": 1.0},
           {"level": "hard", "best_baseline": "bisection", "best_rate": 0.0, "best_wins": 0, "seeds": 8,
            "oracle_turns": 5.5, "solution_chars": 3.0, "oracle_win_rate": 1.0}]


def _row(env_id: str, profile=None, skill="Test Skill") -> dict:
    return {"id": env_id, "kind": "game", "skill": skill, "mechanic": None, "multi_turn": True,
            "description": "d", "level_profile": profile}


def test_profile_columns_show_each_level_and_a_dash_without_one():
    table = markdown_table([_row("spade/A-v0", PROFILE), _row("spade/B-v0")]).splitlines()
    assert "best shortcut (easy/hard)" in table[0] and "oracle turns (easy/hard)" in table[0]
    assert "| 12% / 0% | 3 / 5.5 |" in table[2]
    assert f"| {NO_PROFILE} | {NO_PROFILE} |" in table[3]
    # profiles over different levels: each cell names its levels
    other = [{"level": "default", "best_rate": 0.5, "oracle_turns": 1.0}]
    mixed = markdown_table([_row("spade/A-v0", PROFILE), _row("spade/C-v0", other)]).splitlines()
    assert "best shortcut (per level)" in mixed[0]
    assert "| easy 12% / hard 0% | easy 3 / hard 5.5 |" in mixed[2] and "| default 50% | default 1 |" in mixed[3]


def test_the_profile_comes_from_the_card(tmp_path):
    build_suite(tmp_path / "suite", {"guess_number": (BENIGN_DIR / "guess_number.py").read_text()})
    suite = Suite(tmp_path / "suite")
    entry = suite.entries_or_raise()[0]
    assert collect(str(suite.path), None)[0]["level_profile"] is None
    suite.update_card(entry, validation={"valid": True, "checks": [], "level_profile": PROFILE})
    rows = collect(str(suite.path), None)
    assert rows[0]["level_profile"] == PROFILE
    assert "| 12% / 0% | 3 / 5.5 |" in markdown_document(rows, "cmd")
    # a malformed record on a hand-edited card reads as no profile, never as a crash
    suite.update_card(entry, validation={"valid": True, "level_profile": ["not a level"]})
    assert collect(str(suite.path), None)[0]["level_profile"] is None


def _renamed(stem: str, old: str, new: str) -> str:
    return (BENIGN_DIR / f"{stem}.py").read_text().replace(old, new)


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A registered suite of two programs (names of their own), evaluated by oracle and random
    with --publish into the suite's EVAL.json; the random run is published twice."""
    directory = tmp_path_factory.mktemp("published") / "suite"
    build_suite(directory, {"a": _renamed("guess_number", "NumberHuntEnv", "PublishedHuntEnv"),
                            "b": _renamed("unicode_story", "EmojiTrailEnv", "PublishedTrailEnv")})
    register_suite(directory)
    runner = CliRunner()
    target = directory / EVAL_FILE
    results = directory.parent / "episodes.jsonl"
    outputs = []
    for agent in ("random", "oracle", "random"):
        result = runner.invoke(main, ["eval", "--agent", agent, "--envs", "spade/Published*", "--episodes", "3",
                                      "--max-turns", "4", "--results", str(results), "--publish", str(target)])
        assert result.exit_code == 0, result.output
        outputs.append(result)
    return directory, target


def test_publish_merges_one_entry_per_agent(published):
    _, target = published
    data = load(target)
    assert list(data["agents"]) == ["oracle", "random"]  # reference order, the repeated run replaced
    oracle = data["agents"]["oracle"]
    assert oracle["envs"] == ["spade/PublishedHunt-v0", "spade/PublishedTrail-v0"]
    assert oracle["overall"] == {"envs": 2, "no_hint": {"episodes": 6, "successes": 6}}
    assert oracle["skills"]["Test Skill"] == {"envs": 2, "no_hint": {"episodes": 6, "successes": 6}}
    assert data["agents"]["random"]["overall"]["no_hint"]["episodes"] == 6


def test_the_recorded_command_reproduces_the_run(published):
    _, target = published
    for label, entry in load(target)["agents"].items():
        args = shlex.split(entry["command"])
        assert args[:2] == ["spade-gym", "eval"]
        params = eval_command_cli.make_context("eval", args[2:]).params
        assert params["kind"] == label
        assert (params["patterns"], params["episodes"], params["max_turns"]) == ("spade/Published*", 3, 4)
        assert str(params["publish_path"]) == str(target)


def test_list_markdown_renders_the_published_results(published):
    directory, _ = published
    result = CliRunner().invoke(main, ["list", "--suite", str(directory), "--markdown"])
    assert result.exit_code == 0, result.output
    text = result.output
    section = text[text.index("## Reference agents"):]
    assert "| skill | envs | oracle | random |" in section
    assert "| Test Skill | 2 | 100% (6/6) | " in section
    assert "| **overall** | 2 | 100% (6/6) | " in section
    assert "`spade-gym eval --agent oracle --envs 'spade/Published*' --episodes 3 --max-turns 4" in section
    assert "Not current" not in section  # the runs cover the suite
    # filtered listings are not the README: no suite-wide results in them
    filtered = CliRunner().invoke(main, ["list", "--suite", str(directory), "--markdown", "--kind", "game"])
    assert "## Reference agents" not in filtered.output


def test_results_for_another_set_of_environments_say_so():
    evaluation = {"agents": {"oracle": {
        "command": "spade-gym eval --agent oracle --envs 'spade/*' --episodes 1 --publish EVAL.json",
        "envs": ["spade/A-v0", "spade/Gone-v0"],
        "skills": {"S": {"envs": 2, "no_hint": {"episodes": 2, "successes": 1}}},
        "overall": {"envs": 2, "no_hint": {"episodes": 2, "successes": 1}}}}}
    lines = evaluation_section(evaluation, [_row("spade/A-v0", skill="S"), _row("spade/B-v0", skill="S")])
    text = "\n".join(lines)
    assert "Not current: oracle played 1 of the 2 environments listed here and 1 no longer in the suite." in text
    assert "| S | 2 | 50% (1/2) |" in text  # envs: what the suite lists; the counts: what was played
    assert evaluation_section(None, []) == [] and evaluation_section({"agents": {}}, []) == []


def test_publish_refuses_to_overwrite_a_foreign_file(tmp_path):
    target = tmp_path / "EVAL.json"
    target.write_text('{"something": "else"}')
    report = {"agent": {"kind": "oracle", "fingerprint": "f"}, "spade_gym_version": "x", "episodes_per_env": 1,
              "seed": 0, "arms": "no-hint", "agent_errors": 0, "envs": [], "skills": [], "overall": {"envs": 0}}
    with pytest.raises(ConfigError, match="not a published evaluation"):
        publish(target, report, "cmd")
    assert json.loads(target.read_text()) == {"something": "else"}


@pytest.mark.parametrize("agents, problem", [
    ({"oracle": {"envs": [], "skills": {}, "overall": {"envs": 0}}}, "needs a 'command'"),
    ({"oracle": {"command": "c", "envs": "spade/A-v0", "skills": {}, "overall": {"envs": 0}}}, "list of ids"),
    ({"oracle": {"command": "c", "envs": [], "skills": {"S": {"envs": 1, "no_hint": {"episodes": 1, "successes": 2}}},
                 "overall": {"envs": 1}}}, "0 <= successes <= episodes"),
    ({"oracle": {"command": "c", "envs": [], "skills": {}, "overall": None}}, "needs an 'envs' count"),
])
def test_a_malformed_eval_file_is_one_clear_error(tmp_path, agents, problem):
    build_suite(tmp_path / "suite", {"a": _renamed("guess_number", "NumberHuntEnv", "MalformedHuntEnv")})
    (tmp_path / "suite" / EVAL_FILE).write_text(json.dumps({"schema": 1, "agents": agents}))
    result = CliRunner().invoke(main, ["list", "--suite", str(tmp_path / "suite"), "--markdown"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "is not a published evaluation" in result.output and problem in result.output


def test_eval_command_quotes_what_the_shell_would_split(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my suite").mkdir()
    text = eval_command(kind="openai", model="my model", patterns="spade/*,spade/rg-*", episodes=2, seed=3,
                        arms="both", max_turns=None, suites=("my suite",), publish_path="out/EVAL.json",
                        temperature=0.5, max_tokens=64)
    params = eval_command_cli.make_context("eval", shlex.split(text)[2:]).params
    assert (params["model"], params["patterns"], params["seed"], params["both_arms"], params["temperature"],
            params["max_tokens"], params["suites"]) == ("my model", "spade/*,spade/rg-*", 3, True, 0.5, 64,
                                                        ("my suite",))
