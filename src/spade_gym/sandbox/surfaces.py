"""Vetted module surfaces: what ``import random`` gives a program inside the sandbox.

A program never holds a real module object. It gets a :class:`SafeModule`, a plain
read-only object carrying the module's public, non-module members minus a short
denylist per module (file I/O, dynamic class creation, annotation evaluation...).
Submodules a program may use (``collections.abc``, ``numpy.random``) are surfaces
of their own; every other submodule attribute (``json.decoder``, ``re.enum``,
``fractions.sys``) simply does not exist on the surface.

``random`` and ``numpy.random`` are built per program *instance*: their module-level
functions are bound to a fresh ``random.Random`` / ``numpy.random.RandomState``, exactly
as CPython binds them to its hidden global instance. Seeded programs therefore draw
the same numbers as under plain CPython, while several instances of one program in a
worker (a vector env) cannot disturb each other's random streams.
"""

from __future__ import annotations

import __future__ as future_module
import abc
import bisect
import cmath
import collections
import collections.abc
import copy
import dataclasses
import datetime
import decimal
import difflib
import enum
import fractions
import functools
import hashlib
import heapq
import itertools
import json
import math
import numbers
import operator
import random
import re
import statistics
import string
import sys
import textwrap
import time
import types
import typing

import numpy
import numpy.fft
import numpy.linalg
import numpy.random

from spade_gym.sandbox import mathverify
from spade_gym.sandbox.policy import PROGRAM_FILENAME

#: Types whose instances a program may never hold (see ``guards.BLOCKED_VALUE_TYPES``).
_NEVER_EXPOSE_TYPES = (types.ModuleType, types.CodeType, types.FrameType, types.TracebackType)
_NEVER_EXPOSE_VALUES = {
    id(v) for v in (
        types.ModuleType, types.CodeType, types.FrameType, types.TracebackType, types.FunctionType,
        types.LambdaType, types.MethodType, types.CellType, types.GeneratorType, types.CoroutineType,
        types.new_class, types.prepare_class, memoryview, open, eval, exec, compile, __import__,
        breakpoint, input, globals, vars, locals,
    )
}


class SafeModule:
    """Read-only namespace standing in for a module inside the sandbox."""

    def __init__(self, name: str, members: dict):
        # ``__name__`` deliberately is not a real module name: on a failed
        # ``from X import Y`` CPython falls back to ``sys.modules[X.__name__ + '.Y']``,
        # which must never find a real module.
        self.__dict__.update(members)
        self.__dict__["__name__"] = f"{name} (sandboxed)"
        self.__dict__["__doc__"] = f"Sandboxed view of the '{name}' module."

    def __setattr__(self, name, value):
        raise AttributeError(f"module '{self.__dict__['__name__']}' is read-only in the sandbox")

    def __delattr__(self, name):
        raise AttributeError(f"module '{self.__dict__['__name__']}' is read-only in the sandbox")

    def __getattr__(self, name):  # only called when the member is absent
        why = " (private members are never exposed)" if name.startswith("_") else ""
        raise AttributeError(f"module '{self.__dict__['__name__']}' has no attribute '{name}' in the sandbox{why}")

    def __repr__(self) -> str:
        return f"<module '{self.__dict__['__name__']}'>"

    def __dir__(self):
        return sorted(k for k in self.__dict__ if not k.startswith("_"))


def _public_members(module, *, deny=(), only=None) -> dict:
    names = only if only is not None else [n for n in dir(module) if not n.startswith("_")]
    members = {}
    for name in names:
        if name in deny or name.startswith("_"):
            continue
        try:
            value = getattr(module, name)
        except AttributeError:
            continue
        if isinstance(value, _NEVER_EXPOSE_TYPES) or id(value) in _NEVER_EXPOSE_VALUES:
            continue
        members[name] = value
    return members


# ----------------------------------------------------------------------------- guarded helpers
#
# Library functions that read, write or evaluate attributes *natively* on behalf of a
# program would carry it past the guards. Each is either rebuilt on the guards or
# limited to what it does for ordinary programs: the program's own classes, the
# default attribute lists, no string annotations evaluated.


def _is_dunder_name(name) -> bool:
    return isinstance(name, str) and name[:2] == "__" and name[-2:] == "__"


class SimpleNamespace(types.SimpleNamespace):
    """``types.SimpleNamespace`` minus dunder attributes (numpy trusts an instance's
    ``__array_interface__``, a raw memory address)."""

    __slots__ = ()

    def __init__(self, mapping_or_iterable=(), /, **kwargs):
        data = dict(mapping_or_iterable, **kwargs)
        bad = [k for k in data if _is_dunder_name(k)]
        if bad:
            raise SandboxRefusal(f"SimpleNamespace attribute {bad[0]!r} is blocked by the sandbox")
        super().__init__(**data)


