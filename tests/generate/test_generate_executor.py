"""``generate`` on the executor seam: design requests and validations as units, journaled, resumable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Future
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_generate_endpoints import FAILING, SeededDesigner

import spade_gym
from spade_gym.cli import main
from spade_gym.executor import LocalExecutor
from spade_gym.executor.journal import read
from spade_gym.generate.backends import make_backend
from spade_gym.generate.pipeline import GenerateConfig, GenerationPipeline
from spade_gym.generate.units import ExecutorBackend
from spade_gym.registry import Suite
from spade_gym.validation import DEFAULT_CONFIG, ValidationConfig

# Novelty compares with every registered suite: other modules' suites (and each other's) must not count.
pytestmark = pytest.mark.usefixtures("fresh_process_registry")

SKILL = "Memory Recall"
SRC = Path(spade_gym.__file__).resolve().parents[1]


@pytest.fixture
def servers():
    made: list[SeededDesigner] = []

    def make(**attributes):
        server = SeededDesigner()
        for key, value in attributes.items():
            setattr(server, key, value)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


def forget(suite: Path) -> None:
    """Unregister a finished run's suite, so the next run's novelty check does not see its twin."""
    import gymnasium as gym

    for env_id, spec in list(gym.registry.items()):
        env_dir = spec.kwargs.get("env_dir") if isinstance(spec.kwargs, dict) else None
        if env_dir is not None and Path(env_dir).resolve().is_relative_to(suite.resolve()):
            del gym.registry[env_id]


def without_costs(data):
    """A report or card without what a run costs (seconds, the measured ``cost`` check) or when it
    ran (created): two local runs differ there too."""
    if isinstance(data, dict):
        return {k: without_costs(v) for k, v in data.items() if k not in ("seconds", "created")}
    if isinstance(data, list):
        return [without_costs(v) for v in data if not (isinstance(v, dict) and v.get("name") == "cost")]
    return data


def journal_entries(output: Path) -> list[dict]:
    return [json.loads(line) for line in (output / "journal.jsonl").read_text().splitlines()[1:] if line.strip()]


def run_record(output: Path, suite: Path) -> dict:
    """What a run produced: its cards and its journaled designs and reports, costs aside."""
    cards = {p.parent.name: without_costs(json.loads(p.read_text())) for p in sorted(suite.glob("*/card.json"))}
    journaled = {e["key"]: without_costs(e["result"]) for e in journal_entries(output)
                 if not e["key"].startswith("target:")}
    return {"cards": cards, "journal": journaled}


def cli(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def generate_args(suite: Path, output: Path, *endpoint_args: str, n: int) -> list[str]:
    return ["generate", "--backend", "openai", *endpoint_args, "-n", str(n), "--attempts", "1", "--suite", str(suite),
            "--skill", SKILL, "--output", str(output), "--validation-seed", "11", "--json"]


def summary_of(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


class DyingWorkers(LocalExecutor):
    """A local pool whose worker dies on the first attempt of every unit (before it runs)."""

    def _submit(self, attempt):
        if attempt.number > 1:
            return super()._submit(attempt)
        attempt.node = "local"
        future: Future = Future()
        future.set_exception(RuntimeError("the worker died"))
        return future


def test_a_unit_whose_worker_died_is_retried_and_counted_once(servers, tmp_path):
    server = servers()
    executor = DyingWorkers(2)
    config = GenerateConfig(n=2, skills=(SKILL,), attempts=1, concurrency=2)
    backend = ExecutorBackend({"base_url": server.url, "model": "designer-y"}, executor)
    counted = []
    pipeline = GenerationPipeline(backend, tmp_path / "suite", config, validation_config=ValidationConfig(seeds=6,
                                  seed=3), executor=executor, output=tmp_path / "run", progress=counted.append)
    with executor:
        summary = pipeline.run()
    assert sorted(r.target.index for r in counted) == [0, 1]
    assert len(summary.accepted) == 2
    # the dead attempts never reached the designer: one request per design, and two retries per target
    assert len(server.requests) == 2 and executor.stats["retries"] == 4
    keys = [e["key"] for e in journal_entries(tmp_path / "run")]
    assert sorted(keys) == sorted(f"{kind}:{i}{tail}" for i in range(2)
                                  for kind, tail in (("design", ":1"), ("validate", ":1"), ("target", "")))
    assert len(Suite(tmp_path / "suite").entries()) == 2


class LostValidations(LocalExecutor):
    """A local pool on which every validation unit's worker dies (design requests run)."""

    def _submit(self, attempt):
        if not attempt.unit.task.startswith("spade_gym.executor.validation:"):
            return super()._submit(attempt)
        future: Future = Future()
        future.set_exception(RuntimeError("the node was lost"))
        return future


def test_a_design_whose_validation_the_machine_lost_is_redone_on_resume(servers, tmp_path):
    server = servers()
    config = GenerateConfig(n=1, skills=(SKILL,), attempts=3, concurrency=1)
    validation = ValidationConfig(seeds=6, seed=3)

    def run(executor, resume):
        backend = ExecutorBackend({"base_url": server.url, "model": "designer-y"}, executor)
        with executor:
            return GenerationPipeline(backend, tmp_path / "suite", config, validation_config=validation,
                                      executor=executor, output=tmp_path / "run", resume=resume).run()

    lost = run(LostValidations(2, max_attempts=2), resume=False)
    # not the program's fault: no repair was asked for, nothing registered, the target left open
    assert lost.results[0].failures == ["executor"] and len(server.requests) == 1
    assert not Suite(tmp_path / "suite").entries()
    assert not any(e["key"].startswith(("target:", "validate:")) for e in journal_entries(tmp_path / "run"))
    again = run(LocalExecutor(2), resume=True)
    assert len(again.accepted) == 1 and len(server.requests) == 1  # validated now; the design was not asked again
    assert len(Suite(tmp_path / "suite").entries()) == 1


