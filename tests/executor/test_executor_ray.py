"""The Ray executor on a local Ray (2 CPUs, a small object store), one session for the module.

Same reports as the local pool; a Ray worker killed mid-run, and a driver killed mid-run then
resumed, still validate every program exactly once (the journal).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'spade-gym[ray]'); "
                                        "CI installs it, so these tests run there")

from test_executor import TINY, _programs, comparable, tiny_sources  # noqa: E402
from testkit import TESTS  # noqa: E402

from spade_gym.cli.app import main  # noqa: E402
from spade_gym.executor import ExecutorError  # noqa: E402
from spade_gym.executor.journal import read  # noqa: E402
from spade_gym.executor.nodes import assess  # noqa: E402
from spade_gym.executor.ray_cluster import RayExecutor  # noqa: E402
from spade_gym.executor.validation import validate_batch  # noqa: E402
from spade_gym.validation import validate_many  # noqa: E402


@pytest.fixture(scope="module")
def ray_address():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, object_store_memory=128 * 1024 * 1024, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def executor(ray_address):
    warnings: list[str] = []
    with RayExecutor(on_warning=warnings.append) as ray_executor:
        ray_executor.warnings = warnings
        yield ray_executor


@pytest.fixture(scope="module")
def reference() -> dict[str, str]:
    sources = tiny_sources()
    return {name: comparable(r.to_dict()) for name, r in zip(sources, validate_many(sources, config=TINY))}


def _descends_from_me(pid: int) -> bool:
    me = os.getpid()
    while pid > 1:
        try:
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if pid == me:
            return True
    return False


def _busy_worker(timeout: float = 3.0) -> int | None:
    """The pid of a Ray worker of this test's own Ray that is running a unit right now."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                title = open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0")[0]
            except OSError:
                continue
            if title.startswith(b"ray::run_unit") and _descends_from_me(int(entry)):
                return int(entry)
        time.sleep(0.01)
    return None


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return out


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _result_lines(path) -> list[dict]:
    return [e for e in (json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip())
            if "result" in e]


def test_twenty_programs_through_ray_give_the_local_reports(executor, reference, tmp_path):
    result = validate_batch(_programs(), executor=executor, config=TINY, output=tmp_path)
    assert {r.name: comparable(r.to_dict()) for r in result.reports} == reference
    lines = _result_lines(tmp_path / "journal.jsonl")
    assert len(lines) == 20 and all(line["node"] not in ("", "local") for line in lines)  # every unit ran on Ray
    assert executor.allowed and not executor.refused and executor.probes


def test_a_killed_worker_is_retried_and_every_program_validated_once(executor, reference, tmp_path):
    kills: list[int] = []
    orphans: list[int] = []  # the killed workers' sandbox fork servers

    def on_done(index, report):
        if executor.stats["retries"] == 0 and len(kills) < 2:
            pid = _busy_worker()
            if pid is not None:
                orphans.extend(_children(pid))
                os.kill(pid, signal.SIGKILL)
                kills.append(pid)

    retries = executor.stats["retries"]
    result = validate_batch(_programs(), executor=executor, config=TINY, output=tmp_path, on_done=on_done)
    assert kills, "no busy Ray worker was found to kill"
    assert executor.stats["retries"] > retries
    assert {r.name: comparable(r.to_dict()) for r in result.reports} == reference  # a retry replays its seed
    header, records, duplicates = read(tmp_path / "journal.jsonl")
    assert len(records) == 20 and duplicates == 0
    assert len(_result_lines(tmp_path / "journal.jsonl")) == 20  # each program journaled once
    assert max(r["attempts"] for r in records.values()) >= 2 and result.machine_failures == 0
    end = time.monotonic() + 10
    while any(_alive(p) for p in orphans) and time.monotonic() < end:
        time.sleep(0.1)
    assert orphans and not [p for p in orphans if _alive(p)], "a killed worker's sandbox outlived it"


_DRIVER = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from test_executor import TINY
from spade_gym.cli.validate_cmd import collect_programs, display_path, read_program
from spade_gym.executor.ray_cluster import RayExecutor
from spade_gym.executor.validation import Program, validate_batch
files = collect_programs((Path(sys.argv[3]),))
programs = [Program(display_path(f), read_program(f)) for f in files]
with RayExecutor(sys.argv[2]) as executor:
    validate_batch(programs, executor=executor, config=TINY, output=sys.argv[4],
                   on_done=lambda index, report: time.sleep(0.3))  # a slow driver: it is killed mid-run
