"""How the registry reads a suite's files: regular files only, capped, one descriptor
(FIFOs, devices, sparse giants and link loops are refused at once, never read); and one
pass over the cards per listing (a card is parsed once, and re-read when it changes)."""

from __future__ import annotations

import os
import re
import stat
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from click.testing import CliRunner
from testkit import GUESS_SOURCE, card_for

from spade_gym.errors import RegistryError, SuiteWarning
from spade_gym.registry import MAX_PROGRAM_BYTES, Card, Suite, register_suite
from spade_gym.registry import card as card_module
from spade_gym.registry import files as files_module
from spade_gym.registry.card import MAX_CARD_BYTES

pytestmark = pytest.mark.usefixtures("forget_registered_ids")

#: Far under what a hang looks like; a refused file is refused without reading it.
QUICK = 1.0
#: How long a call may take before it counts as hung (the old code blocked forever on a FIFO).
HUNG = 10.0

KINDS = ["fifo", "device", "huge", "loop"]
REASONS = {"fifo": "FIFO", "device": "character device", "huge": r"over the \d+ KiB limit",
           "loop": "loop of symbolic links"}
CAPS = {"env.py": MAX_PROGRAM_BYTES, "card.json": MAX_CARD_BYTES}


def make_hostile(path: Path, kind: str) -> None:
    """Replace ``path`` by a file of ``kind`` that a plain read would hang on, never finish, or choke on."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        try:  # a device node we own (trusted owner and mode: only its type is wrong)
            os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero's numbers
        except OSError:
            path.symlink_to("/dev/zero")
    elif kind == "huge":
        with open(path, "wb") as handle:  # sparse: costs no disk, reads as 16 caps of zeros
            handle.truncate(16 * CAPS[path.name])
    elif kind == "loop":
        partner = path.with_name(path.name + ".loop")
        path.symlink_to(partner.name)
        partner.symlink_to(path.name)
    else:
        raise ValueError(kind)


def quickly(call: Callable[[], Any]) -> tuple[float, Any, BaseException | None, list[warnings.WarningMessage]]:
    """Run ``call`` in a thread (so a hang fails the test instead of stopping the run):
    (seconds taken, result, exception, warnings)."""
    box: dict[str, Any] = {"error": None, "result": None, "warnings": []}

    def target() -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                box["result"] = call()
            except BaseException as exc:  # noqa: BLE001 - handed to the test
                box["error"] = exc
            box["warnings"] = list(caught)

    start = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HUNG)
    elapsed = time.monotonic() - start
    assert not thread.is_alive(), f"{call} still running after {HUNG} s (hung on a hostile file)"
    return elapsed, box["result"], box["error"], box["warnings"]


def good_and_bad_suite(tmp_path: Path, target: str, kind: str) -> tuple[Path, str]:
    suite = tmp_path / "suite"
    Suite(suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "ReadsGood"))
    bad = Suite(suite).add(GUESS_SOURCE + "\n# bad\n", card_for(GUESS_SOURCE + "\n# bad\n", "ReadsBad"))
    make_hostile(bad.directory / target, kind)
    return suite, bad.directory.name


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("target", ["env.py", "card.json"])
def test_a_hostile_file_is_skipped_with_a_warning_when_a_suite_is_scanned(tmp_path, target, kind):
    suite, bad = good_and_bad_suite(tmp_path, target, kind)
    elapsed, ids, error, caught = quickly(lambda: register_suite(suite))
    assert error is None and ids == ["spade/ReadsGood-v0"]
    assert elapsed < QUICK
    messages = [str(w.message) for w in caught if issubclass(w.category, SuiteWarning)]
    assert any(bad in m and target in m for m in messages), messages
    assert any(re.search(REASONS[kind], m) for m in messages), messages
    elapsed, _, error, _ = quickly(lambda: Suite(suite).entries_or_raise())
    assert isinstance(error, RegistryError) and elapsed < QUICK


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("target", ["env.py", "card.json"])
def test_a_hostile_file_is_an_error_when_an_env_is_made(tmp_path, target, kind):
    suite = tmp_path / "suite"
    entry = Suite(suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "ReadsMade"))
    assert register_suite(suite) == ["spade/ReadsMade-v0"]
    make_hostile(entry.directory / target, kind)  # after registration: only make can notice
    calls = [lambda: gym.make("spade/ReadsMade-v0"), lambda: gym.make_vec("spade/ReadsMade-v0", num_envs=1)]
    if target == "env.py":
        calls.append(entry.read_source)
    for call in calls:
        elapsed, env, error, _ = quickly(call)
        if env is not None:
            env.close()
        assert isinstance(error, RegistryError), (call, error)
        assert target in str(error) and re.search(REASONS[kind], str(error)), str(error)
        assert elapsed < QUICK


def test_show_of_a_program_that_is_a_fifo_fails_at_once(tmp_path):
    from spade_gym.cli import main

    suite = tmp_path / "suite"
    entry = Suite(suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "ReadsShown"))
    make_hostile(entry.env_path, "fifo")
    elapsed, result, error, _ = quickly(lambda: CliRunner().invoke(main, ["show", str(entry.directory)]))
    assert error is None and elapsed < QUICK
    assert result.exit_code != 0 and "FIFO" in result.output, result.output


def test_a_symlink_to_a_trusted_regular_file_is_still_read(tmp_path):
    """Links are followed (the trust rule judges what they lead to): only their target's kind counts."""
    suite = tmp_path / "suite"
    entry = Suite(suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "ReadsLinked"))
    real = tmp_path / "elsewhere.py"
    real.write_text(GUESS_SOURCE)
    entry.env_path.unlink()
    entry.env_path.symlink_to(real)
    assert register_suite(suite) == ["spade/ReadsLinked-v0"]
    assert Suite(suite).get("ReadsLinked-v0").read_source() == GUESS_SOURCE


