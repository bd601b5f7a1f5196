"""One admission path: generate, import, revalidate and self-play admit through
:mod:`spade_gym.registry.admission`, and differ only where their rules name the difference.

What must hold: the same program gets the same card and verdict through every caller; the hint
rule is a named option of the rules (generate and self-play require a hint, import does not); a program that
fails validation is kept with its report where its caller keeps rejected programs; two admissions
racing for one name register it once; a crash between validation and registration leaves no half
card. Slow steps (validation) run once per program and caller; the registration tests replay a
report validated once.
"""

from __future__ import annotations

import json
import pickle
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from attacks import program
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from testkit import ROOT

from spade_gym.cli import main
from spade_gym.generate.backends import ReplayBackend
from spade_gym.generate.pipeline import GenerateConfig, GenerationPipeline, admission_steps, describe_program
from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.registry.admission import (
    GENERATE,
    IMPORT,
    NO_HINT,
    PRESETS,
    REVALIDATE,
    SELFPLAY,
    Admission,
    Admitted,
    Candidate,
    Form,
    Gate,
    Prepared,
    Rejected,
    Submission,
    admit,
)
from spade_gym.registry.card import DESCRIPTION_CHARS, describe
from spade_gym.selfplay.demo_designs import DEMO_DESIGNS
from spade_gym.selfplay.warmstart import designer_completion
from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.report import ProgramFacts

# Novelty compares with every registered suite: each test sees the registry a fresh process has.
pytestmark = pytest.mark.usefixtures("fresh_process_registry")

SKILL = "Mathematical Reasoning"
# (a docstring: without one, the description is the first sentence of the first probe seed's screen)
SOURCE = '"""Sum the numbers, then take the remainder."""\n' + DEMO_DESIGNS[0].source.replace("ModSumEnv", "AdmitSumEnv")
HINT = DEMO_DESIGNS[0].hint
# The same game without any hint: no hint() method, and none given with it.
NO_HINT_SOURCE = SOURCE[:SOURCE.index("    def hint(self):")] + SOURCE[SOURCE.index("    def step(self"):]
# The static check turns it away at once (the cheapest validation failure there is).
HOSTILE = program("import os\nreturn os.environ.get('HOME', ''), {}", "import os")
FAST = ValidationConfig(seeds=6)
#: Card fields that describe the program; provenance says who admitted it, validation what was measured.
SAME = ("name", "skill", "description", "hint", "max_turns", "multi_turn", "kind", "class_name", "difficulty_levels",
        "sha256")


@pytest.fixture()
def only_bundled(monkeypatch):
    """'Every registered suite' is the bundled one, as in a fresh process."""
    import spade_gym.validation.novelty as novelty

    monkeypatch.setattr(novelty, "registered_suites", lambda: [Suite(bundled_suite_path())])


def generate(tmp_path, completion: str, name: str = "g"):
    log = tmp_path / f"{name}.jsonl"
    log.write_text(json.dumps({"completion": completion, "skill": SKILL}) + "\n")
    config = GenerateConfig(n=1, skills=(SKILL,), attempts=1, concurrency=1)
    suite = tmp_path / name / "suite"
    summary = GenerationPipeline(ReplayBackend(log), suite, config, validation_config=FAST).run()
    return summary.results[0], Suite(suite), suite.parent / "rejected"


def import_cli(tmp_path, source: str, hint: str | None, name: str = "i"):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    args = ["import", str(path), "--suite", str(tmp_path / name / "suite"), "--skill", SKILL, "--json"]
    if hint is not None:
        (tmp_path / f"{name}.hints.json").write_text(json.dumps({path.name: hint}))
        args += ["--hints", str(tmp_path / f"{name}.hints.json")]
    result = CliRunner().invoke(main, args)
    return result, json.loads(result.stdout), Suite(tmp_path / name / "suite")


def selfplay(tmp_path, completions: list[str]):
    from spade_gym.selfplay.presets import load_preset
    from spade_gym.selfplay.progress import Progress
    from spade_gym.selfplay.rollout import DesignResult, RunState, SpadeRollout

    config = load_preset("cpu-test")
    config.validation_seeds = 4
    rollout = SpadeRollout(config, tmp_path / "run", [], RunState())
    designs = [DesignResult(SKILL, False, text, index=i) for i, text in enumerate(completions)]
    with Progress(enabled=False).phase("validating") as phase:
        rollout.admission_stage.run(designs, 1, "test-model", random.Random(0), phase)
    return designs, rollout