"""


# The driver subprocess sees the registry a fresh process has; so must the resuming CLI here, or
# suites earlier tests registered in this process make the journal's novelty context differ.
def test_resume_after_the_driver_is_killed(ray_address, reference, tmp_path, fresh_process_registry):
    folder, output = tmp_path / "programs", tmp_path / "run"
    folder.mkdir()
    for name, source in tiny_sources().items():
        (folder / name).write_text(source)
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, str(TESTS / "executor"), ray_address, str(folder), str(output)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    journal = output / "journal.jsonl"
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and driver.poll() is None:
            if journal.exists() and len(_result_lines(journal)) >= 4:
                break
            time.sleep(0.05)
        assert driver.poll() is None, driver.communicate()[0].decode()[-2000:]
        driver.send_signal(signal.SIGKILL)
    finally:
        driver.wait(30)
    before = len(_result_lines(journal))
    assert 4 <= before < 20
    result = CliRunner().invoke(main, ["validate", str(folder), "--output", str(output), "--resume", "--json",
                                       f"--ray={ray_address}"])
    assert result.exit_code == 1, result.output  # four of the programs are invalid
    assert f"{20 - before} program(s) validated, {before} taken from the journal" in result.output
    rows = json.loads((output / "reports.json").read_text())
    # the CLI names each report by its path: the same reports, but for that label
    assert {os.path.basename(row.pop("path")): comparable(row).replace(f"{folder}/", "") for row in rows} == reference
    header, records, duplicates = read(journal)
    assert len(records) == 20 and duplicates == 0 and len(_result_lines(journal)) == 20


def test_doctor_ray_reports_every_node(ray_address):
    result = CliRunner().invoke(main, ["doctor", f"--ray={ray_address}", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert len(report["nodes"]) == 1
    [node] = report["nodes"]
    assert node["refused"] is None and node["assessment"]["process_layer"] and node["spade_gym"]
    assert set(node["assessment"]["has"]) >= {"seccomp", "landlock", "no_fork", "resource_limits"}
    text = CliRunner().invoke(main, ["doctor", f"--ray={ray_address}"]).output
    assert "(process layer)" in text and node["assessment"]["summary"] in text


def test_a_node_without_the_process_layer_is_refused_unless_allowed(ray_address, monkeypatch, tmp_path):
    from spade_gym.executor import ray_cluster

    real = ray_cluster.probe_nodes

    def unprotected(*args, **kwargs):
        probes = real(*args, **kwargs)
        for node in probes.values():
            node["assessment"] = assess(None, "SandboxUnavailable: the sandbox process failed to start")
        return probes

    monkeypatch.setattr(ray_cluster, "probe_nodes", unprotected)
    with pytest.raises(ExecutorError, match="no Ray node may run units: .*no sandbox on this node.*"
                                            "--allow-unprotected-nodes"):
        RayExecutor()
    warnings: list[str] = []
    RayExecutor(allow_unprotected=True, on_warning=warnings.append).close()
    assert any("without the sandbox's process layer" in w for w in warnings)
    (tmp_path / "p.py").write_text(tiny_sources()["product_00.py"])
    cli = CliRunner().invoke(main, ["validate", str(tmp_path / "p.py"), f"--ray={ray_address}",
                                    "--output", str(tmp_path / "run")])
    assert cli.exit_code == 1 and "Error: no Ray node may run units" in cli.output
    doctor = CliRunner().invoke(main, ["doctor", f"--ray={ray_address}"])
    assert doctor.exit_code == 1 and "refused: no sandbox on this node" in doctor.output


def test_eval_through_ray_plays_the_local_records(executor, tmp_path):
    from spade_gym.evaluation import AgentConfig, Evaluation, select_envs

    envs = select_envs("spade/LetterFeedbackHunt-v0,spade/CounterfeitCoinScale-v0")
    config = AgentConfig("oracle", concurrency=2)
    local = Evaluation(config, envs, episodes=2, arms="both", results_path=tmp_path / "local.jsonl").run()
    seen = []
    remote = Evaluation(config, envs, episodes=2, arms="both", results_path=tmp_path / "ray.jsonl").run(
        executor=executor, on_record=seen.append)
    assert len(seen) == len(remote.records) == 8 and remote.played == 8

    def strip(record):
        return {k: v for k, v in record.items() if k != "seconds"}

    assert [strip(r) for r in remote.records] == [strip(r) for r in local.records]
    assert all(r["success"] for r in remote.records)
    again = Evaluation(config, envs, episodes=2, arms="both", results_path=tmp_path / "ray.jsonl").run(
        executor=executor)
    assert again.played == 0 and again.reused == 8  # the results file is the journal
