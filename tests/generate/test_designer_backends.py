"""Designer backends: OpenAI-compatible HTTP (against a loopback server), transformers, replay."""

from __future__ import annotations

import email.utils
import json
import subprocess
import sys
import threading
import time

import pytest

from spade_gym.errors import ConfigError
from spade_gym.generate.backends import (
    BackendError,
    Completion,
    DesignerBackend,
    OpenAIBackend,
    ReplayBackend,
    TransformersBackend,
    make_backend,
)
from spade_gym.generate.backends.openai_compatible import _parse_retry_after

MESSAGES = [{"role": "system", "content": "You design."}, {"role": "user", "content": "Design."}]


def test_importing_generate_stays_light():
    heavy = ("torch", "transformers", "httpx", "tokenizers")
    code = f"import sys, spade_gym.generate; print([m for m in {heavy} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


from fakes import FakeOpenAI, Reply  # noqa: E402  (shared loopback server)


@pytest.fixture
def server():
    fake = FakeOpenAI()
    yield fake
    fake.close()


def backend_for(server, **options) -> OpenAIBackend:
    options.setdefault("backoff_base", 0.01)
    options.setdefault("api_key_env", "SPADE_TEST_API_KEY")
    return OpenAIBackend(server.url, "test-model", **options)


# --------------------------------------------------------------------------- OpenAI backend


def test_single_completion(server, monkeypatch):
    monkeypatch.delenv("SPADE_TEST_API_KEY", raising=False)
    with backend_for(server) as backend:
        assert isinstance(backend, DesignerBackend) and backend.name == "openai"
        [completion] = backend.complete(MESSAGES, temperature=0.6, max_tokens=321, seed=7)
    assert completion == Completion(server.recorded[0], 17, 10, "stop")
    headers, body = server.requests[0]
    assert body == {"model": "test-model", "messages": MESSAGES, "n": 1, "temperature": 0.6,
                    "max_tokens": 321, "seed": 7}
    assert "Authorization" not in headers  # a local server needs no key


def test_api_key_header_is_sent_when_the_variable_is_set(server, monkeypatch):
    monkeypatch.setenv("SPADE_TEST_API_KEY", "sk-test-123")
    with backend_for(server) as backend:
        backend.complete(MESSAGES)
    assert server.requests[0][0]["Authorization"] == "Bearer sk-test-123"


def test_n_choices_in_one_request(server):
    with backend_for(server) as backend:
        completions = backend.complete(MESSAGES, n=3)
    assert [c.text for c in completions] == server.recorded[:3]
    assert len(server.requests) == 1 and server.requests[0][1]["n"] == 3
    assert all(c.prompt_tokens == 17 for c in completions)
    assert sum(c.completion_tokens for c in completions) == 30


def test_missing_choices_are_made_up_with_extra_requests(server):
    server.max_choices = 1
    with backend_for(server) as backend:
        completions = backend.complete(MESSAGES, n=3, seed=100)
    assert [c.text for c in completions] == server.recorded[:3]
    assert [body["n"] for _, body in server.requests] == [3, 2, 1]
    assert [body["seed"] for _, body in server.requests] == [100, 101, 102]


def test_retries_after_429_and_500_then_succeeds(server):
    server.script = [Reply(429, {"error": "slow down"}), Reply(500, "upstream crashed"), Reply()]
    with backend_for(server) as backend:
        [completion] = backend.complete(MESSAGES)
    assert completion.text == server.recorded[0]
    assert len(server.requests) == 3


def test_retry_after_header_is_honoured(server):
    server.script = [Reply(429, {"error": "rate limited"}, headers={"Retry-After": "1"}), Reply()]
    start = time.monotonic()
    with backend_for(server, backoff_max=0.01) as backend:
        backend.complete(MESSAGES)
    assert time.monotonic() - start >= 0.9


def test_final_failure_names_status_and_body(server):
    server.script = [Reply(503, {"error": {"message": "model exploded"}})] * 3
    with backend_for(server, max_retries=2) as backend, pytest.raises(BackendError) as err:
        backend.complete(MESSAGES)
    message = str(err.value)
    assert "after 3 attempt(s)" in message and "HTTP 503" in message and "model exploded" in message
    assert err.value.status == 503 and len(server.requests) == 3


