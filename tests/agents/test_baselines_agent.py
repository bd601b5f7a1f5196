"""`spade-gym eval --agent baselines`: the validator's shortcut zoo as an agent."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from testkit import representative_bundled_ids

from spade_gym.agents import EpisodeSpec, play_episodes
from spade_gym.agents.baselines import BASELINES, BaselinesAgent, _ToolPlay
from spade_gym.cli import main
from spade_gym.errors import ConfigError
from spade_gym.evaluation import AgentConfig
from spade_gym.validation.baselines.zoo import SHORTCUT_BASELINES, TOOL_SHORTCUT_BASELINES


def test_bisection_beats_a_higher_lower_game_and_copy_does_not(benign_suite):
    """NumberHunt (1..1000, eight guesses, higher/lower) is what bisection exploits once it has
    seen a few answers; copying tokens off the screen does not find the number."""
    env_id = benign_suite["NumberHunt"]
    specs = [EpisodeSpec(env_id, seed) for seed in range(12)]
    bisection = play_episodes(BaselinesAgent("bisection"), specs)
    copy = play_episodes(BaselinesAgent("copy_every"), specs)
    assert all(e.error is None for e in bisection + copy)
    assert all(e.turns and e.turns[0].action.startswith("\\boxed{") for e in bisection)
    assert sum(e.won for e in copy) == 0
    # Bisection follows the feedback: after "Go higher" it guesses higher, after "Go lower" lower.
    moves = 0
    for episode in bisection:
        for before, after in zip(episode.turns, episode.turns[1:]):
            previous, following = int(before.action[7:-1]), int(after.action[7:-1])
            if "Go higher" in before.observation:
                assert following > previous, (before, after)
                moves += 1
            elif "Go lower" in before.observation:
                assert following < previous, (before, after)
                moves += 1
    assert moves >= 12


def test_eval_agent_baselines_reports_a_success_rate(benign_suite, tmp_path):
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["eval", "--agent", "baselines", "--envs", benign_suite["NumberHunt"],
                                       "--episodes", "5", "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["agent"]["kind"] == "baselines" and report["played"] == 5


def test_eval_agent_baselines_names_one_baseline():
    assert AgentConfig("baselines", model="bisection").build().name == "baselines-bisection"
    with pytest.raises(ConfigError, match="choose one of"):
        AgentConfig("baselines", model="oracle").build()
    assert set(SHORTCUT_BASELINES) == {"prior", "blind_script", "bisection", "enumeration", "copy_every", "decode",
                                       "marks", "opponent", "probe_plan"}


# ----------------------------------------------------------------------------- tool-use environments

def _tool_env() -> str:
    return representative_bundled_ids()[2]


def _speaks_tools(episode) -> bool:
    """Every action a tool call or an answer, and at least one call run by the env."""
    actions = [turn.action.lstrip() for turn in episode.turns]
    return (bool(actions) and all(a.startswith(("<tool_call>", "<answer>")) for a in actions)
            and any(turn.observation.startswith("Tool result:") for turn in episode.turns))


def test_a_tool_use_env_is_dealt_the_tool_use_zoo():
    """A ``\\boxed{}`` answer is ignored by a tool-use env: its episodes go to the tool-use zoo, in
    turn, and every baseline's calls reach the tools."""
    agent = BaselinesAgent()
    episodes = play_episodes(agent, [EpisodeSpec(_tool_env(), seed) for seed in range(8)])
    assert all(e.error is None for e in episodes)
    assert all(_speaks_tools(e) for e in episodes), [e.turns[:2] for e in episodes]
    dealt = [type(agent._baselines[i]).__name__ for i in range(len(TOOL_SHORTCUT_BASELINES))]
    assert dealt == ["BlindScript", "ToolReplay", "ToolSweep", "ToolEnumerate"]


def test_eval_model_tool_replay_plays_a_tool_use_env(tmp_path):
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["eval", "--agent", "baselines", "--model", "tool_replay",
                                       "--envs", _tool_env(), "--episodes", "3", "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["agent"]["fingerprint"].startswith("baselines-tool_replay") and report["played"] == 3
    episodes = play_episodes(BaselinesAgent("tool_replay"), [EpisodeSpec(_tool_env(), seed) for seed in range(3)])
    assert all(e.error is None and _speaks_tools(e) for e in episodes)


def test_a_game_baseline_on_a_tool_use_env_is_a_clear_error():
    result = CliRunner().invoke(main, ["eval", "--agent", "baselines", "--model", "bisection",
                                       "--envs", _tool_env(), "--episodes", "1"])
    assert result.exit_code != 0
    assert "tool-use environment" in result.output and "tool_replay" in result.output, result.output
    assert "Traceback" not in result.output
    with pytest.raises(ConfigError, match="bisection"):
        play_episodes(BaselinesAgent("bisection"), [EpisodeSpec(_tool_env(), 0)])
    assert AgentConfig("baselines", model="tool_sweep").build().name == "baselines-tool_sweep"


def test_the_tool_use_prior_holds_only_what_the_other_episodes_showed():
    """Another episode's solution pairs with its own observations only while its play followed the
    solution (the same calls on the same state); results it never got stay empty."""
    script = ['<tool_call>{"name": "a", "arguments": {}}</tool_call>',
              '<tool_call>{"name": "b", "arguments": {}}</tool_call>', "<answer>7</answer>"]
    play = _ToolPlay("".join(script), script, ["task", "Tool result:\nA", "Tool result:\nB"], script[:2])
    assert play.transcript() == (("task", script[0]), ("Tool result:\nA", script[1]), ("Tool result:\nB", script[2]))
    strayed = _ToolPlay("".join(script), script, ["task", "Tool result:\nX", "Tool result:\nY"],
                        ['<tool_call>{"name": "x", "arguments": {}}</tool_call>', script[1]])
    assert strayed.transcript() == (("task", script[0]), ("", script[1]), ("", script[2]))
    agent = BaselinesAgent()
    agent._plays["env"] = {0: play, 1: strayed}
    prior = agent._tool_prior("env", 1)  # leave-one-out: episode 1 learns from episode 0 only
    assert list(prior.transcripts) == [play.transcript()] and prior.actions_by_turn == [[s] for s in script]


def test_eval_help_names_every_baseline():
    result = CliRunner().invoke(main, ["eval", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert [name for name in BASELINES if name not in result.output] == []
