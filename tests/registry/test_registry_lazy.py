"""Lazy registration: ids come from directory names at import, the card is parsed at make.

The cost is judged against a baseline measured in the same process (registering as many plain
gymnasium ids), in CPU time, never against a raw time: a loaded machine slows both alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from testkit import GUESS_SOURCE, card_for

from spade_gym.errors import RegistryError
from spade_gym.registry import Suite, bundled_suite_path, register_suite
from spade_gym.registry import card as card_module

pytestmark = pytest.mark.usefixtures("forget_registered_ids")

ENTRIES = 1_000
#: Registering a suite entry may cost this many plain ``gym.register`` calls (it costs about 3:
#: a few ``stat`` calls and gymnasium's own checks; parsing each card at registration costs about 9).
RATIO = 4.0

#: In a fresh interpreter: the CPU time of registering the suite named by ``$SPADE_GYM_SUITES``
#: exactly as ``import spade_gym`` does (``register_default_suites``; the bundled suite is then
#: already registered, a no-op), after the same number of plain ids. CPU time, not wall time:
#: other processes on a loaded machine do not count.
TIMING = r"""
import json, os, sys, time
suites = os.environ.pop("SPADE_GYM_SUITES")
import gymnasium as gym
import spade_gym
from spade_gym.registry.registration import register_default_suites
count = int(sys.argv[1])
start = time.process_time()
for i in range(count):
    gym.register(f"spade_plain/Plain{i}-v0", entry_point="spade_gym.registry.make:make_env")
plain = time.process_time() - start
os.environ["SPADE_GYM_SUITES"] = suites
start = time.process_time()
register_default_suites()
suite = time.process_time() - start
print(json.dumps({"plain": plain, "suite": suite,
                  "ids": sum(1 for env_id in gym.registry if env_id.startswith("spade/Lazy"))}))
"""


def write_suite(path: Path, count: int) -> None:
    """``count`` entries as :meth:`Suite.add` lays them out, written without its per-entry fsync,
    each card as large as a bundled one (a validation record of a few KiB is what parsing costs)."""
    path.mkdir()
    bundled = min(bundled_suite_path().glob("*/card.json"))
    validation = json.loads(bundled.read_text(encoding="utf-8"))["validation"]
    for index in range(count):
        card = card_for(GUESS_SOURCE, f"Lazy{index:05d}", validation=validation)
        directory = path / card.dirname
        directory.mkdir()
        (directory / "env.py").write_text(GUESS_SOURCE, encoding="utf-8")
        (directory / "card.json").write_text(card.dumps(), encoding="utf-8")


def timed_registration(count: int, suite: Path) -> dict:
    env = dict(os.environ, SPADE_GYM_SUITES=str(suite))
    done = subprocess.run([sys.executable, "-c", TIMING, str(count)], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_suite_of_a_thousand_entries_imports_at_the_cost_of_plain_ids(tmp_path):
    write_suite(tmp_path / "suite", ENTRIES)
    runs = [timed_registration(ENTRIES, tmp_path / "suite") for _ in range(3)]
    assert all(run["ids"] == ENTRIES for run in runs), runs
    suite, plain = min(run["suite"] for run in runs), min(run["plain"] for run in runs)
    assert suite <= RATIO * plain, (suite, plain)


def test_the_import_registers_the_suites_it_is_given(tmp_path):
    write_suite(tmp_path / "suite", 3)
    code = "import gymnasium as gym, spade_gym; print(sorted(i for i in gym.registry if i.startswith('spade/Lazy')))"
    done = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, SPADE_GYM_SUITES=str(tmp_path / "suite")),
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == str([f"spade/Lazy{i:05d}-v0" for i in range(3)])


def test_registration_parses_no_card_and_make_checks_it(tmp_path, monkeypatch):
    suite = Suite(tmp_path / "suite")
    suite.add(GUESS_SOURCE, card_for(GUESS_SOURCE, "LazyParsed"))
    parsed: list[bytes] = []
    real_parse = card_module.Card.parse.__func__
    monkeypatch.setattr(card_module.Card, "parse",
                        classmethod(lambda cls, raw, **kw: parsed.append(raw) or real_parse(cls, raw, **kw)))
    card_module._CHECKED.clear()
    assert register_suite(suite.path) == ["spade/LazyParsed-v0"]
    assert parsed == []
    gym.make("spade/LazyParsed-v0").close()
    assert len(parsed) == 1


def test_a_card_that_does_not_hold_its_directorys_id_is_refused_at_make(tmp_path):
    suite = Suite(tmp_path / "suite")
    entry = suite.add(GUESS_SOURCE, card_for(GUESS_SOURCE, "LazyMoved"))
    data = json.loads((entry.directory / "card.json").read_text())
    data.update(name="LazyElsewhere", id="spade/LazyElsewhere-v0")
    (entry.directory / "card.json").write_text(json.dumps(data))
    assert register_suite(suite.path) == ["spade/LazyMoved-v0"]
    with pytest.raises(RegistryError, match="the card is spade/LazyElsewhere-v0, but its directory LazyMoved-v0"):
        gym.make("spade/LazyMoved-v0")


def test_a_directory_named_otherwise_is_registered_from_its_card(tmp_path):
    suite = Suite(tmp_path / "suite")
    entry = suite.add(GUESS_SOURCE, card_for(GUESS_SOURCE, "LazyRenamed"))
    os.rename(entry.directory, suite.path / "renamed by hand")
    assert register_suite(suite.path) == ["spade/LazyRenamed-v0"]
    gym.make("spade/LazyRenamed-v0").close()


def test_a_card_that_does_not_parse_is_an_error_at_make(tmp_path):
    suite = Suite(tmp_path / "suite")
    entry = suite.add(GUESS_SOURCE, card_for(GUESS_SOURCE, "LazyBroken"))
    (entry.directory / "card.json").write_text("{not json")
    assert register_suite(suite.path) == ["spade/LazyBroken-v0"]
    with pytest.raises(RegistryError, match="cannot read card"):
        gym.make("spade/LazyBroken-v0")
