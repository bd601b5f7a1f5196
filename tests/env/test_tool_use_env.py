"""Tool-use environments through gymnasium: tools on reset, hints, privileged access,
vector envs, the error rules, and the cards and CLI that tell them apart from games."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest
from click.testing import CliRunner
from testkit import GUESS_SOURCE, PROGRAMS, build_suite

import spade_gym
from spade_gym.cli import main
from spade_gym.env.spade_env import ERROR_OBSERVATION
from spade_gym.errors import SpadeError

TOOLUSE_DIR = PROGRAMS / "tooluse"
SCRIPT_ACTION = re.compile(r"<tool_call>.*?</tool_call>|<answer>.*?</answer>", re.DOTALL)
TOOLUSE_SOURCES = {p.stem: p.read_text() for p in sorted(TOOLUSE_DIR.glob("*.py"))}


@pytest.fixture(scope="module")
def tool_suite(tool_use_suite):
    return tool_use_suite


def test_reset_puts_the_tools_in_info(tool_suite):
    _, ids = tool_suite
    env = gym.make(ids["FileOrganizer"])
    obs, info = env.reset(seed=3)
    names = [tool["function"]["name"] for tool in info["tools"]]
    assert names == ["pwd", "ls", "cd", "mkdir", "mv", "rm"]
    assert all(tool["type"] == "function" and tool["function"]["parameters"]["type"] == "object"
               for tool in info["tools"])
    assert spade_gym.tools(env) == info["tools"]
    spade_gym.tools(env)[0]["function"]["name"] = "changed"  # a copy: the env's tools are not touched
    assert spade_gym.tools(env) == info["tools"]
    for action in SCRIPT_ACTION.findall(spade_gym.privileged(env).solution()):
        obs, reward, terminated, truncated, step_info = env.step(action)
    assert (obs, reward, terminated, truncated) == ("Correct!", 1.0, True, False)
    assert "tools" not in step_info
    env.close()


def test_a_game_has_no_tools(benign_suite):
    env = gym.make(benign_suite["NumberHunt"])
    _, info = env.reset(seed=0)
    assert "tools" not in info
    with pytest.raises(SpadeError, match="not a tool-use environment"):
        spade_gym.tools(env)
    env.close()


def test_tools_before_reset_is_a_clear_error(tool_suite):
    _, ids = tool_suite
    env = gym.make(ids["UnitConverter"])
    with pytest.raises(SpadeError, match="call reset"):
        spade_gym.tools(env)
    env.close()


def test_hint_wrapper_and_privileged_info(tool_suite):
    _, ids = tool_suite
    env = gym.make(ids["FileOrganizer"], hint=True)
    obs, info = env.reset(seed=1)
    assert info["hint"] and obs.endswith("HINT: " + info["hint"]) and info["tools"]
    solution = spade_gym.privileged(env).solution()
    assert solution.rstrip().endswith("</answer>") and "<tool_call>" in solution
    env.close()


def test_make_vec_gives_each_episode_its_tools(tool_suite):
    _, ids = tool_suite
    single = gym.make(ids["BankLedger"])
    vec = gym.make_vec(ids["BankLedger"], num_envs=3, num_workers=2)
    obs, infos = vec.reset(seed=10)
    for i in range(3):
        expected_obs, expected_info = single.reset(seed=10 + i)
        assert obs[i] == expected_obs and list(infos["tools"][i]) == expected_info["tools"]
    # play each sub-env's solution, in lockstep
    scripts = []
    for i in range(3):
        single.reset(seed=10 + i)
        scripts.append(SCRIPT_ACTION.findall(spade_gym.privileged(single).solution()))
    rewards = None
    for turn in range(max(len(s) for s in scripts)):
        _, rewards, terminations, _, _ = vec.step([s[min(turn, len(s) - 1)] for s in scripts])
    assert list(rewards) == [1.0, 1.0, 1.0] and all(terminations)
    # the next step autoresets, and the new episodes carry their tools again
    obs, _, _, _, infos = vec.step(["", "", ""])
    assert all(len(t) == 4 for t in infos["tools"])
    vec.close()
    single.close()


BROKEN_TOOLS = TOOLUSE_SOURCES["unit_converter"] + (
    "\n\nclass BrokenToolsEnv(UnitConverterEnv):\n"
    "    def get_tools(self):\n"
    "        raise ValueError('tools unavailable')\n")


def test_a_failing_get_tools_truncates_without_punishing_the_agent():
    env = spade_gym.load_source(BROKEN_TOOLS)
    obs, info = env.reset(seed=0)
    assert obs == ERROR_OBSERVATION and "tools unavailable" in info["error"]["message"]
    obs, reward, terminated, truncated, info = env.step("<answer>1</answer>")
    assert (reward, terminated, truncated) == (0.0, False, True) and "error" in info
    env.close()


def test_cards_record_the_kind_and_list_filters_by_it(tmp_path):
    from spade_gym.registry import Suite

    directory = tmp_path / "mixed"
    entries = build_suite(directory, {**TOOLUSE_SOURCES, "guess": GUESS_SOURCE}, skill="Data Retrieval")
    ids = {entry.card.name: entry.id for entry in entries}
    assert {e.card.name: e.card.kind for e in Suite(directory).entries()}["NumberHunt"] == "game"
    runner = CliRunner()
    rows = json.loads(runner.invoke(main, ["list", "--suite", str(directory), "--json"]).output)
    kinds = {row["id"]: row["kind"] for row in rows}
    assert kinds[ids["NumberHunt"]] == "game"
    assert {kinds[ids[n]] for n in ("FileOrganizer", "BankLedger", "WarehouseSteps", "UnitConverter")} == {"tool-use"}
    only = json.loads(runner.invoke(main, ["list", "--suite", str(directory), "--kind", "tool-use", "--json"]).output)
    assert sorted(row["id"] for row in only) == sorted(ids[n] for n in ("FileOrganizer", "BankLedger",
                                                                          "WarehouseSteps", "UnitConverter"))
    games = json.loads(runner.invoke(main, ["list", "--suite", str(directory), "--kind", "game", "--json"]).output)
    assert [row["id"] for row in games] == [ids["NumberHunt"]]


def test_card_kind_is_checked():
    from spade_gym.registry import Card

    data = Card(name="X", version=0, skill="s", description="d", hint=None, max_turns=5, sha256="0" * 64,
                kind="tool-use").to_dict()
    assert Card.from_dict(data).kind == "tool-use"
    old = {k: v for k, v in data.items() if k != "kind"}
    assert Card.from_dict(old).kind == "game"  # cards written before kinds existed are games
    with pytest.raises(spade_gym.RegistryError, match="kind must be one of"):
        Card.from_dict({**data, "kind": "puzzle"})


def test_play_a_tool_use_episode_in_the_terminal(tool_suite):
    from spade_gym import toolcalls
    from spade_gym.cli.play_cmd import tool_action

    directory, ids = tool_suite
    env = gym.make(ids["UnitConverter"])
    env.reset(seed=4)
    script = toolcalls.solution_actions(spade_gym.privileged(env).solution())
    env.close()
    typed = []
    for action in script:
        parsed = toolcalls.parse_action(action)
        typed.append(f"= {parsed.answer}" if parsed.answer is not None
                     else f"{parsed.calls[0].name} {json.dumps(parsed.calls[0].arguments)}")
    result = CliRunner().invoke(main, ["play", ids["UnitConverter"], "--seed", "4", "--suite", str(directory)],
                                input="factor {oops\n" + "\n".join(typed) + "\n")
    assert result.exit_code == 0, result.output
    assert "Tools:" in result.output and "factor(unit)" in result.output
    assert "Format error" in result.output and "You won after 4 turn(s)" in result.output
    assert tool_action("<answer>3</answer>") == "<answer>3</answer>"
    assert tool_action("=  42 ") == "<answer>42</answer>"
    assert tool_action('ls {"path": "/"}') == toolcalls.format_call("ls", {"path": "/"})