def test_client_errors_are_not_retried(server):
    server.script = [Reply(400, {"error": {"message": "max_tokens too large"}})]
    with backend_for(server) as backend:
        with pytest.raises(BackendError, match="HTTP 400.*max_tokens too large"):
            backend.complete(MESSAGES)
    assert len(server.requests) == 1


def test_wrong_base_url_gets_advice(server):
    backend = OpenAIBackend(server.url.removesuffix("/v1"), "test-model",
                            api_key_env="SPADE_TEST_API_KEY")
    with backend, pytest.raises(BackendError, match=r"HTTP 404.*base_url") as err:
        backend.complete(MESSAGES)
    assert err.value.status == 404


def test_timeouts_are_retried_then_reported(server):
    server.script = [Reply(delay=1.0), Reply()]
    with backend_for(server, timeout=0.2) as backend:
        [completion] = backend.complete(MESSAGES)  # first attempt times out, second succeeds
    assert completion.text
    server.script = [Reply(delay=1.0), Reply(delay=1.0)]
    with backend_for(server, timeout=0.2, max_retries=1) as backend:
        expected = r"after 2 attempt\(s\); last error: timed out after 0.2s"
        with pytest.raises(BackendError, match=expected):
            backend.complete(MESSAGES)


def test_connection_refused_is_reported(server):
    url = server.url
    server.close()
    with backend_for(server, max_retries=1) as backend:
        backend.url = url + "/chat/completions"
        with pytest.raises(BackendError, match="connection failed"):
            backend.complete(MESSAGES)


def test_malformed_success_response_is_an_error(server):
    server.script = [Reply(200, "<html>proxy login</html>"), Reply(200, {"object": "error"})]
    with backend_for(server) as backend:
        with pytest.raises(BackendError, match="not JSON.*proxy login"):
            backend.complete(MESSAGES)
        with pytest.raises(BackendError, match="no 'choices' list"):
            backend.complete(MESSAGES)


def test_concurrency_is_bounded(server):
    server.delay = 0.1
    results = []
    with backend_for(server, concurrency=2) as backend:
        threads = [threading.Thread(target=lambda: results.extend(backend.complete(MESSAGES)))
                   for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(results) == 6 and server.peak <= 2


def test_retry_after_accepts_seconds_and_http_dates():
    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert _parse_retry_after("2.5") == 2.5
    assert 25 < _parse_retry_after(soon) <= 30
    assert _parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert _parse_retry_after("soon-ish") is None and _parse_retry_after(None) is None


def test_bad_requests_are_rejected_before_sending(server):
    with backend_for(server) as backend:
        with pytest.raises(ValueError, match="n must be"):
            backend.complete(MESSAGES, n=0)
        with pytest.raises(ValueError, match="messages is empty"):
            backend.complete([])
    assert not server.requests


# --------------------------------------------------------------------------- replay backend


def test_replay_serves_completions_in_order_from_both_line_formats(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([
        json.dumps({"completion": "first"}),
        "",
        json.dumps({"skill": "Optimization", "attempt": 0, "completion": "second", "valid": False}),
        json.dumps({"event": "summary", "valid": 3}),  # no completion: skipped
        json.dumps({"completion": "third"}),
    ]) + "\n", encoding="utf-8")
    with ReplayBackend(log) as backend:
        assert isinstance(backend, DesignerBackend) and backend.name == "replay"
        assert [c.text for c in backend.complete(MESSAGES)] == ["first"]
        assert [c.text for c in backend.complete(MESSAGES, n=2)] == ["second", "third"]
        with pytest.raises(BackendError, match="replay log exhausted after 3 completions"):
            backend.complete(MESSAGES)


def test_replay_does_not_serve_a_partial_batch(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"completion": "a"}\n{"completion": "b"}\n', encoding="utf-8")
    backend = ReplayBackend(log)
    with pytest.raises(BackendError, match="exhausted after 2 completions.*3 requested, 2 left"):
        backend.complete(MESSAGES, n=3)
    assert [c.text for c in backend.complete(MESSAGES, n=2)] == ["a", "b"]


@pytest.mark.parametrize("content, match", [
    ('{"completion": "a"}\n{oops\n', r"log.jsonl:2: not a JSON object"),
    ('{"completion": 5}\n', r"'completion' must be a string"),
    ('{"other": 1}\n\n', "holds no completions"),
])
def test_replay_log_problems_are_config_errors(tmp_path, content, match):
    log = tmp_path / "log.jsonl"
    log.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=match):
        ReplayBackend(log)