def test_a_crashed_run_resumes_without_asking_again(servers, tmp_path):
    bad, good = servers(default_reply=FAILING), servers(delay=0.3)
    suite, output = tmp_path / "suite", tmp_path / "run"
    endpoints = ["--base-url", bad.url, "--model", "broken-x", "--base-url", good.url, "--model", "designer-y"]
    args = generate_args(suite, output, *endpoints, n=4)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    driver = subprocess.Popen([sys.executable, "-m", "spade_gym.cli", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env, start_new_session=True)
    journal = output / "journal.jsonl"
    try:  # kill the whole run (its sandbox workers too) once its first target is journaled
        end = time.monotonic() + 300
        while time.monotonic() < end and driver.poll() is None:
            if journal.exists() and any(e["key"].startswith("target:") for e in _whole_lines(journal)):
                break
            time.sleep(0.05)
        assert driver.poll() is None, driver.communicate()[0].decode()[-3000:]
        os.killpg(driver.pid, signal.SIGKILL)
    finally:
        driver.wait(30)
    before = _whole_lines(journal)
    done_before = {e["key"] for e in before}
    assert any(k.startswith("target:") for k in done_before)
    assert sum(k.startswith("target:") for k in done_before) < 4, "the run finished before it was killed"
    asked_before = len(good.requests)
    # design i (attempt 1) is asked with seed i*100 + 1 (run seed 0)
    journaled_seeds = {int(k.split(":")[1]) * 100 + 1 for k in done_before if k.startswith("design:")}

    summary = summary_of(cli([*args, "--resume"]))
    assert summary["n_accepted"] == 4 and summary["failures_by_check"] == {}
    assert sorted(t["index"] for t in summary["targets"]) == [0, 1, 2, 3]
    assert summary["reused"]["targets"] == sum(k.startswith("target:") for k in done_before)
    # no journaled design is requested again; every other design is requested (once, by the good endpoint)
    asked_again = [body["seed"] for _, body in good.requests[asked_before:]]
    assert not journaled_seeds & set(asked_again)
    asked_once = [body["seed"] for _, body in good.requests]
    assert sorted(asked_once) == [i * 100 + 1 for i in range(4)]
    assert bad.requests, "the failing endpoint was never tried"
    # every design done exactly once: one record per key, and each accepted program registered once
    header, records, duplicates = read(journal)
    keys = [e["key"] for e in _whole_lines(journal)]
    assert duplicates == 0 and len(keys) == len(set(keys)) == 12
    entries = Suite(suite).entries()
    assert len(entries) == 4 and len({e.card.sha256 for e in entries}) == 4
    assert {e.card.provenance["model"] for e in entries} == {"designer-y"}

    # a finished run resumed again asks nothing and registers nothing
    asked = len(good.requests)
    again = summary_of(cli([*args, "--resume"]))
    assert again["reused"]["targets"] == 4 and len(good.requests) == asked and len(Suite(suite).entries()) == 4
    # a resume with other options is refused, before anything runs
    other = CliRunner().invoke(main, [*generate_args(suite, output, *endpoints, n=5), "--resume"])
    assert other.exit_code != 0 and "other options" in other.output and len(good.requests) == asked


def _whole_lines(journal: Path) -> list[dict]:
    out = []
    for line in journal.read_text().splitlines()[1:]:
        try:
            out.append(json.loads(line))
        except ValueError:  # the line being written
            continue
    return out


# ----------------------------------------------------------------------------- Ray

@pytest.fixture(scope="module")
def ray_address():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:  # as CI runs it: 2 CPUs, a small object store
        ray.init(num_cpus=2, object_store_memory=128 * 1024 * 1024, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    if started:
        ray.shutdown()


def test_local_and_ray_runs_give_the_same_cards_and_reports(servers, ray_address, tmp_path):
    server = servers()
    runs = {}
    # One target at a time: a report's novelty check names what the suite held when it ran, and with
    # several in flight that depends on which finished first (on any executor, the local one too).
    # the in-process pipeline (no executor), as before the seam
    suite, output = tmp_path / "plain" / "suite", tmp_path / "plain" / "run"
    config = GenerateConfig(n=3, skills=(SKILL,), attempts=1, concurrency=1)
    with make_backend("openai", model="designer-y", base_url=server.url) as backend:
        GenerationPipeline(backend, suite, config, validation_config=DEFAULT_CONFIG.replace(seed=11),
                           output=output).run()
    runs["plain"] = run_record(output, suite)
    forget(suite)
    for name, extra in (("local", []), ("ray", [f"--ray={ray_address}"])):
        suite, output = tmp_path / name / "suite", tmp_path / name / "run"
        summary = summary_of(cli([*generate_args(suite, output, "--base-url", server.url, "--model", "designer-y",
                                                 n=3), "--concurrency", "1", *extra]))
        assert summary["executor"] == name and summary["n_accepted"] == 3
        runs[name] = run_record(output, suite)
        forget(suite)
    assert len(runs["plain"]["cards"]) == 3 and len(runs["plain"]["journal"]) == 6
    assert runs["local"] == runs["plain"]
    assert runs["ray"] == runs["plain"]
