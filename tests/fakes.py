"""Test doubles shared by several test modules: an OpenAI-compatible loopback server."""

from __future__ import annotations

import json
import threading
import time
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
                    reply = fake.script.pop(0) if fake.script else Reply()
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
