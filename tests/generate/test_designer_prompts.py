"""Designer prompts: contract verbatim, skill and episode guidance, grounding, memory, repair."""

from __future__ import annotations

import json
import random
import re

import pytest

from spade_gym.contract import CONTRACT_TEXT
from spade_gym.errors import ConfigError
from spade_gym.generate.designer_output import parse_designer_output
from spade_gym.generate.prompts import (
    FRONTIER,
    PROMPT_VERSION,
    SKILLS,
    SNIPPET_CHARS,
    DesignMemory,
    GroundingCorpus,
    MemoryEntry,
    build_design_messages,
    build_repair_messages,
    skill_by_name,
)
from spade_gym.sandbox import ProgramHandle


def user_text(**kwargs) -> str:
    kwargs.setdefault("multi_turn", False)
    kwargs.setdefault("rng", random.Random(0))
    messages = build_design_messages(kwargs.pop("skill", "Logical Deduction"), **kwargs)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert all(isinstance(m["content"], str) and m["content"] for m in messages)
    return messages[1]["content"]


# --------------------------------------------------------------------------- skills


def test_catalog_has_the_nine_skills_with_enough_ideas():
    assert list(SKILLS) == [
        "Pattern Recognition", "Logical Deduction", "Mathematical Reasoning", "Spatial Reasoning",
        "Strategic Planning", "Causal Inference", "Memory Recall", "Optimization",
        "Language Understanding",
    ]
    for skill in SKILLS.values():
        assert skill.description and "\n" not in skill.description
        assert 6 <= len(skill.single_turn_ideas) + len(skill.multi_turn_ideas) <= 10
        assert len(skill.single_turn_ideas) >= 3 and len(skill.multi_turn_ideas) >= 3
        assert skill.slug == skill.name.lower().replace(" ", "_")


@pytest.mark.parametrize("spelling", [
    "logical_deduction", "Logical Deduction", "LOGICAL-DEDUCTION", "  logical   deduction ",
])
def test_skill_lookup_ignores_case_spaces_and_underscores(spelling):
    assert skill_by_name(spelling) is SKILLS["Logical Deduction"]


def test_unknown_skill_lists_the_valid_names():
    with pytest.raises(ValueError) as err:
        skill_by_name("telepathy")
    message = str(err.value)
    assert "telepathy" in message
    for name in SKILLS:
        assert name in message
    with pytest.raises(ValueError, match="Causal Inference"):
        build_design_messages("telepathy", multi_turn=True)


# --------------------------------------------------------------------------- design prompt


@pytest.mark.parametrize("multi_turn", [False, True])
def test_prompt_holds_contract_skill_format_hint_and_solution(multi_turn):
    text = user_text(skill="causal_inference", multi_turn=multi_turn)
    assert CONTRACT_TEXT.rstrip("\n") in text
    skill = SKILLS["Causal Inference"]
    assert skill.name in text and skill.description in text
    assert "```python" in text and "<hint>...</hint>" in text
    assert "hint(self) -> str" in text and "never states the answer" in text.replace("\n", " ")
    assert "solution(self) -> str" in text
    assert "\\boxed{<solution()>}" in text and "every seed" in text


def test_three_ideas_of_the_right_kind_are_sampled():
    skill = SKILLS["Spatial Reasoning"]
    for multi_turn, ideas in ((False, skill.single_turn_ideas), (True, skill.multi_turn_ideas)):
        text = user_text(skill=skill.name, multi_turn=multi_turn, rng=random.Random(3))
        shown = [idea for idea in skill.single_turn_ideas + skill.multi_turn_ideas if idea in text]
        assert len(shown) == 3 and set(shown) <= set(ideas)


def test_same_rng_seed_gives_the_same_prompt_and_seeds_vary_it():
    prompts = {user_text(skill="Optimization", multi_turn=True, rng=random.Random(seed))
               for seed in range(8)}
    assert len(prompts) > 1
    assert user_text(rng=random.Random(5)) == user_text(rng=random.Random(5))


def test_multi_turn_and_single_turn_guidance_differ():
    single = user_text(multi_turn=False)
    multi = user_text(multi_turn=True)
    assert single != multi
    assert "single-turn" in single and "SAME task" in single
    assert "Every action changes the state" in multi
    assert "informs the next move" in multi
    assert "several meaningfully different actions" in multi
    assert "Random play loses" in multi
    assert "same question, try" in multi.replace("\n", " ")
    assert "best next action" in multi
    assert "Every action changes the state" not in single


