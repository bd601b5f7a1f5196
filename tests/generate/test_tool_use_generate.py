"""Designing tool-use environments: the six skills, the prompt, kind checks, the pipeline."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from testkit import BENIGN_DIR, PROGRAMS

from spade_gym import toolcalls
from spade_gym.cli import main
from spade_gym.contract import CONTRACT_TEXT, TOOL_USE_CONTRACT_TEXT, TOOL_USE_KIND, program_kind
from spade_gym.errors import SpadeError
from spade_gym.generate.backends import ReplayBackend
from spade_gym.generate.designer_output import parse_designer_output
from spade_gym.generate.pipeline import GenerateConfig, GenerationPipeline, plan_targets
from spade_gym.generate.prompts import (
    FRONTIER,
    SKILLS,
    TOOL_USE_SKILLS,
    DesignMemory,
    MemoryEntry,
    build_design_messages,
    build_repair_messages,
    skill_by_name,
    skills_for,
)
from spade_gym.sandbox import ProgramHandle

TOOL_SKILLS = ["API Orchestration", "Data Retrieval", "State Modification", "Error Recovery", "Tool Selection",
               "Multi-Step Workflows"]
GAME = (BENIGN_DIR / "unicode_story.py").read_text()
TOOL_PROGRAM = (PROGRAMS / "tooluse" / "file_organizer.py").read_text()


def completion(code: str, hint: str = "List the folder first, then create the target before moving.") -> str:
    return f"Here it is.\n```python\n{code}```\n<hint>{hint}</hint>"


def test_the_six_tool_use_skills():
    assert list(TOOL_USE_SKILLS) == TOOL_SKILLS and skills_for(TOOL_USE_KIND) is TOOL_USE_SKILLS
    assert not set(TOOL_USE_SKILLS) & set(SKILLS)  # a skill names its kind
    for name, skill in TOOL_USE_SKILLS.items():
        assert skill.kind == TOOL_USE_KIND and len(skill.multi_turn_ideas) >= 4 and skill.description
        assert skill_by_name(name.lower().replace(" ", "_").replace("-", "_")) is skill
    assert all(skill.kind == "game" for skill in SKILLS.values())
    with pytest.raises(ValueError, match="unknown environment kind"):
        skills_for("puzzle")


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_tool_use_prompt(difficulty):
    messages = build_design_messages("Error Recovery", difficulty=difficulty, rng=random.Random(1),
                                     grounding="Container terminals stack boxes by destination port.")
    system, user = messages[0]["content"], messages[1]["content"]
    assert "tool" in system.lower()
    assert TOOL_USE_CONTRACT_TEXT.rstrip("\n") in user and CONTRACT_TEXT.rstrip("\n") not in user
    assert "**Error Recovery**" in user and TOOL_USE_SKILLS["Error Recovery"].description in user
    assert f"target level: {difficulty}" in user
    assert "Container terminals stack boxes" in user and "self-contained" in user
    assert "class LockerToyEnv(ToolUseBaseEnv)" in user
    shown = [idea for idea in TOOL_USE_SKILLS["Error Recovery"].multi_turn_ideas if idea in user]
    assert len(shown) == 3


def test_tool_use_prompt_shows_memory_with_the_frontier_band():
    entries = [MemoryEntry("VaultEnv", "Data Retrieval", TOOL_PROGRAM, 0.5, 0.3),
               MemoryEntry("TrivialEnv", "Data Retrieval", TOOL_PROGRAM, 0.97, 0.0)]
    memory = DesignMemory.select(entries, "Data Retrieval", rng=random.Random(0))
    user = build_design_messages("Data Retrieval", memory=memory, rng=random.Random(0))[1]["content"]
    assert f"between {FRONTIER[0]:.0%} and {FRONTIER[1]:.0%}" in user
    assert "## VaultEnv" in user and "too easy (win rate 0.97): TrivialEnv" in user


def test_the_format_example_is_a_working_tool_use_program():
    user = build_design_messages("Tool Selection", rng=random.Random(0))[1]["content"]
    example = user[user.index("FORMAT EXAMPLE ONLY"):]
    parsed = parse_designer_output(example)
    assert program_kind(parsed.code) == TOOL_USE_KIND and parsed.hint
    with ProgramHandle(parsed.code) as handle:
        for seed in (0, 1, 2):
            handle.reset(seed=seed)
            answer = toolcalls.parse_action(handle.solution()).answer
            assert handle.step(toolcalls.format_answer(answer))[1] == 0.0  # the answer alone does not win
            handle.reset(seed=seed)
            for action in toolcalls.solution_actions(handle.solution()):
                result = handle.step(action)
            assert result[:3] == ("Correct!", 1.0, True)


def test_repair_request_names_the_tool_use_failure_mode():
    messages = build_design_messages("Data Retrieval", rng=random.Random(0))
    repair = build_repair_messages(messages, "```python\n...\n```", "solvability: lost", kind=TOOL_USE_KIND)
    assert "playing the lines of solution() one per turn" in repair[-1]["content"]


def test_config_and_targets():
    with pytest.raises(SpadeError, match="not tool-use skills"):
        GenerateConfig(kind="tool-use", skills=("Logical Deduction",))
    with pytest.raises(SpadeError, match="kind must be one of"):
        GenerateConfig(kind="puzzles")
    targets = plan_targets(GenerateConfig(n=8, kind="tool-use"))
    assert [t.skill for t in targets] == TOOL_SKILLS + TOOL_SKILLS[:2] and all(t.multi_turn for t in targets)
    games = plan_targets(GenerateConfig(n=9))
    assert {t.skill for t in games} == set(SKILLS)


def test_a_design_of_the_wrong_kind_is_sent_back_for_repair(tmp_path):
    log = tmp_path / "designs.jsonl"
    log.write_text(json.dumps({"completion": completion(GAME)}) + "\n")
    config = GenerateConfig(n=1, kind="tool-use", skills=("State Modification",), attempts=1, concurrency=1)
    summary = GenerationPipeline(ReplayBackend(log), tmp_path / "s", config, log_path=tmp_path / "log.jsonl").run()
    assert summary.results[0].failures == ["kind"]
    assert "subclass ToolUseBaseEnv" in summary.results[0].last_summary
    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    record = next(r for r in records if r.get("event") == "attempt")
    assert record["kind"] == "tool-use" and record["prompt_version"].startswith("spade-tool-designer")


def test_generate_cli_help_lists_the_tool_use_skills():
    output = CliRunner().invoke(main, ["generate", "--help"]).output
    assert "--kind" in output and "Multi-Step Workflows" in output


def test_a_sound_tool_use_design_is_validated_and_registered(tmp_path):
    import gymnasium as gym

    from spade_gym.registry import Suite, register_suite
    from spade_gym.validation import ValidationConfig

    log = tmp_path / "designs.jsonl"
    log.write_text(json.dumps({"completion": completion(TOOL_PROGRAM), "skill": "State Modification"}) + "\n")
    config = GenerateConfig(n=1, kind="tool-use", skills=("State Modification",), attempts=1, concurrency=1)
    summary = GenerationPipeline(ReplayBackend(log), tmp_path / "s", config,
                                 validation_config=ValidationConfig(seeds=6)).run()
    assert summary.results[0].accepted, summary.results[0].last_summary
    (entry,) = Suite(tmp_path / "s").entries()
    card = entry.card
    assert card.kind == "tool-use" and card.skill == "State Modification"
    assert card.provenance["prompt_version"].startswith("spade-tool-designer") and card.multi_turn
    register_suite(tmp_path / "s")
    env = gym.make(entry.id)
    _, info = env.reset(seed=0)
    assert [t["function"]["name"] for t in info["tools"]][:2] == ["pwd", "ls"]
    env.close()
