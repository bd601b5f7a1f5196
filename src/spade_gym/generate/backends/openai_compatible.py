"""Completions from any OpenAI-compatible ``/chat/completions`` endpoint (API, vLLM, SGLang, llama.cpp).

``httpx`` is imported when a backend is built, so importing this module stays cheap.
"""

from __future__ import annotations

import email.utils
import json
import logging
import os
import random
import threading
import time
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.generate.backends.base import (
    BackendError,
    Completion,
    EndpointUnreachable,
    _check_request,
    _ContextManaged,
)

log = logging.getLogger(__name__)

#: Longest ``Retry-After`` wait honoured; longer requests are capped to it.
MAX_RETRY_AFTER_S = 300.0
#: Characters of a response body quoted in error messages.
BODY_EXCERPT_CHARS = 300


class OpenAIBackend(_ContextManaged):
    """Chat completions from an OpenAI-compatible HTTP server.

    Transient failures (HTTP 429 and 5xx, timeouts, dropped connections) are retried with
    exponential backoff and full jitter, honouring ``Retry-After``; other HTTP errors fail
    at once, since repeating a malformed request cannot help. A semaphore bounds the
    requests in flight, because the pipeline calls :meth:`complete` from many threads and
    local servers degrade badly when flooded.
    """

    name = "openai"

    @staticmethod
    def required_arguments(model: str | None, base_url: str | None, options: dict) -> dict[str, Any]:
        """What :func:`make_backend` must be given for this backend."""
        if not base_url:
            raise ConfigError("the openai backend needs base_url (e.g. http://localhost:8000/v1)")
        if not model:
            raise ConfigError("the openai backend needs a model name (as the server knows it)")
        return {"base_url": base_url, "model": model}

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 120.0,
        max_retries: int = 5,
        concurrency: int = 8,
        *,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        role: str = "designer",
    ):
        import httpx  # lazily: `import spade_gym` must stay light

        if not base_url:
            raise ConfigError(
                "base_url is empty; pass the server's API root, e.g. http://localhost:8000/v1")
        if max_retries < 0 or concurrency < 1 or timeout <= 0:
            raise ConfigError(
                f"invalid OpenAI backend settings: max_retries={max_retries} (>= 0), "
                f"concurrency={concurrency} (>= 1), timeout={timeout} (> 0)"
            )
        self.model = model
        #: Who this endpoint serves ("designer" or "agent"), named in every message.
        self.role = role
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._httpx = httpx
        headers = {"Content-Type": "application/json"}
        api_key = os.environ.get(api_key_env, "")
        if api_key:  # local servers need no key: then send no Authorization header at all
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout),
                                    limits=httpx.Limits(max_connections=concurrency))
        self._slots = threading.Semaphore(concurrency)
        self._jitter = random.Random()

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.7,
        max_tokens: int = 4096,
        seed: int | None = None,
        tools: list[dict] | None = None,
    ) -> list[Completion]:
        """Ask for ``n`` choices in one request; top up if the server returns fewer.

        Some servers ignore ``n``. Top-up requests shift ``seed`` so that a seeded server
        does not hand back the same completion again. ``tools`` (OpenAI function schemas)
        are offered natively; the choices' ``tool_calls`` come back on each completion.
        """
        _check_request(messages, n, max_tokens)
        completions: list[Completion] = []
        while len(completions) < n:
            wanted = n - len(completions)
            payload: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                "n": wanted,
                "temperature": temperature,
                "max_tokens": max_tokens,
            }
            if seed is not None:
                payload["seed"] = seed + len(completions)
            if tools:
                payload["tools"] = tools
            batch = self._parse(self._post(payload))
            if not batch:
                raise BackendError(f"{self.url} returned no choices for model {self.model!r}")
            completions.extend(batch[:wanted])
        return completions

    def check_endpoint(self, timeout: float = 10.0) -> None:
        """One quick request before any real work, so a dead or mistyped server fails in
        seconds with one clear line instead of after every request's retries.

        Any HTTP answer from ``GET <base_url>/models`` shows a live server (some serve no
        model list); only a refused, unresolvable or silent endpoint, or a rejected API
        key, is an error.
        """
        httpx = self._httpx
        try:
            response = self._client.get(self.base_url + "/models", timeout=timeout)
        except httpx.TimeoutException:
            raise EndpointUnreachable(f"the {self.role} endpoint {self.base_url} did not answer within "
                                      f"{timeout:g}s; is the server running?") from None
        except httpx.TransportError as exc:
            raise EndpointUnreachable(f"cannot reach the {self.role} endpoint {self.base_url} "
                                      f"({_transport_problem(exc)}); is the server running?") from None
        if response.status_code in (401, 403):
            raise BackendError(f"the {self.role} endpoint {self.base_url} refused the API key "
                               f"(HTTP {response.status_code}){_advice(response.status_code)}",
                               status=response.status_code)

    def _post(self, payload: dict[str, Any]) -> Any:
        httpx = self._httpx
        attempts = self.max_retries + 1
        attempt = 0
        while True:
            retry_after: float | None = None
            try:
                with self._slots:
                    response = self._client.post(self.url, json=payload)
            except httpx.TimeoutException:
                problem, status = f"timed out after {self.timeout:g}s", None
            except httpx.TransportError as exc:
                problem, status = f"connection failed ({_transport_problem(exc)})", None
            else:
                status = response.status_code
                if status < 300:
                    try:
                        return response.json()
                    except ValueError:
                        raise BackendError(
                            f"{self.url} answered HTTP {status} with a body that is not JSON: "
                            f"{_excerpt(response.text)}", status=status) from None
                problem = f"HTTP {status}: {_excerpt(response.text)}"
                if status != 429 and status < 500:
                    raise BackendError(f"{self.role} request POST {self.url} failed with {problem}{_advice(status)}",
                                       status=status)
                retry_after = _parse_retry_after(response.headers.get("Retry-After"))
            if attempt + 1 == attempts:
                error = EndpointUnreachable if status is None else BackendError
                raise error(
                    f"{self.role} request POST {self.url} failed after {attempts} attempt(s); last error: {problem}",
                    status=status)
            delay = self._delay(attempt, retry_after)
            log.warning("%s request to %s: %s; retrying in %.1fs (%d/%d)",
                        self.role, self.url, problem, delay, attempt + 1, self.max_retries)
            time.sleep(delay)
            attempt += 1

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds before the next attempt: the server's wish, else jittered backoff."""
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER_S)
        return self._jitter.uniform(0, min(self.backoff_max, self.backoff_base * 2 ** attempt))

    def _parse(self, data: Any) -> list[Completion]:
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list):
            raise BackendError(f"unexpected response from {self.url} (no 'choices' list): "
                               f"{_excerpt(json.dumps(data))}")
        texts, reasons, calls = [], [], []
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            texts.append(content if isinstance(content, str) else "")
            reasons.append(choice.get("finish_reason") if isinstance(choice, dict) else None)
            tool_calls = message.get("tool_calls") if isinstance(message, dict) else None
            calls.append([c for c in tool_calls if isinstance(c, dict)] or None
                         if isinstance(tool_calls, list) else None)
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt_tokens = _count(usage.get("prompt_tokens"))
        shares = _split(_count(usage.get("completion_tokens")), [len(t) for t in texts])
        return [Completion(text, prompt_tokens, share, reason, tool_calls)
                for text, share, reason, tool_calls in zip(texts, shares, reasons, calls, strict=True)]

    def close(self) -> None:
        self._client.close()


