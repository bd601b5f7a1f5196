"""Design requests spread over several OpenAI-compatible designer endpoints.

Swapping designers is how a run buys diversity (and throughput): ``spade-gym generate``
takes several ``--base-url/--model`` pairs, or a file of them, and :class:`EndpointPool`
sends each design request to an endpoint with free capacity. A failed request is retried
on another endpoint; the endpoint that failed rests for an exponentially growing while,
and after :attr:`EndpointPool.down_after` failures in a row it is out of the run, which
goes on with the others. When every endpoint is out the pool raises
:class:`EndpointUnreachable`, which stops the run like a dead single server does
(registrations are atomic, so whatever was accepted stays whole).

Each completion names the model that wrote it (:attr:`Completion.model`), so every card
records its own designer in the usual provenance fields.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.generate.backends.base import BackendError, Completion, EndpointUnreachable, _ContextManaged

log = logging.getLogger(__name__)

#: Keys an endpoint entry of an ``--endpoints`` file may carry.
ENDPOINT_KEYS = ("base_url", "model", "concurrency", "api_key_env")


@dataclass(frozen=True)
class Endpoint:
    """One designer server and the model asked of it."""

    base_url: str
    model: str
    concurrency: int | None = None  # None: the run's --concurrency
    api_key_env: str | None = None  # None: the run's --api-key-env


def pair_endpoints(base_urls: Sequence[str], models: Sequence[str]) -> list[Endpoint]:
    """``--base-url``/``--model`` pairs, matched in order; one model serves every url."""
    if not base_urls:
        raise ConfigError("no --base-url given")
    if len(models) == 1:
        models = list(models) * len(base_urls)
    if len(models) != len(base_urls):
        raise ConfigError(f"{len(base_urls)} --base-url but {len(models)} --model: give one --model for every "
                          f"--base-url (paired in order), or a single --model for all of them")
    return [Endpoint(url, model) for url, model in zip(base_urls, models, strict=True)]


def read_endpoints(path: str | Path) -> list[Endpoint]:
    """Endpoints from a JSON list of objects, or JSON lines (one object a line)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read endpoints file {path}: {exc}") from exc
    try:
        data = json.loads(text)
        entries = data if isinstance(data, list) else [data]
    except ValueError:
        entries = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entries.append(json.loads(line))
            except ValueError as exc:
                raise ConfigError(f"{path}:{number}: not JSON ({exc}); write a JSON list of endpoint objects "
                                  f"or one object a line") from None
    if not entries:
        raise ConfigError(f"{path} lists no endpoints")
    return [_endpoint(entry, f"{path} entry {i}") for i, entry in enumerate(entries, start=1)]


