"""Suites, cards, integrity, concurrent writers and gymnasium registration."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys

import gymnasium as gym
import pytest
from testkit import BENIGN_DIR, GUESS_SOURCE, build_suite, card_for

import spade_gym
from spade_gym.errors import IntegrityError, RegistryError
from spade_gym.registry import Card, Suite, make_id, register_suite, sanitize_name


def test_card_roundtrip(tmp_path):
    card = card_for(GUESS_SOURCE, provenance={"designer": "me"}, stats={"win_rate": 0.5})
    path = tmp_path / "card.json"
    path.write_text(card.dumps())
    loaded = Card.load(path)
    assert loaded == card and loaded.id == "spade/Guess-v0"
    data = json.loads(path.read_text())
    assert data["schema_version"] == 1 and data["id"] == "spade/Guess-v0"


def test_mechanic_round_trips_and_older_cards_without_it_still_load(tmp_path):
    card = card_for(GUESS_SOURCE, mechanic="numeric search with higher/lower feedback")
    path = tmp_path / "card.json"
    path.write_text(card.dumps())
    assert Card.load(path) == card and json.loads(path.read_text())["mechanic"] == card.mechanic
    old = card_for(GUESS_SOURCE).to_dict()
    del old["mechanic"]
    assert Card.from_dict(old).mechanic is None


@pytest.mark.parametrize("mechanic", ["", "  padded", "two\nlines", "double  space", 7, ["a"], "x" * 81])
def test_malformed_mechanic_is_refused(mechanic):
    data = {**card_for(GUESS_SOURCE).to_dict(), "mechanic": mechanic}
    with pytest.raises(RegistryError, match="mechanic must be null or a one-line string"):
        Card.from_dict(data)


@pytest.mark.parametrize("mutation, message", [
    ({"sha256": "xyz"}, "sha256"),
    ({"max_turns": 0}, "max_turns"),
    ({"schema_version": 99}, "newer"),
    ({"id": "spade/Other-v0"}, "does not match"),
])
def test_bad_cards_are_refused(mutation, message):
    data = card_for(GUESS_SOURCE).to_dict()
    data.update(mutation)
    with pytest.raises(RegistryError, match=message):
        Card.from_dict(data)


def test_ids_are_sanitized():
    assert sanitize_name("Rock Paper/Scissors!") == "Rock_Paper_Scissors_"
    assert sanitize_name("Maze-v2") == "Maze_v2"
    env_id = make_id("Weird name ☃", 3)
    assert gym.envs.registration.parse_env_id(env_id) == ("spade", "Weird_name__", 3)


def test_add_is_idempotent_and_bumps_versions(tmp_path):
    suite = Suite(tmp_path)
    first = suite.add(GUESS_SOURCE, card_for(GUESS_SOURCE))
    again = suite.add(GUESS_SOURCE, card_for(GUESS_SOURCE))
    assert again.id == first.id == "spade/Guess-v0"
    other = GUESS_SOURCE + "\n# a different program under the same name\n"
    assert other != GUESS_SOURCE
    bumped = suite.add(other, card_for(other))
    assert bumped.id == "spade/Guess-v1"
    assert [e.id for e in suite.entries()] == ["spade/Guess-v0", "spade/Guess-v1"]
    assert bumped.read_source() == other


def test_tampered_program_refuses_to_load(tmp_path):
    entry = Suite(tmp_path).add(GUESS_SOURCE, card_for(GUESS_SOURCE, name="Tamper"))
    register_suite(tmp_path)
    entry.env_path.write_text(GUESS_SOURCE + "\n# injected\n")
    with pytest.raises(IntegrityError) as info:
        gym.make("spade/Tamper-v0")
    assert str(entry.env_path) in str(info.value)


def _writer(directory: str, worker: int, count: int) -> None:
    suite = Suite(directory)
    for k in range(count):
        source = GUESS_SOURCE + f"\n# variant {worker}-{k}\n"  # every write is a different program
        name = f"W{worker}_{k}" if k % 2 else "Shared"  # half the writes fight over one name
        suite.add(source, card_for(source, name=name))


def test_concurrent_writers(tmp_path):
    ctx = mp.get_context("spawn")
    processes = [ctx.Process(target=_writer, args=(str(tmp_path), w, 6)) for w in range(4)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(120)
        assert p.exitcode == 0
    entries = Suite(tmp_path).entries_or_raise()
    assert len(entries) == 24
    shared = sorted(e.card.version for e in entries if e.card.name == "Shared")
    assert shared == list(range(12))
    for entry in entries:
        entry.read_source()  # every checksum matches
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_register_suite_is_idempotent(tmp_path, forget_registered_ids):
    Suite(tmp_path).add(GUESS_SOURCE, card_for(GUESS_SOURCE, name="RegisteredOnce"))  # an id no other suite has
    assert register_suite(tmp_path) == ["spade/RegisteredOnce-v0"]
    assert register_suite(tmp_path) == ["spade/RegisteredOnce-v0"]
    assert gym.spec("spade/RegisteredOnce-v0").kwargs["env_dir"] == str((tmp_path / "RegisteredOnce-v0").resolve())


def test_env_var_suites_and_module_prefixed_make(tmp_path):
    build_suite(tmp_path, {"walker": (BENIGN_DIR / "injected_names.py").read_text()})
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('spade_gym:spade/Walker-v0')\n"  # no prior `import spade_gym`
        "print(env.reset(seed=1)[0][:21])\n"
    )
    env = dict(os.environ, SPADE_GYM_SUITES=f"/nonexistent{os.pathsep}{tmp_path}")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "Find the hidden cell."


def test_bundled_suite_is_registered_on_import():
    bundled = spade_gym.registry.bundled_suite_path()
    ids = {e.id for e in Suite(bundled).entries()}
    assert ids <= set(gym.registry)