class SandboxRefusal(AttributeError):
    """A call refused by a vetted surface (raised as AttributeError, like the guards)."""


def _program_callable(obj) -> bool:
    """A function whose code the program (or the tool-use base class) compiled."""
    code = getattr(obj, "__code__", None) if isinstance(obj, types.FunctionType) else None
    return code is not None and code.co_filename in (PROGRAM_FILENAME, "<spade-tool-use-base>")


def _guarded_functools(guards) -> dict:
    members = _public_members(functools)
    defaults_assigned, defaults_updated = functools.WRAPPER_ASSIGNMENTS, functools.WRAPPER_UPDATES

    def _check_lists(assigned, updated):
        if not set(assigned) <= set(defaults_assigned) or not set(updated) <= set(defaults_updated):
            raise SandboxRefusal("functools.update_wrapper/wraps accept only the default attribute lists in the sandbox")

    def update_wrapper(wrapper, wrapped, assigned=defaults_assigned, updated=defaults_updated):
        # Rebuilt on the guards: metadata is read through them (a library object's
        # ``__dict__`` is never copied), and only the program's own wrapper is written.
        _check_lists(assigned, updated)
        if not _program_callable(wrapper) and not guards.is_program_object(wrapper):
            raise SandboxRefusal("functools.update_wrapper/wraps write only to the program's own functions and objects")
        for attr in assigned:
            try:
                setattr(wrapper, attr, guards.getattr_slow(wrapped, attr))
            except AttributeError:
                pass
        for attr in updated:
            try:
                source = guards.getattr_slow(wrapped, attr)
            except AttributeError:
                continue
            getattr(wrapper, attr).update(source)
        wrapper.__wrapped__ = wrapped
        return wrapper

    def wraps(wrapped, assigned=defaults_assigned, updated=defaults_updated):
        _check_lists(assigned, updated)
        return functools.partial(update_wrapper, wrapped=wrapped, assigned=assigned, updated=updated)

    def _no_string_annotations(func):
        annotations = getattr(func, "__annotations__", None) or {}
        if any(isinstance(v, str) for v in annotations.values()):
            raise SandboxRefusal("register() with string annotations would evaluate them outside the sandbox; "
                                 "pass the class: @f.register(SomeClass)")

    def singledispatch(func):
        dispatcher = functools.singledispatch(func)
        register = dispatcher.register

        def guarded_register(cls, func=None):
            if func is None and not isinstance(cls, type) and callable(cls):
                _no_string_annotations(cls)
            return register(cls, func)

        dispatcher.register = guarded_register
        return dispatcher

    def total_ordering(cls):
        return functools.total_ordering(guards.own_class(cls, "functools.total_ordering"))

    members.update(update_wrapper=update_wrapper, wraps=wraps, singledispatch=singledispatch,
                   total_ordering=total_ordering)
    members.pop("singledispatchmethod", None)
    return members


def _guarded_dataclasses(guards) -> dict:
    members = _public_members(dataclasses, deny={"make_dataclass"})

    def dataclass(cls=None, /, **kwargs):
        def wrap(target):
            result = dataclasses.dataclass(guards.own_class(target, "dataclasses.dataclass"), **kwargs)
            return result if result is target else guards.adopt(result)  # slots=True builds a new class

        return wrap if cls is None else wrap(cls)

    def own_instance(fn, name):
        def guarded(obj, *args, **kwargs):
            if not guards.is_program_object(obj):
                raise SandboxRefusal(f"dataclasses.{name}() works on the program's own dataclasses only")
            return fn(obj, *args, **kwargs)

        return guarded

    members["dataclass"] = dataclass
    for name in ("asdict", "astuple", "replace", "fields"):
        members[name] = own_instance(getattr(dataclasses, name), name)
    return members


def _guarded_namedtuple(guards):
    def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
        cls = collections.namedtuple(typename, field_names, rename=rename, defaults=defaults,
                                     module=module or "spade_program")
        return guards.adopt(cls)

    return namedtuple


def _guarded_typing(guards) -> dict:
    from spade_gym.sandbox.guards import guard_class

    members = _public_members(typing, deny={"get_type_hints", "get_overloads", "clear_overloads", "no_type_check",
                                             "no_type_check_decorator"})
    members["get_origin"] = lambda tp: guard_class(typing.get_origin(tp))
    members["get_args"] = lambda tp: tuple(guard_class(a) for a in typing.get_args(tp))
    return members


