"""CLI basics: list, show, play; conventions (help with example, one-line errors)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from spade_gym.cli import main


@pytest.fixture()
def runner():
    return CliRunner()


def test_every_command_has_help_with_example(runner):
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == 0
    commands = [line.split()[0] for line in result.output.split("Commands:")[1].strip().splitlines()]
    assert {"list", "show", "play"} <= set(commands)
    for name in commands:
        help_text = runner.invoke(main, [name, "--help"]).output
        assert "Example" in help_text, name


def test_list_json_and_markdown(runner, benign_suite, tmp_path):
    suite_dir = tmp_path / "s"
    from testkit import GUESS_SOURCE, build_suite

    build_suite(suite_dir, {"guess": GUESS_SOURCE}, skill="Logical Deduction")
    result = runner.invoke(main, ["list", "--suite", str(suite_dir), "--json"])
    rows = json.loads(result.output)
    assert [r["id"] for r in rows] == ["spade/NumberHunt-v0"] and rows[0]["skill"] == "Logical Deduction"
    md = runner.invoke(main, ["list", "--suite", str(suite_dir), "--markdown"]).output
    assert ("| id | kind | skill | multi-turn | best shortcut (per level) | oracle turns (per level) | description |"
            in md and "`spade/NumberHunt-v0` | game |" in md)
    assert "1 environments, 0 of them multi-turn" in md
    assert runner.invoke(main, ["list", "--suite", str(suite_dir), "--skill", "Optimization", "--json"]).output.strip() == "[]"


def test_list_and_show_carry_the_mechanic_family(runner, tmp_path):
    from testkit import GUESS_SOURCE, build_suite

    from spade_gym.registry import Suite

    suite_dir = tmp_path / "s"
    (entry,) = build_suite(suite_dir, {"guess": GUESS_SOURCE})
    unlabelled = runner.invoke(main, ["list", "--suite", str(suite_dir), "--markdown"]).output
    assert "| game | (unlabelled) | 1 | NumberHunt-v0 |" in unlabelled
    Suite(suite_dir).update_card(entry, mechanic="numeric search with higher/lower feedback")
    rows = json.loads(runner.invoke(main, ["list", "--suite", str(suite_dir), "--json"]).output)
    assert rows[0]["mechanic"] == "numeric search with higher/lower feedback"
    md = runner.invoke(main, ["list", "--suite", str(suite_dir), "--markdown"]).output
    assert "| game | numeric search with higher/lower feedback | 1 | NumberHunt-v0 |" in md
    shown = runner.invoke(main, ["show", str(suite_dir / entry.directory.name), "--no-source"]).output
    assert "mechanic: numeric search with higher/lower feedback" in shown


def test_show(runner, benign_suite):
    result = runner.invoke(main, ["show", benign_suite["NumberHunt"], "--json"])
    data = json.loads(result.output)
    assert data["card"]["id"] == benign_suite["NumberHunt"] and "class NumberHuntEnv" in data["source"]
    text = runner.invoke(main, ["show", benign_suite["NumberHunt"]]).output
    assert "NumberHuntEnv" in text and "validation" in text


def test_unknown_id_is_one_clean_line(runner):
    result = runner.invoke(main, ["show", "spade/DoesNotExist-v0"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: unknown environment") and "Traceback" not in result.output


def test_play_a_winning_episode(runner, benign_suite):
    import gymnasium as gym

    from spade_gym import privileged

    env = gym.make(benign_suite["NumberHunt"])
    env.reset(seed=3)
    answer = privileged(env).solution()
    env.close()
    result = runner.invoke(main, ["play", benign_suite["NumberHunt"], "--seed", "3", "--hint"],
                           input=f"1\n{answer}\n")
    assert result.exit_code == 0, result.output
    assert "HINT:" in result.output and "Wrong." in result.output and "You won after 2 turn(s)" in result.output


def test_play_ctrl_d_exits_cleanly(runner, benign_suite):
    result = runner.invoke(main, ["play", benign_suite["NumberHunt"], "--seed", "1"], input="")
    assert result.exit_code == 0 and "Bye." in result.output


def test_console_script_subprocess(benign_suite):
    suite_dir = __import__("gymnasium").spec(benign_suite["NumberHunt"]).kwargs["env_dir"].rsplit("/", 1)[0]
    script = Path(sys.executable).with_name("spade-gym")  # the installed console script
    assert script.exists()
    out = subprocess.run([str(script), "list", "--suite", suite_dir, "--json"],
                         capture_output=True, text=True, check=True)
    assert any(r["id"] == benign_suite["NumberHunt"] for r in json.loads(out.stdout))
    bad = subprocess.run([str(script), "show", "nope"], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.startswith("Error:") and "Traceback" not in bad.stderr
