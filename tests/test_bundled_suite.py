"""One shared test over every environment of the bundled suite (envs_generated/).

Like reasoning-gym's per-task test: every environment validates with the default
configuration, passes gymnasium's check_env, is won by the privileged policy on
several seeds at every difficulty level, and the suite as a whole meets its promises.
"""

from __future__ import annotations

import os
from collections import Counter

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from conftest import ROOT
from spade_gym.agents import AgentReply, EpisodeSpec, OracleAgent, play_episodes
from spade_gym.cli.list_cmd import collect, markdown_document
from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.validation import validate_many
from spade_gym.validation.fingerprint import nearest

SKILLS = ("Pattern Recognition", "Logical Deduction", "Mathematical Reasoning", "Spatial Reasoning",
          "Strategic Planning", "Causal Inference", "Memory Recall", "Optimization", "Language Understanding")
ENTRIES = Suite(bundled_suite_path()).entries(strict=True)
IDS = [e.id for e in ENTRIES]


def test_suite_size_skills_and_multi_turn_share():
    assert len(ENTRIES) >= 72
    skills = Counter(e.card.skill for e in ENTRIES)
    for skill in SKILLS:
        assert skills[skill] >= 8, f"{skill}: {skills[skill]} environments"
    multi_turn = sum(e.card.multi_turn for e in ENTRIES)
    assert multi_turn / len(ENTRIES) >= 0.40


def test_readme_table_is_current():
    readme = (ROOT / "envs_generated" / "README.md").read_text()
    expected = markdown_document(collect("envs_generated", None),
                                 "spade-gym list --suite envs_generated --markdown")
    assert readme == expected, "regenerate: spade-gym list --suite envs_generated --markdown > envs_generated/README.md"


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_card_is_complete_and_honest(entry):
    card = entry.card
    entry.read_source()  # sha256 matches
    assert card.hint and len(card.hint) > 20
    assert card.difficulty_levels == ["easy", "medium", "hard"]
    assert card.validation.get("valid") is True
    assert card.provenance.get("designer") and card.provenance.get("prompt_version")
    assert card.description and card.class_name


def test_no_two_environments_are_the_same_game():
    for entry in ENTRIES:
        others = [e for e in ENTRIES if e.id != entry.id]
        match = nearest(entry.read_source(), others)
        assert match is None or (not match.exact and match.similarity < 0.95), (entry.id, match)


@pytest.fixture(scope="module")
def reports():
    sources = {e.id: e.read_source() for e in ENTRIES}
    hints = {e.id: e.card.hint for e in ENTRIES}
    return dict(zip(sources, validate_many(sources, hints=hints, workers=min(8, 2 * (os.cpu_count() or 1)))))


@pytest.mark.parametrize("env_id", IDS)
def test_validates_with_default_config(env_id, reports):
    report = reports[env_id]
    assert report.valid, report.summary()
    assert report.details["difficulty_levels"] == ["easy", "medium", "hard"]


@pytest.mark.parametrize("env_id", IDS)
def test_check_env(env_id):
    env = gym.make(env_id)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


class WrongAnswerAgent:
    """Answers the same nonsense every turn, so every episode runs out of attempts."""

    name = "wrong-answer"

    def act(self, requests):
        return [AgentReply("\\boxed{zzqx}") for _ in requests]

    def close(self):
        pass


@pytest.mark.parametrize("env_id", IDS)
def test_oracle_wins_at_every_difficulty(env_id):
    specs = [EpisodeSpec(env_id, seed, kwargs=(("difficulty", level),))
             for level in ("easy", "medium", "hard") for seed in (11, 222, 3333)]
    episodes = play_episodes(OracleAgent(), specs)
    lost = [(e.spec.kwargs, e.spec.seed, e.rewards, e.error) for e in episodes if not e.won]
    assert not lost
    # The episode-end rule: running out of attempts ends the game as a loss (terminated, reward 0);
    # truncated is left to turn limits imposed from outside the game.
    wrong = play_episodes(WrongAnswerAgent(), [EpisodeSpec(env_id, 5, kwargs=(("difficulty", level),))
                                               for level in ("easy", "medium", "hard")])
    ended = [(e.spec.kwargs, e.terminated, e.truncated, e.total_reward, e.error) for e in wrong]
    assert all(term and not trunc and reward == 0 and error is None
               for _, term, trunc, reward, error in ended), ended
