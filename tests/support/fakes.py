"""Test doubles shared by several test modules: an OpenAI-compatible loopback server, and a
vLLM stand-in (server client and colocated engine) with a character-level tokenizer."""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """A scripted answer; ``body=None`` means: serve recorded completions."""

    status: int = 200
    body: dict | str | None = None
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


class FakeOpenAI:
    """An OpenAI-compatible /v1/chat/completions server on loopback serving recorded completions."""

    def __init__(self):
        self.script: list[Reply] = []
        self.requests: list[tuple[dict, dict]] = []  # (headers, body)
        self.recorded = [f"```python\nclass Game{i}Env:\n    pass\n```\n<hint>h{i}</hint>"
                         for i in range(100)]
        self.served = 0
        self.max_choices: int | None = None  # emulate servers that ignore n
        self.in_flight = 0
        self.peak = 0
        self.lock = threading.Lock()
        self.delay = 0.0
        #: Served when the script is empty (None: recorded completions), e.g. a server failing every request.
        self.default_reply: Reply | None = None
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake.lock:
                    fake.requests.append((dict(self.headers), body))
                    reply = fake.script.pop(0) if fake.script else (fake.default_reply or Reply())
                    fake.in_flight += 1
                    fake.peak = max(fake.peak, fake.in_flight)
                try:
                    time.sleep(reply.delay or fake.delay)
                    if self.path != "/v1/chat/completions":
                        reply = Reply(404, {"error": {"message": f"no route {self.path}"}})
                    payload = reply.body if reply.body is not None else fake.completion(body)
                    data = payload if isinstance(payload, str) else json.dumps(payload)
                    self.send_response(reply.status)
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data.encode())))
                    self.end_headers()
                    self.wfile.write(data.encode())
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)
                finally:
                    with fake.lock:
                        fake.in_flight -= 1

        return Handler

    def completion(self, body: dict) -> dict:
        n = body.get("n", 1)
        if self.max_choices is not None:
            n = min(n, self.max_choices)
        with self.lock:
            texts = self.recorded[self.served:self.served + n]
            self.served += n
        return {
            "id": "chatcmpl-test", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": i, "message": {"role": "assistant", "content": t},
                         "finish_reason": "stop"} for i, t in enumerate(texts)],
            "usage": {"prompt_tokens": 17, "completion_tokens": 10 * len(texts),
                      "total_tokens": 17 + 10 * len(texts)},
        }

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------- vLLM stand-in

class CharTokenizer:
    """A tokenizer with one token per character (id = code point) and a plain chat template:
    enough for :class:`~spade_gym.selfplay.policy.TokenPolicy`, no download, no torch."""

    pad_token_id = 0
    pad_token = "\x00"
    eos_token_id = 3
    eos_token = "\x03"

    def apply_chat_template(self, messages, tools=None, tokenize=False, add_generation_prompt=True):
        text = f"[tools]{json.dumps(tools)}{self.eos_token}" if tools else ""
        for message in messages:
            text += f"[{message['role']}]{message.get('content') or ''}{self.eos_token}"
        return text + ("[assistant]" if add_generation_prompt else "")

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text]}

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, ids, skip_special_tokens=True):
        special = {self.pad_token_id, self.eos_token_id} if skip_special_tokens else set()
        return "".join(chr(i) for i in ids if i not in special)


def stable_choice(options: list, *key) -> object:
    """One of ``options``, a deterministic function of ``key`` (in any process)."""
    digest = hashlib.sha256(repr(key).encode()).digest()
    return options[int.from_bytes(digest[:8], "big") % len(options)]


class FakeVLLM:
    """Samples the way vLLM does where GRPO groups depend on it: a completion is a
    deterministic function of (prompt, the request's seed) — the same prompt with the same
    seed gives the same completion, whatever else the call holds. ``n > 1`` children are
    seeded ``seed + j`` (vLLM's parallel sampling); unseeded requests draw from the engine's
    own stream.

    ``respond(prompt_text, seed) -> completion text`` is the "model"; completions end with
    the end-of-turn token and are cut at ``max_tokens``. Serves both of TRL's vLLM modes:
    :meth:`generate` is ``VLLMClient.generate`` (server), :attr:`llm` is the colocated
    ``vllm.LLM`` (install :attr:`vllm_module` as ``sys.modules["vllm"]``).
    """

    def __init__(self, respond: Callable[[str, int | None], str]):
        self.respond = respond
        self.tokenizer = CharTokenizer()
        self.requests: list[dict] = []  # one per sample: prompt text, seed, temperature
        self.lock = threading.Lock()
        self._engine = random.Random(0)
        self.llm = types.SimpleNamespace(generate=self._llm_generate)
        self.vllm_module = types.ModuleType("vllm")
        self.vllm_module.SamplingParams = FakeSamplingParams

    def _complete(self, prompt_ids: list[int], seed: int | None, temperature: float, max_tokens: int) -> list[int]:
        text = self.tokenizer.decode(prompt_ids)
        with self.lock:
            if seed is None:
                seed = self._engine.randrange(2**62)  # the engine's own stream: differs per request
            self.requests.append({"prompt": text, "seed": seed, "temperature": temperature})
        ids = self.tokenizer.encode(self.respond(text, seed)) + [self.tokenizer.eos_token_id]
        return ids[:max_tokens]

    # --- server mode: VLLMClient.generate
    def generate(self, prompts, n=1, temperature=1.0, max_tokens=16, generation_kwargs=None, **_):
        seed = (generation_kwargs or {}).get("seed")
        rows = [self._complete(list(p), None if seed is None else seed + j, temperature, max_tokens)
                for p in prompts for j in range(n)]
        return {"prompt_ids": [list(p) for p in prompts], "completion_ids": rows,
                "logprobs": [[[-0.5]] * len(r) for r in rows]}

    # --- colocate mode: vllm.LLM.generate
    def _llm_generate(self, prompts, sampling_params, use_tqdm=False):
        params = sampling_params if isinstance(sampling_params, list) else [sampling_params] * len(prompts)
        assert len(params) == len(prompts)
        outputs = []
        for prompt, p in zip(prompts, params):
            children = []
            for j in range(p.n):
                ids = self._complete(prompt["prompt_token_ids"], None if p.seed is None else p.seed + j,
                                     p.temperature, p.max_tokens)
                children.append(types.SimpleNamespace(
                    token_ids=ids, logprobs=[{t: types.SimpleNamespace(logprob=-0.5)} for t in ids]))
            outputs.append(types.SimpleNamespace(outputs=children))
        return outputs

    def trainer(self, mode: str):
        """What :func:`~spade_gym.selfplay.generation.make_generator` reads of TRL's trainer."""
        model = types.SimpleNamespace(generation_config=types.SimpleNamespace(eos_token_id=self.tokenizer.eos_token_id))
        vllm = types.SimpleNamespace(tensor_parallel_size=1, enable_sleep_mode=False, llm=self.llm,
                                     vllm_client=self if mode == "server" else None)
        return types.SimpleNamespace(args=types.SimpleNamespace(vllm_mode=mode), use_vllm=True, model=model,
                                     vllm_generation=vllm)


class FakeSamplingParams:
    """``vllm.SamplingParams``, as far as the colocated generator uses it."""

    def __init__(self, n=1, temperature=1.0, top_p=1.0, top_k=0, max_tokens=16, logprobs=None, seed=None):
        self.n, self.temperature, self.top_p, self.top_k = n, temperature, top_p, top_k
        self.max_tokens, self.logprobs, self.seed = max_tokens, logprobs, seed
