"""``spade-gym revalidate``: the current validator over a whole suite, cards refreshed in place.

What must hold: a passing program's card gets the fresh report (and nothing else on the card
changes); a failing program is reported and its card kept byte for byte; programs are never
touched; novelty is judged against the rest of the suite; a run seed reproduces the reports.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from testkit import BENIGN_DIR, ROOT, build_suite

from spade_gym.cli import main
from spade_gym.registry import Card, Suite
from spade_gym.validation.revalidate import revalidate_suite

BROKEN_DIR = ROOT / "tests" / "programs" / "broken"
SEED = 7


def _benign(stem: str) -> str:
    return (BENIGN_DIR / f"{stem}.py").read_text()


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file() and p.name in ("env.py", "card.json")}


def _revalidate(*args: str):
    result = CliRunner().invoke(main, ["revalidate", *args, "--json"])
    data = json.loads(result.stdout) if result.stdout.strip().startswith("{") else None
    return result, data


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A suite of two sound programs and one a shortcut wins, revalidated once with --write."""
    directory = tmp_path_factory.mktemp("revalidate") / "suite"
    build_suite(directory, {"guess_number": _benign("guess_number"), "unicode_story": _benign("unicode_story"),
                            "shortcut": (BROKEN_DIR / "shortcut.py").read_text()})
    before = _snapshot(directory)
    result, data = _revalidate(str(directory), "--seed", str(SEED), "--write")
    return directory, before, result, data


def test_write_replaces_the_validation_record_of_passing_programs(written):
    directory, before, result, data = written
    assert result.exit_code == 1, result.output  # one program fails
    by_id = {r["id"]: r for r in data["results"]}
    assert set(by_id) == {"spade/NumberHunt-v0", "spade/EmojiTrail-v0", "spade/HalvingHunt-v0"}
    for env_id in ("spade/NumberHunt-v0", "spade/EmojiTrail-v0"):
        row = by_id[env_id]
        assert row["valid"] and row["written"] and row["first_failure"] is None
        card_path = directory / env_id.split("/")[1] / "card.json"
        card = Card.load(card_path)
        old = Card.from_dict(json.loads(before[str(card_path.relative_to(directory))]))
        assert old.validation == {}  # build_suite writes cards without a validation record
        assert card.validation["valid"] is True
        assert card.validation["run_seed"] == SEED
        assert card.validation["level_profile"] == row["level_profile"] and row["level_profile"]
        assert "levels" in [c["name"] for c in card.validation["checks"]]
        # only the validation record changed
        assert {k: v for k, v in card.to_dict().items() if k != "validation"} == \
               {k: v for k, v in old.to_dict().items() if k != "validation"}


def test_a_failing_program_is_reported_and_its_card_kept(written):
    directory, before, _, data = written
    row = next(r for r in data["results"] if r["id"] == "spade/HalvingHunt-v0")
    assert not row["valid"] and not row["written"]
    assert row["first_failure"].startswith("shortcut: ") and "bisection" in row["first_failure"]
    assert row["report"]["valid"] is False
    card = "HalvingHunt-v0/card.json"
    assert (directory / card).read_bytes() == before[card]


def test_programs_are_never_touched(written):
    directory, before, _, _ = written
    after = _snapshot(directory)
    assert set(after) == set(before)
    assert {k: v for k, v in after.items() if k.endswith("env.py")} == \
           {k: v for k, v in before.items() if k.endswith("env.py")}
    for entry in Suite(directory).entries_or_raise():
        entry.read_source()  # checksums still match


def test_the_run_seed_reproduces_the_reports(written):
    directory, _, _, _ = written
    result, data = _revalidate(str(directory), "--seed", str(SEED))
    assert result.exit_code == 1
    for row in data["results"]:
        if not row["valid"]:
            continue
        card = Card.load(directory / row["id"].split("/")[1] / "card.json")
        fresh = row["report"]
        assert row["level_profile"] == card.validation["level_profile"]
        assert fresh["details"]["shortcut_win_rates"] == card.validation["shortcut_win_rates"]
        assert fresh["details"]["oracle_turns"] == card.validation["oracle_turns"]
        # every check's verdict and message, except the wall-clock cost measurement
        fresh_checks = [(c["name"], c["passed"], c["message"]) for c in fresh["checks"] if c["name"] != "cost"]
        card_checks = [(c["name"], c["passed"], c["message"]) for c in card.validation["checks"] if c["name"] != "cost"]
        assert [(n, p) for n, p, _ in fresh_checks] == [(n, p) for n, p, _ in card_checks]
        assert [m.splitlines()[0][:200] for _, _, m in fresh_checks] == [m[:200] for _, _, m in card_checks]


