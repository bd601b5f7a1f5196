"""Designer backends: one small interface over the ways to get a completion.

Users bring whatever model they have: an API model or a local inference server
(:class:`OpenAIBackend`, any OpenAI-compatible ``/chat/completions`` endpoint such as
vLLM, SGLang or llama.cpp), a local checkpoint (:class:`TransformersBackend`), or a log
of earlier completions (:class:`ReplayBackend`, for reproducible runs and tests).
The generation pipeline only sees :class:`DesignerBackend`.

Heavy or optional dependencies (httpx, torch, transformers) are imported inside the
classes, so importing this module stays cheap.
"""

from __future__ import annotations

import email.utils
import inspect
import json
import logging
import os
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

from spade_gym.errors import ConfigError, SpadeError

log = logging.getLogger(__name__)

#: Longest ``Retry-After`` wait honoured; longer requests are capped to it.
MAX_RETRY_AFTER_S = 300.0
#: Characters of a response body quoted in error messages.
BODY_EXCERPT_CHARS = 300


class BackendError(SpadeError):
    """A backend could not produce completions (HTTP failure, bad model, exhausted log).

    ``status`` is the HTTP status of the last failed request, when there was one.
    """

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class EndpointUnreachable(BackendError):
    """The server could not be reached at all (refused, unresolvable, timed out).

    Unlike a failed request, this ends the whole job: every later request would fail
    the same way, slowly.
    """


@dataclass
class Completion:
    """One sampled completion with its token accounting (0 when the backend cannot tell)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None
    #: Native tool calls of the reply (OpenAI form), when the request offered tools.
    tool_calls: list[dict] | None = None


@runtime_checkable
class DesignerBackend(Protocol):
    """What the generation pipeline needs from a model: ``n`` completions of a chat.

    ``complete`` may be called from several threads at once; implementations serialise
    or bound concurrency themselves.
    """

    name: str
    model: str

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.7,
        max_tokens: int = 4096,
        seed: int | None = None,
    ) -> list[Completion]: ...

    def close(self) -> None: ...


class _ContextManaged:
    """``with backend: ...`` closes the backend (connections, GPU memory) on exit."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()  # type: ignore[attr-defined]  # every subclass defines close()


def _check_request(messages: list[dict], n: int, max_tokens: int) -> None:
    if not messages:
        raise ValueError("messages is empty; pass at least one chat message")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")


# --------------------------------------------------------------------------- OpenAI-compatible


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


# --------------------------------------------------------------------------- transformers


