"""ProgramFacts: the typed view of what a report knows, read the same from a live report and
from its JSON, and never a crash on a value of the wrong type."""

from __future__ import annotations

import dataclasses
import json

import pytest

from spade_gym.registry.card import Card, describe
from spade_gym.validation.report import Check, ProgramFacts, ValidationReport

DETAILS = {"kind": "game", "class_name": "GuessEnv", "docstring": None, "max_turns": 7, "seeds": 12,
           "multi_turn": True, "oracle_turns": 3, "first_observation": "Guess a number. It is small.",
           "hint": "binary search", "difficulty_levels": ["easy", "hard"], "fingerprint": "ab" * 8,
           "run_seed": 1234, "level_profile": [{"level": "easy"}], "baseline_win_rates": {"random": 0.0}}


def report(details: dict) -> ValidationReport:
    return ValidationReport("GuessEnv", checks=[Check("program", True, "ok")], details=details)


def test_facts_read_what_the_checks_recorded():
    facts = report(DETAILS).facts
    assert facts == ProgramFacts(kind="game", class_name="GuessEnv", docstring=None, docstring_read=True,
                                 max_turns=7, seeds=12, multi_turn=True, oracle_turns=3.0,
                                 first_observation="Guess a number. It is small.", hint="binary search",
                                 difficulty_levels=("easy", "hard"), level_profile=({"level": "easy"},),
                                 fingerprint="ab" * 8, run_seed=1234)
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.hint = "changed"  # type: ignore[misc]


def test_the_json_report_is_unchanged_and_reads_back_to_the_same_facts():
    live = report(dict(DETAILS))
    text = json.dumps(live.to_dict())
    assert json.loads(text)["details"] == DETAILS  # details stay the JSON's record, facts add no key
    rebuilt = ValidationReport(live.name, checks=live.checks, details=json.loads(text)["details"])
    assert rebuilt.facts == live.facts and json.dumps(rebuilt.to_dict()) == text


@pytest.mark.parametrize("key, value", [("max_turns", "7"), ("max_turns", True), ("multi_turn", 1),
                                        ("class_name", 5), ("difficulty_levels", "easy"), ("run_seed", 1.5),
                                        ("level_profile", {"level": "easy"}), ("oracle_turns", False)])
def test_a_value_of_the_wrong_type_reads_as_unknown(key, value):
    facts = report({**DETAILS, key: value}).facts
    assert getattr(facts, key) in (None, ()), (key, getattr(facts, key))


def test_a_card_from_a_report_takes_its_facts():
    card = Card.from_report(report(DETAILS), skill="Search", provenance={})
    assert (card.name, card.max_turns, card.multi_turn, card.hint, card.difficulty_levels) == (
        "Guess", 7, True, "binary search", ["easy", "hard"])
    assert card.description == "Guess a number."  # no docstring: the first observation's first sentence


def test_describe_reads_the_source_only_where_the_validator_read_no_docstring():
    source = 'class GuessEnv:\n    """Guess the number."""\n'
    assert describe(report(DETAILS).facts, source=source) == "Guess a number."  # known absent
    assert describe(ProgramFacts(first_observation="Hi."), source=source) == "Guess the number."
