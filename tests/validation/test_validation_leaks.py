"""Programs that hand over the answer in a spelling a list of spellings misses are rejected.

Each program in ``tests/programs/leaks`` leaks one way (hint, info, feedback, screen) in one
spelling the previous validator let pass (Roman numerals, full-width digits, zero-width
separators, French words, reversed digits, glued digits, an acrostic). For each, the leak is
first proven under plain CPython (the program run as the reference loader would, its texts
decoded by :mod:`spade_gym.decoding` back to the solution), then the validator rejects it with
the check that owns the leak; the sound twins, which differ only in that, are accepted.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from testkit import PROGRAMS, plain_run

from spade_gym.cli import main
from spade_gym.decoding import explain, reveals
from spade_gym.validation import ValidationConfig, validate_source

LEAKS = PROGRAMS / "leaks"
SMALL = ValidationConfig(seeds=8, fuzz_examples=8, cost_samples=3, seed=11, long_run_resets=40)
PLAIN_SEEDS = [0, 1, 7, 42, 1234]
WRONG = ["\\boxed{1}", "\\boxed{2}"]

#: program -> (where it leaks, how the decoder names the spelling, the check that rejects it).
HOSTILE = {
    "hint_roman": ("hint", "in Roman numerals", "hint"),
    "hint_fullwidth": ("hint", "in other characters", "hint"),
    "hint_zero_width": ("hint", "in other characters", "hint"),
    "hint_french": ("hint", "in French words", "hint"),
    "hint_reversed": ("hint", "reversed", "hint"),
    "hint_acrostic": ("hint", "as first letters", "hint"),
    "hint_window_acrostic": ("hint", "as first letters", "hint"),
    "info_fullwidth": ("info", "in other characters", "info_leak"),
    "feedback_glued": ("feedback", "inside a longer token", "shortcut"),
    "screen_roman": ("screen", "in Roman numerals", "shortcut"),
}
ACROSTICS = ("hint_acrostic", "hint_window_acrostic")
SOUND = {"vault_sound": [n for n in HOSTILE if n not in ACROSTICS], "anagram_sound": list(ACROSTICS)}
#: Checks a leaking program may fail besides its own: an answer on the screen or in the feedback
#: is also copied by the cheap copy baseline.
ALSO_FAILS = {"shortcut": {"non_triviality"}}


def _texts(run: dict) -> dict[str, str]:
    steps = run["steps"]
    return {"hint": run.get("hint") or "", "screen": run["reset"][0], "info": json.dumps(run["reset"][1], ensure_ascii=False),
            "feedback": steps[0][0] if steps else ""}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_leak_is_real_under_plain_cpython(name):
    where, how, _ = HOSTILE[name]
    runs = plain_run(LEAKS / f"{name}.py", {"seeds": PLAIN_SEEDS, "actions": WRONG, "hint": True})
    for run in runs:
        text, solution = _texts(run)[where], run["solution"]
        assert reveals(text, solution), (text, solution)
        assert how in explain(text, solution), explain(text, solution)
        assert solution.lower() not in text.lower() or where == "feedback", "the leak is not verbatim"


@pytest.mark.parametrize("name", sorted(SOUND))
def test_the_sound_twins_reveal_nothing_under_plain_cpython(name):
    for run in plain_run(LEAKS / f"{name}.py", {"seeds": PLAIN_SEEDS, "actions": WRONG, "hint": True}):
        for where, text in _texts(run).items():
            assert not reveals(text, run["solution"]), (where, text, explain(text, run["solution"]))


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_leaking_program_is_rejected_by_the_check_that_owns_the_leak(name):
    _, how, check = HOSTILE[name]
    report = validate_source((LEAKS / f"{name}.py").read_text(), config=SMALL)
    failed = {c.name for c in report.failures}
    assert not report.valid and check in failed, report.summary()
    assert failed <= {check} | ALSO_FAILS.get(check, set()), report.summary()
    if check == "hint":
        assert how in report.check("hint").message, report.check("hint").message


@pytest.mark.parametrize("name", sorted(SOUND))
def test_the_sound_twin_is_accepted(name):
    report = validate_source((LEAKS / f"{name}.py").read_text(), config=SMALL)
    assert report.valid, report.summary()


def test_a_stretch_of_first_letters_every_episode_shares_is_a_coincidence():
    """hint_shared_stretch's one fixed sentence runs p-e-n-c-i-l in its first letters, and "pencil"
    is its commonest answer: the decoder does read the answer there (a rule that counted every
    such reading rejected the program), but the same stretch is in the hints of the episodes whose
    word differs, so it tells no episode from another. Its per-episode twin, hint_window_acrostic,
    which spells each episode's own word, stays rejected (above)."""
    runs = plain_run(LEAKS / "hint_shared_stretch.py", {"seeds": list(range(40)), "actions": WRONG, "hint": True})
    pencil = [run for run in runs if run["solution"] == "pencil"]
    others = [run for run in runs if run["solution"] != "pencil"]
    assert pencil and others
    assert all(reveals(run["hint"], "pencil") and "as first letters" in explain(run["hint"], "pencil") for run in pencil)
    assert all(reveals(run["hint"], "pencil") for run in others), "the stretch is in every episode's hint"
    assert not any(reveals(run["hint"], run["solution"]) for run in others)
    for seed in (11, 12, 13):
        report = validate_source((LEAKS / "hint_shared_stretch.py").read_text(), config=SMALL.replace(seed=seed))
        assert report.valid, report.summary()


def test_the_decode_baseline_wins_what_the_screen_spells():
    report = validate_source((LEAKS / "screen_roman.py").read_text(),
                             config=SMALL.replace(checks=("static", "load", "shortcut")))
    rates = report.check("shortcut").details["win_rates"]["default"]
    assert rates["decode"] == 1.0 and rates["enumeration"] == 1.0, rates
    sound = validate_source((LEAKS / "vault_sound.py").read_text(),
                            config=SMALL.replace(checks=("static", "load", "shortcut")))
    assert sound.check("shortcut").details["win_rates"]["default"]["decode"] == 0.0


def test_spade_gym_validate_rejects_a_roman_numeral_hint():
    result = CliRunner().invoke(main, ["validate", str(LEAKS / "hint_roman.py"), "--seed", "11", "--json"])
    assert result.exit_code == 1, result.output
    [data] = json.loads(result.stdout)
    hint = next(c for c in data["checks"] if c["name"] == "hint")
    assert not hint["passed"] and "in Roman numerals" in hint["message"]
