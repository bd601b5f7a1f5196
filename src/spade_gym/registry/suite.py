"""Suites on disk: one directory per environment (``env.py`` + ``card.json``).

Reading is cheap (cards only). Writing goes through :meth:`Suite.add`, the one
function every producer uses (``import``, ``generate``, ``selfplay``): it takes the
suite's file lock, decides the version, writes both files into a hidden temporary
directory and renames it into place, so readers (and other writers, in other
processes) never see a half-written environment.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from filelock import FileLock

from spade_gym.errors import IntegrityError, RegistryError
from spade_gym.registry.card import MAX_CARD_BYTES, MAX_VERSION, Card, make_id, sanitize_name
from spade_gym.registry.files import MAX_PROGRAM_BYTES, inspect_suite_file, read_suite_file
from spade_gym.registry.trust import untrusted_reason

ENV_FILE = "env.py"
CARD_FILE = "card.json"
LOCK_FILE = ".suite.lock"
_STALE_TMP_SECONDS = 3600
#: What an entry directory's name looks like (``<Name>-v<N>``, :attr:`Card.dirname`). No
#: card name or id has this form, so :meth:`Suite.get` of one reads that directory only.
_DIRNAME = re.compile(r"[\w\-][\w.\-]*-v\d+")
_Item = TypeVar("_Item")


def sha256_text(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SuiteEntry:
    """One environment of a suite, as read from its card."""

    card: Card
    directory: Path

    @property
    def env_path(self) -> Path:
        return self.directory / ENV_FILE

    @property
    def id(self) -> str:
        return self.card.id

    def read_source(self) -> str:
        """The program text, after checking who could write it and its checksum."""
        reason = untrusted_reason(self.directory.parent, self.directory, self.directory / CARD_FILE)
        if reason is not None:
            raise IntegrityError(f"refusing to run {self.id}: {reason}")
        return read_verified_source(self.env_path, self.card.sha256)


@dataclass(frozen=True)
class EntryRef:
    """An environment of a suite as registration sees it: its id and directory, the card
    not parsed (see :meth:`Suite.refs`)."""

    id: str
    directory: Path


def dirname_id(dirname: str) -> str | None:
    """The id a directory named ``<Name>-v<N>`` holds when its card agrees (``Suite.add`` names
    every directory so: :attr:`Card.dirname`), or None for any other name, whose id only its
    card can tell."""
    name, _, version = dirname.rpartition("-v")
    if (not _DIRNAME.fullmatch(dirname) or not version.isdigit() or int(version) > MAX_VERSION
            or sanitize_name(name) != name or str(int(version)) != version):
        return None
    return make_id(name, int(version))


def check_dirname(directory: Path, card: Card) -> None:
    """Raise unless the card in ``directory`` holds the id its directory name gives: ids are
    registered from directory names (:meth:`Suite.refs`), so a card edited or moved to
    another directory must not run under an id it does not have."""
    expected = dirname_id(directory.name)
    if expected is not None and expected != card.id:
        raise RegistryError(f"{directory / CARD_FILE}: the card is {card.id}, but its directory "
                            f"{directory.name} is registered as {expected}; rename the directory "
                            f"to {card.dirname}")


def read_verified_source(env_path: str | os.PathLike, expected_sha256: str) -> str:
    """The text of ``env_path`` if it is a trusted regular file of at most
    :data:`~spade_gym.registry.files.MAX_PROGRAM_BYTES` whose sha256 is ``expected_sha256``
    (checked and read through one descriptor: :func:`~spade_gym.registry.files.read_suite_file`)."""
    data = read_suite_file(env_path, what="program", limit=MAX_PROGRAM_BYTES)
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise IntegrityError(
            f"{env_path} does not match the sha256 on its card (expected {expected_sha256[:12]}..., "
            f"found {actual[:12]}...): the file was modified or corrupted; refusing to run it"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IntegrityError(f"{env_path} is not UTF-8 text ({exc}); refusing to run it") from None


class Suite:
    """A directory of environments."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).expanduser()
        #: Why each entry left out by the last :meth:`entries` call was skipped.
        self.skipped: list[str] = []

    def __repr__(self) -> str:
        return f"Suite({str(self.path)!r})"

    # ------------------------------------------------------------------ reading

    def entries(self) -> list[SuiteEntry]:
        """Every environment that can be read and trusted (see :mod:`spade_gym.registry.trust`),
        sorted by directory name. Each one left out is recorded with its reason in
        :attr:`skipped`: whatever is on disk, this never raises (a hostile card must not
        break every reader)."""
        self.skipped = []
        return self._read(self.skipped.append, self._read_entry)

    def refs(self) -> list[EntryRef | SuiteEntry]:
        """What :meth:`entries` would list, as ids and directories, without parsing the cards
        whose directory name gives their id (every directory :meth:`add` writes): the cheap
        checks (trust, each file a regular file within its cap) run now, the card itself is
        read when the environment is made (:func:`check_dirname`). Registering a suite costs a
        few ``stat`` calls per entry, however large its cards. Skips go to :attr:`skipped`."""
        self.skipped = []
        return self._read(self.skipped.append, self._read_ref)

    def entries_or_raise(self) -> list[SuiteEntry]:
        """Every environment, sorted by directory name; raises :class:`RegistryError` on the
        first one that cannot be read or trusted (for readers that must see the whole suite)."""
        self.skipped = []
        return self._read(None, self._read_entry)

    def _read(self, skip: Callable[[str], object] | None, read: Callable[[Path], _Item]) -> list[_Item]:
        """``read`` of every entry directory; each failure goes to ``skip``, or is raised where
        there is none."""

        def failed(exc: Exception, where: Path) -> None:
            error = _as_registry_error(exc, where)
            if skip is None:
                raise error from None
            skip(str(error))

        try:
            self._check_suite()
            directories = sorted(self.path.iterdir())
        except Exception as exc:  # noqa: BLE001 - reported through failed()
            failed(exc, self.path)
            return []
        out = []
        for directory in directories:
            try:
                # lexists, not is_file: a card.json that is a FIFO, a device or a link loop is a
                # hostile entry to report, not a directory without a card to pass over
                if directory.name.startswith(".") or not os.path.lexists(directory / CARD_FILE):
                    continue
                entry = read(directory)
            except Exception as exc:  # noqa: BLE001 - a hostile card must not break every reader
                failed(exc, directory)
                continue
            out.append(entry)
        return out

    def _check_suite(self) -> None:
        """Raise unless the suite directory exists and is trusted."""
        if not self.path.is_dir():
            raise RegistryError(f"suite directory {self.path} does not exist"
                                + (" (it is a file)" if self.path.exists() else ""))
        reason = untrusted_reason(self.path)
        if reason is not None:
            raise IntegrityError(f"refusing suite {self.path}: {reason}")

    @staticmethod
    def _read_entry(directory: Path) -> SuiteEntry:
        """The entry in ``directory``: its card read and checked, and its program checked to be
        a readable, trusted regular file within the cap (not read: registration stays cheap)."""
        reason = untrusted_reason(directory)
        if reason is not None:
            raise IntegrityError(f"refusing {directory.name}: {reason}")
        card = Card.load(directory / CARD_FILE)
        inspect_suite_file(directory / ENV_FILE, what="program", limit=MAX_PROGRAM_BYTES)
        return SuiteEntry(card, directory)

    @classmethod
    def _read_ref(cls, directory: Path) -> EntryRef | SuiteEntry:
        """The checks of :meth:`_read_entry` but the card's content, where the directory name
        gives the id; else the entry itself (only its card can tell its id)."""
        env_id = dirname_id(directory.name)
        if env_id is None:
            return cls._read_entry(directory)
        reason = untrusted_reason(directory)
        if reason is not None:
            raise IntegrityError(f"refusing {directory.name}: {reason}")
        inspect_suite_file(directory / CARD_FILE, what="card", limit=MAX_CARD_BYTES)
        inspect_suite_file(directory / ENV_FILE, what="program", limit=MAX_PROGRAM_BYTES)
        return EntryRef(env_id, directory)

    def entry(self, dirname: str) -> SuiteEntry:
        """The environment in the directory ``dirname`` of this suite, with the checks of
        :meth:`entries_or_raise`, reading no other card (one lookup costs one card, not the suite)."""
        if not dirname or dirname.startswith(".") or os.sep in dirname or (os.altsep and os.altsep in dirname):
            raise RegistryError(f"{dirname!r} is not an environment directory name")
        try:
            self._check_suite()
            directory = self.path / dirname
            if not os.path.lexists(directory / CARD_FILE):
                raise RegistryError(f"no environment {dirname!r} in suite {self.path}")
            return self._read_entry(directory)
        except Exception as exc:  # noqa: BLE001 - whatever is on disk becomes a RegistryError
            raise _as_registry_error(exc, self.path / dirname) from None

    def get(self, env_id_or_name: str) -> SuiteEntry:
        """The first entry (by directory name) whose id, name or directory is ``env_id_or_name``.

        A directory name (``Name-v3``) reads that directory only: no card name or id can
        take that form, so no other entry could match first.
        """
        if _DIRNAME.fullmatch(env_id_or_name) and os.path.lexists(self.path / env_id_or_name / CARD_FILE):
            try:
                return self.entry(env_id_or_name)
            except RegistryError:
                pass  # the full pass below says why, as it always has
        for entry in self.entries():
            if env_id_or_name in (entry.id, entry.card.name, entry.directory.name):
                return entry
        short = env_id_or_name.rsplit("/", 1)[-1]
        why = [problem for problem in self.skipped if short in problem]
        raise RegistryError(f"no environment {env_id_or_name!r} in suite {self.path}"
                            + (f" ({why[0]})" if why else ""))

    def find_source(self, sha256: str) -> SuiteEntry | None:
        for entry in self.entries():
            if entry.card.sha256 == sha256:
                return entry
        return None

    # ------------------------------------------------------------------ writing

    def lock(self) -> FileLock:
        self.path.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.path / LOCK_FILE), timeout=120)

    def add(self, source: str, card: Card) -> SuiteEntry:
        """Register ``source`` with ``card`` atomically; returns the stored entry.

        The card's ``sha256`` is set from the source. If an environment with the same
        name already holds the same program, that entry is returned unchanged (adding is
        idempotent); if the name is taken by different code, the version is bumped past
        every existing version of that name.
        """
        card.sha256 = sha256_text(source)
        card.name = sanitize_name(card.name)
        with self.lock():
            self._clean_stale_tmp()
            same_name = [e for e in self.entries() if e.card.name == card.name]
            for entry in same_name:
                if entry.card.sha256 == card.sha256:
                    return entry
            if same_name:
                card.version = max(card.version, max(e.card.version for e in same_name) + 1)
            final = self.path / card.dirname
            if final.exists():
                why = next((problem for problem in self.skipped if final.name in problem), "it has no readable card")
                raise RegistryError(f"{final} exists but cannot be used ({why}); remove it or fix it")
            tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=self.path))
            try:
                (tmp / ENV_FILE).write_text(source, encoding="utf-8")
                (tmp / CARD_FILE).write_text(card.dumps(), encoding="utf-8")
                for name in (ENV_FILE, CARD_FILE):
                    with open(tmp / name, "rb") as handle:
                        os.fsync(handle.fileno())
                os.chmod(tmp, 0o755)
                os.rename(tmp, final)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            _fsync_dir(self.path)
        return SuiteEntry(card, final)

    def update_card(self, entry: SuiteEntry, **changes) -> SuiteEntry:
        """Rewrite a card (e.g. new stats) atomically; the program is never touched."""
        with self.lock():
            return self._rewrite_card(entry.directory, changes)

    def replace_validations(self, updates: list[tuple[SuiteEntry, str, dict]]) -> list[str | None]:
        """Replace the ``validation`` record of several cards, under one hold of the suite lock.

        Each update is ``(entry, validated_source, validation)``: the record is written only
        if the card still names that program and ``env.py`` still holds it, so a program
        re-registered or edited while it was being validated never gets another program's
        verdict. Returns, per update, None when written, else why it was not.
        """
        outcomes: list[str | None] = []
        with self.lock():
            for entry, source, validation in updates:
                try:
                    current = Card.load(entry.directory / CARD_FILE)
                    if current.sha256 != sha256_text(source):
                        outcomes.append(f"{entry.id}: the card names another program than the one validated "
                                        "(re-registered meanwhile); not written")
                        continue
                    SuiteEntry(current, entry.directory).read_source()  # trust and checksum, now
                    self._rewrite_card(entry.directory, {"validation": validation})
                except RegistryError as exc:
                    outcomes.append(f"{entry.id}: {exc}; not written")
                    continue
                outcomes.append(None)
        return outcomes

    @staticmethod
    def _rewrite_card(directory: Path, changes: dict) -> SuiteEntry:
        """Apply ``changes`` to the card in ``directory`` and replace it atomically (lock held)."""
        current = Card.load(directory / CARD_FILE)
        for key, value in changes.items():
            if key in ("sha256", "name", "version"):
                raise RegistryError(f"{key} of a registered environment cannot change")
            setattr(current, key, value)
        current._check(str(directory / CARD_FILE))  # a bad value must not reach the disk
        tmp = directory / f".{CARD_FILE}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(current.dumps())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, directory / CARD_FILE)
        return SuiteEntry(current, directory)

    def _clean_stale_tmp(self) -> None:
        now = time.time()
        for path in self.path.glob(".tmp-*"):
            try:
                if now - path.stat().st_mtime > _STALE_TMP_SECONDS:
                    shutil.rmtree(path, ignore_errors=True)
            except OSError:
                pass


def _as_registry_error(exc: BaseException, where: Path) -> RegistryError:
    if isinstance(exc, RegistryError):
        return exc
    return RegistryError(f"{where}: cannot read ({type(exc).__name__}: {exc})")


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
