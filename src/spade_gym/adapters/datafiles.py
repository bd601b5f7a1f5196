"""Benchmark data (AIME, GPQA, LiveCodeBench) from a file the user points at, or from the Hugging Face hub.

Why a module of its own: the three benchmarks read their questions the same ways, and only
this module knows them. Where a benchmark's rows come from, first match wins:

1. ``gym.make(id, data_file=PATH)``;
2. the benchmark's own variable, e.g. ``SPADE_GYM_AIME_2025_FILE=PATH``;
3. ``$SPADE_GYM_BENCHMARK_DATA/<key>.<ext>`` (``aime-2025.jsonl``, ``gpqa-diamond.parquet``...);
4. the hub, through the ``datasets`` library (imported only then), when it is installed and
   the machine is online (gated datasets such as GPQA need ``HF_TOKEN``) — but not while
   ``$SPADE_GYM_BENCHMARK_DATA`` is set: a data directory means "these files, nothing fetched",
   so ``--envs 'spade/aime-*'`` plays the years it holds without trying the network for the others.

Files are JSON lines (``.jsonl``, optionally ``.gz``), a JSON array (``.json``) or Parquet
(``.parquet``, read with pyarrow, or through ``datasets`` without it). Rows are read when
asked for, not all at once: a large JSON-lines file (LiveCodeBench's are gigabytes) is
indexed by line offsets, Parquet and hub data stay memory-mapped in Arrow. Each source is
opened once per process.

The data is trusted to be what it says (questions and answers); a row that is not in the
expected shape is a :class:`BenchmarkDataError` naming the file and row.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError

#: A directory holding benchmark files under their conventional names.
DATA_DIR_ENV = "SPADE_GYM_BENCHMARK_DATA"
#: File endings looked for in that directory, in this order.
EXTENSIONS = (".jsonl", ".jsonl.gz", ".json", ".parquet")


class BenchmarkDataUnavailable(ConfigError):
    """No file was given for a benchmark and the hub could not be used."""


class BenchmarkDataError(ConfigError):
    """A benchmark file is unreadable or a row is not in the expected shape."""


@dataclass(frozen=True)
class HubSource:
    """A dataset on the Hugging Face hub: ``datasets.load_dataset(path, name, split=..., data_files=...)``."""

    path: str
    name: str | None = None
    split: str = "train"
    data_files: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = [self.path] + ([self.name] if self.name else []) + [f"split {self.split}"]
        if self.data_files:
            parts.append(f"{len(self.data_files)} file(s)")
        return ", ".join(parts)


@dataclass(frozen=True)
class DataSpec:
    """Where one benchmark variant's rows can come from."""

    key: str  #: ``aime-2025``: the conventional file name and the variable's name
    hub: HubSource | None = None
    file_env: str = field(default="")

    def __post_init__(self):
        if not self.file_env:
            object.__setattr__(self, "file_env", "SPADE_GYM_" + self.key.upper().replace("-", "_") + "_FILE")


class Rows(Sequence):
    """Rows of a benchmark, read on demand; ``identity`` names the data (path, size, mtime, or the hub
    dataset's fingerprint), so results of other data under the same id are never reused."""

    def __init__(self, identity: str, origin: str, length: int, get):
        self.identity = identity
        self.origin = origin
        self._length = length
        self._get = get

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if not -self._length <= index < self._length:
            raise IndexError(index)
        row = self._get(index % self._length)
        if not isinstance(row, dict):
            raise BenchmarkDataError(f"{self.origin}, row {index + 1}: expected a JSON object, got "
                                     f"{type(row).__name__}")
        return row


_opened: dict[tuple, Rows] = {}
_opening = threading.Lock()


def resolve_file(spec: DataSpec, data_file: str | os.PathLike | None = None) -> Path | None:
    """The local file for ``spec`` (see the module docstring), or None when there is none."""
    if data_file is not None:
        path = Path(data_file).expanduser()
        if not path.is_file():
            raise BenchmarkDataError(f"data_file {path} does not exist")
        return path
    named = os.environ.get(spec.file_env)
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise BenchmarkDataError(f"${spec.file_env} names {path}, which does not exist")
        return path
    directory = os.environ.get(DATA_DIR_ENV)
    if directory:
        for extension in EXTENSIONS:
            path = Path(directory).expanduser() / f"{spec.key}{extension}"
            if path.is_file():
                return path
    return None


