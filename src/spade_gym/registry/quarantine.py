"""Quarantine: programs a deployment monitor caught breaking the contract.

A monitor (:mod:`spade_gym.env.monitor`) sees a breach in one process; the quarantine
makes it stick everywhere the program could run again. The mark is keyed by the
program's sha256 — the same hash its card carries — so it follows the program and
not a path or an id (a copy of the program under another name is the same program),
and it lives outside the suite, which may be read-only (an installed wheel).

One small JSON file per program under :func:`quarantine_dir`
(``$SPADE_GYM_QUARANTINE_DIR``, else ``$XDG_CACHE_HOME/spade-gym/quarantine``, else
``~/.cache/spade-gym/quarantine``), written atomically. ``gym.make`` of a quarantined
program raises :class:`~spade_gym.errors.QuarantinedError`; ``spade-gym quarantine``
lists and releases marks.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

from spade_gym.errors import QuarantinedError

QUARANTINE_ENV_VAR = "SPADE_GYM_QUARANTINE_DIR"
#: A mark is a few hundred bytes; anything larger in that folder is not ours.
MAX_MARK_BYTES = 64 * 1024
_SHA = re.compile(r"[0-9a-f]{64}")


def quarantine_dir() -> Path:
    configured = os.environ.get(QUARANTINE_ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "spade-gym" / "quarantine"


def _mark_path(sha256: str) -> Path:
    if not _SHA.fullmatch(sha256 or ""):
        raise ValueError(f"not a program sha256: {sha256!r}")
    return quarantine_dir() / f"{sha256}.json"


def quarantine(sha256: str, *, env_id: str | None, rule: str, message: str) -> Path:
    """Mark the program; a second mark keeps the first (the earliest evidence)."""
    path = _mark_path(sha256)
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"sha256": sha256, "id": env_id, "rule": rule, "message": message,
              "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "pid": os.getpid()}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mark-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _read_mark(path: Path) -> dict[str, Any] | None:
    """A mark file's record, or None for anything that is not a small regular JSON file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MARK_BYTES:
            return None
        data = os.read(fd, MAX_MARK_BYTES + 1)
    finally:
        os.close(fd)
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def mark_of(sha256: str) -> dict[str, Any] | None:
    """The quarantine record of a program, or None."""
    try:
        path = _mark_path(sha256)
    except ValueError:
        return None
    return _read_mark(path)


def check_not_quarantined(sha256: str, env_id: str) -> None:
    mark = mark_of(sha256)
    if mark is not None:
        raise QuarantinedError(
            f"{env_id} is quarantined: its program broke the contract while running ({mark.get('rule')}: "
            f"{mark.get('message')}) on {mark.get('time')}. It will not be built again; see "
            f"`spade-gym quarantine list`, and `spade-gym quarantine release {sha256[:12]}` if you trust it")


def marks() -> list[dict[str, Any]]:
    directory = quarantine_dir()
    if not directory.is_dir():
        return []
    found = []
    for path in sorted(directory.glob("*.json")):
        record = _read_mark(path)
        if record is not None and _SHA.fullmatch(path.stem):
            found.append(dict(record, sha256=path.stem))
    return found


def release(prefix: str) -> list[str]:
    """Remove the marks whose sha256 starts with ``prefix`` (at least 8 hex digits)."""
    if not re.fullmatch(r"[0-9a-f]{8,64}", prefix or ""):
        raise ValueError("give at least 8 hex digits of the program's sha256")
    released = []
    for record in marks():
        if record["sha256"].startswith(prefix):
            _mark_path(record["sha256"]).unlink(missing_ok=True)
            released.append(record["sha256"])
    return released
