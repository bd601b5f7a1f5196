"""Who may have written a suite: the rule that keeps planted programs out of the registry.

A card that says "valid" is only as trustworthy as whoever could write it. A suite (or
an entry, or its files) that another user can write — world-writable, or owned by a
uid other than ours — may hold a program planted there with a forged card, so it is
refused: skipped with a warning when suites are read, an error when an environment is
built. Trusted owners are this process's user, root, and the owner of spade-gym's own
code (whoever can change that could change the checks too; this keeps a package
installed by another user, or a container's mounted checkout, usable).
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def trusted_uids() -> frozenset[int]:
    package_owner = Path(__file__).resolve().parent.parent.stat().st_uid
    return frozenset({os.geteuid(), 0, package_owner})


def untrusted_reason(*paths: Path) -> str | None:
    """Why ``paths`` cannot be trusted (the first problem found), or None if they can.

    Symbolic links are followed: what matters is who can write what is read.
    """
    for path in paths:
        try:
            info = os.stat(path)
        except OSError as exc:
            return f"cannot inspect {path} ({exc.strerror or exc})"
        reason = untrusted_stat_reason(path, info)
        if reason is not None:
            return reason
    return None


def untrusted_stat_reason(path: str | os.PathLike, info: os.stat_result) -> str | None:
    """Why the file described by ``info`` (a ``stat`` or ``fstat`` of ``path``) cannot be
    trusted, or None. Readers pass the ``fstat`` of the descriptor they read from, so the
    file judged is the file read."""
    if info.st_mode & stat.S_IWOTH:
        return f"{path} is writable by every user (mode {stat.filemode(info.st_mode)})"
    if info.st_uid not in trusted_uids():
        return f"{path} is owned by another user (uid {info.st_uid})"
    return None
