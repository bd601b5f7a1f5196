"""``revalidate`` and ``import`` on the executor seam: only the admission path's validate step
runs as executor units (journaled, retried, resumable); prepare, judge and register stay on the
driver. Same reports as the local thread pool for the same run seed.

Local executor here (cheap); the one Ray run is in ``test_executor_ray.py``.
"""

from __future__ import annotations

import json
import re
import shutil
from concurrent.futures import Future
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_executor import TINY, comparable
from testkit import BENIGN_DIR, build_suite

from spade_gym.cli.app import main
from spade_gym.executor import ExecutorError, LocalExecutor
from spade_gym.executor.admission import ExecutorValidator
from spade_gym.executor.journal import read
from spade_gym.executor.validation import MACHINE_CHECK
from spade_gym.generate.pipeline import admission_steps
from spade_gym.registry import Card, Suite
from spade_gym.registry.admission import IMPORT, Admission, Admitted, Submission
from spade_gym.validation.revalidate import revalidate_suite, write_validations

STEMS = ("guess_number", "unicode_story", "rng_instance")
#: A wide cost budget: the cost check times calls, and this machine is shared.
BUDGET = "1000"


def _suite(directory: Path) -> Path:
    build_suite(directory, {stem: (BENIGN_DIR / f"{stem}.py").read_text() for stem in STEMS})
    return directory


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return _suite(tmp_path_factory.mktemp("admission") / "suite")


@pytest.fixture(scope="module")
def local(suite) -> dict[str, str]:
    """The suite revalidated on the local thread pool, as always: id -> comparable report."""
    return {r.env_id: comparable(r.report.to_dict()) for r in revalidate_suite(suite, config=TINY)}


def _reports(results) -> dict[str, str]:
    return {r.env_id: comparable(r.report.to_dict()) for r in results}


class DyingExecutor(LocalExecutor):
    """The first ``deaths`` attempts of every unit die like a killed worker (no answer at all)."""

    def __init__(self, deaths: int, **kwargs):
        super().__init__(2, **kwargs)
        self.deaths = deaths
        self.attempts: dict[str, int] = {}

    def _submit(self, attempt):
        self.attempts[attempt.unit.key] = self.attempts.get(attempt.unit.key, 0) + 1
        if self.attempts[attempt.unit.key] <= self.deaths:
            attempt.node = "local"
            died: Future = Future()
            died.set_exception(RuntimeError("the worker died"))
            return died
        return super()._submit(attempt)


# ----------------------------------------------------------------------------- revalidate


def test_revalidate_through_the_executor_equals_the_local_run(suite, local, tmp_path):
    assert len(local) == 3 and all(json.loads(r)["valid"] for r in local.values())
    done = []
    with LocalExecutor(2) as executor:
        validator = ExecutorValidator(executor, output=tmp_path, kind="revalidate")
        results = revalidate_suite(suite, config=TINY, validator=validator, on_done=lambda r: done.append(r.env_id))
    assert _reports(results) == local
    assert sorted(done) == sorted(local)  # every program counted once
    assert all(r.valid for r in results)
    header, records, duplicates = read(tmp_path / "journal.jsonl")
    assert header["kind"] == "revalidate" and header["seed"] == TINY.seed
    assert header["suite"] == str(suite.resolve())  # novelty looks in the suite being revalidated
    assert len(records) == 3 and duplicates == 0
    assert (validator.result.ran, validator.result.reused) == (3, 0)


def test_a_killed_worker_is_retried_and_the_reports_do_not_change(suite, local, tmp_path):
    with DyingExecutor(1) as executor:
        results = revalidate_suite(suite, config=TINY,
                                   validator=ExecutorValidator(executor, output=tmp_path, kind="revalidate"))
    assert _reports(results) == local
    assert sorted(executor.attempts.values()) == [2, 2, 2]
    _, records, _ = read(tmp_path / "journal.jsonl")
    assert sorted(r["attempts"] for r in records.values()) == [2, 2, 2]


def test_a_machine_failure_is_never_written_and_resume_validates_it_again(tmp_path, local):
    directory = _suite(tmp_path / "suite")
    before = {p: p.read_bytes() for p in directory.rglob("card.json")}
    with DyingExecutor(9, max_attempts=2) as executor:
        results = revalidate_suite(directory, config=TINY,
                                   validator=ExecutorValidator(executor, output=tmp_path / "run", kind="revalidate"))
    assert [r.valid for r in results] == [False] * 3
    for r in results:
        assert [c.name for c in r.report.checks] == [MACHINE_CHECK]
        assert r.first_failure.startswith(f"{MACHINE_CHECK}: not validated") and "the machine's failure" in \
               r.report.checks[0].message
    write_validations(directory, results)
    assert {p: p.read_bytes() for p in directory.rglob("card.json")} == before  # a card never says "the machine"
    validator = ExecutorValidator(LocalExecutor(2), output=tmp_path / "run", resume=True, kind="revalidate")
    again = revalidate_suite(directory, config=TINY, validator=validator)
    validator.executor.close()
    assert (validator.result.ran, validator.result.reused, validator.result.machine_failures) == (3, 0, 0)
    assert {k: json.loads(v)["valid"] for k, v in _reports(again).items()} == {k: True for k in local}


