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
import datetime
import decimal
import difflib
import enum
import fractions
import hashlib
import heapq
import itertools
import json
import math
import numbers
import random
import re
import statistics
import string
import sys
import textwrap
import time
import types

import numpy
import numpy.fft
import numpy.linalg
import numpy.random

from spade_gym.sandbox.language import mathverify
from spade_gym.sandbox.language.standins import guard_class
from spade_gym.sandbox.language.vetted import (
    SimpleNamespace,
    guarded_dataclasses,
    guarded_functools,
    guarded_namedtuple,
    guarded_operator,
    guarded_typing,
    guarded_writers,
    public_members,
    refuse_private_enum_names,
)


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

#: Read-only stand-ins for mutable containers held as *class* attributes of library classes.
_READ_ONLY: dict[type, collections.abc.Callable] = {dict: types.MappingProxyType, list: tuple, set: frozenset,
                                                    bytearray: bytes}
_FROZEN_CLASSES: set = set()


def freeze_library_class_state(values) -> list[str]:
    """Make every public mutable container on a library class (and its bases) read-only.

    A class attribute is one object for every instance in the worker: a program writing
    into ``textwrap.TextWrapper.unicode_whitespace_trans`` (a dict, reached by a plain
    subscript store, which no guard sees) would change what every other instance's
    ``textwrap.fill`` does. Replacing such containers by read-only equivalents keeps the
    library working (it only reads them) and closes the whole kind at once; returns what
    it froze. Programs never get private class attributes, so only public names matter.
    """
    frozen = []
    for value in values:
        if not isinstance(value, type):
            continue
        for klass in value.__mro__:
            if klass in _FROZEN_CLASSES or klass is object:
                continue
            _FROZEN_CLASSES.add(klass)
            for name, member in list(vars(klass).items()):
                make = _READ_ONLY.get(type(member))
                if make is None or name.startswith("_"):
                    continue
                try:
                    type.__setattr__(klass, name, make(member))
                except TypeError:  # a static C type: its attributes cannot be rebound, nor written
                    continue
                frozen.append(f"{klass.__module__}.{klass.__qualname__}.{name}")
    return frozen


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
        s[name] = SafeModule(name, public_members(module, **kw))
        return s[name]

    add("math", math)
    add("cmath", cmath)
    add("itertools", itertools)
    s["functools"] = SafeModule("functools", guarded_functools(guards))
    add("heapq", heapq)
    add("bisect", bisect)
    add("copy", copy)
    add("statistics", statistics)
    add("fractions", fractions)
    add("decimal", decimal)
    add("datetime", datetime)
    s["enum"] = SafeModule("enum", guarded_writers(guards, enum, public_members(enum)))
    add("numbers", numbers)
    s["abc"] = SafeModule("abc", guarded_writers(guards, abc, public_members(abc)))
    add("textwrap", textwrap)
    add("difflib", difflib)
    add("string", string, deny={"Formatter"})
    add("json", json)
    add("re", re)
    s["typing"] = SafeModule("typing", guarded_typing(guards))
    s["dataclasses"] = SafeModule("dataclasses", guarded_dataclasses(guards))
    add("hashlib", hashlib, deny={"file_digest"})
    add("time", time, only=[
        "time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
        "process_time", "sleep", "strftime", "gmtime", "localtime", "mktime", "asctime",
        "ctime", "struct_time",
    ])
    s["types"] = SafeModule("types", {"SimpleNamespace": SimpleNamespace, "MappingProxyType": types.MappingProxyType})
    s["operator"] = SafeModule("operator", guarded_operator(guarded_getattr))
    abc_surface = add("collections.abc", collections.abc)
    collections_members = public_members(collections)
    collections_members["abc"] = abc_surface
    collections_members["namedtuple"] = guarded_namedtuple(guards)
    s["collections"] = SafeModule("collections", collections_members)
    s["math_verify"] = SafeModule("math_verify", {"parse": mathverify.parse, "verify": mathverify.verify})
    s["__future__"] = SafeModule("__future__", {
        name: getattr(future_module, name) for name in future_module.all_feature_names
    })
    s["numpy.linalg"] = SafeModule("numpy.linalg", public_members(numpy.linalg))
    s["numpy.fft"] = SafeModule("numpy.fft", public_members(numpy.fft))
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
        _NUMPY_BASE = public_members(numpy, deny=_NUMPY_DENY)
        # Module-level functions that act on numpy's hidden global RandomState without
        # being bound methods of it; ``for_instance`` rebinds the useful ones.
        unbound_global = {"seed", "ranf", "sample", "get_bit_generator", "set_bit_generator", "test"}
        _NUMPY_RANDOM_CLASSES = {
            name: value
            for name, value in public_members(numpy.random, deny=unbound_global).items()
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
        refuse_private_enum_names()
        self.static = _static_surfaces(guards)
        for surface in self.static.values():  # metaclasses only as stand-ins (abc.ABCMeta, enum.EnumType...)
            for key, value in list(vars(surface).items()):
                if isinstance(value, type) and issubclass(value, type):
                    surface.__dict__[key] = guard_class(value)
        self.numpy_base, self.numpy_random_classes = _numpy_base()
        self.random_members = public_members(random)
        for members in (*(vars(surface) for surface in self.static.values()), self.numpy_base,
                        self.numpy_random_classes, self.random_members):
            freeze_library_class_state(members.values())
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
