"""Which directories a worker may import from and read, computed by the host.

A worker may read only what a program's run needs: the interpreter's standard library
and the ``site-packages`` directories that hold the vetted third-party modules, plus
spade-gym's own package directory. Never the host's working directory, the directory
of the script that started the host (where a ``.env`` file often lives) or any other
``sys.path`` entry. Found from the modules' own locations, not by importing the
``spade_gym`` package (the sandbox knows nothing of the package above it).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from pathlib import Path

#: Third-party modules a worker imports (before confinement) and may read lazily after.
VETTED_DISTRIBUTIONS = ("numpy", "RestrictedPython", "gymnasium")

_SANDBOX_DIR = Path(__file__).resolve().parent.parent  # .../spade_gym/sandbox (this is sandbox/process/)


def package_dir() -> str:
    """spade-gym's own package directory (``.../spade_gym``)."""
    return str(_SANDBOX_DIR.parent)


def package_root() -> str:
    """The directory holding the ``spade_gym`` package (what goes on a worker's path)."""
    return str(_SANDBOX_DIR.parent.parent)


def _stdlib_dirs() -> list[str]:
    names = ("stdlib", "platstdlib")
    dirs = {sysconfig.get_paths()[name] for name in names}
    dirs |= {sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})[n] for n in names}
    dynload = [p for p in sys.path if p.endswith("lib-dynload")]
    return sorted(d for d in dirs | set(dynload) if os.path.isdir(d))


def _entry_holding(module: str) -> str | None:
    """The ``sys.path`` entry a top-level module is imported from."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return None
    location = Path(spec.origin).resolve()
    top = location.parent if spec.submodule_search_locations else location
    return str(top.parent)


def worker_read_paths() -> list[str]:
    """Directories (and files) a worker may read, for Landlock."""
    paths = set(_stdlib_dirs())
    for module in VETTED_DISTRIBUTIONS:
        entry = _entry_holding(module)
        if entry:
            paths.add(entry)
    paths.add(package_dir())
    return sorted(paths)


def worker_import_path() -> list[str]:
    """``sys.path`` of the zygote: spade-gym's root, then the host's entries minus the
    working directory and the script directory (code the host's user may not trust)."""
    untrusted = {"", ".", os.getcwd()}
    script = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    if script and os.path.exists(script):
        untrusted.add(os.path.dirname(os.path.abspath(script)))
    path = [package_root()]
    for entry in sys.path:
        if entry and entry not in untrusted and os.path.abspath(entry) not in untrusted and entry not in path:
            path.append(entry)
    return path