def test_resume_after_a_crash_runs_only_the_missing_programs(suite, local, tmp_path):
    with LocalExecutor(2) as executor:
        revalidate_suite(suite, config=TINY, validator=ExecutorValidator(executor, output=tmp_path, kind="revalidate"))
    journal = tmp_path / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:2]) + lines[2][:10])  # one result kept, one torn, one lost
    done = []
    validator = ExecutorValidator(LocalExecutor(2), output=tmp_path, resume=True, kind="revalidate")
    results = revalidate_suite(suite, config=TINY, validator=validator, on_done=lambda r: done.append(r.env_id))
    validator.executor.close()
    assert (validator.result.ran, validator.result.reused) == (2, 1)
    assert sorted(done) == sorted(local) and _reports(results) == local
    _, records, duplicates = read(journal)
    assert len(records) == 3 and duplicates == 0


def test_resume_refuses_another_seed_config_or_command(suite, tmp_path):
    with LocalExecutor(2) as executor:
        revalidate_suite(suite, config=TINY, validator=ExecutorValidator(executor, output=tmp_path, kind="revalidate"))
    for config, message in ((TINY.replace(seed=8), "--seed 8 (the run's: 7)"),
                            (TINY.replace(fuzz_examples=5), "another validation config")):
        with LocalExecutor(1) as executor, pytest.raises(ExecutorError, match=re.escape(message)):
            revalidate_suite(suite, config=config,
                             validator=ExecutorValidator(executor, output=tmp_path, resume=True, kind="revalidate"))
    with LocalExecutor(1) as executor, pytest.raises(ExecutorError, match="not of a `import` run"):
        revalidate_suite(suite, config=TINY,
                         validator=ExecutorValidator(executor, output=tmp_path, resume=True, kind="import"))
    with pytest.raises(ExecutorError, match="--resume needs the output folder"):
        ExecutorValidator(LocalExecutor(1), resume=True)