def test_max_turns_defaults_and_override():
    assert "(default 10)" in user_text(multi_turn=False)
    assert "Default `max_turns`: 12" in user_text(multi_turn=True)
    text = user_text(multi_turn=True, max_turns=20)
    assert "Default `max_turns`: 20" in text and "roughly 10 to 15 of the 20" in text
    with pytest.raises(ValueError, match="at least 4"):
        build_design_messages("Optimization", multi_turn=True, max_turns=2)


def test_difficulty_changes_the_guidance():
    texts = {level: user_text(difficulty=level) for level in ("easy", "medium", "hard")}
    assert len(set(texts.values())) == 3
    for level, text in texts.items():
        assert f'make "{level}" the default' in text
        assert "guessing fails" in text and "Hide information" in text
    assert "at least 5" in texts["hard"] and "at least 2" in texts["easy"]
    with pytest.raises(ValueError, match="easy, medium, hard"):
        build_design_messages("Optimization", multi_turn=False, difficulty="brutal")


def test_grounding_is_included_only_when_given():
    doc = "Ferries cross the river every 40 minutes; the tide shifts the landing point."
    text = user_text(grounding=doc)
    assert f"<document>\n{doc}\n</document>" in text
    assert "Do not reference the document" in text
    assert "<document>" not in user_text()
    assert "<document>" not in user_text(grounding="  \n")


def test_memory_references_and_negatives_are_rendered():
    long_source = "class LongEnv:\n" + "".join(f"    x{i} = {i}\n" for i in range(400))
    memory = DesignMemory(
        references=(MemoryEntry("LongEnv", "Logical Deduction", long_source, 0.42, 0.31),
                    MemoryEntry("FreshEnv", "Logical Deduction", "class FreshEnv:\n    pass\n")),
        negatives=(MemoryEntry("FooEnv", "Logical Deduction", "", 0.97, 0.0),
                   MemoryEntry("BarEnv", "Logical Deduction", "", 0.02, 0.0)),
    )
    text = user_text(memory=memory)
    assert "## LongEnv (skill: Logical Deduction; win rate 0.42, regret 0.31)" in text
    assert "## FreshEnv (skill: Logical Deduction; not played yet)" in text
    assert "DIFFERENT environment" in text
    assert "- too easy (win rate 0.97): FooEnv" in text
    assert "- too hard (win rate 0.02): BarEnv" in text
    assert "# ... (truncated)" in text and "x399" not in text
    snippet = text[text.index("class LongEnv"):text.index("# ... (truncated)")]
    assert len(snippet) <= SNIPPET_CHARS
    assert "Reference environments" not in user_text(memory=DesignMemory())


def test_format_example_is_a_working_toy_program():
    """The format example must itself obey the contract, or it would teach bad habits."""
    text = user_text()
    example = text[text.index("FORMAT EXAMPLE ONLY"):]
    parsed = parse_designer_output(example)
    assert "class ParityToyEnv" in parsed.code and parsed.hint
    with ProgramHandle(parsed.code) as env:
        for seed in range(3):
            env.reset(seed=seed)
            answer = env.solution()
            assert env.hint()
            assert env.step("no box")[1:3] == (0.0, False)
            assert env.step(f"\\boxed{{{answer}}}")[1:3] == (1.0, True)


def test_prompt_version_is_a_stable_label():
    assert PROMPT_VERSION == "spade-designer-v1"


# --------------------------------------------------------------------------- repair


def test_repair_messages_continue_the_conversation():
    design = build_design_messages("Memory Recall", multi_turn=True, rng=random.Random(0))
    snapshot = json.loads(json.dumps(design))
    feedback = "FAILED solvable: answering \\boxed{solution()} lost on seed 3 (turn 4)"
    repair = build_repair_messages(design, "```python\nclass AEnv: ...\n```", feedback)
    assert repair[:2] == design and design == snapshot
    assert repair[2] == {"role": "assistant", "content": "```python\nclass AEnv: ...\n```"}
    assert repair[3]["role"] == "user"
    assert feedback in repair[3]["content"]
    assert "COMPLETE corrected program" in repair[3]["content"]
    assert "```python" in repair[3]["content"] and "<hint>" in repair[3]["content"]
    second = build_repair_messages(repair, "again", "FAILED deterministic")
    assert len(second) == 6 and second[-1]["content"].count("FAILED deterministic") == 1


