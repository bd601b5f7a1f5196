"""The registry under hostile suites: capped and fully checked cards, never-raising
reads, trust by owner and mode, one program per id and name across suites, name caps; and the env-building
rules that sit in the registry (unknown ids, unknown arguments, hint modes)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testkit import GUESS_SOURCE, ROOT, build_suite, card_for

from spade_gym.errors import ConfigError, IntegrityError, RegistryError, SuiteWarning
from spade_gym.registry import OVERRIDE_ENV_VAR, Card, Suite, env_name_from_class, register_suite
from spade_gym.registry.card import MAX_CARD_BYTES, MAX_NAME_BYTES, MAX_NAME_CHARS

NOBODY = 65534


pytestmark = pytest.mark.usefixtures("forget_registered_ids")


def write_entry(suite: Path, dirname: str, card_text: str | bytes, source: str = GUESS_SOURCE) -> Path:
    directory = suite / dirname
    directory.mkdir(parents=True)
    (directory / "env.py").write_text(source)
    data = card_text.encode() if isinstance(card_text, str) else card_text
    (directory / "card.json").write_bytes(data)
    return directory


def import_with_suites(*suites: Path | str) -> subprocess.CompletedProcess:
    code = ("import gymnasium as gym, spade_gym\n"
            "print(sorted(i for i in gym.registry if i.startswith('spade/Hardened')))\n")
    env = dict(os.environ, SPADE_GYM_SUITES=os.pathsep.join(map(str, suites)), PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


# ----------------------------------------------------------------------------- hostile cards


def test_hostile_cards_never_break_import(tmp_path):
    suite = tmp_path / "suite"
    Suite(suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "HardenedGood"))
    write_entry(suite, "Nested-v0", "[" * 100_000 + "]" * 100_000)
    write_entry(suite, "Huge-v0", json.dumps({**card_for(GUESS_SOURCE, "Huge").to_dict(), "stats": {"x": "y" * MAX_CARD_BYTES}}))
    write_entry(suite, "Typed-v0", json.dumps({**card_for(GUESS_SOURCE, "Typed").to_dict(), "difficulty_levels": 5}))
    write_entry(suite, "Latin1-v0", b'{"name": "\xff"}')
    deep = {"a": 1}
    for _ in range(200):
        deep = {"a": deep}
    write_entry(suite, "Deep-v0", json.dumps({**card_for(GUESS_SOURCE, "Deep").to_dict(), "stats": deep}))
    result = import_with_suites(suite)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['spade/HardenedGood-v0']"
    assert "Huge-v0" in result.stderr and "SuiteWarning" in result.stderr, result.stderr  # over the cap: no stat passes
    assert "Traceback" not in result.stderr
    # the others pass registration's stat checks (their cards are parsed at make), and make refuses them
    with pytest.warns(SuiteWarning, match="Huge-v0"):
        ids = register_suite(suite)
    for name in ("Nested-v0", "Typed-v0", "Latin1-v0", "Deep-v0"):
        assert f"spade/{name}" in ids
        with pytest.raises(RegistryError, match=name):
            gym.make(f"spade/{name}")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children,
                                                                                      max_size=4),
                    max_leaves=20)
FIELDS = ["name", "version", "skill", "description", "hint", "max_turns", "sha256", "multi_turn", "class_name",
          "difficulty_levels", "provenance", "validation", "stats", "kind", "mechanic", "schema_version", "id"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=4), drop=st.sets(st.sampled_from(FIELDS)))
def test_any_card_content_is_read_or_refused_never_raised(tmp_path_factory, changes, drop):
    """Whatever a card holds: entries() never raises; entries_or_raise() raises only
    RegistryError; and a card that is accepted round-trips through JSON unchanged."""
    suite = tmp_path_factory.mktemp("fuzz")
    data = {**card_for(GUESS_SOURCE, "Fuzz").to_dict(), **changes}
    for key in drop:
        data.pop(key, None)
    write_entry(suite, "Fuzz-v0", json.dumps(data))
    entries = Suite(suite).entries()
    try:
        strict = Suite(suite).entries_or_raise()
    except RegistryError:
        assert entries == []
        return
    assert [e.card for e in strict] == [e.card for e in entries]
    for entry in entries:
        card = entry.card
        assert Card.from_dict(json.loads(card.dumps())) == card
        assert len(card.name) <= MAX_NAME_CHARS and isinstance(card.difficulty_levels, list)


# ----------------------------------------------------------------------------- trust


def test_world_writable_entries_and_suites_are_refused(tmp_path):
    suite = tmp_path / "suite"
    entry = Suite(suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "WritableByAll"))
    assert register_suite(suite) == ["spade/WritableByAll-v0"]
    os.chmod(entry.env_path, 0o666)
    with pytest.raises(IntegrityError, match="writable by every user"):
        gym.make("spade/WritableByAll-v0")
    other = tmp_path / "other"
    Suite(other).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "PlantedInOpenDir"))
    os.chmod(other / "PlantedInOpenDir-v0", 0o777)
    with pytest.warns(SuiteWarning, match="PlantedInOpenDir-v0.*writable by every user"):
        assert register_suite(other) == []
    open_suite = tmp_path / "open"
    Suite(open_suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "OpenSuite"))
    os.chmod(open_suite, 0o777)
    with pytest.warns(SuiteWarning, match="refusing suite"):
        assert register_suite(open_suite) == []
    with pytest.raises(RegistryError, match="writable by every user"):
        Suite(open_suite).entries_or_raise()


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_entries_owned_by_another_user_are_refused(tmp_path):
    suite = tmp_path / "suite"
    entry = Suite(suite).add(GUESS_SOURCE, card_for(GUESS_SOURCE, "PlantedByNobody"))
    for path in (entry.directory, entry.env_path, entry.directory / "card.json"):
        os.chown(path, NOBODY, NOBODY)
    with pytest.warns(SuiteWarning, match="owned by another user"):
        assert register_suite(suite) == []
    with pytest.raises(IntegrityError, match="owned by another user"):
        entry.read_source()


# ----------------------------------------------------------------------------- ids and names


def two_suites(tmp_path: Path, name: str, second_version: int = 0) -> tuple[Path, Path]:
    """Suites ``a`` and ``b``, each with a different program under ``name`` (``b``'s at ``second_version``)."""
    first, second = tmp_path / "a", tmp_path / "b"
    Suite(first).add(GUESS_SOURCE, card_for(GUESS_SOURCE, name))
    other = GUESS_SOURCE + "\n# another suite's program\n"
    Suite(second).add(other, card_for(other, name, version=second_version))
    return first.resolve(), second.resolve()


def test_the_same_id_from_another_suite_is_refused_with_a_warning(tmp_path):
    first, second = two_suites(tmp_path, "Twice")
    assert register_suite(first) == ["spade/Twice-v0"]
    with pytest.warns(SuiteWarning, match=rf"spade/Twice-v0 from {second} is refused: that id is already "
                                          rf"registered from {first}\b"):
        assert register_suite(second) == []
    assert gym.spec("spade/Twice-v0").kwargs == {"env_dir": str(first / "Twice-v0")}


def test_a_new_version_of_a_name_from_another_suite_is_refused(tmp_path):
    first, second = two_suites(tmp_path, "Shadowed", second_version=99)
    register_suite(first)
    with pytest.warns(SuiteWarning, match=rf"spade/Shadowed-v99 from {second} is refused: the name spade/Shadowed "
                                          rf"belongs to {first} \(spade/Shadowed-v0\)"):
        assert register_suite(second) == []
    assert "spade/Shadowed-v99" not in gym.registry
    env = gym.make("spade/Shadowed")  # still the first suite's program
    assert env.spec.id == "spade/Shadowed-v0"
    env.close()


def test_an_extra_suite_cannot_capture_a_bundled_name(tmp_path):
    """``$SPADE_GYM_SUITES`` at import, and register_suite after it: neither a bundled id nor a
    new version of a bundled name is taken, and ``spade_gym:``-prefixed makes see the same."""
    from spade_gym.registry import bundled_suite_path

    bundled = Suite(bundled_suite_path()).get("spade/LetterFeedbackHunt-v0")
    extra = tmp_path / "extra"
    planted = GUESS_SOURCE.replace("NumberHuntEnv", "LetterFeedbackHuntEnv")
    Suite(extra).add(planted, card_for(planted, "LetterFeedbackHunt", version=0))
    Suite(extra).add(planted + "\n#\n", card_for(planted + "\n#\n", "LetterFeedbackHunt", version=7))
    with pytest.warns(SuiteWarning) as caught:
        assert register_suite(extra) == []
    messages = [str(w.message) for w in caught]
    for env_id in ("spade/LetterFeedbackHunt-v0", "spade/LetterFeedbackHunt-v7"):
        assert any(m.startswith(f"{env_id} from {extra.resolve()} is refused") and str(bundled.directory.parent) in m
                   for m in messages), messages
    assert gym.spec("spade/LetterFeedbackHunt-v0").kwargs["env_dir"] == str(bundled.directory)
    code = ("import gymnasium as gym\n"
            "env = gym.make('spade_gym:spade/LetterFeedbackHunt')\n"  # registration at import
            "print(env.spec.id, env.spec.kwargs['env_dir'])\n")
    env = dict(os.environ, SPADE_GYM_SUITES=str(extra), PYTHONPATH=str(ROOT / "src"))
    env.pop("SPADE_GYM_ALLOW_OVERRIDE", None)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["spade/LetterFeedbackHunt-v0", str(bundled.directory)]
    assert "LetterFeedbackHunt-v7" in result.stderr and "is refused" in result.stderr


def test_an_id_registered_before_the_suites_keeps_its_name(tmp_path):
    """Whoever registers a name first owns it, even before ``import spade_gym``."""
    code = ("import gymnasium as gym\n"
            "gym.register('spade/LetterFeedbackHunt-v9', entry_point='builtins:object')\n"
            "import spade_gym\n"
            "print(sorted(i for i in gym.registry if i.startswith('spade/LetterFeedbackHunt')))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), SPADE_GYM_SUITES="")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['spade/LetterFeedbackHunt-v9']"
    assert "spade/LetterFeedbackHunt-v0 from" in result.stderr and "belongs to builtins:object" in result.stderr


def test_registering_a_suite_twice_is_silent(tmp_path):
    first, second = two_suites(tmp_path, "Again")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert register_suite(first) == register_suite(first) == register_suite(tmp_path / "a" / ".." / "a") \
            == ["spade/Again-v0"]
    with pytest.warns(SuiteWarning, match="overrides"):
        register_suite(second, allow_override=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert register_suite(second, allow_override=True) == register_suite(second) == ["spade/Again-v0"]


def test_an_override_is_opt_in_and_every_make_of_it_warns(tmp_path, monkeypatch):
    monkeypatch.delenv(OVERRIDE_ENV_VAR, raising=False)
    first, second = two_suites(tmp_path, "Overridden")
    register_suite(first)
    with pytest.warns(SuiteWarning, match="is refused"):
        assert register_suite(second, allow_override=False) == []
    with pytest.warns(SuiteWarning, match=rf"spade/Overridden-v0 from {second} overrides spade/Overridden-v0 "
                                          rf"from {first}"):
        assert register_suite(second, allow_override=True) == ["spade/Overridden-v0"]
    assert gym.spec("spade/Overridden-v0").kwargs["env_dir"] == str(second / "Overridden-v0")
    says = rf"spade/Overridden-v0 runs the program of suite {second}, which overrides suite {first}"
    for _ in range(2):  # every make, not only the first
        with pytest.warns(SuiteWarning, match=says):
            gym.make("spade/Overridden-v0").close()
    with pytest.warns(SuiteWarning, match=says):
        gym.make_vec("spade/Overridden-v0", num_envs=1).close()
    third = tmp_path / "c"  # the environment variable opts in for every suite
    Suite(third).add(GUESS_SOURCE + "\n#3\n", card_for(GUESS_SOURCE + "\n#3\n", "Overridden", version=4))
    with pytest.warns(SuiteWarning, match="is refused"):
        assert register_suite(third) == []
    monkeypatch.setenv(OVERRIDE_ENV_VAR, "1")
    with pytest.warns(SuiteWarning, match=rf"spade/Overridden-v4 from {third.resolve()} overrides"):
        assert register_suite(third) == ["spade/Overridden-v4"]
    with pytest.warns(SuiteWarning, match=rf"spade/Overridden-v4 runs the program of suite {third.resolve()}"):
        env = gym.make("spade/Overridden")
    assert env.spec.id == "spade/Overridden-v4"
    env.close()


def test_long_class_names_are_capped(tmp_path):
    name = env_name_from_class("Q" * 300 + "Env")
    assert len(name) == MAX_NAME_CHARS
    assert len(env_name_from_class("é" * 300 + "Env").encode()) <= MAX_NAME_BYTES
    source = GUESS_SOURCE.replace("NumberHuntEnv", "Q" * 300 + "Env")
    entry = Suite(tmp_path).add(source, card_for(source, name))
    assert entry.directory.is_dir() and Suite(tmp_path).entries()[0].id == entry.id
    with pytest.raises(RegistryError, match="not a valid id name"):
        Card.from_dict({**card_for(GUESS_SOURCE, "x").to_dict(), "name": "Q" * 300, "id": "spade/" + "Q" * 300 + "-v0"})


def test_import_of_a_program_with_a_300_character_class_name(tmp_path):
    from click.testing import CliRunner

    from spade_gym.cli import main

    program = tmp_path / "long.py"
    program.write_text(GUESS_SOURCE.replace("NumberHuntEnv", "Q" * 297 + "Env"))
    result = CliRunner().invoke(main, ["import", str(program), "--suite", str(tmp_path / "suite"), "--json"])
    assert result.exit_code == 0, result.output
    (entry,) = Suite(tmp_path / "suite").entries()
    assert entry.card.name == "Q" * MAX_NAME_CHARS and entry.card.class_name.startswith("Q" * 200)
    assert entry.card.provenance["designer"] == "unknown model (import)"


def test_unknown_spade_id_names_the_closest_registered_ids():
    with pytest.raises(gym.error.NameNotFound, match=r"closest registered ids: spade/LetterFeedbackHunt-v0"):
        gym.make("spade/LetterFeedbackHun-v0")
    with pytest.raises(gym.error.NameNotFound) as info:
        gym.make("spade/QuokkaHunter-v0")  # no single close name: the nearest few are offered
    suggested = str(info.value).split("closest registered ids: ")[1].split(" (")[0].split(", ")
    assert 1 <= len(suggested) <= 3 and all(s in gym.registry for s in suggested), suggested
    with pytest.raises(gym.error.NameNotFound, match="Did you mean"):  # other namespaces keep gymnasium's
        gym.make("CartPol-v1")


# ----------------------------------------------------------------------------- arguments of make


def test_made_up_arguments_and_difficulties_are_errors():
    with pytest.raises(ConfigError, match="no difficulty 'impossible'; choose one of easy, medium, hard"):
        gym.make("spade/LetterFeedbackHunt-v0", difficulty="impossible")
    with pytest.raises(ConfigError, match="does not take 'colour'"):
        gym.make("spade/LetterFeedbackHunt-v0", colour="red")
    with pytest.raises(ConfigError, match="no difficulty 'impossible'"):
        gym.make_vec("spade/LetterFeedbackHunt-v0", num_envs=2, difficulty="impossible")
    with pytest.raises(ConfigError, match="hint must be False, True, 'observation' or 'info'"):
        gym.make("spade/LetterFeedbackHunt-v0", hint="yes please")
    env = gym.make("spade/LetterFeedbackHunt-v0", difficulty="hard", max_turns=4, hint="info")
    obs, info = env.reset(seed=1)
    assert info["max_turns"] == 4 and info["hint"]
    env.close()


def test_difficulty_is_refused_for_a_program_without_levels(tmp_path):
    build_suite(tmp_path, {"guess": GUESS_SOURCE.replace("NumberHuntEnv", "LevellessHuntEnv")})
    register_suite(tmp_path)
    with pytest.raises(ConfigError, match="does not take 'difficulty'"):
        gym.make("spade/LevellessHunt-v0", difficulty="hard")


HINT_FAILS = GUESS_SOURCE.replace("class NumberHuntEnv", '''class HintFailsEnv''') + '''
    def hint(self):
        raise ValueError("the hint is only broken outside validation")
'''


def test_a_hint_that_raises_ends_the_episode_instead_of_raising(tmp_path):
    from spade_gym.env.episode import ERROR_OBSERVATION

    assert "def hint" not in GUESS_SOURCE
    build_suite(tmp_path, {"hint_fails": HINT_FAILS})
    register_suite(tmp_path)
    env = gym.make("spade/HintFails-v0", hint=True)
    obs, info = env.reset(seed=3)
    assert obs == ERROR_OBSERVATION and info["error"]["where"] == "hint"
    assert "only broken outside validation" in info["error"]["message"]
    obs, reward, terminated, truncated, info = env.step("\\boxed{1}")
    assert (reward, terminated, truncated) == (0.0, False, True) and "error" in info
    env.close()
    plain = gym.make("spade/HintFails-v0")  # without the hint the game plays normally
    assert plain.reset(seed=3)[0] != ERROR_OBSERVATION
    plain.close()


# ----------------------------------------------------------------------------- layering


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_env_layer_knows_nothing_of_suites():
    env_dir = ROOT / "src" / "spade_gym" / "env"
    for path in sorted(env_dir.glob("*.py")):
        upward = {name for name in _imports(path)
                  if name.startswith(("spade_gym.registry", "spade_gym.validation", "spade_gym.cli"))
                  or name == "spade_gym"}
        assert not upward, f"{path.name} imports {sorted(upward)}"