class TransformersBackend(_ContextManaged):
    """Samples completions from a local checkpoint with ``transformers``.

    Meant for small models and for the CPU self-play preset; for large models serve them
    with an inference server and use :class:`OpenAIBackend`. Calls are serialised with a
    lock: one model cannot usefully run two ``generate`` calls at once.
    """

    name = "transformers"

    @staticmethod
    def required_arguments(model: str | None, base_url: str | None, options: dict) -> dict[str, Any]:
        if not model:
            raise ConfigError("the transformers backend needs model: a local checkpoint directory")
        return {"model_path": model}

    def __init__(
        self,
        model_path: str | Path,
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int = 4,
    ):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:
            raise BackendError(
                "the transformers backend needs torch and transformers: "
                "pip install 'spade-gym[train]'") from exc
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self._torch = torch
        self.model = str(model_path)
        self.batch_size = batch_size
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        torch_dtype = self._resolve_dtype(dtype)
        # A path that is not a directory may be a cached hub id; never go online for it.
        local_only = not Path(model_path).is_dir()
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=local_only)
            model = AutoModelForCausalLM.from_pretrained(
                model_path, dtype=torch_dtype, local_files_only=local_only)
        except (OSError, ValueError) as exc:
            raise BackendError(
                f"cannot load a causal LM checkpoint from {model_path}: {exc}") from exc
        # transformers types ``PreTrainedModel.to`` through a decorator that loses the bound self.
        self._model = model.to(self.device).eval()  # type: ignore[arg-type]
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._lock = threading.Lock()

    def _resolve_dtype(self, dtype: str | None) -> Any:
        torch = self._torch
        if dtype is None:
            if self.device.startswith("cuda"):
                return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            return torch.float32
        resolved = getattr(torch, dtype, None)
        if not isinstance(resolved, torch.dtype):
            raise ConfigError(
                f"unknown dtype {dtype!r}; use e.g. 'float32', 'bfloat16' or 'float16'")
        return resolved

    def format_prompt(self, messages: list[dict], tools: list[dict] | None = None) -> tuple[str, bool]:
        """Render ``messages`` as prompt text; also say whether it already has special tokens.

        Uses the tokenizer's chat template when it has one (with ``tools`` for a tool-use
        episode: the template describes them and how to call them); otherwise a plain
        ``Role: content`` transcript, so base checkpoints still work.
        """
        if getattr(self.tokenizer, "chat_template", None):
            if tools is not None:
                schemas: list[Any] = list(tools)  # the tokenizer's annotation wants list[dict | Callable]
                text = self.tokenizer.apply_chat_template(
                    _template_messages(messages), tools=schemas, tokenize=False, add_generation_prompt=True)
            else:
                text = self.tokenizer.apply_chat_template(
                    messages, tokenize=False, add_generation_prompt=True)
            if not isinstance(text, str):  # tokenize=False renders text; anything else is a tokenizer bug
                raise BackendError(f"{self.model}: the chat template rendered {type(text).__name__}, not text")
            return text, True
        lines = [f"{m['role'].capitalize()}: {m.get('content') or ''}" for m in messages]
        if tools is not None:
            listed = "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
            lines.insert(0, f"Tools (call one as <tool_call>{{\"name\": ..., \"arguments\": {{...}}}}</tool_call>):\n"
                            f"{listed}")
        return "\n\n".join(lines) + "\n\nAssistant:", False

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.7,
        max_tokens: int = 4096,
        seed: int | None = None,
    ) -> list[Completion]:
        _check_request(messages, n, max_tokens)
        return self.complete_batch([messages] * n, temperature=temperature, max_tokens=max_tokens, seed=seed)

    def complete_batch(
        self,
        conversations: list[list[dict]],
        *,
        temperature: float = 0.7,
        max_tokens: int = 1024,
        seed: int | None = None,
        tools: list[list[dict] | None] | None = None,
    ) -> list[Completion]:
        """One completion for each of several chats, generated together in batches of
        ``batch_size`` (left padding): ``n`` samples of one design prompt, or the next
        turn of many episodes at once (what an agent needs). ``tools`` gives each chat its
        tool schemas (None for a chat without tools).
        """
        if not conversations:
            return []
        torch = self._torch
        per_chat = list(tools) if tools is not None else [None] * len(conversations)
        texts, templated = zip(*(self.format_prompt(m, t) for m, t in zip(conversations, per_chat)))
        eos_ids = self._eos_ids()
        sampling: dict[str, Any] = {"do_sample": temperature > 0}
        if temperature > 0:
            sampling["temperature"] = temperature
        out: list[Completion] = []
        devices = [torch.device(self.device)] if self.device.startswith("cuda") else []
        side = self.tokenizer.padding_side
        with self._lock, torch.random.fork_rng(devices=devices), torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            self.tokenizer.padding_side = "left"
            try:
                for start in range(0, len(texts), self.batch_size):
                    chunk = list(texts[start:start + self.batch_size])
                    # The template already contains the special tokens; adding them again
                    # would double the BOS of models that use one.
                    inputs = self.tokenizer(chunk, return_tensors="pt", padding=True,
                                            add_special_tokens=not templated[start])
                    inputs = {key: value.to(self.device) for key, value in inputs.items()}
                    prompt_len = int(inputs["input_ids"].shape[1])
                    output = self._model.generate(**inputs, max_new_tokens=max_tokens,
                                                  pad_token_id=self.tokenizer.pad_token_id,
                                                  eos_token_id=eos_ids, **sampling)
                    lengths = inputs["attention_mask"].sum(dim=1).tolist()
                    for row, length in zip(output[:, prompt_len:].tolist(), lengths):
                        stop = next((i for i, tok in enumerate(row) if tok in eos_ids), None)
                        generated = row if stop is None else row[:stop]
                        text = self.tokenizer.decode(generated, skip_special_tokens=True)
                        assert isinstance(text, str), "one sequence of ids decodes to one str"
                        out.append(Completion(text,
                                              prompt_tokens=int(length),
                                              completion_tokens=len(generated) + (stop is not None),
                                              finish_reason="length" if stop is None else "stop"))
            finally:
                self.tokenizer.padding_side = side
        return out

    def _eos_ids(self) -> list[int]:
        """End-of-turn ids: the generation config's (chat models list several), the tokenizer's."""
        configured = getattr(self._model.generation_config, "eos_token_id", None)
        candidates: list[Any] = configured if isinstance(configured, list) else [configured]
        ids: list[int] = [i for i in candidates if i is not None]
        if self.tokenizer.eos_token_id is not None and self.tokenizer.eos_token_id not in ids:
            ids.append(self.tokenizer.eos_token_id)
        if not ids:
            raise BackendError(f"{self.model} defines no end-of-sequence token; "
                               "set eos_token in its tokenizer or generation config")
        return ids

    def close(self) -> None:
        self._model = None
        if self.device.startswith("cuda"):
            self._torch.cuda.empty_cache()


