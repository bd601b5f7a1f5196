"""``spade-gym validate`` and ``spade-gym import``: exit codes, JSON, directories, cards, concurrency."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from click.testing import CliRunner
from testkit import BENIGN_DIR, GUESS_SOURCE, PROGRAMS

from spade_gym.cli import main
from spade_gym.registry import Suite, register_suite
from spade_gym.validation import CHECK_NAMES
from spade_gym.validation.context import draw_seeds

BROKEN_DIR = PROGRAMS / "broken"
# Without --suite, validation compares with every registered suite: here only the bundled one,
# as in a fresh process (other modules register suites of the same test programs).
pytestmark = pytest.mark.usefixtures("fresh_process_registry")


@pytest.fixture()
def runner():
    return CliRunner()


def _unique_copy(directory: Path, file_name: str, tag: str) -> Path:
    """guess_number.py with a class name no other test registers (gymnasium ids are global)."""
    path = directory / file_name
    path.write_text(GUESS_SOURCE.replace("NumberHuntEnv", f"Hunt{tag}Env"))
    return path


# ----------------------------------------------------------------------------- validate


def test_validate_valid_file_exits_0(runner):
    result = runner.invoke(main, ["validate", str(BENIGN_DIR / "guess_number.py")])
    assert result.exit_code == 0, result.output
    assert "NumberHuntEnv" in result.output and "1 of 1 valid" in result.output


def test_validate_invalid_file_exits_1_with_the_reason(runner):
    result = runner.invoke(main, ["validate", str(BROKEN_DIR / "solvability.py")])
    assert result.exit_code == 1
    assert "[solvability]" in result.output and "does not accept what solution() returns" in result.output


def test_validate_json_over_a_directory(runner, tmp_path):
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "good.py").write_text(GUESS_SOURCE)
    (tmp_path / "bad.py").write_text((BROKEN_DIR / "diversity.py").read_text())
    (tmp_path / "notes.txt").write_text("not a program")
    result = runner.invoke(main, ["validate", str(tmp_path), "--json", "--workers", "2"])
    assert result.exit_code == 1
    reports = json.loads(result.stdout)
    assert [Path(r["path"]).name for r in reports] == ["bad.py", "good.py"]
    assert [r["valid"] for r in reports] == [False, True]
    assert reports[0]["summary"].startswith("INVALID") and len(reports[1]["checks"]) == len(CHECK_NAMES)


def test_validate_hint_leak_exits_1(runner):
    from spade_gym.sandbox import ProgramHandle

    seeds = draw_seeds(5, 16)[:4]  # the first probe seeds of run seed 5
    with ProgramHandle(GUESS_SOURCE) as handle:
        answers = []
        for s in seeds:
            handle.reset(seed=s)
            answers.append(handle.solution())
    seed = seeds[0]
    result = runner.invoke(main, ["validate", str(BENIGN_DIR / "guess_number.py"), "--hint",
                                  f"say {' or '.join(answers)}", "--json", "--seed", "5"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)[0]
    hint = next(c for c in report["checks"] if c["name"] == "hint")
    assert not hint["passed"] and f"contains the solution of seed {seed}" in hint["message"]
    assert report["details"]["run_seed"] == 5


@pytest.mark.parametrize("args", [["/no/such/file.py"], [], ["--workers", "0", "x.py"], ["EMPTY_DIR"]])
def test_validate_usage_errors_exit_2(runner, tmp_path, args):
    args = [str(tmp_path) if a == "EMPTY_DIR" else a for a in args]
    result = runner.invoke(main, ["validate", *args])
    assert result.exit_code == 2, result.output


# ----------------------------------------------------------------------------- import


def test_import_registers_valid_programs_with_cards(runner, tmp_path):
    pool = tmp_path / "pool"
    pool.mkdir()
    guess = _unique_copy(pool, "game_00012_004_mathematical_reasoning.py", "Cards")
    (pool / "unicode_story.py").write_text((BENIGN_DIR / "unicode_story.py").read_text())
    (pool / "game_00012_005_logical_deduction.py").write_text((BROKEN_DIR / "hint.py").read_text())
    hints = tmp_path / "hints.json"
    hints.write_text(json.dumps({guess.stem: "Halve the interval with every guess."}))
    suite_dir = tmp_path / "suite"
    result = runner.invoke(main, ["import", str(pool), "--suite", str(suite_dir), "--hints", str(hints), "--json"])
    assert result.exit_code == 1  # one program was rejected
    out = json.loads(result.stdout)
    assert sorted(a["id"] for a in out["accepted"]) == ["spade/EmojiTrail-v0", "spade/HuntCards-v0"]
    [rejected] = out["rejected"]
    assert rejected["file"].endswith("game_00012_005_logical_deduction.py") and rejected["failed"] == ["hint"]
    assert "contains the solution" in rejected["reason"]

    cards = {entry.card.name: entry.card for entry in Suite(suite_dir).entries()}
    hunt, emoji = cards["HuntCards"], cards["EmojiTrail"]
    assert hunt.skill == "Mathematical Reasoning" and emoji.skill == "Unknown"
    assert hunt.hint == "Halve the interval with every guess."
    assert hunt.description.startswith("Reference style") and hunt.max_turns == 8 and not hunt.multi_turn
    assert hunt.class_name == "HuntCardsEnv" and hunt.difficulty_levels == []
    assert emoji.multi_turn and emoji.difficulty_levels == ["easy", "medium", "hard"]
    assert emoji.hint.startswith("The sequence has")  # the program's own hint() on the first seed
    assert hunt.provenance["source"] == "import" and hunt.provenance["file"] == guess.name
    assert hunt.provenance["designer"] == "unknown model (import)" and hunt.provenance["imported"]
    assert hunt.validation["valid"] is True and len(hunt.validation["checks"]) == len(CHECK_NAMES)

    assert "spade/HuntCards-v0" in register_suite(suite_dir)
    env = gym.make("spade/HuntCards-v0")
    try:
        obs, info = env.reset(seed=1)
        assert "I picked a number" in obs
    finally:
        env.close()

    again = runner.invoke(main, ["import", str(guess), "--suite", str(suite_dir), "--json"])
    assert again.exit_code == 0
    [row] = json.loads(again.stdout)["accepted"]
    assert (row["id"], row["status"]) == ("spade/HuntCards-v0", "already present")
    assert len(Suite(suite_dir).entries()) == 2


def test_import_rejects_renamed_copies_within_one_run(runner, tmp_path):
    pool = tmp_path / "pool"
    pool.mkdir()
    _unique_copy(pool, "a.py", "Twin")
    (pool / "b.py").write_text(GUESS_SOURCE.replace("NumberHuntEnv", "TwinCopyEnv").replace("history", "past"))
    result = runner.invoke(main, ["import", str(pool), "--suite", str(tmp_path / "suite"), "--json"])
    out = json.loads(result.stdout)
    assert [a["id"] for a in out["accepted"]] == ["spade/HuntTwin-v0"], out
    assert out["rejected"][0]["failed"] == ["novelty"] and "spade/HuntTwin-v0" in out["rejected"][0]["reason"]


def test_import_rejects_a_malformed_hints_file(runner, tmp_path):
    hints = tmp_path / "hints.json"
    hints.write_text('["not", "a", "mapping"]')
    result = runner.invoke(main, ["import", str(BENIGN_DIR / "guess_number.py"), "--suite", str(tmp_path / "s"),
                                  "--hints", str(hints)])
    assert result.exit_code == 2 and "must be a JSON object" in result.output


def test_import_requires_a_suite(runner):
    assert runner.invoke(main, ["import", str(BENIGN_DIR / "guess_number.py")]).exit_code == 2


def test_concurrent_imports_into_one_suite(tmp_path):
    suite_dir = tmp_path / "suite"
    pools = []
    for index, names in enumerate([("guess_number", "rng_instance"), ("numpy_grid", "inventory_dataclasses")]):
        pool = tmp_path / f"pool{index}"
        pool.mkdir()
        for name in names:
            (pool / f"{name}.py").write_text((BENIGN_DIR / f"{name}.py").read_text())
        (pool / "shared.py").write_text((BENIGN_DIR / "unicode_story.py").read_text())  # in both pools
        pools.append(pool)
    command = [sys.executable, "-c", "from spade_gym.cli import main; main()", "import"]
    processes = [subprocess.Popen([*command, str(pool), "--suite", str(suite_dir), "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for pool in pools]
    outputs = [p.communicate(timeout=300) for p in processes]
    for process, (stdout, stderr) in zip(processes, outputs):
        assert process.returncode == 0, stderr
        assert not json.loads(stdout)["rejected"]
    entries = Suite(suite_dir).entries_or_raise()
    assert sorted(e.card.name for e in entries) == ["EmojiTrail", "GridSum", "InventoryPacker", "NumberHunt", "WordSet"]
    for entry in entries:
        entry.read_source()  # checksum matches the card: nothing half-written
    assert not [p for p in suite_dir.iterdir() if p.name.startswith(".tmp-")]
