"""Gymnasium registration of suites: ``spade/<Name>-v<N>`` for every card found.

Registration reads cards only — no worker starts and no program is compiled until
an environment is actually made — so ``import spade_gym`` stays cheap however large
the bundled suite grows. It never raises for what it finds on disk: a suite or entry
that cannot be read or trusted is skipped with a :class:`~spade_gym.errors.SuiteWarning`.

Other kinds of environment (benchmark adapters) register through :func:`register_env`,
which applies the same id rules and shadowing warnings.
"""

from __future__ import annotations

import difflib
import os
import warnings
from pathlib import Path

import gymnasium as gym

from spade_gym.display import printable
from spade_gym.errors import RegistryError, SuiteWarning
from spade_gym.registry.card import NAMESPACE
from spade_gym.registry.suite import Suite

#: Environment variable listing extra suite directories (``os.pathsep``-separated)
#: registered on ``import spade_gym``.
SUITES_ENV_VAR = "SPADE_GYM_SUITES"

ENTRY_POINT = "spade_gym.registry.make:make_env"
VECTOR_ENTRY_POINT = "spade_gym.registry.make:make_vector_env"
#: How many near misses an unknown-id error suggests.
SUGGESTIONS = 3


def bundled_suite_path() -> Path:
    """``envs_generated/``: inside the installed package (wheel) or at the repository root."""
    here = Path(__file__).resolve().parent.parent  # .../spade_gym
    installed = here / "envs_generated"
    if installed.is_dir():
        return installed
    return here.parent.parent / "envs_generated"


def warn_suite(message: str, path: str | os.PathLike | None = None) -> None:
    """One line on stderr (``<path>: SuiteWarning: ...``), attributed to the file at fault
    rather than to this module, and never followed by a source line."""
    location = printable(str(path), newlines=False) if path is not None else "spade-gym"
    warnings.warn_explicit(printable(message, newlines=False), SuiteWarning, location, 0, module="spade_gym.registry")


def register_env(env_id: str, entry_point: str, *, kwargs: dict | None = None,
                 vector_entry_point: str | None = None, origin: str = "") -> bool:
    """Register one ``spade/`` id; the hook suites and adapters (e.g. benchmarks) share.

    Returns True if ``env_id`` is registered with these ``kwargs`` afterwards. An id
    already registered differently is left alone (first registration wins) with a
    warning, and a new latest version of a name that comes from somewhere else
    (``Name-v99`` capturing ``gym.make("spade/Name")``) is registered with a warning.
    """
    origin = origin or entry_point
    namespace, name, version = gym.envs.registration.parse_env_id(env_id)
    if namespace != NAMESPACE:
        raise RegistryError(f"{env_id!r} is not in the {NAMESPACE}/ namespace")
    kwargs = dict(kwargs or {})
    existing = gym.registry.get(env_id)
    if existing is not None:
        if existing.entry_point == entry_point and existing.kwargs == kwargs:
            return True
        warn_suite(f"{env_id} from {origin} is ignored: that id is already registered "
                   f"from {_origin(existing)}", origin)
        return False
    rivals = [spec for spec in gym.registry.values()
              if spec.namespace == namespace and spec.name == name and _origin(spec) != origin]
    latest = max(rivals, key=lambda spec: spec.version or 0, default=None)
    if latest is not None and (version or 0) > (latest.version or 0):
        warn_suite(f"{env_id} from {origin} shadows {latest.id} from {_origin(latest)}: "
                   f"gym.make('{namespace}/{name}') now makes {env_id}", origin)
    gym.register(id=env_id, entry_point=entry_point, vector_entry_point=vector_entry_point, kwargs=kwargs,
                 disable_env_checker=False)
    return True


