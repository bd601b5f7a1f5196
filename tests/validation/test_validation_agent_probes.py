"""Probes shaped like a model's replies (``validation.checks.agent_probes``).

Every other probe sends short actions; a model writes a paragraph before the box. Each program in
``tests/programs/agent_probe_*`` treats such a reply differently in one way the short probes never
see: it gives the code back after eight words of prose, any boxed sentence of six words wins (a
game, and a tool-use program's ``<answer>``), or a long reply's feedback comes from an unseeded
generator. For each, the behaviour is first proven under plain CPython, then the validator rejects
it; the sound twins, which differ only in that, are accepted.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit import PROGRAMS, SUPPORT, plain_run

from spade_gym.decoding import reveals
from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.baselines.base import Prior
from spade_gym.validation.checks.agent_probes import (
    MIN_PROSE_WORDS,
    BoxedProse,
    ProseThenCopy,
    ShortThenCopy,
    generic_sentence,
    reasoning,
    wrong_answer,
)
from spade_gym.validation.leaks import normalise

SMALL = ValidationConfig(seeds=8, fuzz_examples=8, cost_samples=3, seed=11, long_run_resets=40)
PLAIN_SEEDS = [0, 1, 7, 42, 1234]
PROSE = "Let me think about this step by step before answering. The pattern suggests this one: \\boxed{1000}"
SENTENCE = "\\boxed{I am not completely sure about this one}"

#: bad program -> its sound twin.
HOSTILE = {"agent_probe_prose_leak": "agent_probe_sound", "agent_probe_sentence": "agent_probe_sound",
           "agent_probe_prose_random": "agent_probe_sound", "agent_probe_tool_sentence": "tool_shortcut_sound"}

#: The bad programs are judged by the checks that matter here; the sound game twin passes every
#: check (the tool-use twin's full validation is in test_validation_tool_shortcuts.py).
JUDGES = SMALL.replace(checks=("static", "load", "solvability", "agent_probes"))
FULL = {"agent_probe_sound"}

_REPORTS: dict[str, object] = {}


def report(name: str):
    if name not in _REPORTS:
        config = SMALL if name in FULL else JUDGES
        _REPORTS[name] = validate_source((PROGRAMS / f"{name}.py").read_text(), config=config)
    return _REPORTS[name]


# ----------------------------------------------------------------------------- under plain CPython


def test_prose_before_a_wrong_box_gets_the_code_back_and_the_episode_goes_on():
    for run in plain_run(PROGRAMS / "agent_probe_prose_leak.py", {"seeds": PLAIN_SEEDS, "actions": [PROSE]}):
        obs, reward, terminated, truncated, _ = run["steps"][0]
        assert reveals(obs, run["solution"]) and not terminated and not truncated, obs
    for run in plain_run(PROGRAMS / "agent_probe_prose_leak.py", {"seeds": PLAIN_SEEDS, "actions": ["\\boxed{1000}"]}):
        assert not reveals(run["steps"][0][0], run["solution"]), "a short reply must not see the leak"
    for run in plain_run(PROGRAMS / "agent_probe_sound.py", {"seeds": PLAIN_SEEDS, "actions": [PROSE]}):
        assert not reveals(run["steps"][0][0], run["solution"])


def test_a_boxed_sentence_wins_the_bad_game_and_loses_its_twin():
    wins = [run["steps"][0][1] for run in plain_run(PROGRAMS / "agent_probe_sentence.py",
                                                      {"seeds": PLAIN_SEEDS, "actions": [SENTENCE]})]
    assert wins == [1.0] * len(PLAIN_SEEDS)
    twin = [run["steps"][0][1] for run in plain_run(PROGRAMS / "agent_probe_sound.py",
                                                      {"seeds": PLAIN_SEEDS, "actions": [SENTENCE]})]
    assert twin == [0.0] * len(PLAIN_SEEDS)


def test_an_answer_sentence_wins_the_bad_tool_use_program_with_no_call():
    import os
    import subprocess
    import sys

    def first_rewards(program: str) -> list[float]:
        spec = {"seeds": PLAIN_SEEDS, "before": ["<answer>I think the answer is probably this one</answer>"]}
        proc = subprocess.run([sys.executable, str(SUPPORT / "plain_tooluse_runner.py"), str(PROGRAMS / program),
                               json.dumps(spec)], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, PYTHONHASHSEED="0"))
        assert proc.returncode == 0, proc.stderr
        return [run["steps"][0][1] for run in json.loads(proc.stdout)]

    assert first_rewards("agent_probe_tool_sentence.py") == [1.0] * len(PLAIN_SEEDS)
    assert first_rewards("tool_shortcut_sound.py") == [0.0] * len(PLAIN_SEEDS)


def test_a_long_reply_gets_different_feedback_in_another_process():
    spec = {"seeds": PLAIN_SEEDS, "actions": [PROSE.replace("1000", "5000")]}
    first, second = (plain_run(PROGRAMS / "agent_probe_prose_random.py", spec) for _ in range(2))
    assert [r["steps"] for r in first] != [r["steps"] for r in second]
    short = {"seeds": PLAIN_SEEDS, "actions": ["\\boxed{5000}"]}
    assert (plain_run(PROGRAMS / "agent_probe_prose_random.py", short)
            == plain_run(PROGRAMS / "agent_probe_prose_random.py", short))


# ----------------------------------------------------------------------------- the validator


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_bad_program_is_rejected_by_the_agent_probes(name):
    result = report(name)
    failed = {c.name: c for c in result.failures}
    assert set(failed) == {"agent_probes"}, result.summary()
    message = failed["agent_probes"].message
    expected = {"agent_probe_prose_leak": "paragraph of reasoning before a wrong answer",
                "agent_probe_prose_random": "replayed in another worker",
                }.get(name, "a generic sentence as the answer won")
    assert expected in message, message


@pytest.mark.parametrize("name", sorted(set(HOSTILE.values())))
def test_the_sound_twin_is_accepted(name):
    result = report(name)
    assert result.valid, result.summary()
    details = result.check("agent_probes").details
    assert details["replayed"] > 0
    for level, row in details["rates"].items():
        assert row["boxed_prose"]["wins"] == 0 and row["boxed_prose"]["seeds"] > 0, (level, row)


# ----------------------------------------------------------------------------- the probe texts


@given(st.integers(0, 2**32))
def test_prose_is_long_and_sentences_answer_nothing(seed):
    rng = random.Random(seed)
    assert len(reasoning(rng).split()) >= MIN_PROSE_WORDS
    for turn in range(8):
        sentence = generic_sentence(rng, turn)
        assert len(sentence.split()) >= 6 and not any(ch.isdigit() for ch in sentence)


@given(st.text(min_size=1, max_size=30).filter(lambda t: normalise(t)), st.lists(st.text(max_size=20), max_size=5))
def test_the_wrong_answer_is_never_the_answer(answer, others):
    wrong = wrong_answer(answer, others)
    assert normalise(wrong) != normalise(answer)


def test_the_prose_probe_copies_what_the_feedback_spelled_after_its_wrong_answer():
    """(and its twin plays the same without prose: only what prose changes is judged)"""
    probe = ProseThenCopy(random.Random(0), Prior(solutions=["1234", "5678"]), tool_use=False)
    probe.begin("A four-digit code.")
    first = probe.act("A four-digit code.", 0, "4821")
    assert "\\boxed{1234}" in first
    assert len(first.split("\\boxed")[0].split()) >= MIN_PROSE_WORDS
    follow = probe.act("Close! It is MMMMDCCCXXI.", 1, "4821")
    assert "\\boxed{4821}" in follow and len(follow.split("\\boxed")[0].split()) >= MIN_PROSE_WORDS
    tool = ProseThenCopy(random.Random(0), Prior(solutions=["<answer>7</answer>"],
                                                 actions_by_turn=[['<tool_call>{"name": "a"}</tool_call>']]),
                         tool_use=True)
    tool.begin("task")
    assert "<answer>7</answer>" in tool.act("task", 0, '<tool_call>{"name": "a"}</tool_call>\n<answer>8</answer>')
    assert '<tool_call>{"name": "a"}</tool_call>' in tool.act("Incorrect. Keep using tools.", 1, None)
    bare = ShortThenCopy(random.Random(0), Prior(solutions=["1234", "5678"]), tool_use=False)
    bare.begin("A four-digit code.")
    assert bare.act("A four-digit code.", 0, "4821") == "\\boxed{1234}"
    assert bare.act("Close! It is MMMMDCCCXXI.", 1, "4821") == "\\boxed{4821}"
    sentences = BoxedProse(random.Random(0), Prior(), tool_use=True)
    sent = [sentences.act("", turn, None) for turn in range(10) if not sentences.exhausted]
    assert all(s.startswith("<answer>") and len(s.split()) >= 6 for s in sent if s) and sentences.exhausted
