"""Gymnasium registration of suites: ``spade/<Name>-v<N>`` for every card found.

Registration reads no file's content: an entry's id comes from its directory name
(``<Name>-v<N>``, as :meth:`Suite.add <spade_gym.registry.suite.Suite.add>` writes it) and
only the cheap checks run (trust, regular files within their caps); the card is parsed,
and checked to hold that id, when the environment is made, and no worker starts and no
program is compiled before then. So ``import spade_gym`` stays cheap however large the
bundled suite grows. It never raises for what it finds on disk: a suite or entry
that cannot be read or trusted is skipped with a :class:`~spade_gym.errors.SuiteWarning`.

**An id means one program.** The first registration of a ``spade/<Name>`` owns that name:
another suite (or adapter) can neither replace one of its ids nor add a version to it
(which would capture ``gym.make("spade/<Name>")``); such a registration is refused with a
:class:`~spade_gym.errors.SuiteWarning` naming both suites. Only an explicit opt-in
(``register_suite(path, allow_override=True)``, or ``$SPADE_GYM_ALLOW_OVERRIDE=1`` for
every suite) overrides, and then every ``gym.make`` of an overriding id warns again.

Other kinds of environment (benchmark adapters) register through :func:`register_env`,
which applies the same id rules.
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
from spade_gym.registry.suite import Suite, SuiteEntry, check_dirname

#: Environment variable listing extra suite directories (``os.pathsep``-separated)
#: registered on ``import spade_gym``.
SUITES_ENV_VAR = "SPADE_GYM_SUITES"
#: Environment variable that lets a later suite override ids and names an earlier one owns
#: (``1``, ``true`` or ``yes``): the default of ``allow_override`` in :func:`register_suite`.
OVERRIDE_ENV_VAR = "SPADE_GYM_ALLOW_OVERRIDE"
#: The spec keyword that marks an overriding registration: it names the suite overridden,
#: and the entry points warn on every make (:mod:`spade_gym.registry.make`).
OVERRIDE_KWARG = "overrides_suite"

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


def override_allowed(allow_override: bool | None = None) -> bool:
    """``allow_override`` if given, else whether ``$SPADE_GYM_ALLOW_OVERRIDE`` says yes."""
    if allow_override is not None:
        return bool(allow_override)
    return os.environ.get(OVERRIDE_ENV_VAR, "").strip().lower() in ("1", "true", "yes")


def register_env(env_id: str, entry_point: str, *, kwargs: dict | None = None,
                 vector_entry_point: str | None = None, origin: str = "",
                 allow_override: bool | None = None) -> bool:
    """Register one ``spade/`` id; the hook suites and adapters (e.g. benchmarks) share.

    Returns True if ``env_id`` is registered with these ``kwargs`` afterwards (registering
    the same thing again is a no-op, without a warning). ``origin`` (a suite directory;
    default ``entry_point``) is who asks. The name ``spade/<Name>`` belongs to the origin
    that first registered a version of it: ``env_id`` from any other origin is refused
    with a warning, whether it is the same id or a new version, unless ``allow_override``
    (default: ``$SPADE_GYM_ALLOW_OVERRIDE``), when it replaces the id (or adds the
    version) with a warning, and every make of it warns too.
    """
    return _register(env_id, entry_point, kwargs=kwargs, vector_entry_point=vector_entry_point, origin=origin,
                     allow_override=allow_override, names=_names_index())


def _names_index() -> dict[str, list]:
    """The registered ``spade/`` specs by name: a suite's registration looks names up in it
    rather than scanning the whole registry once per entry (N entries would cost N² spec visits)."""
    names: dict[str, list] = {}
    for spec in gym.registry.values():
        if spec.namespace == NAMESPACE:
            names.setdefault(spec.name, []).append(spec)
    return names


def _register(env_id: str, entry_point: str, *, kwargs: dict | None, vector_entry_point: str | None, origin: str,
              allow_override: bool | None, names: dict[str, list]) -> bool:
    """:func:`register_env` against ``names`` (:func:`_names_index`), which it keeps up to date."""
    origin = _normal(origin or entry_point)
    namespace, name, _version = gym.envs.registration.parse_env_id(env_id)
    if namespace != NAMESPACE:
        raise RegistryError(f"{env_id!r} is not in the {NAMESPACE}/ namespace")
    kwargs = {key: value for key, value in (kwargs or {}).items() if key != OVERRIDE_KWARG}
    existing = gym.registry.get(env_id)
    if existing is not None:
        if existing.entry_point == entry_point and _own_kwargs(existing) == kwargs:
            return True
        if _origin(existing) == origin:  # one suite, two directories claiming one id: the first wins
            warn_suite(f"{env_id} from {_where(kwargs, origin)} is ignored: that id is already "
                       f"registered from {_where(existing.kwargs, _origin(existing))}", origin)
            return False
    owners = [spec for spec in names.get(name, ()) if _origin(spec) != origin]
    if owners:
        owner = existing if existing is not None else max(owners, key=lambda spec: spec.version or 0)
        what = (f"that id is already registered from {_origin(owner)}" if existing is not None else
                f"the name {namespace}/{name} belongs to {_origin(owner)} "
                f"({', '.join(sorted(spec.id for spec in owners))})")
        if not override_allowed(allow_override):
            warn_suite(f"{env_id} from {origin} is refused: {what}, and no suite replaces or adds versions to "
                       f"another suite's ids (gym.make of {namespace}/{name} keeps running {_origin(owner)}'s "
                       f"programs); to override on purpose, set {OVERRIDE_ENV_VAR}=1 or call "
                       f"register_suite(path, allow_override=True)", origin)
            return False
        warn_suite(f"{env_id} from {origin} overrides {owner.id} from {_origin(owner)} ({what}; allowed by "
                   f"{OVERRIDE_ENV_VAR} or allow_override=True); every gym.make of it will say so", origin)
        kwargs[OVERRIDE_KWARG] = _origin(owner)
        if existing is not None:
            del gym.registry[env_id]  # replaced on purpose (gymnasium would log its own warning)
            names[name] = [spec for spec in names.get(name, ()) if spec.id != env_id]
    gym.register(id=env_id, entry_point=entry_point, vector_entry_point=vector_entry_point, kwargs=kwargs,
                 disable_env_checker=False)
    names.setdefault(name, []).append(gym.registry[env_id])
    return True


def register_suite(path: str | os.PathLike, *, allow_override: bool | None = None) -> list[str]:
    """Register every environment of the suite at ``path``; returns their ids.

    Registering the same suite again is a no-op, without warnings. Entries that cannot be
    read or trusted, and ids or names that another suite owns (see :func:`register_env`),
    are skipped with a warning; ``allow_override=True`` (default: ``$SPADE_GYM_ALLOW_OVERRIDE``)
    lets this suite override them instead.
    """
    suite = Suite(Path(path).expanduser().resolve())
    entries = suite.refs()  # ids without parsing cards: each card is read when its env is made
    for problem in suite.skipped:
        warn_suite(f"skipped: {problem}", suite.path)
    registered = []
    names = _names_index()
    for entry in entries:
        if _register(entry.id, ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                     kwargs={"env_dir": str(entry.directory)}, origin=str(suite.path),
                     allow_override=allow_override, names=names):
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


def registered_entries() -> list[tuple[str, str]]:
    """(id, env_dir) of every suite environment currently registered."""
    return [
        (spec.id, spec.kwargs["env_dir"])
        for spec in gym.registry.values()
        if spec.entry_point == ENTRY_POINT and "env_dir" in spec.kwargs
    ]


def registered_suite_entries() -> tuple[list[SuiteEntry], list[str]]:
    """The suite entry of every registered suite environment, one card read each (a suite
    re-read per id would cost N² reads), and why each one that no longer reads was left out."""
    entries, problems = [], []
    suites: dict[str, Suite] = {}
    for _env_id, env_dir in registered_entries():
        directory = Path(env_dir)
        suite = suites.setdefault(str(directory.parent), Suite(directory.parent))
        try:
            entry = suite.entry(directory.name)
            check_dirname(directory, entry.card)
            entries.append(entry)
        except RegistryError as exc:
            problems.append(str(exc))
    return entries, problems


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
    """Who registered ``spec``: its suite directory, else its entry point."""
    env_dir = spec.kwargs.get("env_dir") if isinstance(spec.kwargs, dict) else None
    if env_dir:
        return _normal(os.path.dirname(os.path.normpath(str(env_dir))))
    return _normal(str(spec.entry_point))


def _normal(origin: str) -> str:
    """Origins compare as paths where they are paths (``a/b/`` and ``a/b`` are one suite)."""
    return os.path.normpath(origin) if os.sep in origin else origin


def _own_kwargs(spec) -> dict:
    """A spec's keyword arguments without the override mark (what a registration asked for)."""
    kwargs = spec.kwargs if isinstance(spec.kwargs, dict) else {}
    return {key: value for key, value in kwargs.items() if key != OVERRIDE_KWARG}


def _where(kwargs: dict, origin: str) -> str:
    """The entry directory a registration names, else its origin (for messages)."""
    env_dir = kwargs.get("env_dir") if isinstance(kwargs, dict) else None
    return str(env_dir) if env_dir else origin