def _endpoint(entry: Any, where: str) -> Endpoint:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected an object with base_url and model, got {type(entry).__name__}")
    unknown = sorted(set(entry) - set(ENDPOINT_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; accepted: {', '.join(ENDPOINT_KEYS)}")
    for key in ("base_url", "model"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ConfigError(f"{where}: {key} must be a non-empty string")
    concurrency = entry.get("concurrency")
    if concurrency is not None and (not isinstance(concurrency, int) or isinstance(concurrency, bool)
                                    or concurrency < 1):
        raise ConfigError(f"{where}: concurrency must be a whole number >= 1, got {concurrency!r}")
    api_key_env = entry.get("api_key_env")
    if api_key_env is not None and not isinstance(api_key_env, str):
        raise ConfigError(f"{where}: api_key_env must be a string")
    return Endpoint(entry["base_url"], entry["model"], concurrency, api_key_env)


class _Slot:
    """One endpoint's backend and its scheduling state (guarded by the pool's condition)."""

    def __init__(self, endpoint: Endpoint, backend: Any):
        self.endpoint = endpoint
        self.backend = backend
        self.capacity = endpoint.concurrency or 1
        self.in_flight = 0
        self.sent = 0  # requests taken so far
        self.failures = 0  # in a row
        self.resting_until = 0.0
        self.down = False
        self.last_error = ""


class EndpointPool(_ContextManaged):
    """A :class:`~spade_gym.generate.backends.DesignerBackend` over several endpoints.

    ``backends`` are built per endpoint by ``make`` (an ``OpenAIBackend`` with no retries of
    its own: the pool retries on *another* endpoint, which is faster than waiting on a
    failing one). A request goes to the least loaded endpoint with a free slot that is not
    resting (ties: the one that has taken the fewest requests for its size), preferring
    endpoints that have not failed it yet; at most ``attempts``
    endpoints (counting repeats) are tried before the request fails with the last error.
    """

    name = "openai"

    def __init__(self, endpoints: Sequence[Endpoint], make: Callable[[Endpoint], Any], *, attempts: int = 6,
                 backoff_base: float = 1.0, backoff_max: float = 30.0, down_after: int = 4):
        if not endpoints:
            raise ConfigError("an endpoint pool needs at least one endpoint")
        if attempts < 1 or down_after < 1 or backoff_base < 0 or backoff_max < 0:
            raise ConfigError(f"invalid endpoint pool settings: attempts={attempts} (>= 1), "
                              f"down_after={down_after} (>= 1), backoff_base/backoff_max >= 0")
        self.attempts = attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.down_after = down_after
        self._slots: list[_Slot] = []
        try:
            for endpoint in endpoints:
                self._slots.append(_Slot(endpoint, make(endpoint)))
        except BaseException:
            self.close()
            raise
        models = list(dict.fromkeys(e.model for e in endpoints))
        #: The run's designer in the log header; each card names its own (Completion.model).
        self.model = ",".join(models)
        self._cond = threading.Condition()

    @property
    def endpoints(self) -> list[Endpoint]:
        return [slot.endpoint for slot in self._slots]

    @property
    def capacity(self) -> int:
        """Requests all endpoints together take at once."""
        return sum(slot.capacity for slot in self._slots)

    def check_endpoint(self, timeout: float = 10.0) -> None:
        """Probe every endpoint; an unreachable one is out of the run, all of them is an error."""
        problems = []
        for slot in self._slots:
            try:
                slot.backend.check_endpoint(timeout)
            except BackendError as exc:
                slot.down, slot.last_error = True, str(exc)
                problems.append(str(exc))
                log.warning("designer endpoint %s is out of the run: %s", slot.endpoint.base_url, exc)
        if len(problems) == len(self._slots):
            raise EndpointUnreachable("no designer endpoint answered: " + "; ".join(problems))

    def complete(self, messages: list[dict], *, n: int = 1, temperature: float = 0.7, max_tokens: int = 4096,
                 seed: int | None = None) -> list[Completion]:
        tried: set[int] = set()
        last: BackendError | None = None
        for _ in range(self.attempts):
            index = self._acquire(tried)
            slot = self._slots[index]
            tried.add(index)
            try:
                completions = slot.backend.complete(messages, n=n, temperature=temperature, max_tokens=max_tokens,
                                                    seed=seed)
            except BackendError as exc:
                self._release(slot, exc)
                last = exc
                continue
            except BaseException:
                self._release(slot, None, counted=False)
                raise
            self._release(slot, None)
            return [replace(c, model=slot.endpoint.model) for c in completions]
        assert last is not None
        raise BackendError(f"design request failed on {len(tried)} endpoint(s); last error: {last}",
                           status=last.status)

    def _acquire(self, tried: set[int]) -> int:
        """Block until an endpoint can take the request; take one of its slots."""
        with self._cond:
            while True:
                live = [i for i, s in enumerate(self._slots) if not s.down]
                if not live:
                    raise EndpointUnreachable("every designer endpoint failed repeatedly and is out of the run: "
                                              + "; ".join(f"{s.endpoint.base_url} ({s.endpoint.model}): "
                                                          f"{s.last_error}" for s in self._slots))
                now = time.monotonic()
                ready = [i for i in live if self._slots[i].in_flight < self._slots[i].capacity
                         and self._slots[i].resting_until <= now]
                if ready:
                    # Untried endpoints first (a retry goes elsewhere), then the least loaded, then
                    # the one that has taken the fewest requests for its size: when requests come
                    # one at a time (validation dominating) they still rotate over the designers,
                    # which is what swapping designers is for.
                    def rank(i: int) -> tuple:
                        slot = self._slots[i]
                        return (i in tried, slot.in_flight / slot.capacity, slot.sent / slot.capacity, i)

                    index = min(ready, key=rank)
                    self._slots[index].in_flight += 1
                    self._slots[index].sent += 1
                    return index
                waits = [self._slots[i].resting_until - now for i in live if self._slots[i].resting_until > now]
                self._cond.wait(timeout=min(waits) if waits else None)

    def _release(self, slot: _Slot, error: BackendError | None, *, counted: bool = True) -> None:
        with self._cond:
            slot.in_flight -= 1
            if counted and error is None:
                slot.failures = 0
            elif counted and error is not None:
                slot.failures += 1
                slot.last_error = str(error)
                rest = min(self.backoff_max, self.backoff_base * 2 ** (slot.failures - 1))
                slot.resting_until = time.monotonic() + rest
                if slot.failures >= self.down_after:
                    slot.down = True
                    log.warning("designer endpoint %s failed %d times in a row and is out of the run: %s",
                                slot.endpoint.base_url, slot.failures, error)
                else:
                    log.warning("designer endpoint %s failed (%s); resting it %.1fs", slot.endpoint.base_url,
                                error, rest)
            self._cond.notify_all()

    def close(self) -> None:
        for slot in self._slots:
            slot.backend.close()