def _refuse_private_enum_names():
    """The enum functional API (``Enum("E", {...})``) builds a class from a dict: refuse
    dunder and private member names, which would become class attributes of any kind."""
    create = enum.EnumType.__dict__["_create_"]  # a method of the metaclass: ``cls`` is the enum
    if getattr(create, "_spade_guarded", False):
        return

    def _create_(cls, class_name, names, **kwargs):
        items = names.replace(",", " ").split() if isinstance(names, str) else names
        keys = items.keys() if isinstance(items, dict) else [i[0] if isinstance(i, (tuple, list)) else i for i in items]
        for key in keys:
            if not isinstance(key, str) or key.startswith("_"):
                raise SandboxRefusal(f"enum member name {key!r} is not allowed in the sandbox")
        return create(cls, class_name, names, **kwargs)

    _create_._spade_guarded = True
    enum.EnumType._create_ = _create_


def _guarded_operator(guarded_getattr):
    """``operator.attrgetter``/``methodcaller`` read attributes natively; rebuild them on the guard."""

    def attrgetter(*names):
        for n in names:
            if not isinstance(n, str):
                raise TypeError("attribute name must be a string")
        paths = [n.split(".") for n in names]

        def resolve(obj, path):
            for part in path:
                obj = guarded_getattr(obj, part)
            return obj

        if len(paths) == 1:
            return lambda obj: resolve(obj, paths[0])
        return lambda obj: tuple(resolve(obj, p) for p in paths)

    def methodcaller(name, /, *args, **kwargs):
        if not isinstance(name, str):
            raise TypeError("method name must be a string")
        return lambda obj: guarded_getattr(obj, name)(*args, **kwargs)

    members = _public_members(operator)
    members["attrgetter"] = attrgetter
    members["methodcaller"] = methodcaller
    return members


_RECURSION_CAP = 10_000


def _sys_surface(owner) -> SafeModule:
    """``sys`` for one instance: its recursion limit is its own (``Instance.call`` applies it)."""

    def setrecursionlimit(limit):
        # Raising the limit far beyond CPython's C stack would crash the worker; cap it.
        if not isinstance(limit, int) or limit < 50:
            raise ValueError("recursion limit must be an int >= 50")
        owner.recursion_limit = min(int.__int__(limit), _RECURSION_CAP)
        sys.setrecursionlimit(owner.recursion_limit)

    return SafeModule("sys", {
        "maxsize": sys.maxsize, "float_info": sys.float_info, "int_info": sys.int_info,
        "version_info": sys.version_info, "byteorder": sys.byteorder, "hexversion": sys.hexversion,
        "getrecursionlimit": lambda: owner.recursion_limit, "setrecursionlimit": setrecursionlimit,
    })


def _private_copy(value):
    """A per-instance copy of a mutable module-level member (so no instance sees another's edits)."""
    if isinstance(value, decimal.Context):
        return value.copy()
    return copy.deepcopy(value)


_MUTABLE_MEMBER_TYPES = (dict, list, set, bytearray, decimal.Context)


# ----------------------------------------------------------------------------- static surfaces

_NUMPY_DENY = frozenset(
    """
    save savez savez_compressed load loadtxt savetxt genfromtxt fromfile fromregex memmap
    ctypeslib lib DataSource f2py testing distutils show_config show_runtime get_include info
    lookfor source who add_newdoc add_docstring add_newdoc_ufunc byte_bounds recfromcsv
    recfromtxt load_library from_dlpack deprecate deprecate_with_doc safe_eval disp test
    """.split()
)


def _static_surfaces(guards) -> dict[str, SafeModule]:
    """Surfaces that hold no per-instance state. Built once per worker."""
    guarded_getattr = guards.getattr_slow
    s: dict[str, SafeModule] = {}

    def add(name, module, **kw):
        s[name] = SafeModule(name, _public_members(module, **kw))
        return s[name]

    add("math", math)
    add("cmath", cmath)
    add("itertools", itertools)
    s["functools"] = SafeModule("functools", _guarded_functools(guards))
    add("heapq", heapq)
    add("bisect", bisect)
    add("copy", copy)
    add("statistics", statistics)
    add("fractions", fractions)
    add("decimal", decimal)
    add("datetime", datetime)
    add("enum", enum)
    add("numbers", numbers)
    add("abc", abc)
    add("textwrap", textwrap)
    add("difflib", difflib)
    add("string", string, deny={"Formatter"})
    add("json", json)
    add("re", re)
    s["typing"] = SafeModule("typing", _guarded_typing(guards))
    s["dataclasses"] = SafeModule("dataclasses", _guarded_dataclasses(guards))
    add("hashlib", hashlib, deny={"file_digest"})
    add("time", time, only=[
        "time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
        "process_time", "sleep", "strftime", "gmtime", "localtime", "mktime", "asctime",
        "ctime", "struct_time",
    ])
    s["types"] = SafeModule("types", {"SimpleNamespace": SimpleNamespace, "MappingProxyType": types.MappingProxyType})
    s["operator"] = SafeModule("operator", _guarded_operator(guarded_getattr))
    abc_surface = add("collections.abc", collections.abc)
    collections_members = _public_members(collections)
    collections_members["abc"] = abc_surface
    collections_members["namedtuple"] = _guarded_namedtuple(guards)
    s["collections"] = SafeModule("collections", collections_members)
    s["math_verify"] = SafeModule("math_verify", {"parse": mathverify.parse, "verify": mathverify.verify})
    s["__future__"] = SafeModule("__future__", {
        name: getattr(future_module, name) for name in future_module.all_feature_names
    })
    s["numpy.linalg"] = SafeModule("numpy.linalg", _public_members(numpy.linalg))
    s["numpy.fft"] = SafeModule("numpy.fft", _public_members(numpy.fft))
    return s


