"""Reading a suite's files: regular files only, size-capped, judged and read through one descriptor.

Every file in a suite is hostile until checked. An ``env.py`` that is a FIFO blocks a
plain ``read_bytes()`` forever (``gym.make`` and ``spade-gym show`` hang), one that is a
link to ``/dev/zero`` never ends, a sparse card of a terabyte exhausts memory; and a
path that is checked, then opened again, can be swapped in between. So every read of a
card or a program goes through :func:`read_suite_file`: it opens the path once, with
``O_NONBLOCK`` (opening a FIFO never waits for a writer), checks the ``fstat`` of that
descriptor (a regular file, within the size cap, whose owner and mode pass
:mod:`~spade_gym.registry.trust`) and reads at most the cap from the same descriptor.

Symbolic links are followed (no ``O_NOFOLLOW``), as the trust rule decides: what matters
is who can write what is read, and the checks apply to the file the link leads to. A
link loop fails the open at once (``ELOOP``).
"""

from __future__ import annotations

import errno
import os
import stat

from spade_gym.errors import IntegrityError, RegistryError
from spade_gym.registry.trust import untrusted_stat_reason

#: Longest ``env.py`` read (bytes): the longest program the sandbox compiles
#: (``spade_gym.sandbox.language.compiler.MAX_SOURCE_CHARS``, 200,000 characters) at the most
#: UTF-8 can spend on a character (4 bytes). Not imported from the sandbox, so that
#: registration at ``import spade_gym`` does not load it; a test holds the two together.
MAX_PROGRAM_BYTES = 4 * 200_000

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_READ_CHUNK = 1 << 16


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


def _size_text(size: int) -> str:
    return f"{size // 1024} KiB" if size >= 1024 else f"{size} bytes"


def check_suite_file(path: str | os.PathLike, info: os.stat_result, *, what: str, limit: int) -> None:
    """Raise unless ``info`` (a ``stat``/``fstat`` of ``path``) is a regular file of at most
    ``limit`` bytes that a trusted user owns and others cannot write."""
    if not stat.S_ISREG(info.st_mode):
        raise RegistryError(f"{path}: the {what} is {_file_type(info.st_mode)}, not a regular file; "
                            "refusing to read it")
    if info.st_size > limit:
        raise RegistryError(f"{path}: the {what} is {info.st_size:,} bytes, over the {_size_text(limit)} limit; "
                            "refusing to read it")
    reason = untrusted_stat_reason(path, info)
    if reason is not None:
        raise IntegrityError(f"refusing the {what} {path}: {reason}")


def _os_error(path: str | os.PathLike, what: str, exc: OSError) -> RegistryError:
    if exc.errno == errno.ELOOP:
        why = "a loop of symbolic links"
    else:
        why = exc.strerror or str(exc)
    return RegistryError(f"{path}: cannot read the {what} ({why})")


def inspect_suite_file(path: str | os.PathLike, *, what: str, limit: int) -> os.stat_result:
    """The checks of :func:`read_suite_file` without opening the file: for scans that only
    need to know a file could be read later (registration looks at ``env.py`` this way)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _os_error(path, what, exc) from None
    check_suite_file(path, info, what=what, limit=limit)
    return info


def read_suite_file(path: str | os.PathLike, *, what: str, limit: int) -> bytes:
    """The bytes of a card or program of a suite, checked (see the module docstring).

    ``what`` names the file in errors ("card", "program"). Raises :class:`RegistryError`
    (missing, not a regular file, over ``limit``, a link loop) or :class:`IntegrityError`
    (untrusted owner or mode), at once whatever the path is.
    """
    # Judge the path before opening it: opening some devices does something (a tape
    # rewinds, a terminal becomes ours). The fstat of the descriptor is what decides.
    inspect_suite_file(path, what=what, limit=limit)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise _os_error(path, what, exc) from None
    try:
        check_suite_file(path, os.fstat(fd), what=what, limit=limit)
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, min(_READ_CHUNK, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew since the fstat
                raise RegistryError(f"{path}: the {what} grew over the {_size_text(limit)} limit while it was "
                                    "read; refusing it")
        return b"".join(chunks)
    except OSError as exc:
        raise _os_error(path, what, exc) from None
    finally:
        os.close(fd)