def register_suite(path: str | os.PathLike) -> list[str]:
    """Register every environment of the suite at ``path``; returns their ids.

    Re-registering the same suite is harmless. Entries that cannot be read or trusted,
    and ids already registered from another directory, are skipped with a warning.
    """
    suite = Suite(Path(path).expanduser().resolve())
    entries = suite.entries()
    for problem in suite.skipped:
        warn_suite(f"skipped: {problem}", suite.path)
    registered = []
    for entry in entries:
        if register_env(entry.id, ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                        kwargs={"env_dir": str(entry.directory)}, origin=str(suite.path)):
            registered.append(entry.id)
    return registered


def register_default_suites() -> list[str]:
    """The bundled suite plus every directory in ``$SPADE_GYM_SUITES``.

    Never raises: ``import spade_gym`` must work whatever the variable names.
    """
    ids: list[str] = []
    directories = [str(bundled_suite_path())]
    for item in os.environ.get(SUITES_ENV_VAR, "").split(os.pathsep):
        if not item.strip():
            continue
        path = Path(item.strip()).expanduser()
        if not path.exists():
            warn_suite(f"${SUITES_ENV_VAR} names {path}, which does not exist", path)
        elif not path.is_dir():
            warn_suite(f"${SUITES_ENV_VAR} names {path}, which is not a directory", path)
        else:
            directories.append(str(path))
    for directory in directories:
        try:
            ids += register_suite(directory)
        except Exception as exc:  # noqa: BLE001 - one bad suite must not break the import
            warn_suite(f"skipped the suite: {type(exc).__name__}: {exc}", directory)
    return ids


def registered_entries():
    """(id, env_dir) of every suite environment currently registered."""
    return [
        (spec.id, spec.kwargs["env_dir"])
        for spec in gym.registry.values()
        if spec.entry_point == ENTRY_POINT and "env_dir" in spec.kwargs
    ]


def closest_ids(env_id: str, n: int = SUGGESTIONS) -> list[str]:
    """Registered ``spade/`` ids nearest to ``env_id`` (by name, ignoring case and version)."""
    wanted = env_id.split(":", 1)[-1]
    wanted = wanted.split("/", 1)[1] if wanted.startswith(NAMESPACE + "/") else wanted
    wanted = wanted.rsplit("-v", 1)[0] if wanted.rsplit("-v", 1)[-1].isdigit() else wanted
    latest: dict[str, str] = {}
    for spec in sorted(gym.registry.values(), key=lambda s: s.version or 0):
        if spec.namespace == NAMESPACE:
            latest[spec.name.lower()] = spec.id
    names = difflib.get_close_matches(wanted.lower(), list(latest), n=n, cutoff=0.4)
    if len(names) < n:  # a fragment of a long name ("hunt" for NumberHunt) is a near miss too
        names += [name for name in latest if wanted.lower() in name and name not in names][: n - len(names)]
    return [latest[name] for name in names]


def unknown_id_message(env_id: str) -> str:
    near = closest_ids(env_id)
    suggestion = f"; closest registered ids: {', '.join(near)}" if near else ""
    return f"unknown environment {env_id!r}{suggestion} (see `spade-gym list`)"


def install_unknown_id_message() -> None:
    """Make ``gym.make`` of an unknown ``spade/`` name list the closest registered ids.

    Gymnasium suggests at most one name, and none once the namespace is large; its check
    is a module-level function, so it is wrapped (once) for this namespace only.
    """
    from gymnasium import error
    from gymnasium.envs import registration as gym_registration

    original = getattr(gym_registration, "_check_name_exists", None)
    if original is None or getattr(original, "spade_gym_wrapped", False):
        return

    def check_name_exists(ns, name):
        try:
            original(ns, name)
        except error.NameNotFound:
            if ns != NAMESPACE:
                raise
            raise error.NameNotFound(unknown_id_message(f"{ns}/{name}")) from None

    check_name_exists.spade_gym_wrapped = True  # type: ignore[attr-defined]
    gym_registration._check_name_exists = check_name_exists


def _origin(spec) -> str:
    env_dir = spec.kwargs.get("env_dir") if isinstance(spec.kwargs, dict) else None
    if env_dir:
        return str(Path(env_dir).parent)
    return str(spec.entry_point)