def test_novelty_is_judged_against_the_rest_of_the_suite(tmp_path):
    """guess_number alone passes (it is not compared with itself); next to its re-skin, both fail."""
    build_suite(tmp_path / "suite", {"guess_number": _benign("guess_number"),
                                     "reskin": (BROKEN_DIR / "novelty.py").read_text()})
    results = revalidate_suite(tmp_path / "suite", config=_config())
    assert len(results) == 2
    for result in results:
        assert not result.valid
        assert result.first_failure.startswith("novelty: ")
        other = next(r.env_id for r in results if r is not result)
        assert other in result.first_failure


def test_a_program_registered_twice_is_reported(tmp_path):
    source = _benign("guess_number")
    build_suite(tmp_path / "suite", {"guess_number": source})
    suite = Suite(tmp_path / "suite")
    entry = suite.entries_or_raise()[0]
    twin = Card.from_dict({**entry.card.to_dict(), "name": "NumberHuntTwin", "id": "spade/NumberHuntTwin-v0"})
    suite.add(source, twin)
    results = {r.env_id: r for r in revalidate_suite(suite.path, config=_config())}
    assert results["spade/NumberHuntTwin-v0"].problem == \
        "novelty: the same program as spade/NumberHunt-v0 (identical sha256)"
    assert results["spade/NumberHunt-v0"].valid


def test_a_modified_program_is_reported_and_not_written(tmp_path):
    directory = tmp_path / "suite"
    build_suite(directory, {"guess_number": _benign("guess_number"), "unicode_story": _benign("unicode_story")})
    tampered = directory / "NumberHunt-v0" / "env.py"
    tampered.write_text(tampered.read_text() + "\n# edited after registration\n")
    before = _snapshot(directory)
    result, data = _revalidate(str(directory), "--seed", str(SEED), "--write")
    assert result.exit_code == 1
    by_id = {r["id"]: r for r in data["results"]}
    assert "does not match the sha256 on its card" in by_id["spade/NumberHunt-v0"]["first_failure"]
    assert not by_id["spade/NumberHunt-v0"]["written"] and by_id["spade/NumberHunt-v0"]["report"] is None
    assert by_id["spade/EmojiTrail-v0"]["written"]
    assert (directory / "NumberHunt-v0" / "card.json").read_bytes() == before["NumberHunt-v0/card.json"]


def test_a_card_is_not_given_another_programs_verdict(tmp_path):
    """The record is written only if the card still names the program that was validated."""
    build_suite(tmp_path / "suite", {"guess_number": _benign("guess_number")})
    suite = Suite(tmp_path / "suite")
    entry = suite.entries_or_raise()[0]
    before = (entry.directory / "card.json").read_bytes()
    outcomes = suite.replace_validations([(entry, _benign("unicode_story"), {"valid": True, "checks": []})])
    assert outcomes[0] and "another program" in outcomes[0]
    assert (entry.directory / "card.json").read_bytes() == before
    assert suite.replace_validations([(entry, _benign("guess_number"), {"valid": True, "checks": []})]) == [None]
    assert Card.load(entry.directory / "card.json").validation == {"valid": True, "checks": []}
    outcomes = suite.replace_validations([(entry, _benign("guess_number"), ["not", "a", "record"])])
    assert "validation must be an object" in outcomes[0]
    assert Card.load(entry.directory / "card.json").validation == {"valid": True, "checks": []}


def test_an_unreadable_entry_is_reported(tmp_path):
    directory = tmp_path / "suite"
    build_suite(directory, {"guess_number": _benign("guess_number")})
    broken = directory / "Broken-v0"
    broken.mkdir()
    (broken / "card.json").write_text("{not json")
    shutil.copy(directory / "NumberHunt-v0" / "env.py", broken / "env.py")
    results = revalidate_suite(directory, config=_config())
    problems = [r for r in results if r.problem]
    assert len(problems) == 1 and "cannot read card" in problems[0].problem and not problems[0].valid


def _config():
    from spade_gym.validation import ValidationConfig

    return ValidationConfig(seed=SEED)


def test_the_cost_budget_can_be_widened_and_is_recorded(tmp_path):
    directory = tmp_path / "suite"
    build_suite(directory, {"guess_number": _benign("guess_number")})
    result, data = _revalidate(str(directory), "--seed", str(SEED), "--cost-budget-ms", "0.0001", "--write")
    assert result.exit_code == 1 and data["results"][0]["first_failure"].startswith("cost: ")
    assert Card.load(directory / "NumberHunt-v0" / "card.json").validation == {}
    result, data = _revalidate(str(directory), "--seed", str(SEED), "--cost-budget-ms", "1000", "--write")
    assert result.exit_code == 0 and data["results"][0]["written"]
    cost = next(c for c in Card.load(directory / "NumberHunt-v0" / "card.json").validation["checks"]
                if c["name"] == "cost")
    assert cost["passed"] and cost["message"].endswith("(budget 1000 ms)")