# --------------------------------------------------------------------------- factory


def test_make_backend_builds_each_kind(tmp_path, server):
    log = tmp_path / "log.jsonl"
    log.write_text('{"completion": "a"}\n', encoding="utf-8")
    replay = make_backend("replay", path=log)
    assert replay.model == "replay:log.jsonl"
    with make_backend("openai", model="m", base_url=server.url, timeout=5.0, max_retries=0) as http:
        assert http.name == "openai" and http.max_retries == 0


@pytest.mark.parametrize("kind, kwargs, match", [
    ("llama", {}, "unknown designer backend 'llama'; choose one of openai, transformers, replay"),
    ("openai", {"model": "m"}, "needs base_url"),
    ("openai", {"base_url": "http://x/v1"}, "needs a model name"),
    ("transformers", {}, "needs model"),
    ("transformers", {"model": "/ckpt", "base_url": "http://x/v1"}, "base_url only applies"),
    ("replay", {}, "needs path"),
    ("openai", {"model": "m", "base_url": "http://x/v1", "batch_size": 4},
     "unknown option.*batch_size.*accepted: api_key_env"),
])
def test_make_backend_rejects_bad_combinations(kind, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        make_backend(kind, **kwargs)


# --------------------------------------------------------------------------- transformers backend


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from spade_gym.generate.tiny_model import build_tiny_model

    texts = ["class MazeEnv:\n    def reset(self, seed=None):", "<hint>go north</hint>",
             "Design a multi-turn game.", "\\boxed{answer}"]
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), texts, hidden_size=32, num_layers=1)


@pytest.mark.train
def test_tiny_model_loads_with_the_ids_it_was_trained_with(tiny_model):
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    trained = Tokenizer.from_file(str(tiny_model / "tokenizer.json"))
    text = "class MazeEnv:\n    x = 'héllo'  \\boxed{42} ∑"
    assert tokenizer(text)["input_ids"] == trained.encode(text).ids
    assert tokenizer.decode(tokenizer(text)["input_ids"]) == text
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    prompt = tokenizer.apply_chat_template(MESSAGES, tokenize=False, add_generation_prompt=True)
    assert prompt == ("<|im_start|>system\nYou design.<|im_end|>\n"
                      "<|im_start|>user\nDesign.<|im_end|>\n<|im_start|>assistant\n")


@pytest.mark.train
def test_transformers_backend_end_to_end(tiny_model):
    import torch

    state = torch.random.get_rng_state()
    with TransformersBackend(tiny_model, batch_size=2) as backend:
        assert isinstance(backend, DesignerBackend) and backend.device == "cpu"
        completions = backend.complete(MESSAGES, n=3, temperature=1.0, max_tokens=6, seed=3)
        again = backend.complete(MESSAGES, n=3, temperature=1.0, max_tokens=6, seed=3)
        assert len(completions) == 3
        for completion in completions:
            assert isinstance(completion, Completion) and isinstance(completion.text, str)
            assert completion.prompt_tokens > 0 and 0 < completion.completion_tokens <= 6
            assert completion.finish_reason in ("stop", "length")
        assert [c.text for c in again] == [c.text for c in completions]  # seeded
        backend.tokenizer.chat_template = None  # a base checkpoint without a template
        text, templated = backend.format_prompt(MESSAGES)
        assert not templated and text.endswith("User: Design.\n\nAssistant:")
        [greedy] = backend.complete(MESSAGES, temperature=0.0, max_tokens=4)
        assert greedy.prompt_tokens > 0
    assert torch.equal(state, torch.random.get_rng_state())  # global RNG untouched


@pytest.mark.train
def test_transformers_backend_reports_a_missing_checkpoint(tmp_path):
    pytest.importorskip("transformers")
    with pytest.raises(BackendError, match="cannot load a causal LM checkpoint"):
        TransformersBackend(tmp_path / "nowhere")
