"""``generate`` over several designer endpoints: spreading, failover, per-card designers, caps."""

from __future__ import annotations

import json
import socket
import threading

import pytest
from click.testing import CliRunner
from fakes import FakeOpenAI, Reply
from testkit import BENIGN_DIR

from spade_gym.cli import main
from spade_gym.generate.backends import EndpointUnreachable, make_backend
from spade_gym.generate.endpoints import Endpoint, EndpointPool
from spade_gym.generate.pipeline import GenerateConfig, GenerationPipeline
from spade_gym.registry import Suite
from spade_gym.validation import ValidationConfig

# Distinct sound games, so every design can be accepted (none is a duplicate of another).
PROGRAMS = [(BENIGN_DIR / name).read_text() for name in ("unicode_story.py", "guess_number.py",
                                                          "inventory_dataclasses.py", "rng_instance.py")]
FAST = ValidationConfig(seeds=6)
FAILING = Reply(500, {"error": {"message": "the designer is down"}})

# Novelty compares with every registered suite: other modules' suites (and each other's) must not count.
pytestmark = pytest.mark.usefixtures("fresh_process_registry")


class SeededDesigner(FakeOpenAI):
    """Answers a design request with the program its request seed picks (the target's index),
    so a target gets the same program whichever endpoint serves it."""

    def completion(self, body: dict) -> dict:
        program = PROGRAMS[(body["seed"] // 100) % len(PROGRAMS)]
        text = f"```python\n{program}```\n<hint>Read the observation carefully.</hint>"
        return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 17, "completion_tokens": 10}}

    def served_programs(self) -> set[str]:
        return {PROGRAMS[(body["seed"] // 100) % len(PROGRAMS)].strip() for _, body in self.requests}


@pytest.fixture
def servers():
    made: list[FakeOpenAI] = []

    def make(**attributes):
        server = SeededDesigner()
        for key, value in attributes.items():
            setattr(server, key, value)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


def run_cli(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def generate_args(tmp_path, *endpoint_args, n=4):
    return ["generate", "--backend", "openai", *endpoint_args, "-n", str(n), "--attempts", "1",
            "--suite", str(tmp_path / "suite"), "--skill", "Memory Recall", "--log", str(tmp_path / "log.jsonl"),
            "--json"]


def test_a_failing_endpoint_is_routed_around(servers, tmp_path):
    bad, good = servers(default_reply=FAILING), servers()
    result = run_cli(generate_args(tmp_path, "--base-url", bad.url, "--model", "broken-x",
                                   "--base-url", good.url, "--model", "designer-y", "--concurrency", "2"))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["n_accepted"] == 4 and summary["failures_by_check"] == {}
    assert bad.requests, "the failing endpoint was never tried, so failover was not exercised"
    cards = [entry.card for entry in Suite(tmp_path / "suite").entries()]
    assert len(cards) == 4
    assert {(c.provenance["model"], c.provenance["backend"]) for c in cards} == {("designer-y", "openai")}
    assert all("designer-y" in c.provenance["designer"] for c in cards)
    # the log says which model wrote each completion
    attempts = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert {r["model"] for r in attempts if r.get("event") == "attempt" and "completion" in r} == {"designer-y"}


def test_an_unreachable_endpoint_is_left_out_from_the_start(servers, tmp_path):
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead_url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    good = servers()
    result = run_cli(generate_args(tmp_path, "--base-url", dead_url, "--base-url", good.url, "--model", "designer-y",
                                   n=2))
    assert result.exit_code == 0, result.output
    assert json.loads(result.output[result.output.index("{"):])["n_accepted"] == 2
    assert {e.card.provenance["model"] for e in Suite(tmp_path / "suite").entries()} == {"designer-y"}


def test_a_timing_out_endpoint_is_routed_around(servers, tmp_path):
    slow, good = servers(delay=3.0), servers()
    endpoints = [Endpoint(slow.url, "slow-x", 1), Endpoint(good.url, "designer-y", 1)]
    pool = EndpointPool(endpoints, lambda e: make_backend("openai", model=e.model, base_url=e.base_url,
                                                          concurrency=e.concurrency, max_retries=0, timeout=0.5))
    config = GenerateConfig(n=3, skills=("Memory Recall",), attempts=1, concurrency=pool.capacity)
    with pool:
        summary = GenerationPipeline(pool, tmp_path / "suite", config, validation_config=FAST).run()
    assert len(summary.accepted) == 3 and slow.requests
    assert {e.card.provenance["model"] for e in Suite(tmp_path / "suite").entries()} == {"designer-y"}


# The replay registers the same programs again, under ids the first run's suite holds.
@pytest.mark.filterwarnings("ignore:.*is refused. that id is already registered")
def test_two_endpoints_share_the_work_and_each_card_names_its_own(servers, tmp_path):
    # Each endpoint takes one request at a time, and requests rotate over the endpoints even
    # when they do not overlap.
    first, second = servers(delay=0.2), servers(delay=0.2)
    endpoints = tmp_path / "endpoints.jsonl"
    endpoints.write_text(json.dumps({"base_url": first.url, "model": "designer-a", "concurrency": 1}) + "\n"
                         + json.dumps({"base_url": second.url, "model": "designer-b", "concurrency": 1}) + "\n")
    result = run_cli(generate_args(tmp_path, "--endpoints", str(endpoints)))
    assert result.exit_code == 0, result.output
    assert len(first.requests) + len(second.requests) == 4 and first.requests and second.requests
    assert first.peak == 1 and second.peak == 1
    assert {body["model"] for _, body in first.requests} == {"designer-a"}
    entries = Suite(tmp_path / "suite").entries()
    assert len(entries) == 4
    for entry in entries:
        source = entry.read_source().strip()
        expected = "designer-a" if source in first.served_programs() else "designer-b"
        assert source in (first.served_programs() | second.served_programs())
        assert entry.card.provenance["model"] == expected

    # a replay of the run's log names the same designer on each card
    again = tmp_path / "again"
    result = run_cli(["generate", "--backend", "replay", "--model", str(tmp_path / "log.jsonl"), "--suite", str(again),
                      "--log", str(tmp_path / "replay.jsonl"), "--json"])
    assert result.exit_code == 0, result.output
    designers = {e.card.sha256: e.card.provenance["model"] for e in entries}
    replayed = {e.card.sha256: e.card.provenance["model"] for e in Suite(again).entries()}
    assert replayed == designers


def test_per_endpoint_concurrency_cap(servers):
    wide, narrow = servers(delay=0.3), servers(delay=0.3)
    pool = EndpointPool([Endpoint(wide.url, "wide", 2), Endpoint(narrow.url, "narrow", 1)],
                        lambda e: make_backend("openai", model=e.model, base_url=e.base_url,
                                               concurrency=8, max_retries=0))  # the pool's cap, not httpx's
    models: list[str] = []
    lock = threading.Lock()

    def request(i):
        (completion,) = pool.complete([{"role": "user", "content": "design"}], seed=i * 100)
        with lock:
            models.append(completion.model)

    threads = [threading.Thread(target=request, args=(i,)) for i in range(9)]
    with pool:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(models) == 9 and len(wide.requests) + len(narrow.requests) == 9
    assert wide.peak == 2 and narrow.peak == 1  # each cap reached, never passed
    assert models.count("wide") == len(wide.requests) and models.count("narrow") == len(narrow.requests)


def test_every_endpoint_down_is_a_clear_error_and_registers_nothing(servers, tmp_path):
    down = [servers(default_reply=FAILING), servers(default_reply=FAILING)]
    pool = EndpointPool([Endpoint(s.url, f"m{i}", 1) for i, s in enumerate(down)],
                        lambda e: make_backend("openai", model=e.model, base_url=e.base_url, max_retries=0),
                        backoff_base=0.01, down_after=2)
    config = GenerateConfig(n=3, skills=("Memory Recall",), attempts=1, concurrency=2)
    with pool, pytest.raises(EndpointUnreachable, match="every designer endpoint failed"):
        GenerationPipeline(pool, tmp_path / "suite", config, validation_config=FAST).run()
    assert all(len(s.requests) == 2 for s in down)  # each rested after a failure, then out of the run
    assert Suite(tmp_path / "suite").entries() == []


@pytest.mark.parametrize(("args", "message"), [
    (["--base-url", "http://127.0.0.1:9/v1", "--base-url", "http://127.0.0.1:10/v1",
      "--model", "a", "--model", "b", "--model", "c"], "2 --base-url but 3 --model"),
    (["--base-url", "http://127.0.0.1:9/v1", "--model", "a", "--model", "b"], "1 --base-url but 2 --model"),
])
def test_unpaired_urls_and_models_are_refused(tmp_path, args, message):
    result = CliRunner().invoke(main, generate_args(tmp_path, *args))
    assert result.exit_code == 1 and message in result.output
    assert not (tmp_path / "suite").exists()


def test_a_bad_endpoints_file_is_refused(tmp_path):
    endpoints = tmp_path / "endpoints.json"
    endpoints.write_text(json.dumps([{"base_url": "http://127.0.0.1:9/v1", "model": "a", "weight": 2}]))
    result = CliRunner().invoke(main, generate_args(tmp_path, "--endpoints", str(endpoints)))
    assert result.exit_code == 1 and "unknown key(s) weight" in result.output


def test_one_endpoint_in_a_file_is_the_single_server_run(servers, tmp_path):
    solo = servers()
    endpoints = tmp_path / "endpoints.json"
    endpoints.write_text(json.dumps([{"base_url": solo.url, "model": "solo", "concurrency": 2}]))
    result = run_cli(generate_args(tmp_path, "--endpoints", str(endpoints), n=1))
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert records[0]["designer"] == {"model": "solo", "backend": "openai"}
    assert not any("designed_by" in r for r in records)  # no pool in between
    assert [e.card.provenance["model"] for e in Suite(tmp_path / "suite").entries()] == ["solo"]
