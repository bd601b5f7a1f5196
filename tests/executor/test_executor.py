"""The executor seam without Ray: units, the shared retry loop, the journal, validate through it.

The Ray executor's own tests are in ``test_executor_ray.py``; they reuse the tiny corpus here.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.cli.app import main
from spade_gym.executor import DEFAULT_RAY, ExecutorError, Journal, LocalExecutor, Outcome, Unit, ray_address, run_unit
from spade_gym.executor.base import Dispatcher
from spade_gym.executor.journal import read
from spade_gym.executor.nodes import assess
from spade_gym.executor.validation import (
    MACHINE_CHECK,
    Program,
    config_from_payload,
    config_to_payload,
    unit_key,
    validate_batch,
)
from spade_gym.validation import ValidationConfig, validate_many

# ----------------------------------------------------------------------------- a tiny corpus

SOUND = '''import random
import re


class Product{n}Env:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._answer = ""

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        a, b = rng.randint(10, {hi}), rng.randint(10, {hi})
        self._answer = str(a * b + {n})
        return f"Compute {{a}} * {{b}} + {n}. Answer with \\\\boxed{{{{number}}}}.", {{}}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\\\boxed\\{{([^}}]*)\\}}", action)
        if m and m.group(1).strip() == self._answer:
            return "Correct!", 1.0, True, False, {{}}
        return "Wrong.", 0.0, False, self.turn_count >= self.max_turns, {{}}
'''

#: Cheap but seed-dependent checks: the reports carry the probe seeds, episodes and verdicts.
TINY = ValidationConfig(checks=("static", "load", "contract", "termination", "determinism", "solvability"),
                        seeds=4, fuzz_examples=4, seed=7)


def tiny_sources() -> dict[str, str]:
    """20 small programs: 16 sound ones and one for each of four failures (name -> text)."""
    sources = {f"product_{n:02d}.py": SOUND.format(n=n, hi=99 + n) for n in range(16)}
    sources["syntax.py"] = "class Broken(:\n"
    sources["load.py"] = SOUND.format(n=99, hi=99).replace("self.max_turns = max_turns", "raise RuntimeError('no')")
    sources["reward.py"] = SOUND.format(n=98, hi=99).replace('"Correct!", 1.0', '"Correct!", 2.0')
    sources["wrong.py"] = SOUND.format(n=97, hi=99).replace("return self._answer\n", "return self._answer + '1'\n")
    return sources


def comparable(report: dict) -> str:
    """A report's JSON text with its wall-clock times taken out (two local runs differ there too)."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "seconds"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return json.dumps(strip(report), ensure_ascii=False)


@pytest.fixture(scope="module")
def reference() -> dict[str, str]:
    """The tiny corpus validated the way ``validate_many`` always has: name -> comparable report."""
    sources = tiny_sources()
    return {name: comparable(r.to_dict()) for name, r in zip(sources, validate_many(sources, config=TINY))}


def _programs(names=None) -> list[Program]:
    sources = tiny_sources()
    return [Program(name, sources[name]) for name in (names or sources)]


# ----------------------------------------------------------------------------- validation through the seam


def test_local_executor_reports_equal_validate_many(reference):
    with LocalExecutor(workers=4) as executor:
        result = validate_batch(_programs(), executor=executor, config=TINY)
    got = {r.name: comparable(r.to_dict()) for r in result.reports}
    assert got == reference
    assert sum(json.loads(r)["valid"] for r in reference.values()) == 16  # the corpus is what it claims