def _template_messages(messages: list[dict]) -> list[dict]:
    """Chat messages for a chat template: tool-call arguments as objects (templates serialise
    them themselves; the OpenAI format carries them as JSON strings)."""
    out = []
    for message in messages:
        if message.get("tool_calls"):
            converted = []
            for call in message["tool_calls"]:
                function = dict(call.get("function") or {})
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    try:
                        function["arguments"] = json.loads(arguments) if arguments.strip() else {}
                    except ValueError:
                        pass  # not JSON: the template shows the model its own malformed text
                converted.append({**call, "function": function})
            message = {**message, "tool_calls": converted}
        out.append(message)
    return out


# --------------------------------------------------------------------------- replay


class ReplayBackend(_ContextManaged):
    """Serves completions from a JSONL log, in order, ignoring the prompt.

    Lines are ``{"completion": "..."}`` or ``spade-gym generate`` log records with a
    ``completion`` key (other keys are ignored; records without one are skipped). This
    reproduces a generation run exactly and gives tests a deterministic designer.
    """

    name = "replay"

    @staticmethod
    def required_arguments(model: str | None, base_url: str | None, options: dict) -> dict[str, Any]:
        if "path" not in options:
            raise ConfigError("the replay backend needs path: a JSONL log of completions")
        return {"model": model}

    def __init__(self, path: str | Path, *, model: str | None = None):
        self.path = Path(path)
        self.model = model or f"replay:{self.path.name}"
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"cannot read replay log {self.path}: {exc}") from exc
        self._texts: list[str] = []
        #: Per completion, the target it was generated for ({"skill", "multi_turn"}) when
        #: the log records it — lets a replay reproduce the original targets.
        self.targets: list[dict | None] = []
        #: Completions keyed by the request seed recorded in a ``generate`` log, so a
        #: replay serves each (target, attempt) its original completion even when the
        #: original run interleaved targets.
        self._by_seed: dict[int, str] = {}
        #: The settings of the recorded ``generate`` run (its ``"event": "run"`` header),
        #: or for older logs what the attempt records imply; empty for plain lists.
        self.settings: dict[str, Any] = {}
        #: (model, backend) of the designer that wrote the completions, when recorded.
        self.origin: tuple[str | None, str | None] = (None, None)
        headers: list[dict] = []
        attempts_seen: list[dict] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ConfigError(f"{self.path}:{number}: not a JSON object ({exc})") from None
            if isinstance(record, dict) and record.get("event") == "run" and isinstance(record.get("settings"), dict):
                headers.append(record)
                continue
            if isinstance(record, dict) and record.get("event") == "attempt":
                attempts_seen.append(record)
            if not isinstance(record, dict) or "completion" not in record:
                continue
            if not isinstance(record["completion"], str):
                raise ConfigError(f"{self.path}:{number}: 'completion' must be a string, "
                                  f"got {type(record['completion']).__name__}")
            self._texts.append(record["completion"])
            target = record.get("target") if isinstance(record.get("target"), dict) else None
            if target is None and "skill" in record:
                target = {"skill": record["skill"], "multi_turn": bool(record.get("multi_turn", False))}
            self.targets.append(target)
            if isinstance(record.get("request_seed"), int):
                self._by_seed[record["request_seed"]] = record["completion"]
        if not self._texts:
            raise ConfigError(f"replay log {self.path} holds no completions; expected JSONL lines "
                              'like {"completion": "..."}')
        if len(headers) > 1:
            raise ConfigError(f"replay log {self.path} holds {len(headers)} generate runs; replay one run's log "
                              "at a time (each run writes its own log unless --log names the same file)")
        self.settings = dict(headers[0]["settings"]) if headers else _implied_settings(attempts_seen)
        self.origin = _recorded_origin(headers[0] if headers else None, attempts_seen)
        self._next = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        """Completions not yet served."""
        return len(self._texts) - self._next

    @property
    def keyed(self) -> bool:
        """Whether completions are keyed by request seed (a ``generate`` log) rather than
        served in order — in-order logs must be replayed with concurrency 1."""
        return bool(self._by_seed)

    def pending_targets(self) -> list[dict | None]:
        """Recorded targets of the completions not yet served (None where unrecorded)."""
        return self.targets[self._next:]

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.7,
        max_tokens: int = 4096,
        seed: int | None = None,
    ) -> list[Completion]:
        _check_request(messages, n, max_tokens)
        if n == 1 and seed is not None and seed in self._by_seed:
            return [Completion(self._by_seed[seed])]
        with self._lock:
            if self.remaining < n:
                raise BackendError(
                    f"replay log exhausted after {len(self._texts)} completions "
                    f"({self.path}; {n} requested, {self.remaining} left)")
            texts = self._texts[self._next:self._next + n]
            self._next += n
        return [Completion(text) for text in texts]

    def close(self) -> None:
        """Nothing to release; present for the interface."""