def test_the_program_cap_admits_every_program_the_sandbox_compiles():
    from spade_gym.sandbox.language.compiler import MAX_SOURCE_CHARS

    assert MAX_PROGRAM_BYTES == 4 * MAX_SOURCE_CHARS  # 4 = the most UTF-8 spends on one character


# ----------------------------------------------------------------------------- one pass over the cards


def write_suite_by_hand(directory: Path, count: int) -> None:
    """``count`` minimal valid entries, written directly (Suite.add would fsync each one)."""
    directory.mkdir()
    for index in range(count):
        card = card_for(GUESS_SOURCE, f"Generated{index:04d}")
        entry = directory / card.dirname
        entry.mkdir()
        (entry / "env.py").write_text(GUESS_SOURCE)
        (entry / "card.json").write_text(card.dumps())


@pytest.fixture()
def counted(monkeypatch):
    """Counts of card parses and of suite-file reads (of any kind) from here on, on a cold cache."""
    counts = {"parse": 0, "read": 0}
    parse, read = Card.parse.__func__, files_module.read_suite_file

    def counting_parse(cls, raw, **kwargs):
        counts["parse"] += 1
        return parse(cls, raw, **kwargs)

    def counting_read(*args, **kwargs):
        counts["read"] += 1
        return read(*args, **kwargs)

    monkeypatch.setattr(Card, "parse", classmethod(counting_parse))
    monkeypatch.setattr(card_module, "read_suite_file", counting_read)
    monkeypatch.setattr(card_module, "_CHECKED", set())
    return counts


def test_listing_a_thousand_environments_reads_each_card_once(tmp_path, counted):
    from spade_gym.cli.list_cmd import collect

    count = 1000
    write_suite_by_hand(tmp_path / "big", count)
    assert len(register_suite(tmp_path / "big")) == count
    assert counted["parse"] == 0  # registration parses no card: ids come from directory names
    counted.update(parse=0, read=0)
    rows = collect(None, None)  # every registered suite: the bundled one and this one
    listed = len(rows)
    assert listed >= count and {f"spade/Generated{i:04d}-v0" for i in range(count)} <= {r["id"] for r in rows}
    assert counted["read"] <= 2 * listed, counted  # linear: the old code read N² cards (N per id)
    assert counted["parse"] <= listed, counted  # each card parsed once, here (registration parsed none)
    counted.update(parse=0, read=0)
    rows = collect(str(tmp_path / "big"), None)
    assert len(rows) == count and counted["read"] <= 3 * count and counted["parse"] == 0, counted


def test_showing_one_environment_reads_one_card(tmp_path, counted):
    from spade_gym.cli.common import resolve_entry

    write_suite_by_hand(tmp_path / "big", 200)
    register_suite(tmp_path / "big")
    counted.update(parse=0, read=0)
    entry = resolve_entry("spade/Generated0123-v0")
    assert entry.id == "spade/Generated0123-v0" and counted["read"] == 1, counted
    counted.update(parse=0, read=0)
    assert Suite(tmp_path / "big").get("Generated0042-v0").id == "spade/Generated0042-v0"
    assert counted["read"] == 1, counted


def test_a_changed_card_is_read_again_however_fast_it_changes(tmp_path, counted):
    path = tmp_path / "card.json"
    path.write_text(card_for(GUESS_SOURCE, "Quick", mechanic="a").dumps())
    assert Card.load(path).mechanic == "a"
    path.write_text(card_for(GUESS_SOURCE, "Quick", mechanic="b").dumps())  # same size, same inode, same tick
    assert Card.load(path).mechanic == "b"
    assert counted["parse"] == 2
    loaded = Card.load(path)
    loaded.validation["valid"] = True  # a reader's edit stays its own
    loaded.difficulty_levels.append("hard")
    again = Card.load(path)
    assert again.validation == {} and again.difficulty_levels == [] and counted["parse"] == 2
