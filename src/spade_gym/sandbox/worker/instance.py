"""Worker side: one live instance of a program, in a world of its own.

:func:`build_module` is the one place a program's module namespace is made: the
guarded builtins, the import hook over the vetted surfaces, the base class of
tool-use programs (``tooluse.install``) and the names the SPADE reference loader injects.

Each :class:`Instance` runs every call into its program inside its own
:class:`contextvars.Context`, restores its own recursion limit and points the worker's
``sys.modules`` entry for the program module at its own module, so the decimal context,
numpy's print options and error state, the recursion limit and the module namespace
library code resolves names in (``dataclasses`` reads string annotations there) are
never another instance's. Process-wide registries a program could write (an ABC's
``register``, class attributes of library classes) are closed by the guards and the
surfaces instead.
"""

from __future__ import annotations

import contextvars
import inspect
import sys
import types

from spade_gym.contract import BASE_CLASS_NAMES, ENV_CLASS_SUFFIX, INJECTED_NAMES
from spade_gym.sandbox.language import tooluse
from spade_gym.sandbox.language.guards import PROGRAM_MODULE, Guards
from spade_gym.sandbox.wire.protocol import sane_max_turns
from spade_gym.sandbox.worker.results import protocol_failure

#: Modules that C code of an allowed library imports lazily *on behalf of* a program:
#: ``ndarray.max()`` imports ``numpy._core._methods``, ``str(ndarray)`` imports
#: ``numpy._core.arrayprint``, ``datetime.strptime`` imports ``_strptime``. C code resolves
#: ``__import__`` from the calling frame's builtins — the program's — so these requests
#: reach the program's import hook. A program itself can never ask for them: ``import``
#: statements naming them are rejected at compile time and ``__import__`` is unreachable.
#: Only modules already loaded in the zygote are handed over (no code is read from disk).
_INTERNAL_PREFIXES = ("numpy.", "_strptime", "encodings.")
_MODULES = sys.modules


def _internal_module(name: str):
    if name.startswith(_INTERNAL_PREFIXES) or name in ("_strptime", "encodings"):
        return sys.modules.get(name)
    return None


def build_namespace(guards: Guards, surfaces: dict) -> dict:
    """A fresh module namespace for one program instance."""
    return build_module(guards, surfaces).__dict__


def build_module(guards: Guards, surfaces: dict) -> types.ModuleType:
    """A fresh module for one program instance (its ``__dict__`` is the namespace)."""

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            raise ImportError("relative imports are not allowed in SPADE programs")
        if name not in surfaces:
            internal = _internal_module(name)
            if internal is not None:
                return internal if fromlist else sys.modules[name.split(".")[0]]
            raise ImportError(f"import of '{name}' is not allowed in SPADE programs")
        return surfaces[name] if fromlist else surfaces[name.split(".")[0]]

    # A real module object, because library code looks the class's module up in
    # sys.modules (dataclasses does, for string annotations); ``Instance.call`` puts the
    # calling instance's own module there. Programs can reach neither: there is no
    # sys.modules and no module objects.
    module = types.ModuleType(PROGRAM_MODULE)
    namespace = module.__dict__
    namespace.update({
        "__builtins__": guards.builtins(importer),
        "__name__": PROGRAM_MODULE,
        "_getattr_": guards.getattr_fast,
        "_getattr_slow_": guards.getattr_slow,
        "_write_": guards.write,
        "_type_": type,
        "_P_": guards.program_only,
    })
    tooluse.install(namespace, surfaces)  # ToolUseBaseEnv, compiled under the program's policy
    for alias, target in INJECTED_NAMES.items():
        module_name, _, member = target.partition(".")
        value = surfaces[module_name]
        if member:
            value = getattr(value, member)
        namespace[alias] = value
    return module


def _accepts(func, name: str) -> bool:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def find_env_class(namespace: dict, guards: Guards):
    candidates = [
        v for k, v in namespace.items()
        if isinstance(v, type) and k.endswith(ENV_CLASS_SUFFIX) and k not in BASE_CLASS_NAMES
        and guards.is_program_type(v)
    ]
    leaves = [c for c in candidates if not any(o is not c and issubclass(o, c) for o in candidates)]
    if not leaves:
        raise protocol_failure(
            f"the program defines no environment class: expected a class whose name ends in '{ENV_CLASS_SUFFIX}'"
        )
    if len(leaves) > 1:
        names = ", ".join(c.__name__ for c in leaves)
        raise protocol_failure(f"the program defines several environment classes ({names}); keep exactly one")
    env_class = leaves[0]
    missing = [m for m in ("reset", "step") if not callable(getattr(env_class, m, None))]
    if missing:
        raise protocol_failure(f"{env_class.__name__} has no {' or '.join(missing)}() method")
    return env_class


class Instance:
    """One instance of the program's environment class, with its own module namespace.

    ``timed(fn, args, what, kwargs, seconds)`` is the runtime's deadline wrapper; every
    call into program code, from executing the module on, goes through :meth:`call`.
    """

    def __init__(self, runtime, kwargs: dict):
        self.runtime = runtime
        self.context = contextvars.Context()
        self.recursion_limit = sys.getrecursionlimit()
        surfaces = runtime.surfaces.for_instance(self)
        self.module = build_module(runtime.guards, surfaces)
        namespace = self.module.__dict__
        load_seconds = runtime.limits.load_timeout
        self.call(exec, (runtime.compiled.code, namespace), "executing the program module", seconds=load_seconds)
        cls = find_env_class(namespace, runtime.guards)
        self.class_name = cls.__name__
        self.dropped_kwargs = [k for k in kwargs if not _accepts(cls, k)]
        call_kwargs = {k: v for k, v in kwargs.items() if k not in self.dropped_kwargs}
        self.env = self.call(cls, (), f"{cls.__name__}.__init__", call_kwargs, seconds=load_seconds)
        if "max_turns" in self.dropped_kwargs and "max_turns" in kwargs:
            # The reference loader's fallback: construct without, then set the attribute.
            self.call(_set_max_turns, (self.env, kwargs["max_turns"]), "setting max_turns", seconds=load_seconds)
        # Reading methods off the class can run program descriptors: timed as well.
        self.reset_takes_seed, self.has_hint, self.has_solution = self.call(
            _inspect_class, (cls, type(self.env)), "inspecting the environment class", seconds=load_seconds)

    def call(self, fn, args=(), what="call", kwargs=None, seconds=None):
        """Run program code in this instance's world, under the deadline."""
        if sys.getrecursionlimit() != self.recursion_limit:
            sys.setrecursionlimit(self.recursion_limit)
        if _MODULES.get(PROGRAM_MODULE) is not self.module:
            _MODULES[PROGRAM_MODULE] = self.module
        return self.context.run(self.runtime.timed, fn, args, what, kwargs, seconds)

    def max_turns(self):
        value = self.call(getattr, (self.env, "max_turns", None), "reading max_turns")
        if isinstance(value, int) and not isinstance(value, bool):
            return sane_max_turns(int.__int__(value))  # never the program's own __int__
        return None


def _set_max_turns(env, value) -> None:
    try:
        env.max_turns = value
    except Exception:
        pass


def _inspect_class(cls, env_type) -> tuple[bool, bool, bool]:
    return (_accepts(cls.reset, "seed"), callable(getattr(env_type, "hint", None)),
            callable(getattr(env_type, "solution", None)))