def test_resume_runs_only_what_the_journal_lacks(tmp_path, reference):
    names = ["product_00.py", "product_01.py", "syntax.py", "reward.py", "wrong.py"]
    with LocalExecutor(workers=2) as executor:
        first = validate_batch(_programs(names), executor=executor, config=TINY, output=tmp_path)
    journal = tmp_path / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    assert len(lines) == 1 + len(names)
    # a crash: the last two results never made it, the third-last was torn mid-write
    journal.write_bytes(b"".join(lines[:-3]) + lines[-3][: len(lines[-3]) // 2])
    done = []
    with LocalExecutor(workers=2) as executor:
        second = validate_batch(_programs(names), executor=executor, config=ValidationConfig(), output=tmp_path,
                                resume=True, on_done=lambda i, r: done.append(i))
    assert (second.ran, second.reused) == (3, 2)
    assert sorted(done) == list(range(len(names)))  # every program counted once
    assert [comparable(r.to_dict()) for r in second.reports] == [reference[n] for n in names]
    kept = {json.loads(line)["key"] for line in lines[1:3]}  # journaled in completion order
    reused = [i for i, p in enumerate(_programs(names)) if unit_key(p) in kept]
    assert len(reused) == 2
    assert [second.reports[i].to_dict() for i in reused] == [first.reports[i].to_dict() for i in reused]  # as journaled
    header, records, duplicates = read(journal)
    assert header["seed"] == TINY.seed and len(records) == len(names) and duplicates == 0
    with pytest.raises(ExecutorError, match="already holds a run's journal"):
        validate_batch(_programs(names), executor=LocalExecutor(1), config=TINY, output=tmp_path)


def test_a_unit_failing_every_attempt_is_the_machines_failure_and_resume_retries_it(tmp_path, reference):
    names = ["product_02.py", "wrong.py"]
    later = tmp_path / "suite-not-there-yet"
    with LocalExecutor(workers=2) as executor:
        first = validate_batch(_programs(names), executor=executor, config=TINY, suite=later, output=tmp_path / "run")
    assert first.machine_failures == 2
    for report in first.reports:
        assert not report.valid and [c.name for c in report.checks] == [MACHINE_CHECK]
        assert "machine's failure, not the program's" in report.checks[0].message
        assert len(report.checks[0].details["failures"]) == 3 and "not on this node" in report.checks[0].message
    later.mkdir()
    with LocalExecutor(workers=2) as executor:
        second = validate_batch(_programs(names), executor=executor, output=tmp_path / "run", resume=True)
    assert (second.ran, second.reused, second.machine_failures) == (2, 0, 0)
    assert [r.checks[-1].name for r in second.reports] == ["solvability", "solvability"]
    assert second.reports[0].valid and not second.reports[1].valid


def test_resume_refuses_other_options(tmp_path):
    runner = CliRunner()
    (tmp_path / "syntax.py").write_text(tiny_sources()["syntax.py"])
    (tmp_path / "load.py").write_text(tiny_sources()["load.py"])
    args = ["validate", str(tmp_path / "syntax.py"), str(tmp_path / "load.py"), "--output", str(tmp_path / "run")]
    first = runner.invoke(main, [*args, "--seed", "5", "--json"])
    assert first.exit_code == 1, first.output  # both programs are invalid
    rows = json.loads((tmp_path / "run" / "reports.json").read_text())
    assert [r["checks"][0]["name"] for r in rows] == ["static", "static"] and rows[1]["checks"][1]["name"] == "load"
    again = runner.invoke(main, [*args, "--resume", "--json"])
    assert "0 program(s) validated, 2 taken from the journal" in again.output
    assert json.loads((tmp_path / "run" / "reports.json").read_text()) == rows
    other = runner.invoke(main, [*args, "--resume", "--seed", "6"])
    assert other.exit_code == 1 and "--seed 6 (the run's: 5)" in other.output
    hinted = runner.invoke(main, [*args, "--resume", "--hint", "another hint"])
    assert hinted.exit_code == 1 and "validated none of these programs" in hinted.output
    assert "--resume needs --output" in runner.invoke(main, ["validate", str(tmp_path / "load.py"), "--resume"]).output


# ----------------------------------------------------------------------------- the shared loop


class ScriptedBackend(Dispatcher):
    """Attempts answer in a random order; unit ``k`` dies ``deaths[k]`` times before it answers."""

    name = "scripted"

    def __init__(self, deaths: dict[str, int], rng: random.Random, refuse_once: set[str], max_attempts: int = 3):
        super().__init__(max_attempts=max_attempts)
        self.deaths, self.rng, self.refuse_once = dict(deaths), rng, set(refuse_once)
        self.calls: dict[str, int] = {}
        self.refused_nodes: list[str] = []

    def _window(self):
        return 3

    def _submit(self, attempt):
        self.calls[attempt.unit.key] = self.calls.get(attempt.unit.key, 0) + 1
        return (attempt.unit.key, self.calls[attempt.unit.key])

    def _wait(self, handles, timeout):
        chosen = self.rng.sample(handles, self.rng.randint(1, len(handles)))
        out = []
        for key, call in chosen:
            if key in self.refuse_once:
                self.refuse_once.discard(key)
                out.append(((key, call), json.dumps({"ok": False, "refused": "no process layer", "node": "n2"}), None))
            elif self.deaths[key] > 0:
                self.deaths[key] -= 1
                out.append(((key, call), None, RuntimeError("worker died")))
            else:
                out.append(((key, call), json.dumps({"ok": True, "result": {"key": key}, "node": "n1"}), None))
        return out

    def _refuse(self, node, reason):
        self.refused_nodes.append(node)


@settings(max_examples=60)
@given(st.dictionaries(st.text("abcdefgh", min_size=1, max_size=3), st.integers(0, 4), min_size=1, max_size=12),
       st.randoms(use_true_random=False), st.data())
def test_every_unit_has_exactly_one_outcome(deaths, rng, data):
    refuse_once = data.draw(st.sets(st.sampled_from(sorted(deaths))))
    backend = ScriptedBackend(deaths, rng, refuse_once)
    outcomes = list(backend.run(Unit(key, "spade_gym.x:y", {}) for key in deaths))
    assert sorted(o.key for o in outcomes) == sorted(deaths)
    for outcome in outcomes:
        died = deaths[outcome.key]
        assert outcome.ok == (died < 3)
        assert outcome.attempts == min(died + 1, 3)  # a refusal is not counted as an attempt
        assert len(outcome.failures) == min(died, 3)
        if outcome.ok:
            assert outcome.result == {"key": outcome.key} and outcome.node == "n1"
        else:
            assert "worker died" in outcome.error
    assert len(backend.refused_nodes) == len(refuse_once)


class Hanging(ScriptedBackend):
    """Unit ``hang`` never answers; the others answer at once."""

    def _wait(self, handles, timeout):
        time.sleep(0.01)
        return [(h, json.dumps({"ok": True, "result": {}, "node": "n1"}), None) for h in handles if h[0] != "hang"]

    def _cancel(self, handle):
        self.cancelled.append(handle)


def test_a_unit_that_never_answers_is_abandoned_then_retried():
    backend = Hanging({"hang": 0, "ok": 0}, random.Random(0), set())
    backend.unit_timeout, backend.cancelled = 0.05, []
    outcomes = {o.key: o for o in backend.run([Unit("hang", "spade_gym.x:y", {}), Unit("ok", "spade_gym.x:y", {})])}
    assert outcomes["ok"].ok and not outcomes["hang"].ok
    assert outcomes["hang"].attempts == 3 and "no answer within 0.05 s" in outcomes["hang"].error
    assert backend.cancelled == [("hang", 1), ("hang", 2), ("hang", 3)]  # each abandoned attempt is cancelled


def test_run_unit_refuses_foreign_tasks_and_reports_task_errors():
    foreign = json.loads(run_unit("os:system", "{}"))
    assert not foreign["ok"] and "not a spade-gym function" in foreign["error"]
    broken = json.loads(run_unit("spade_gym.executor.validation:validate_unit", "{}"))
    assert not broken["ok"] and broken["error"].startswith("KeyError")
    with LocalExecutor(workers=1, max_attempts=2) as executor:
        [outcome] = executor.run([Unit("k", "spade_gym.executor.validation:validate_unit", {})])
    assert not outcome.ok and outcome.attempts == 2 and "KeyError" in outcome.error


def test_a_node_without_the_process_layer_refuses_units(monkeypatch):
    from spade_gym.executor import nodes

    monkeypatch.setattr(nodes, "worker_state", lambda: {"digest": "d", "version": "v", "process_layer": False,
                                                        "summary": "the process layer is missing: workers can fork"})
    unit = Unit("k", "spade_gym.executor.nodes:probe_task", {})
    refused = json.loads(run_unit(unit.task, unit.wire(), {"require_process_layer": True}))
    assert refused["refused"].startswith("the process layer is missing") and "result" not in refused
    allowed = json.loads(run_unit(unit.task, unit.wire(), {"require_process_layer": False}))
    assert allowed["ok"] and allowed["version"] == "v"


# ----------------------------------------------------------------------------- the journal


@settings(max_examples=40)
@given(st.lists(st.tuples(st.sampled_from("abcde"), st.booleans(), st.text(max_size=5)), min_size=1, max_size=10),
       st.floats(0, 1))
def test_a_crash_at_any_byte_loses_only_unfinished_lines(entries, cut):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.jsonl"
        with Journal(path, {"kind": "test"}) as journal:
            for key, ok, text in entries:
                journal.append(Outcome(key, {"text": text} if ok else None, 1,
                                       error=None if ok else f"died {text}"))
        data = path.read_bytes()
        header_end = data.index(b"\n") + 1
        size = header_end + int(cut * (len(data) - header_end))
        path.write_bytes(data[:size])
        kept = data[:size]
        complete = kept.count(b"\n") - 1
        if not kept.endswith(b"\n") and data[size:size + 1] == b"\n":
            complete += 1  # cut just before its newline: the line itself is whole
        survived = entries[:complete]
        with Journal(path, {"kind": "test"}, resume=True) as journal:
            expected = {}
            for key, ok, text in survived:
                if ok:
                    expected.setdefault(key, {"text": text})
            assert {k: r["result"] for k, r in journal.done.items()} == expected
            journal.append(Outcome("z", {"after": True}, 2))
        header, records, _ = read(path)
        assert header["kind"] == "test" and records["z"]["result"] == {"after": True}


def test_journal_needs_resume_to_continue_and_something_to_resume(tmp_path):
    Journal(tmp_path / "j.jsonl", {"kind": "x"}).close()
    with pytest.raises(ExecutorError, match="pass --resume"):
        Journal(tmp_path / "j.jsonl", {"kind": "x"})
    with pytest.raises(ExecutorError, match="nothing to resume"):
        Journal(tmp_path / "none.jsonl", {"kind": "x"}, resume=True)


# ----------------------------------------------------------------------------- plain data over the wire


@settings(max_examples=40)
@given(st.integers(1, 40), st.one_of(st.none(), st.integers(0, 2**63 - 1)),
       st.sets(st.sampled_from(["contract", "termination", "determinism", "novelty", "cost"])),
       st.dictionaries(st.sampled_from(["max_turns", "size"]), st.integers(1, 9)),
       st.lists(st.sampled_from(["easy", "medium", "hard"]), min_size=1, unique=True))
def test_a_config_crosses_the_wire_unchanged(seeds, seed, checks, kwargs, levels):
    config = ValidationConfig(seeds=seeds, seed=seed, checks=("static", "load", *sorted(checks)),
                              program_kwargs=kwargs, difficulty_levels=tuple(levels))
    wire = json.loads(json.dumps(config_to_payload(config)))
    assert config_from_payload(wire) == config
    assert config_from_payload(config_to_payload(ValidationConfig())) == ValidationConfig()


def test_ray_address_from_option_or_environment(monkeypatch):
    monkeypatch.delenv("SPADE_GYM_RAY", raising=False)
    assert ray_address(None) is None
    assert ray_address("default") == DEFAULT_RAY and ray_address("auto") == "auto"
    monkeypatch.setenv("SPADE_GYM_RAY", "ray://head:10001")
    assert ray_address(None) == "ray://head:10001"
    assert ray_address("off") is None  # the option beats the variable
    monkeypatch.setenv("SPADE_GYM_RAY", "1")
    assert ray_address(None) == DEFAULT_RAY


# ----------------------------------------------------------------------------- node protections


def _report(**changes) -> dict:
    report = {
        "worker": {"landlock_abi": 7, "seccomp": True, "no_new_privs": True, "pdeathsig": True,
                   "uid_isolation": "distinct uid per worker"},
        "rlimits": {"RLIMIT_NPROC": [0, 0], "RLIMIT_FSIZE": [0, 0], "RLIMIT_AS": [1 << 30, 1 << 30]},
        "worker_can_fork": "refused: Resource temporarily unavailable",
        "worker_can_write_files": {"probe.txt": "refused: Read-only file system"},
        "worker_environment": [], "worker_can_open_sockets": "refused: x", "worker_can_signal_host": "refused: x",
    }
    report.update(changes)
    return report


def test_assess_names_what_a_node_lacks():
    full = assess(_report())
    assert full["process_layer"] and not full["lacks"] and full["summary"].endswith("every protection active")
    weak = assess(_report(worker={"landlock_abi": 0, "seccomp": False, "no_new_privs": True, "pdeathsig": True,
                                  "uid_isolation": "not root: workers share the host's uid"}))
    assert weak["process_layer"]
    assert weak["lacks"] == ["Landlock: file reads limited to the runtime", "seccomp allow-list",
                             "an identity per worker (distinct uid: needs root; or Landlock ABI 6 signal scoping)"]
    forking = assess(_report(worker_can_fork="allowed", worker_environment=["HOME"]))
    assert not forking["process_layer"]
    assert forking["missing_process_layer"] == ["workers cannot fork", "workers start with an empty environment"]
    none = assess(None, "SandboxUnavailable: could not start the sandbox process")
    assert not none["process_layer"] and none["summary"].startswith("no sandbox on this node")


def test_this_machine_has_the_process_layer():
    from spade_gym.executor.nodes import describe_node

    node = describe_node()
    assert node["error"] is None and node["assessment"]["process_layer"], node["assessment"]
    assert node["node"] == "local" or len(node["node"]) > 12
    assert len(node["digest"]) == 64


# ----------------------------------------------------------------------------- eval batches as units


def test_an_eval_batch_unit_plays_what_a_local_run_plays(tmp_path):
    from spade_gym.evaluation import AgentConfig, Evaluation, select_envs
    from spade_gym.evaluation.runner import play_unit

    envs = select_envs("spade/LetterFeedbackHunt-v0,spade/CounterfeitCoinScale-v0")
    config = AgentConfig("oracle", concurrency=3)
    local = Evaluation(config, envs, episodes=2, results_path=tmp_path / "local.jsonl").run()
    evaluation = Evaluation(config, envs, episodes=2, results_path=tmp_path / "units.jsonl")
    units = evaluation.units(evaluation.pending())
    assert [len(u.payload["specs"]) for u in units] == [3, 1]
    played = [r for u in units for r in play_unit(json.loads(u.wire()))["records"]]

    def strip(record):
        return {k: v for k, v in record.items() if k != "seconds"}

    assert [strip(r) for r in played] == [strip(r) for r in local.records]
    # a worker's answer is checked: a record it was not asked for is dropped, a missing one is an agent failure
    foreign = dict(played[0], seed=12345)
    outcome = Outcome(units[1].key, {"records": [foreign]}, 1)
    [record] = evaluation._unit_records(units[1].payload, outcome)
    assert record["seed"] == units[1].payload["specs"][0][1] and record["agent_error"].startswith("executor:")
    with pytest.raises(Exception, match="transformers does not run on Ray"):
        Evaluation(AgentConfig("transformers", model="x"), envs, episodes=1,
                   results_path=tmp_path / "t.jsonl").units([])
