"""Runtime half of the language layer: the guards compiled programs call.

The policy (``policy.py``) rewrites every attribute read into ``_getattr_(obj, "name")``
(or ``_getattr_slow_`` for names it cannot judge from the text alone) and every
attribute write into ``_write_(obj).name = value``. This module supplies those
functions, the builtins a program sees and the import hook that hands out
:class:`~spade_gym.sandbox.language.surfaces.SafeModule` surfaces.

``_getattr_`` runs on every attribute access of every step, so it is deliberately
tiny: one native ``getattr`` and one set-membership test on the *type* of the result
(modules, frames, code objects, tracebacks, memoryviews and a handful of dangerous
builtin functions are refused whatever the name that led to them). Everything that
needs thought — private names, dunders, ``str.format`` — happens in
``_getattr_slow_``, which only names starting with ``_`` or a few special public
names reach.

Denials raise :class:`SandboxAttributeError`, a subclass of ``AttributeError``, so
``hasattr(x, "_fields")``-style probing in honest programs degrades the way it would
for a missing attribute, while the message says plainly that the sandbox refused.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]  # CPython's private module: typeshed has no stub
import abc
import builtins
import decimal
import types
import typing

import numpy

from spade_gym.sandbox.language.rules import DENIED_ATTRIBUTES, READABLE_DUNDER_ATTRS
from spade_gym.sandbox.language.standins import (
    SHADOWED_PROTOCOL_ATTRS,
    Absent,
    SandboxAttributeError,
    guard_class,
    public_getattr,
)
from spade_gym.sandbox.language.surfaces import SafeModule
from spade_gym.sandbox.language.vetted import SimpleNamespace

#: ``__name__`` of every program module (library code looks the module up by it).
#: It does *not* decide what the program owns: ``__module__`` can be spoofed, so the
#: guards record the identity of every class the program's ``class`` statements build.
PROGRAM_MODULE = "spade_program"

#: Values of these types are never handed to a program, whatever attribute led there.
BLOCKED_VALUE_TYPES = frozenset(
    {types.ModuleType, types.FrameType, types.CodeType, types.TracebackType, memoryview}
)
#: Builtin functions that must stay out of reach even if some object exposes them.
# (metaclasses are swapped for stand-ins by ``guard_class`` wherever they surface)
_BLOCKED_BUILTINS = frozenset(
    id(f) for f in (
        builtins.open, builtins.eval, builtins.exec, builtins.compile, builtins.__import__,
        builtins.breakpoint, builtins.input, builtins.globals, builtins.vars, builtins.locals,
    )
)
_SPECIAL_VALUE_TYPES = BLOCKED_VALUE_TYPES | {types.BuiltinFunctionType, type}

#: Library types whose instances programs legitimately configure by attribute.
WRITABLE_LIBRARY_TYPES = frozenset({types.SimpleNamespace, SimpleNamespace, decimal.Context})

_FORMAT_NAMES = frozenset({"format", "format_map"})
_NUMPY_PICKLE_NAMES = frozenset({"dump", "dumps"})


#: Library classes that may appear in the hierarchy of a "program-only" class: they
#: contribute no attribute that leads anywhere (only dunders, ``args``, ``_abc_impl``).
_SAFE_BASES = frozenset(
    {object, abc.ABC, typing.Generic}
    | {c for c in vars(builtins).values() if isinstance(c, type) and issubclass(c, BaseException)}
)


def _describe(obj) -> str:
    if isinstance(obj, type):
        return f"class '{obj.__name__}'"
    return f"'{type(obj).__name__}' object"


def _check_format_string(template: str, cache: dict) -> None:
    """Refuse ``{0.attr}`` traversal (and nested fields) in str.format templates."""
    if template in cache:
        return
    pending = [template]
    depth = 0
    while pending:
        depth += 1
        if depth > 64:
            raise SandboxAttributeError("format string is nested too deeply")
        text = pending.pop()
        for _literal, field_name, spec, _conversion in _string.formatter_parser(text):
            if field_name:
                _first, rest = _string.formatter_field_name_split(field_name)
                for is_attr, key in rest:
                    if is_attr:
                        raise SandboxAttributeError(
                            f"attribute access in format strings ('{{{field_name}}}') is blocked by the sandbox"
                        )
                    if isinstance(key, str) and key.startswith("_"):
                        raise SandboxAttributeError(f"private key in format string ('{{{field_name}}}') is blocked")
            if spec and "{" in spec:
                pending.append(spec)
    if len(cache) < 4096:
        cache[template] = True


class Guards:
    """The guard functions and builtins for one worker (all instances of one program)."""

    def __init__(self, print_sink):
        #: Every class a ``class`` statement of the program built (or a vetted helper
        #: built for it: namedtuple, dataclass(slots=True)); decided by identity.
        self._program_types: set[type] = set()
        self._private_owner: dict[tuple, bool] = {}
        #: Classes whose whole MRO is program-defined (or a safe base), plus the module
        #: surfaces (whose members are vetted): attribute access on their instances skips
        #: the guard call (see ``policy.visit_Attribute``).
        self.program_only: set[type] = {SafeModule}
        self._format_cache: dict[str, bool] = {}
        self.print_sink = print_sink
        self.getattr_fast = self._make_fast_getattr()
        self.getattr_slow = self._make_slow_getattr()
        self.write = self._make_write()

    # ----------------------------------------------------------- program ownership

    def is_program_type(self, tp) -> bool:
        return tp in self._program_types

    def adopt(self, cls: type) -> type:
        """Record ``cls`` as the program's own class and shadow numpy's raw-memory hooks."""
        for name in SHADOWED_PROTOCOL_ATTRS:
            type.__setattr__(cls, name, Absent(name))
        getattr_hook = cls.__dict__.get("__getattr__")
        if getattr_hook is not None:
            type.__setattr__(cls, "__getattr__", public_getattr(getattr_hook))
        self._program_types.add(cls)
        if all(c in self.program_only or c in _SAFE_BASES for c in cls.__mro__[1:]):
            self.program_only.add(cls)
        return cls

    def own_class(self, cls, what: str):
        """``cls`` if the program defined it; library classes must not be patched through
        helpers that set attributes natively (dataclass, total_ordering...)."""
        if isinstance(cls, type) and cls in self._program_types:
            return cls
        raise SandboxAttributeError(f"{what}() works on classes the program defines, not on {_describe(cls)}")

    def private_is_own(self, obj, name: str) -> bool:
        """A private name on a program object is readable unless a *library* class in its
        hierarchy defines it (subclassing a library class must not expose its privates)."""
        cls = type(obj) if not isinstance(obj, type) else obj
        key = (cls, name)
        known = self._private_owner.get(key)
        if known is None:
            known = True  # instance attribute (or absent: AttributeError follows)
            for klass in cls.__mro__:
                if name in klass.__dict__:
                    known = klass in self._program_types
                    break
            if len(self._private_owner) < 65536:
                # A later class attribute of the program's can only turn False into True:
                # a stale entry is stricter than necessary, never laxer.
                self._private_owner[key] = known
        return known

    def is_program_object(self, obj) -> bool:
        if self.is_program_type(type(obj)):
            return True
        if isinstance(obj, type):
            return self.is_program_type(obj)
        if type(obj) is super:
            return self.is_program_type(obj.__thisclass__)  # type: ignore[attr-defined]
        return False

    def build_class(self, func, name, *bases, **kwargs):
        """``__build_class__`` for programs: records classes eligible for the inline path."""
        cls = builtins.__build_class__(func, name, *bases, **kwargs)
        if isinstance(cls, type):
            self.adopt(cls)
        return cls

    # ----------------------------------------------------------- getattr

    def _make_fast_getattr(self):
        special = _SPECIAL_VALUE_TYPES
        blocked_types = BLOCKED_VALUE_TYPES
        blocked_builtins = _BLOCKED_BUILTINS
        native_getattr = getattr

        def _getattr_(obj, name):
            value = native_getattr(obj, name)
            if type(value) in special:
                if type(value) is type:  # a class: only a metaclass is swapped for its stand-in
                    return guard_class(value) if issubclass(value, type) else value
                if type(value) in blocked_types or id(value) in blocked_builtins:
                    raise SandboxAttributeError(
                        f"'{name}' of {_describe(obj)} leads to a {type(value).__name__} object, "
                        "which is blocked by the sandbox"
                    )
            return value

        return _getattr_

    def _make_slow_getattr(self):
        fast: typing.Callable[[object, str], object]  # bound below; the slow path ends in the same result check
        missing = object()
        format_cache = self._format_cache
        guards = self

        def guarded_format(template, method):
            def format_call(*args, **kwargs):
                _check_format_string(template, format_cache)
                return method(*args, **kwargs)

            return format_call

        def _getattr_slow_(obj, name, default=missing):
            if type(name) is not str:
                raise TypeError(f"attribute name must be a string, not {type(name).__name__}")
            if name[:1] == "_":
                if name[:2] == "__" and name[-2:] == "__" and len(name) > 4:
                    if name not in READABLE_DUNDER_ATTRS:
                        raise SandboxAttributeError(f"attribute '{name}' is blocked by the sandbox")
                    if name == "__dict__" and not guards.is_program_object(obj):
                        raise SandboxAttributeError(
                            f"'__dict__' of {_describe(obj)} is blocked by the sandbox (only the program's own objects)"
                        )
                elif not guards.is_program_object(obj) or not guards.private_is_own(obj, name):
                    raise SandboxAttributeError(
                        f"private attribute '{name}' of {_describe(obj)} is blocked by the sandbox "
                        "(single-underscore names are only accessible on classes the program defines)"
                    )
                if name == "__class__":
                    return guard_class(type(obj) if type(obj) is not super else fast(obj, name))
            elif name in DENIED_ATTRIBUTES:
                raise SandboxAttributeError(f"attribute '{name}' is blocked by the sandbox")
            elif name in _FORMAT_NAMES:
                # Judged by what the name resolves to, not by the object it was read
                # from: ``super().format`` and ``str.format`` reach the same method.
                value = fast(obj, name)
                if value is str.format or value is str.format_map:
                    def format_unbound(template, *args, **kwargs):
                        if isinstance(template, str):
                            _check_format_string(template, format_cache)
                        return value(template, *args, **kwargs)

                    return format_unbound
                owner = getattr(value, "__self__", None)
                if type(value) is types.BuiltinMethodType and isinstance(owner, str):
                    return guarded_format(owner, value)
                return value
            elif name == "register" and (isinstance(obj, type) or type(obj) is super):
                # An ABC's registry is process-wide, and a registration on a program's own
                # subclass of a library ABC changes the library ABC's answers too
                # (``issubclass`` consults subclasses): one instance would rewrite what
                # ``isinstance(x, numbers.Integral)`` answers for every other one.
                raise SandboxAttributeError(
                    f"'register' on {_describe(obj)} is blocked by the sandbox: ABC registries are shared "
                    "by every program in the worker; subclass the ABC instead"
                )
            elif name in _NUMPY_PICKLE_NAMES and (
                isinstance(obj, (numpy.ndarray, numpy.generic))
                or (isinstance(obj, type) and issubclass(obj, (numpy.ndarray, numpy.generic)))
            ):
                raise SandboxAttributeError(f"numpy '{name}' (pickling to files) is blocked by the sandbox")
            try:
                return fast(obj, name)
            except AttributeError:
                if default is missing:
                    raise
                return default

        fast = self.getattr_fast
        return _getattr_slow_

    # ----------------------------------------------------------- writes

    def _make_write(self):
        writable: dict[type, bool] = {}
        guards = self

        def _write_(obj):
            tp = type(obj)
            ok = writable.get(tp)
            if ok is None:
                ok = guards.is_program_type(tp) or tp in WRITABLE_LIBRARY_TYPES
                writable[tp] = ok
            if ok or (isinstance(obj, type) and guards.is_program_type(obj)):
                return obj
            raise SandboxAttributeError(
                f"cannot set attributes on {_describe(obj)}: the sandbox only lets a program modify "
                "objects of classes it defines"
            )

        return _write_

    def setattr(self, obj, name, value):
        if type(name) is not str:
            raise TypeError("attribute name must be a string")
        if name[:2] == "__" and name[-2:] == "__":
            raise SandboxAttributeError(f"setting '{name}' is blocked by the sandbox")
        setattr(self.write(obj), name, value)

    def delattr(self, obj, name):
        if type(name) is not str:
            raise TypeError("attribute name must be a string")
        if name[:2] == "__" and name[-2:] == "__":
            raise SandboxAttributeError(f"deleting '{name}' is blocked by the sandbox")
        delattr(self.write(obj), name)

    def hasattr(self, obj, name):
        try:
            self.getattr_slow(obj, name)
        except AttributeError:
            return False
        return True

    # ----------------------------------------------------------- builtins

    def builtins(self, importer) -> dict:
        safe = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}
        safe.update(
            getattr=self.getattr_slow,
            setattr=self.setattr,
            delattr=self.delattr,
            hasattr=self.hasattr,
            type=guard_class(type),
            print=self.print_sink,
            __import__=importer,
            __build_class__=self.build_class,
        )
        for name in _FORBIDDEN_BUILTINS:
            safe[name] = _forbidden(name)
        return safe


def _forbidden(name: str):
    def refuse(*args, **kwargs):
        raise SandboxAttributeError(f"{name}() is not available in the sandbox")

    refuse.__name__ = name
    return refuse


_SAFE_BUILTIN_NAMES = tuple(
    """
    abs all any ascii bin bool bytearray bytes callable chr classmethod complex dict dir divmod
    enumerate filter float format frozenset hash hex id int isinstance issubclass iter len list
    map max min next object oct ord pow property range repr reversed round set slice sorted
    staticmethod str sum super tuple zip NotImplemented Ellipsis None True False
    BaseException Exception ArithmeticError AssertionError AttributeError BufferError EOFError
    FloatingPointError GeneratorExit ImportError IndexError KeyError KeyboardInterrupt LookupError
    MemoryError ModuleNotFoundError NameError NotImplementedError OSError OverflowError
    RecursionError ReferenceError RuntimeError StopIteration StopAsyncIteration SyntaxError
    SystemError TypeError UnboundLocalError UnicodeError UnicodeDecodeError UnicodeEncodeError
    ValueError ZeroDivisionError Warning UserWarning DeprecationWarning RuntimeWarning
    ExceptionGroup BaseExceptionGroup
    """.split()
)
_FORBIDDEN_BUILTINS = ("eval", "exec", "compile", "open", "globals", "vars", "locals",
                       "breakpoint", "input", "memoryview", "help", "exit", "quit")