# ----------------------------------------------------------------------------- one program, every caller


def test_every_caller_gives_the_same_card_and_verdict(tmp_path, only_bundled):
    target, generated, _ = generate(tmp_path, designer_completion(SOURCE, HINT))
    result, out, imported = import_cli(tmp_path, SOURCE, HINT)
    (design,), rollout = selfplay(tmp_path, [designer_completion(SOURCE, HINT)])
    assert target.accepted and result.exit_code == 0 and design.valid, (target.failures, out, design.failure)
    cards = {"generate": generated.entries()[0].card, "import": imported.entries()[0].card,
             "self-play": rollout.suite.entries()[0].card}
    fields = {caller: {name: getattr(card, name) for name in SAME} for caller, card in cards.items()}
    assert fields["generate"] == fields["import"] == fields["self-play"], fields
    assert fields["import"]["hint"] == HINT and fields["import"]["name"] == "AdmitSum"
    assert fields["import"]["description"] == "Sum the numbers, then take the remainder."
    for card in cards.values():
        assert card.validation["valid"] is True
        assert [c["name"] for c in card.validation["checks"]] == [c["name"] for c in cards["import"].validation["checks"]]
    # who admitted it is what differs: each caller's provenance
    assert cards["generate"].provenance["attempts"] == 1 and cards["generate"].provenance["requested_skill"] == SKILL
    assert cards["import"].provenance["source"] == "import" and cards["import"].provenance["file"] == "i.py"
    assert cards["self-play"].provenance["iteration"] == 1 and cards["self-play"].provenance["model"] == "test-model"

    # revalidate: the same verdict on the registered program, and only the validation record changes
    before = imported.entries()[0].card.to_dict()
    rerun = CliRunner().invoke(main, ["revalidate", str(imported.path), "--seed", "3", "--write", "--json"])
    assert rerun.exit_code == 0, rerun.output
    (row,) = json.loads(rerun.stdout)["results"]
    assert row["valid"] and row["written"]
    after = imported.entries()[0].card.to_dict()
    assert after["validation"]["run_seed"] == 3
    assert {k: v for k, v in after.items() if k != "validation"} == {k: v for k, v in before.items() if k != "validation"}


# ----------------------------------------------------------------------------- the hint rule


def test_the_hint_rule_is_a_named_option_of_the_rules(tmp_path, only_bundled):
    assert GENERATE.require_hint and SELFPLAY.require_hint and not IMPORT.require_hint
    assert set(PRESETS) == {"generate", "import", "self-play", "revalidate"}

    target, suite, rejected = generate(tmp_path, f"```python\n{NO_HINT_SOURCE}```\n")  # no <hint> either
    assert not target.accepted and target.failures == ["hint"] and suite.entries() == []
    assert target.last_summary == NO_HINT
    kept = json.loads(Path(target.rejected_files[0]).with_suffix(".report.json").read_text())
    assert kept["valid"] is True and kept["failed_check"] == "hint"  # valid, and still turned away

    result, out, imported = import_cli(tmp_path, NO_HINT_SOURCE, None)
    assert result.exit_code == 0 and [row["status"] for row in out["accepted"]] == ["added"], out
    assert imported.entries()[0].card.hint is None

    # the same report judged under each caller's rules: only the option decides
    report = validate_source(NO_HINT_SOURCE, config=FAST)
    for rules, admitted in ((IMPORT, True), (IMPORT.replace(require_hint=True), False), (GENERATE, False)):
        admission = Admission(tmp_path / "judge", rules, admission_steps())
        prepared = admission.prepare(Submission(NO_HINT_SOURCE, skill=SKILL))
        assert isinstance(prepared, Prepared)
        judged = admission.judge(prepared, report)
        assert isinstance(judged, Candidate) is admitted, (rules, judged)
        if not admitted:
            assert isinstance(judged, Rejected) and judged.gate is Gate.HINT and judged.reason == NO_HINT


# ----------------------------------------------------------------------------- the rejected, kept