def load_rows(spec: DataSpec, data_file: str | os.PathLike | None = None) -> Rows:
    """The rows of ``spec``'s benchmark: from a local file if one is found, else from the hub."""
    path = resolve_file(spec, data_file)
    if path is not None:
        stat = path.stat()
        key: tuple = ("file", str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    elif os.environ.get(DATA_DIR_ENV):
        raise BenchmarkDataUnavailable(_unavailable(
            spec, f"${DATA_DIR_ENV} is set and holds no {spec.key} file (the hub is used only without it)"))
    elif spec.hub is not None:
        key = ("hub", spec.hub)
    else:
        raise BenchmarkDataUnavailable(_unavailable(spec, "it has no hub dataset"))
    with _opening:
        rows = _opened.get(key)
        if rows is None:
            rows = _opened[key] = _open_file(path) if path is not None else _open_hub(spec)
    return rows


def _unavailable(spec: DataSpec, why: str) -> str:
    return (f"no data for {spec.key}: {why}. Point at a local file with ${spec.file_env}=PATH, "
            f"gym.make(..., data_file=PATH) or ${DATA_DIR_ENV}=DIR holding {spec.key}.jsonl (or .parquet); "
            "see docs/benchmarks.md")


def _identity(*parts: object) -> str:
    return "data:" + hashlib.sha256(json.dumps([str(p) for p in parts]).encode()).hexdigest()[:16]


def _open_file(path: Path) -> Rows:
    name = path.name.lower()
    stat = path.stat()
    identity = _identity(path.resolve(), stat.st_size, stat.st_mtime_ns)
    if name.endswith(".parquet"):
        return _open_parquet(path, identity)
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            head = handle.read(4096).lstrip()
    except OSError as exc:
        raise BenchmarkDataError(f"cannot read {path}: {exc}") from None
    if head.startswith(b"[") or name.endswith(".gz"):
        rows = _read_whole(path, opener, array=head.startswith(b"["))
        return Rows(identity, str(path), len(rows), rows.__getitem__)
    return _open_jsonl(path, identity)


def _read_whole(path: Path, opener, *, array: bool) -> list:
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            if array:
                rows = json.load(handle)
                if not isinstance(rows, list):
                    raise BenchmarkDataError(f"{path}: a .json benchmark file must hold a list of rows")
                return rows
            return [json.loads(line) for line in handle if line.strip()]
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BenchmarkDataError(f"{path} is not JSON lines or a JSON array: {exc}") from None


def _open_jsonl(path: Path, identity: str) -> Rows:
    """JSON lines, indexed by the offset of each non-empty line: rows are parsed when asked for."""
    offsets: list[int] = []
    with open(path, "rb") as handle:
        position = 0
        for line in handle:
            if line.strip():
                offsets.append(position)
            position += len(line)
    lock = threading.Lock()
    handle = open(path, "rb")  # noqa: SIM115 - kept open for the life of the process, like a mapped file

    def get(index: int) -> Any:
        with lock:
            handle.seek(offsets[index])
            line = handle.readline()
        try:
            return json.loads(line)
        except ValueError as exc:
            raise BenchmarkDataError(f"{path}, line with row {index + 1}: not JSON ({exc})") from None

    return Rows(identity, str(path), len(offsets), get)


def _open_parquet(path: Path, identity: str) -> Rows:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return _open_with_datasets("parquet", str(path), identity)
    try:
        table = pq.read_table(path, memory_map=True)
    except Exception as exc:  # pyarrow raises its own error types for a damaged file
        raise BenchmarkDataError(f"cannot read Parquet file {path}: {exc}") from None
    return Rows(identity, str(path), table.num_rows, lambda i: table.slice(i, 1).to_pylist()[0])


def _datasets_module():
    """The ``datasets`` library, imported only when a benchmark needs it (None when not installed)."""
    try:
        import datasets
    except ImportError:
        return None
    return datasets


def _open_with_datasets(builder: str, data_file: str, identity: str) -> Rows:
    datasets = _datasets_module()
    if datasets is None:
        raise BenchmarkDataError(f"reading {data_file} needs pyarrow or the datasets package (pip install pyarrow)")
    dataset = datasets.load_dataset(builder, data_files=data_file, split="train")
    return Rows(identity, data_file, len(dataset), dataset.__getitem__)


def _open_hub(spec: DataSpec) -> Rows:
    hub = spec.hub
    assert hub is not None, "callers check that the spec has a hub source"
    datasets = _datasets_module()
    if datasets is None:
        raise BenchmarkDataUnavailable(_unavailable(spec, "the datasets package is not installed "
                                                          "(pip install datasets), so the hub cannot be used"))
    try:
        dataset = datasets.load_dataset(hub.path, hub.name, split=hub.split,
                                        data_files=list(hub.data_files) or None)
    except Exception as exc:  # offline, gated, renamed: say which and how to do without the hub
        raise BenchmarkDataUnavailable(_unavailable(
            spec, f"loading {hub.describe()} from the hub failed ({type(exc).__name__}: {str(exc)[:300]})")) from None
    identity = _identity(hub, getattr(dataset, "_fingerprint", ""))
    return Rows(identity, f"hub dataset {hub.describe()}", len(dataset), dataset.__getitem__)


def first_field(row: dict, names: Sequence[str], *, what: str, origin: str, index: int) -> Any:
    """The value of the first of ``names`` that ``row`` has (not None), or a :class:`BenchmarkDataError`."""
    for name in names:
        value = row.get(name)
        if value is not None:
            return value
    raise BenchmarkDataError(f"{origin}, row {index + 1}: no {what} (looked for {', '.join(names)}; "
                             f"the row has {', '.join(sorted(row)) or 'no fields'})")