def test_repair_needs_feedback_and_a_conversation():
    with pytest.raises(ValueError, match="feedback"):
        build_repair_messages([{"role": "user", "content": "x"}], "code", "  ")
    with pytest.raises(ValueError, match="design_messages"):
        build_repair_messages([], "code", "FAILED")


# --------------------------------------------------------------------------- grounding corpus


def test_corpus_skips_bad_lines_and_counts_them(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join([
        json.dumps({"text": "Tides follow the moon.", "source": "wiki"}),
        "",
        "{not json",
        json.dumps({"text": "   "}),
        json.dumps({"title": "no text"}),
        json.dumps(["a", "list"]),
        json.dumps({"text": "Bees dance to share directions."}),
    ]) + "\n", encoding="utf-8")
    corpus = GroundingCorpus.from_jsonl(path)
    assert corpus.documents == ["Tides follow the moon.", "Bees dance to share directions."]
    assert corpus.skipped == 5
    assert corpus.sample(random.Random(1)) in corpus.documents


def test_corpus_without_documents_is_a_config_error(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text('\n{"text": ""}\nnonsense\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"no usable document \(3 line\(s\) skipped\).*\"text\""):
        GroundingCorpus.from_jsonl(path)
    with pytest.raises(ConfigError, match="cannot read"):
        GroundingCorpus.from_jsonl(tmp_path / "missing.jsonl")


def test_corpus_truncates_long_documents_with_a_marker(tmp_path):
    words = [f"w{i}" for i in range(50)]
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"text": "para one\n\n" + " ".join(words)}) + "\n", encoding="utf-8")
    doc = GroundingCorpus.from_jsonl(path, max_words=10).sample(random.Random(0))
    assert doc.startswith("para one\n\nw0 w1")
    assert re.findall(r"\S+", doc.split("\n[")[0])[-1] == "w7"
    assert doc.endswith("[document truncated at 10 words]")
    exact = GroundingCorpus(["a b c"], max_words=3).sample(random.Random(0))
    assert exact == "a b c"
    with pytest.raises(ConfigError, match="max_words"):
        GroundingCorpus(["a"], max_words=0)
    with pytest.raises(ConfigError, match="at least one document"):
        GroundingCorpus([])


# --------------------------------------------------------------------------- memory selection


def entry(name, win_rate, regret=0.0, skill="Logical Deduction"):
    return MemoryEntry(name, skill, f"class {name}:\n    pass\n", win_rate, regret)


def test_select_prefers_high_regret_frontier_entries_of_the_same_skill():
    entries = [
        entry("LowEnv", 0.5, 0.01), entry("MidEnv", 0.3, 0.2), entry("TopEnv", 0.6, 0.9),
        entry("NextEnv", 0.2, 0.8), entry("EdgeEnv", FRONTIER[1], 0.7),
        entry("EasyEnv", 0.95, 5.0), entry("HardEnv", 0.05, 5.0), entry("AlmostEnv", 0.88, 5.0),
        entry("OtherSkillEnv", 0.5, 9.0, skill="Optimization"), entry("UnplayedEnv", None, None),
    ]
    for seed in range(20):
        memory = DesignMemory.select(entries, "logical_deduction", k=2, rng=random.Random(seed))
        names = {e.name for e in memory.references}
        assert len(names) == 2 and names <= {"TopEnv", "NextEnv", "EdgeEnv", "MidEnv"}
        assert {e.name for e in memory.negatives} == {"EasyEnv", "HardEnv"}


def test_select_uses_unplayed_entries_only_when_no_frontier_entry_exists():
    entries = [entry("UnplayedEnv", None, None), entry("EasyEnv", 0.99), entry("B", 0.95),
               entry("C", 0.97)]
    memory = DesignMemory.select(entries, "Logical Deduction", k=2, rng=random.Random(0))
    assert [e.name for e in memory.references] == ["UnplayedEnv"]
    assert len(memory.negatives) == 2
    memory = DesignMemory.select(entries + [entry("GoodEnv", 0.5, None)], "Logical Deduction",
                                 rng=random.Random(0))
    assert [e.name for e in memory.references] == ["GoodEnv"]
    assert not DesignMemory.select([], "Logical Deduction")
    with pytest.raises(ValueError, match="need a win rate: UnplayedEnv"):
        DesignMemory(negatives=(entry("UnplayedEnv", None),))
