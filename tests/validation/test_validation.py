"""The validation pipeline: sound programs pass, each broken program fails exactly its check
with a precise message, hostile programs are reported (never crash the host or the validator)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from attacks import CANARY_VAR, ESCAPES, program
from hostile_shell import LOOP, SWALLOWING_LOOP, hostile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testkit import BENIGN_DIR, GUESS_SOURCE, PROGRAMS, build_suite

from spade_gym.errors import ConfigError
from spade_gym.sandbox import Limits, ProgramHandle
from spade_gym.validation import CHECK_NAMES, ValidationConfig, ValidationReport, validate_many, validate_source
from spade_gym.validation import checks as checks_module
from spade_gym.validation import context as context_module
from spade_gym.validation import fuzz as fuzz_module
from spade_gym.validation.context import draw_seeds
from spade_gym.validation.fingerprint import fingerprint, similarity

BROKEN_DIR = PROGRAMS / "broken"
#: Small but meaningful: 8 seeds keep the 15% baseline threshold at "at most one lucky win".
#: A fixed run seed: the probe seeds, and so every message, are the same in every test run.
SMALL = ValidationConfig(seeds=8, fuzz_examples=12, cost_samples=3, difficulty_seeds=2, seed=3, long_run_resets=40)
#: The probe seeds SMALL draws.
SEEDS = draw_seeds(SMALL.seed, SMALL.seeds)
FAST_LIMITS = Limits(call_timeout=1.0, load_timeout=2.0, kill_grace=0.5)


@pytest.fixture(autouse=True)
def only_the_bundled_suite_is_registered(monkeypatch):
    """Without a target suite, novelty compares with every registered suite: here, as in a fresh
    process, only the bundled one (other test modules register the benign corpus, of which
    several programs below are deliberate variants)."""
    import spade_gym.validation.novelty as novelty
    from spade_gym.registry import Suite, bundled_suite_path

    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])


def broken(name: str) -> str:
    return (BROKEN_DIR / f"{name}.py").read_text()


@pytest.fixture(scope="module")
def guess_suite(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("novelty-suite")
    build_suite(directory, {"guess": GUESS_SOURCE})
    return directory


# ----------------------------------------------------------------------------- sound programs


@pytest.mark.parametrize("path", sorted(BENIGN_DIR.glob("*.py")), ids=lambda p: p.stem)
def test_sound_programs_pass_every_check(path, guess_suite):
    source = path.read_text()
    suite = guess_suite if path.stem != "guess_number" else None  # the suite holds guess_number itself
    report = validate_source(source, suite=suite, config=SMALL)
    assert report.valid, report.summary()
    assert [c.name for c in report.checks] == list(CHECK_NAMES)
    assert report.summary().startswith("VALID")
    details = report.details
    assert details["class_name"].endswith("Env") and details["max_turns"] >= 1
    assert set(details["baseline_win_rates"]) == {"random_numbers", "random_words", "empty", "copy", "repeat"}
    assert details["oracle_turns"] >= 1 and isinstance(details["multi_turn"], bool)


def test_card_details_of_a_multi_turn_program_with_difficulty_and_hint():
    report = validate_source((BENIGN_DIR / "unicode_story.py").read_text(), config=SMALL)
    assert report.valid, report.summary()
    assert report.details["multi_turn"] is True and report.details["oracle_turns"] > 1
    assert report.details["difficulty_levels"] == ["easy", "medium", "hard"]
    assert report.details["hint"].startswith("The sequence has")
    card = report.card_summary()
    assert card["valid"] is True and len(card["checks"]) == len(CHECK_NAMES)
    assert card["difficulty_levels"] == ["easy", "medium", "hard"] and "baseline_win_rates" in card
    json.dumps(report.to_dict())  # plain data all the way down


def test_single_turn_program_without_knob():
    report = validate_source(GUESS_SOURCE, config=SMALL)
    assert report.details["multi_turn"] is False and report.details["difficulty_levels"] == []
    assert "no difficulty knob" in report.check("difficulty").message


# ----------------------------------------------------------------------------- one broken program per check

#: check -> fragments its failure message must contain (the seed, line and value at fault).
ODD = [s for s in SEEDS if s % 2]
EXPECTED = {
    "static": ["SecretCodeEnv (line 7) does not define solution()"],
    "load": [f"reset failed on {sum(s % 4 == 3 for s in SEEDS)} of 8 seeds",
             f"seed {next(s for s in SEEDS if s % 4 == 3)}: reset() raised IndexError", "(line 17)",
             "theme = THEMES[(seed or 0) % 4]"],
    "contract": ["action ''", "AttributeError: 'NoneType' object has no attribute 'group' (line 28)",
                 "guess = re.search("],
    "termination": ["never ended", "after 8 turns (max_turns 6 + slack 2)", "truncated=True",
                    "got observation 'Wrong, try again.'"],
    "episode_end": ["truncated=True at turn 3, before the turn limit (max_turns 10)", "terminated=True with reward 0"],
    "determinism": ["a fresh worker", f"reset(seed={SEEDS[0]}) gave different observations: 'Compute"],
    "diversity": ["only 1 distinct task(s) over 8 seeds", "'110329'"],
    "distinct_solutions": ["the same answer ('\\\\boxed{amber}') wins 100% of the seeds", "memorise"],
    "solvability": [f"won only {8 - len(ODD)} of 8 seeds", f"seed {ODD[0]}: the episode was truncated after 4 turn(s)",
                    "does not accept what solution() returns"],
    "non_triviality": ["baseline copy", "% > 15%", "\\\\boxed{"],
    "difficulty": ["difficulty='hard': loading failed", "KeyError: 'hard' (line 12)"],
    "shortcut": ["bisection", "level default", "% > 50%", "fix: the numeric answer is found by halving"],
    "informative": ["the agent can only guess", "got the same feedback", "legal moves that won other seeds",
                    "never reaches the screen or the feedback"],
    "levels": ["level hard is easier than easy"],
    "hint_rule": ["hint_moves", "with the hint", "% > 50%", "fix: the hint names the moves to play"],
    "agent_probes": ["a generic sentence as the answer won", "level default", "\\\\boxed{"],
    "hint": [f"hint() for seed {SEEDS[0]}", f"contains the solution of seed {SEEDS[0]}", "verbatim"],
    "info_leak": ["info carries the answer", "reset() info holds", "debug_target"],
    "gymnasium": ["check_env failed: Environment truncates after 1 step", "terminated=True"],
    "novelty": ["a copy of spade/NumberHunt-v0", "the same code up to names, strings, comments and docstrings"],
    "cost": ["reset() takes", "the budget is 10 ms"],
}
#: Checks a broken program may fail besides its own, because its fault implies theirs
#: (a constant task has a constant answer, which the shortcut zoo's prior then wins).
ALSO_FAILS = {
    "diversity": {"distinct_solutions", "shortcut"},
    "distinct_solutions": {"shortcut"},
    "non_triviality": {"distinct_solutions", "shortcut"},
    "levels": {"shortcut"},  # backwards levels: the easy-looking hard level is a shortcut too
}


@pytest.mark.parametrize("check", CHECK_NAMES)
def test_broken_program_fails_exactly_its_check(check, guess_suite):
    config = SMALL
    if check == "cost":
        # The slow program costs 40-150 ms per reset depending on the machine and its load: time
        # only what the cost check needs, against a budget that every such machine overruns.
        config = SMALL.replace(checks=("static", "load", "cost"), seeds=2, cost_budget_ms=10.0)
    report = validate_source(broken(check), suite=guess_suite if check == "novelty" else None, config=config)
    assert not report.valid
    failed = [c.name for c in report.failures]
    assert check in failed and set(failed) <= {check} | ALSO_FAILS.get(check, set()), report.summary()
    message = report.check(check).message
    for fragment in EXPECTED[check]:
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    if check in ("static", "load"):  # fatal: the rest is skipped, and said so
        assert report.skipped and all(not c.passed for c in report.skipped)
        assert "Not run because of the failure above" in report.summary()
    else:
        assert not report.skipped


def test_broken_programs_say_what_they_break():
    for path in BROKEN_DIR.glob("*.py"):
        first = path.read_text().splitlines()[0]
        assert first.startswith("# Breaks the ") and path.stem.upper() in first, path.name


def test_summary_is_concise_and_ordered():
    report = validate_source(broken("solvability"), config=SMALL)
    summary = report.summary()
    assert summary.splitlines()[0] == f"INVALID: ModSumEnv failed 1 of {len(CHECK_NAMES)} checks."
    assert "[solvability]" in summary
    assert "[contract]" not in summary and "gymnasium" not in summary  # passed checks are not noise
    assert "and 3 more seed(s) like it" in summary  # one line per distinct problem


# ----------------------------------------------------------------------------- contract details


def test_non_json_info_is_a_contract_failure():
    source = GUESS_SOURCE.replace('{"turn": self.turn_count}', '{"seen": set(self.history)}')
    report = validate_source(source, config=SMALL)
    assert [c.name for c in report.failures] == ["contract"], report.summary()
    assert "info['seen'] holds a set, which is not JSON-compatible" in report.check("contract").message


def test_reward_outside_unit_range_is_a_contract_failure():
    source = GUESS_SOURCE.replace('return f"Correct! It was {self._solution}.", 1.0,',
                                  'return f"Correct! It was {self._solution}.", 10.0,')
    report = validate_source(source, config=SMALL)
    assert [c.name for c in report.failures] == ["contract"], report.summary()
    assert "step() returned reward 10.0; rewards must be finite and within [-1, 1]" in report.check("contract").message


def test_a_baseline_crash_names_the_action_that_caused_it():
    words = ", ".join(repr(w) for w in ("cat", "dog", "apple", "house", "tree", "river", "stone", "fire", "water",
                                        "key", "door", "box", "sword", "gold", "silver", "red", "green", "blue"))
    source = hostile(step=f"word = action.replace('\\\\boxed{{', '').rstrip('}}')\nif word in ({words}):\n"
                          f"    raise KeyError(word)")
    report = validate_source(source, config=SMALL.replace(fuzz_examples=0))
    message = report.check("contract").message
    found = re.findall(r"policy random_words, seed \d+: turn \d+, action '\\\\boxed\{(\w+)\}': "
                       r"step\(\) raised KeyError: '(\w+)' \(line 18\)", message)
    assert found and all(sent == raised for sent, raised in found), message


def test_difficulty_keyword_without_effect_fails():
    source = GUESS_SOURCE.replace("def __init__(self, max_turns=8, **kwargs):",
                                  "def __init__(self, max_turns=8, difficulty='medium', **kwargs):")
    report = validate_source(source, config=SMALL)
    assert [c.name for c in report.failures] == ["difficulty"], report.summary()
    assert "the difficulty keyword has no effect" in report.check("difficulty").message


def test_given_hint_is_checked_against_every_seed():
    answers = []
    with ProgramHandle(GUESS_SOURCE) as handle:
        for seed in SEEDS[2:5]:
            handle.reset(seed=seed)
            answers.append(handle.solution())
    config = SMALL.replace(checks=("static", "load", "hint"))
    good = validate_source(GUESS_SOURCE, hint="Halve the remaining range with every guess.", config=config)
    assert good.valid, good.summary()
    # A fixed hint naming the (short) answers of several seeds gives them away; one such
    # coincidence among the probe seeds would be tolerated (test_validation_attacks covers that).
    leak = validate_source(GUESS_SOURCE, hint=f"It is {' or '.join(answers)}.", config=config)
    assert f"contains the solution of seed {SEEDS[2]}" in leak.check("hint").message
    assert "the hint is empty" in validate_source(GUESS_SOURCE, hint="  ", config=config).check("hint").message
    long = validate_source(GUESS_SOURCE, hint="think " * 400, config=config).check("hint").message
    assert "characters long; the limit is 1000" in long


# ----------------------------------------------------------------------------- never crash, never hang


@pytest.mark.parametrize("value", [None, b"class XEnv: pass", "", "   \n", "\x00", "x" * 300_000, "class Env:\n pass",
                                   "\ud800", "class AEnv:\n    x = '\ud800'\n"])
def test_non_programs_are_invalid_not_errors(value):
    report = validate_source(value, config=SMALL)
    assert not report.valid and report.checks[0].name == "static" and not report.checks[0].passed
    assert all(c.skipped for c in report.checks[1:])


def test_internal_error_becomes_a_failed_check(monkeypatch):
    def broken_check(ctx):
        raise RuntimeError("validator bug")

    previous = checks_module.replace_check("diversity", broken_check)
    try:
        report = validate_source(GUESS_SOURCE, config=SMALL)
    finally:
        checks_module.restore_check(previous)
    check = report.check("diversity")
    assert not report.valid and not check.passed and check.details["internal"]
    assert "internal error in the validator" in check.message and "validator bug" in check.message


@pytest.mark.parametrize("where, reason", [
    ("step", "did not return within its deadline (line 16)"),
    ("reset", "did not return within its deadline (line 9)"),
    ("init", "did not return within its deadline (line 5)"),
    ("swallow", "the worker was killed"),
    ("memory", "ran out of memory (line 16)"),
    ("fuzz", "''"),  # the input it hangs on is named
])
def test_hanging_or_exhausting_programs_are_invalid_with_the_reason(where, reason):
    source = {
        "step": hostile(step=LOOP), "reset": hostile(reset=LOOP), "init": hostile(init=LOOP),
        "swallow": hostile(step=SWALLOWING_LOOP), "memory": hostile(step="x = bytearray(1 << 34)"),
        "fuzz": hostile(step="if 'boxed' not in action:\n    while True:\n        pass"),  # hangs on free text
    }[where]
    start = time.monotonic()
    report = validate_source(source, config=SMALL.replace(limits=FAST_LIMITS))
    assert time.monotonic() - start < 20
    failed = report.failures
    assert not report.valid and len(failed) == 1 and reason in failed[0].message, report.summary()
    assert failed[0].details.get("aborted") or failed[0].name == "load"
    assert report.skipped, "validation stops after a hang or crash"


def test_attack_corpus_is_reported_invalid(tmp_path, monkeypatch):
    monkeypatch.setenv(CANARY_VAR, "canary-7f3a9c")
    monkeypatch.chdir(tmp_path)
    sources = {name: program(body, prelude) for name, (prelude, body, _kind) in ESCAPES.items()}
    reports = validate_many(sources, config=SMALL, workers=2)
    for (name, (_prelude, _body, kind)), report in zip(ESCAPES.items(), reports):
        assert not report.valid, name
        assert report.failures[0].name == ("static" if kind == "policy" else "load"), (name, report.summary())
        assert "canary-7f3a9c" not in json.dumps(report.to_dict()), name
        assert not (report.details.get("first_observation") or "").startswith("ESCAPED"), name
    assert list(tmp_path.iterdir()) == [], "nothing may be created on disk"
    assert validate_source(GUESS_SOURCE, config=SMALL).valid, "the host and the sandbox still work"


# Mutations of a sound program: deleted, duplicated or swapped lines and replaced characters.
@st.composite
def mutated_programs(draw):
    lines = GUESS_SOURCE.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        operation = draw(st.sampled_from(["delete", "duplicate", "swap", "replace"]))
        if operation == "delete":
            del lines[i]
        elif operation == "duplicate":
            lines.insert(i, lines[i])
        elif operation == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif lines[i]:
            j = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + draw(st.text(max_size=3)) + lines[i][j + 1:]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=st.one_of(st.text(max_size=400), st.text(st.characters(exclude_categories=()), max_size=40),
                        mutated_programs()))
def test_random_program_text_never_crashes_the_validator(source):
    report = validate_source(source, config=SMALL.replace(seeds=4, fuzz_examples=4, limits=FAST_LIMITS))
    assert isinstance(report, ValidationReport) and report.checks
    assert not any((c.details or {}).get("internal") for c in report.checks), report.summary()
    json.dumps(report.to_dict())


# ----------------------------------------------------------------------------- parallel


def test_validate_many_equals_sequential():
    sources = {"guess": GUESS_SOURCE, "grid": (BENIGN_DIR / "numpy_grid.py").read_text(),
               "termination": broken("termination"), "hint": broken("hint"), "static": broken("static")}

    def essence(report):  # timings differ between runs; everything else must not
        return [(c.name, c.passed, c.message if c.name != "cost" else "") for c in report.checks]

    parallel = validate_many(sources, config=SMALL, workers=3)
    sequential = [validate_source(s, config=SMALL, name=n) for n, s in sources.items()]
    assert [r.name for r in parallel] == list(sources)
    assert [essence(r) for r in parallel] == [essence(r) for r in sequential]
    assert [r.valid for r in parallel] == [True, True, False, False, False]


# ----------------------------------------------------------------------------- config and fingerprints


def test_config_rejects_nonsense():
    with pytest.raises(ConfigError, match="cannot be disabled"):
        ValidationConfig(checks=("contract",))
    with pytest.raises(ConfigError, match="unknown validation check"):
        ValidationConfig(checks=("static", "load", "vibes"))
    with pytest.raises(ConfigError, match="within \\[0, 1\\]"):
        ValidationConfig(max_baseline_win_rate=1.5)
    assert ValidationConfig().to_dict()["seeds"] == 16


def test_fingerprint_sees_through_renaming_and_small_edits(benign_sources):
    copy = broken("novelty")  # every name and text changed
    assert fingerprint(copy).exact == fingerprint(GUESS_SOURCE).exact
    edited = copy.replace("        self.guesses = []\n        self.reset()",
                          "        self.guesses = []\n        self.misses = 0\n        self.reset()")
    assert fingerprint(edited).exact != fingerprint(GUESS_SOURCE).exact
    assert similarity(fingerprint(edited), fingerprint(GUESS_SOURCE)) >= 0.95
    others = [s for name, s in benign_sources.items() if name != "guess_number"]
    assert max(similarity(fingerprint(GUESS_SOURCE), fingerprint(s)) for s in others) < 0.5


def test_fuzz_corpus_is_deterministic():
    first = fuzz_module.fuzz_corpus(30, 7)
    fuzz_module._fuzz_cache.clear()
    assert fuzz_module.fuzz_corpus(30, 7) == first
    assert fuzz_module.fuzz_corpus(30, 8) != first
    assert "" in first and any(len(t) >= 100_000 for t in first) and any("\\boxed{\\boxed{" in t for t in first)


def test_every_worker_is_closed(monkeypatch):
    opened = []

    class Recording(ProgramHandle):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            opened.append(self)

    monkeypatch.setattr(context_module, "ProgramHandle", Recording)
    validate_source(broken("contract"), config=SMALL)
    validate_source(broken("difficulty"), config=SMALL)
    assert len(opened) >= 5 and not any(handle.alive for handle in opened)