def test_a_program_that_fails_validation_is_kept_with_its_report_where_its_caller_keeps_them(tmp_path):
    target, suite, rejected = generate(tmp_path, designer_completion(HOSTILE, "x"))
    assert target.failures == ["static"] and suite.entries() == []
    (program_file,) = rejected.glob("*.py")
    assert program_file.read_text() == HOSTILE and program_file.name.endswith("_t0000_a1_program.py")
    report = json.loads(program_file.with_suffix(".report.json").read_text())
    assert report["valid"] is False and report["failed_check"] == "static" and report["skill"] == SKILL

    (design, unparsable), rollout = selfplay(tmp_path, [designer_completion(HOSTILE, "x"), "no program at all"])
    assert design.failed_check == "static" and unparsable.failed_check == "parse"
    kept = sorted(p.name for p in rollout.rejected_dir.iterdir())
    assert kept == ["iter0001-rank0-000.report.json", "iter0001-rank0-000.txt",
                    "iter0001-rank0-001.report.json", "iter0001-rank0-001.txt"]
    assert (rollout.rejected_dir / "iter0001-rank0-000.txt").read_text() == designer_completion(HOSTILE, "x")
    record = json.loads((rollout.rejected_dir / "iter0001-rank0-000.report.json").read_text())
    assert (record["valid"], record["failed_check"], record["skill"], record["iteration"]) == (False, "static", SKILL, 1)
    assert json.loads((rollout.rejected_dir / "iter0001-rank0-001.report.json").read_text())["failed_check"] == "parse"


# ----------------------------------------------------------------------------- registration


@pytest.fixture(scope="module")
def report():
    """SOURCE validated once: the registration tests replay it (validation is not what they test)."""
    result = validate_source(SOURCE, hint=HINT, config=FAST)
    assert result.valid, result.summary()
    return result


def replaying(report, barrier: threading.Barrier | None = None):
    """The real steps, with a validator that replays ``report`` (after every caller got there)."""
    import dataclasses

    def validate(*_args, **_kwargs):
        if barrier is not None:
            barrier.wait(timeout=60)
        return report

    return dataclasses.replace(admission_steps(), validate=validate)


def race(tmp_path, report, sources: list[str]) -> tuple[list, Suite]:
    suite = Suite(tmp_path / "suite")
    barrier = threading.Barrier(len(sources))
    outcomes: list = [None] * len(sources)

    def one(index: int) -> None:
        outcomes[index] = admit(Submission(sources[index], hint=HINT, skill=SKILL), suite=suite, rules=IMPORT,
                                steps=replaying(report, barrier))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(sources))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes, suite


def test_two_concurrent_admissions_of_one_program_register_it_once(tmp_path, report):
    outcomes, suite = race(tmp_path, report, [SOURCE, SOURCE])
    assert all(isinstance(o, Admitted) for o in outcomes), outcomes
    assert sorted(o.added for o in outcomes) == [False, True]
    assert {o.entry.id for o in outcomes} == {"spade/AdmitSum-v0"}
    assert [e.id for e in suite.entries_or_raise()] == ["spade/AdmitSum-v0"]


def test_two_concurrent_admissions_of_one_name_and_near_copies_register_one(tmp_path, report):
    """Validated at the same time, neither saw the other in the suite: the look under the lock does."""
    twin = "# the same game, another text\n" + SOURCE.replace("self.mod = 7", "self.mod = 7  # the default")
    outcomes, suite = race(tmp_path, report, [SOURCE, twin])
    admitted = [o for o in outcomes if isinstance(o, Admitted)]
    rejected = [o for o in outcomes if isinstance(o, Rejected)]
    assert len(admitted) == 1 and len(rejected) == 1, outcomes
    assert rejected[0].gate is Gate.NOVELTY and "spade/AdmitSum-v0" in rejected[0].reason
    assert "registered while this one was being validated" in rejected[0].reason
    assert [e.id for e in suite.entries_or_raise()] == ["spade/AdmitSum-v0"]


