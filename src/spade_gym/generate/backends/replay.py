"""Completions served from a JSONL log of earlier ones: reproducible runs and deterministic tests."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.generate.backends.base import BackendError, Completion, _check_request, _ContextManaged


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
        #: Per request seed, the model that wrote it, when the run spread requests over endpoints.
        self._designed_by: dict[int, str] = {}
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
                if isinstance(record.get("designed_by"), str):
                    self._designed_by[record["request_seed"]] = record["designed_by"]
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
            return [Completion(self._by_seed[seed], model=self._designed_by.get(seed))]
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
