"""`spade-gym eval --agent baselines`: the validator's shortcut zoo as an agent."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from spade_gym.agents import EpisodeSpec, play_episodes
from spade_gym.agents.baselines import BaselinesAgent
from spade_gym.cli import main
from spade_gym.errors import ConfigError
from spade_gym.evaluation import AgentConfig
from spade_gym.validation.policies import SHORTCUT_BASELINES


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