def _count(value: Any) -> int:
    """A token count from ``usage``; servers that omit or garble it count as 0."""
    return value if isinstance(value, int) and value >= 0 else 0


def _split(total: int, weights: list[int]) -> list[int]:
    """Share ``total`` tokens among choices in proportion to their length.

    The API reports completion tokens summed over all choices; a proportional share is
    the best per-completion estimate and keeps the sum exact.
    """
    if not weights:
        return []
    weight_sum = sum(weights)
    if weight_sum == 0:
        weights, weight_sum = [1] * len(weights), len(weights)
    shares = [total * w // weight_sum for w in weights]
    shares[-1] += total - sum(shares)
    return shares


def _transport_problem(exc: Exception) -> str:
    """``ConnectError: [Errno 111] Connection refused`` -> ``connection refused``."""
    text = str(exc).strip()
    text = text.split("] ", 1)[-1] if text.startswith("[Errno") else text
    return text[:1].lower() + text[1:] if text else type(exc).__name__


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= BODY_EXCERPT_CHARS else text[:BODY_EXCERPT_CHARS] + "..."


def _advice(status: int) -> str:
    if status in (401, 403):
        return " (check the API key: it is read from the environment variable named by api_key_env)"
    if status == 404:
        return " (check base_url: it usually ends in /v1; also check the model name)"
    return ""


def _parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` is either seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