def _implied_settings(records: list[dict]) -> dict[str, Any]:
    """Settings a log without a run header still implies: attempts (the most any target
    used) and the seed (request seeds are ``seed * 100_000 + target * 100 + attempt``)."""
    settings: dict[str, Any] = {}
    attempts = [r["attempt"] for r in records if isinstance(r.get("attempt"), int)]
    if attempts:
        settings["attempts"] = max(attempts)
    seeds = {r["request_seed"] // 100_000 for r in records if isinstance(r.get("request_seed"), int)}
    if len(seeds) == 1:
        settings["seed"] = seeds.pop()
    return settings


def _recorded_origin(header: dict | None, records: list[dict]) -> tuple[str | None, str | None]:
    """The designer model and backend that wrote a log (not "replay": a replayed log
    names whoever it replays)."""
    designer = header.get("designer") if header else None
    if isinstance(designer, dict) and isinstance(designer.get("model"), str):
        return designer["model"], designer.get("backend") if isinstance(designer.get("backend"), str) else None
    for record in records:
        if isinstance(record.get("model"), str) and record.get("backend") not in (None, "replay"):
            return record["model"], str(record["backend"])
    return None, None


# --------------------------------------------------------------------------- factory


_BACKENDS: dict[str, Any] = {  # name -> backend class
    OpenAIBackend.name: OpenAIBackend,
    TransformersBackend.name: TransformersBackend,
    ReplayBackend.name: ReplayBackend,
}


def make_backend(
    kind: str, *, model: str | None = None, base_url: str | None = None, **options: Any
) -> DesignerBackend:
    """Build a backend from CLI/preset values, rejecting combinations that cannot work.

    * ``openai``: needs ``model`` and ``base_url``; options ``api_key_env``, ``timeout``,
      ``max_retries``, ``concurrency``, ``backoff_base``, ``backoff_max``.
    * ``transformers``: ``model`` is the checkpoint path; options ``device``, ``dtype``,
      ``batch_size``.
    * ``replay``: needs the ``path`` option; ``model`` is an optional label.
    """
    cls = _BACKENDS.get(kind)
    if cls is None:
        raise ConfigError(
            f"unknown designer backend {kind!r}; choose one of {', '.join(_BACKENDS)}")
    if base_url is not None and "base_url" not in inspect.signature(cls).parameters:
        served = [name for name, other in _BACKENDS.items() if "base_url" in inspect.signature(other).parameters]
        raise ConfigError(f"base_url only applies to the {' and '.join(served)} backend, not to {kind!r}")
    arguments = cls.required_arguments(model, base_url, options)
    accepted = set(inspect.signature(cls).parameters) - set(arguments) - {"role"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ConfigError(f"unknown option(s) {', '.join(unknown)} for the {kind} backend; "
                          f"accepted: {', '.join(sorted(accepted))}")
    return cls(**arguments, **options)