def test_revalidate_cli_output_and_resume(tmp_path):
    directory = _suite(tmp_path / "suite")
    run = tmp_path / "run"
    runner = CliRunner()
    args = ["revalidate", str(directory), "--seed", "5", "--cost-budget-ms", BUDGET, "--output", str(run)]
    first = runner.invoke(main, [*args, "--write", "--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert [r["written"] for r in data["results"]] == [True] * 3
    assert "3 program(s) validated, 0 taken from the journal" in first.stderr
    rows = json.loads((run / "reports.json").read_text())
    assert [r["id"] for r in rows] == [r["id"] for r in data["results"]] and all(r["written"] for r in rows)
    for row in rows:  # the card has the report the run validated
        card = Card.load(directory / row["id"].split("/")[1] / "card.json")
        assert card.validation["run_seed"] == row["run_seed"] == 5
    again = runner.invoke(main, ["revalidate", str(directory), "--output", str(run), "--resume", "--json"])
    assert again.exit_code == 0, again.output
    assert "0 program(s) validated, 3 taken from the journal" in again.stderr
    assert [r["report"] for r in json.loads(again.stdout)["results"]] == [r["report"] for r in rows]
    other = runner.invoke(main, [*args, "--resume", "--seed", "6"])
    assert other.exit_code == 1 and "--seed 6 (the run's: 5)" in other.output
    budget = runner.invoke(main, ["revalidate", str(directory), "--output", str(run), "--resume",
                                  "--cost-budget-ms", "999"])
    assert budget.exit_code == 1 and "another validation config" in budget.output
    fresh = runner.invoke(main, [*args])
    assert fresh.exit_code == 1 and "already holds a run's journal" in fresh.output
    alone = runner.invoke(main, ["revalidate", str(directory), "--resume"])
    assert alone.exit_code == 2 and "--resume needs --output" in alone.output


# ----------------------------------------------------------------------------- import


def _submissions() -> list[Submission]:
    return [Submission((BENIGN_DIR / f"{stem}.py").read_text(), name=f"{stem}.py", skill="Test Skill")
            for stem in STEMS]


def test_import_through_the_executor_registers_on_the_driver_what_the_local_run_does(tmp_path,
                                                                                   fresh_process_registry):
    local = Admission(tmp_path / "local", IMPORT, admission_steps(), config=TINY).admit_many(_submissions(), workers=2)
    validated: list[str] = []
    with LocalExecutor(2) as executor:
        seam = Admission(tmp_path / "seam", IMPORT, admission_steps(), config=TINY).admit_many(
            _submissions(), validator=ExecutorValidator(executor, output=tmp_path / "run", kind="import"),
            on_done=lambda item, report: validated.append(item.submission.name))
    assert all(isinstance(o, Admitted) and o.added for o in local + seam), [getattr(o, "reason", o) for o in local + seam]
    assert sorted(validated) == sorted(s.name for s in _submissions())
    assert [comparable(o.report.to_dict()) for o in seam] == [comparable(o.report.to_dict()) for o in local]
    cards = {suite: sorted((e.id, e.card.sha256, e.card.validation["run_seed"]) for e in Suite(tmp_path / suite).entries())
             for suite in ("local", "seam")}
    assert cards["seam"] == cards["local"] and len(cards["seam"]) == 3
    # a second import: every program is already present, so there is nothing to validate or journal
    again = Admission(tmp_path / "seam", IMPORT, admission_steps(), config=TINY).admit_many(
        _submissions(), validator=ExecutorValidator(LocalExecutor(1), output=tmp_path / "run2", kind="import"))
    assert [o.added for o in again] == [False] * 3 and not (tmp_path / "run2").exists()


def test_import_cli_output_and_resume(tmp_path, fresh_process_registry):
    folder = tmp_path / "programs"
    folder.mkdir()
    for stem in ("unicode_story", "rng_instance"):
        (folder / f"{stem}.py").write_text((BENIGN_DIR / f"{stem}.py").read_text())
    (folder / "broken.py").write_text("class Broken(:\n")
    runner = CliRunner()
    run = tmp_path / "run"
    args = ["import", str(folder), "--suite", str(tmp_path / "suite"), "--output", str(run), "--json"]
    first = runner.invoke(main, args)
    assert first.exit_code == 1, first.output  # broken.py is rejected
    data = json.loads(first.stdout)
    assert len(data["accepted"]) == 2 and [Path(r["file"]).name for r in data["rejected"]] == ["broken.py"]
    assert "3 program(s) validated, 0 taken from the journal" in first.stderr
    rows = json.loads((run / "reports.json").read_text())
    assert sorted(Path(r["path"]).name for r in rows) == ["broken.py", "rng_instance.py", "unicode_story.py"]
    assert len(Suite(tmp_path / "suite").entries()) == 2
    elsewhere = runner.invoke(main, ["import", str(folder), "--suite", str(tmp_path / "other"), "--output",
                                     str(run), "--resume"])
    assert elsewhere.exit_code == 1 and "--suite" in elsewhere.output and "(the run's:" in elsewhere.output
    # as if the driver died before registering: the resume takes every report from the journal
    shutil.rmtree(tmp_path / "suite")
    resumed = runner.invoke(main, [*args, "--resume"])
    assert resumed.exit_code == 1 and "0 program(s) validated, 3 taken from the journal" in resumed.stderr
    assert len(Suite(tmp_path / "suite").entries()) == 2
    assert json.loads((run / "reports.json").read_text()) == rows
    (folder / "broken.py").unlink()
    present = runner.invoke(main, [*args, "--resume"])  # everything is registered: nothing to validate
    assert present.exit_code == 0 and "No program needed validating" in present.stderr
    assert json.loads((run / "reports.json").read_text()) == rows  # the run's reports are kept
    wrong = runner.invoke(main, ["revalidate", str(tmp_path / "suite"), "--output", str(run), "--resume"])
    assert wrong.exit_code == 1 and "not of a `revalidate` run" in wrong.output


# ----------------------------------------------------------------------------- Ray (slow: one test)


def _stable(report: dict) -> str:
    """A report without what a rerun changes anyway: wall-clock times and the cost check's timings."""
    return comparable({**report, "checks": [c for c in report["checks"] if c["name"] != "cost"]})


def test_revalidate_on_ray_equals_the_local_run(tmp_path):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'spade-gym[ray]')")
    directory = _suite(tmp_path / "suite")
    args = ["revalidate", str(directory), "--seed", "11", "--cost-budget-ms", BUDGET, "--json"]
    here = CliRunner().invoke(main, args)
    assert here.exit_code == 0, here.output
    started = not ray.is_initialized()
    if started:  # a small local Ray, as CI runs it
        ray.init(num_cpus=2, object_store_memory=128 * 1024 * 1024, include_dashboard=False, log_to_driver=False)
    try:
        address = ray.get_runtime_context().gcs_address
        there = CliRunner().invoke(main, [*args, f"--ray={address}", "--output", str(tmp_path / "run"), "--write"])
    finally:
        if started:
            ray.shutdown()
    assert there.exit_code == 0, there.output
    local, remote = json.loads(here.stdout)["results"], json.loads(there.stdout)["results"]
    assert [_stable(r["report"]) for r in remote] == [_stable(r["report"]) for r in local] and len(local) == 3
    assert all(r["written"] for r in remote)
    _, records, _ = read(tmp_path / "run" / "journal.jsonl")
    assert len(records) == 3 and all(r["node"] not in ("", "local") for r in records.values())  # ran on Ray
