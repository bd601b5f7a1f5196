"""The journal: nothing a run finished is lost, nothing is counted twice.

A JSONL file in the run's output folder: a header line (what the run is: its options, so a
resume continues the same run), then one line per finished unit, written, flushed and
fsynced *before* the unit is counted (progress, reports). A crash therefore loses at most
the units in flight, and ``--resume`` runs only the units without a result.

Per key the first result is final: a second one (a unit that answered twice, say after a
timeout retry) is never read. A unit that failed on every attempt (a machine failure) is
journaled too, so the run's reports are complete, and is run again on resume. A torn last
line (the crash hit mid-write) is dropped on open; its unit simply runs again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from spade_gym.executor.base import Executor, ExecutorError, Outcome, Unit

#: The journal's file name inside a run's output folder.
JOURNAL_FILE = "journal.jsonl"
FORMAT = "spade-gym-journal"
VERSION = 1


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, allow_nan=True)


def read(path: str | os.PathLike) -> tuple[dict | None, dict[str, dict], int]:
    """``(header, records by key, duplicates ignored)`` of the journal at ``path``;
    ``(None, {}, 0)`` when there is none. Results beat failures; the first result is final."""
    path = Path(path)
    header: dict | None = None
    records: dict[str, dict] = {}
    duplicates = 0
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return None, {}, 0
    except OSError as exc:
        raise ExecutorError(f"cannot read the journal {path}: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle):  # line by line: a 100k-unit journal is large
            try:
                entry = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue  # the torn tail of a crash
            if not isinstance(entry, dict):
                continue
            if number == 0:
                if entry.get("format") != FORMAT:
                    raise ExecutorError(f"{path} is not a spade-gym journal")
                header = entry
                continue
            key = entry.get("key")
            if not isinstance(key, str):
                continue
            previous = records.get(key)
            if previous is not None and "result" in previous:
                duplicates += 1
            elif "result" in entry or previous is None:
                records[key] = entry
    if header is None:
        raise ExecutorError(f"{path} has no journal header (not a spade-gym journal, or torn at its first line)")
    return header, records, duplicates


class Journal:
    """Append-only, fsynced. ``header`` is written when the file is new; ``done`` holds what an
    earlier run of the same journal finished (results only: failures run again)."""

    def __init__(self, path: str | os.PathLike, header: dict, *, resume: bool = False):
        self.path = Path(path)
        stored, records, self.duplicates = read(self.path)
        if stored is not None and not resume:
            raise ExecutorError(f"{self.path} already holds a run's journal: pass --resume to continue that run, "
                                f"or choose another output folder")
        if stored is None and resume:
            raise ExecutorError(f"nothing to resume: there is no journal at {self.path}")
        self.header = stored if stored is not None else {"format": FORMAT, "version": VERSION, **header}
        self.done: dict[str, dict] = {k: r for k, r in records.items() if "result" in r}
        self.failed_before: dict[str, dict] = {k: r for k, r in records.items() if "result" not in r}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._trim_torn_tail()
            self._handle = open(self.path, "a", encoding="utf-8")
        except OSError as exc:
            raise ExecutorError(f"cannot write the journal {self.path}: {exc.strerror or exc}") from None
        if stored is None:
            self._write(self.header)
            _fsync_dir(self.path.parent)  # the new file's name must survive a crash too

    def _trim_torn_tail(self) -> None:
        """Drop a last line without its newline, unless it is whole (then end it)."""
        if not self.path.exists():
            return
        with open(self.path, "r+b") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            cut, end = 0, size
            while end > 0:  # the last newline, read backwards from the end
                start = max(0, end - (1 << 16))
                handle.seek(start)
                found = handle.read(end - start).rfind(b"\n")
                if found >= 0:
                    cut = start + found + 1
                    break
                end = start
            handle.seek(cut)
            try:
                json.loads(handle.read().decode("utf-8"))
                handle.write(b"\n")  # complete but for its newline: keep it
            except (ValueError, UnicodeDecodeError):
                handle.truncate(cut)
            handle.flush()
            os.fsync(handle.fileno())

    def _write(self, entry: dict) -> None:
        self._handle.write(_dumps(entry) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def append(self, outcome: Outcome) -> dict:
        """Record one finished unit (durably, before the caller counts it); returns the record."""
        entry: dict[str, Any] = {"key": outcome.key, "attempts": outcome.attempts, "node": outcome.node}
        if outcome.ok:
            entry["result"] = outcome.result
        else:
            entry.update(error=outcome.error, failures=outcome.failures)
        self._write(entry)
        if outcome.ok:
            self.done.setdefault(outcome.key, entry)
        return entry

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def run_journaled(executor: Executor, units: Iterable[Unit], journal: Journal | None = None) -> Iterator[Outcome]:
    """``executor.run`` over the units the journal has no result for; each outcome is journaled
    before it is yielded, and a key is yielded at most once."""
    units = list(units)
    keys = [u.key for u in units]
    if len(set(keys)) != len(keys):
        raise ExecutorError("two units of one run share a key: the journal could not tell them apart")
    done = journal.done if journal is not None else {}
    seen: set[str] = set()
    for outcome in executor.run(u for u in units if u.key not in done):
        if outcome.key in seen or outcome.key in done:
            continue
        seen.add(outcome.key)
        if journal is not None:
            journal.append(outcome)
        yield outcome