_NUMPY_BASE: dict | None = None
_NUMPY_RANDOM_CLASSES: dict | None = None
_RANDOM_BOUND = tuple(
    name for name in dir(random)
    if not name.startswith("_") and getattr(getattr(random, name), "__self__", None) is random._inst
)
_NUMPY_RANDOM_BOUND = tuple(
    name for name in dir(numpy.random)
    if not name.startswith("_")
    and getattr(getattr(numpy.random, name), "__self__", None) is numpy.random.mtrand._rand
)


def _numpy_base() -> tuple[dict, dict]:
    global _NUMPY_BASE, _NUMPY_RANDOM_CLASSES
    if _NUMPY_BASE is None:
        _NUMPY_BASE = _public_members(numpy, deny=_NUMPY_DENY)
        # Module-level functions that act on numpy's hidden global RandomState without
        # being bound methods of it; ``for_instance`` rebinds the useful ones.
        unbound_global = {"seed", "ranf", "sample", "get_bit_generator", "set_bit_generator", "test"}
        _NUMPY_RANDOM_CLASSES = {
            name: value
            for name, value in _public_members(numpy.random, deny=unbound_global).items()
            if name not in _NUMPY_RANDOM_BOUND
        }
    assert _NUMPY_RANDOM_CLASSES is not None
    return _NUMPY_BASE, _NUMPY_RANDOM_CLASSES


class Surfaces:
    """All importable surfaces for one worker; ``for_instance`` adds the per-instance ones.

    Module-level state a program could change is never shared between instances:
    ``random``/``numpy.random`` are bound to fresh generators, ``sys`` carries the
    instance's own recursion limit, and every mutable member (``decimal.DefaultContext``,
    ``numpy.sctypeDict``...) is a private copy.
    """

    def __init__(self, guards):
        from spade_gym.sandbox.guards import guard_class

        _refuse_private_enum_names()
        self.static = _static_surfaces(guards)
        for surface in self.static.values():  # metaclasses only as stand-ins (abc.ABCMeta, enum.EnumType...)
            for key, value in list(vars(surface).items()):
                if isinstance(value, type) and issubclass(value, type):
                    surface.__dict__[key] = guard_class(value)
        self.numpy_base, self.numpy_random_classes = _numpy_base()
        self.random_members = _public_members(random)
        self.mutable = {
            name: [k for k, v in vars(surface).items() if isinstance(v, _MUTABLE_MEMBER_TYPES)]
            for name, surface in self.static.items()
        }
        self.mutable = {name: keys for name, keys in self.mutable.items() if keys}
        self.numpy_mutable = [k for k, v in self.numpy_base.items() if isinstance(v, _MUTABLE_MEMBER_TYPES)]

    def for_instance(self, owner) -> dict[str, SafeModule]:
        rng = random.Random()
        random_members = dict(self.random_members)
        for name in _RANDOM_BOUND:
            random_members[name] = getattr(rng, name)
        legacy = numpy.random.RandomState()
        np_random_members = dict(self.numpy_random_classes)
        for name in _NUMPY_RANDOM_BOUND:
            np_random_members[name] = getattr(legacy, name)
        np_random_members.update(seed=legacy.seed, ranf=legacy.random_sample, sample=legacy.random_sample)
        np_random = SafeModule("numpy.random", np_random_members)
        np_members = dict(self.numpy_base)
        np_members.update(random=np_random, linalg=self.static["numpy.linalg"], fft=self.static["numpy.fft"])
        np_members.update({k: _private_copy(np_members[k]) for k in self.numpy_mutable})
        surfaces = dict(self.static)
        for name, keys in self.mutable.items():
            members = {k: v for k, v in vars(self.static[name]).items() if not k.startswith("__")}
            members.update({k: _private_copy(members[k]) for k in keys})
            surfaces[name] = SafeModule(name, members)
        surfaces["sys"] = _sys_surface(owner)
        surfaces["random"] = SafeModule("random", random_members)
        surfaces["numpy"] = SafeModule("numpy", np_members)
        surfaces["numpy.random"] = np_random
        return surfaces