def test_an_exception_between_validation_and_registration_leaves_no_half_card(tmp_path, report, monkeypatch):
    import os

    suite = Suite(tmp_path / "suite")
    admission = Admission(suite, IMPORT, replaying(report))

    def interrupted(*_args):
        raise KeyboardInterrupt  # Ctrl-C while the entry is being written

    monkeypatch.setattr(os, "rename", interrupted)
    with pytest.raises(KeyboardInterrupt):
        admission.admit(Submission(SOURCE, hint=HINT, skill=SKILL))
    monkeypatch.undo()
    assert suite.entries_or_raise() == [] and not [p for p in suite.path.iterdir() if p.name.startswith(".tmp-")]
    again = admission.admit(Submission(SOURCE, hint=HINT, skill=SKILL))
    assert isinstance(again, Admitted) and again.added and again.entry.id == "spade/AdmitSum-v0"
    again.entry.read_source()  # the checksum on the card matches the program


def test_a_process_killed_while_registering_leaves_no_half_card(tmp_path, report):
    """The process dies (no handler runs) after the files are written, before they are renamed
    into place: readers see no entry, and the next admission registers it whole."""
    (tmp_path / "report.pickle").write_bytes(pickle.dumps(report))
    script = f"""
import os, pickle, dataclasses
from spade_gym.generate.pipeline import admission_steps
from spade_gym.registry.admission import IMPORT, Admission, Submission
report = pickle.loads(open({str(tmp_path / "report.pickle")!r}, "rb").read())
steps = dataclasses.replace(admission_steps(), validate=lambda *a, **k: report)
os.rename = lambda *a: os._exit(9)
Admission({str(tmp_path / "suite")!r}, IMPORT, steps).admit(Submission({SOURCE!r}, hint={HINT!r}))
"""
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT / "src")}
    assert subprocess.run([sys.executable, "-c", script], env=env, timeout=120).returncode == 9
    suite = Suite(tmp_path / "suite")
    assert [p.name for p in suite.path.iterdir() if not p.name.startswith(".")] == []  # only hidden leftovers
    assert suite.entries_or_raise() == []
    again = Admission(suite, IMPORT, replaying(report)).admit(Submission(SOURCE, hint=HINT, skill=SKILL))
    assert isinstance(again, Admitted) and again.added
    again.entry.read_source()


def test_validation_is_a_unit_of_plain_data_that_can_run_elsewhere(tmp_path):
    admission = Admission(tmp_path / "suite", SELFPLAY.replace(validation={"seeds": 3}), admission_steps())
    prepared = admission.prepare(Submission(designer_completion(SOURCE, HINT), Form.DESIGNER_OUTPUT))
    assert isinstance(prepared, Prepared) and prepared.hint == HINT and prepared.code.strip() == SOURCE.strip()
    unit = pickle.loads(pickle.dumps(prepared.unit))  # what an executor ships to a worker
    assert unit == prepared.unit and unit.config.seeds == 3 and unit.suite == str(tmp_path / "suite")
    candidate = Candidate.from_dict(json.loads(json.dumps(Candidate(SOURCE, None).to_dict())))
    assert candidate.code == SOURCE  # what self-play's ranks send the one writer
    assert REVALIDATE.registration.value == "refresh"


# ----------------------------------------------------------------------------- one description


def test_one_description_for_every_caller():
    reference = '"""SPARE self-play generated game."""\nclass HuntEnv:\n    pass\n'
    assert describe(ProgramFacts(docstring="SPARE self-play generated game", docstring_read=True,
                                 first_observation="Guess it. Now.")) \
        == "Guess it."  # the reference's boilerplate is no description
    assert describe_program(reference, "Find the exit. Then leave.") == "Find the exit."
    assert describe_program('"""A maze."""\nclass AEnv:\n    """The maze game."""\n') == "The maze game."
    assert describe(ProgramFacts(), source="class QEnv: pass", class_name="QEnv") == "QEnv"


@settings(max_examples=100, deadline=None)
@given(docstring=st.text(max_size=800), observation=st.text(max_size=800), source=st.text(max_size=300))
def test_a_description_is_one_bounded_line_whatever_the_program_says(docstring, observation, source):
    for facts in (ProgramFacts(docstring=docstring, docstring_read=True, first_observation=observation),
                  ProgramFacts(first_observation=observation)):
        text = describe(facts, source=source, class_name="XEnv")
        assert text and len(text) <= DESCRIPTION_CHARS and text == " ".join(text.split())
