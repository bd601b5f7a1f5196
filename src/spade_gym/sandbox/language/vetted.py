"""What a program may receive from a library, and the library functions rebuilt for it.

:func:`public_members` picks a module's public, non-module members. Library functions
that read, write or evaluate attributes *natively* on behalf of a program would carry
it past the guards; each is either rebuilt on the guards (``operator.attrgetter``,
``functools.update_wrapper``) or limited to what it does for ordinary programs: the
program's own classes (``dataclass``, ``total_ordering``), the default attribute lists,
no string annotations evaluated (``singledispatch``), no dunder keys
(``SimpleNamespace``), no private enum member names.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import operator
import types
import typing

from spade_gym.sandbox.language.compiler import PROGRAM_FILENAME
from spade_gym.sandbox.language.standins import guard_class

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



def public_members(module, *, deny=(), only=None) -> dict:
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


def guarded_functools(guards) -> dict:
    members = public_members(functools)
    defaults_assigned, defaults_updated = functools.WRAPPER_ASSIGNMENTS, functools.WRAPPER_UPDATES

    def _check_lists(assigned, updated):
        if not set(assigned) <= set(defaults_assigned) or not set(updated) <= set(defaults_updated):
            raise SandboxRefusal("functools.update_wrapper/wraps accept only the default attribute lists in the "
                                 "sandbox")

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

        dispatcher.register = guarded_register  # type: ignore[method-assign]  # shadows the method on this one dispatcher
        return dispatcher

    def total_ordering(cls):
        return functools.total_ordering(guards.own_class(cls, "functools.total_ordering"))

    members.update(update_wrapper=update_wrapper, wraps=wraps, singledispatch=singledispatch,
                   total_ordering=total_ordering)
    members.pop("singledispatchmethod", None)
    return members


def guarded_dataclasses(guards) -> dict:
    members = public_members(dataclasses, deny={"make_dataclass"})

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


def guarded_namedtuple(guards):
    def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
        # a class named at run time: mypy only models namedtuple() called with literals
        cls = collections.namedtuple(typename, field_names, rename=rename, defaults=defaults,  # type: ignore[misc, arg-type]
                                     module=module or "spade_program")
        return guards.adopt(cls)

    return namedtuple


def _owned(guards, obj) -> bool:
    """Did the program make ``obj`` (a function, a class, an instance, or a
    classmethod/staticmethod around one of its functions)?"""
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    return _program_callable(obj) or guards.is_program_object(obj)


def on_own_argument(guards, fn, name: str):
    """``fn`` limited to the program's own objects: library helpers that set attributes
    on their argument natively (``abc.abstractmethod`` sets ``__isabstractmethod__``,
    ``enum.global_enum`` rewrites a class's ``__repr__``, ``typing.runtime_checkable``
    flips a protocol's checks) would otherwise change a *library* object that every
    instance in the worker shares."""

    def guarded(obj, *args, **kwargs):
        if not _owned(guards, obj):
            raise SandboxRefusal(f"{name}() works on the program's own functions and classes only")
        return fn(obj, *args, **kwargs)

    guarded.__name__ = guarded.__qualname__ = name.rpartition(".")[2]
    return guarded


#: Per module, the helpers that write onto their first argument (see ``on_own_argument``).
ARGUMENT_WRITERS = {
    "abc": ("abstractmethod", "abstractclassmethod", "abstractstaticmethod", "update_abstractmethods"),
    "enum": ("global_enum",),
    "typing": ("final", "runtime_checkable"),
}


def guarded_writers(guards, module, members: dict) -> dict:
    """``members`` with ``module``'s argument-writing helpers limited to program objects."""
    for name in ARGUMENT_WRITERS.get(module.__name__, ()):
        if name in members:
            members[name] = on_own_argument(guards, members[name], f"{module.__name__}.{name}")
    return members


def guarded_typing(guards) -> dict:
    members = public_members(typing, deny={"get_type_hints", "get_overloads", "clear_overloads", "no_type_check",
                                             "no_type_check_decorator"})
    members["get_origin"] = lambda tp: guard_class(typing.get_origin(tp))
    members["get_args"] = lambda tp: tuple(guard_class(a) for a in typing.get_args(tp))
    transform = typing.dataclass_transform

    def dataclass_transform(**kwargs):
        # the decorator it returns sets ``__dataclass_transform__`` on its argument
        return on_own_argument(guards, transform(**kwargs), "typing.dataclass_transform")

    members["dataclass_transform"] = dataclass_transform
    return guarded_writers(guards, typing, members)


def refuse_private_enum_names():
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

    _create_._spade_guarded = True  # type: ignore[attr-defined]  # functions take attributes; mypy does not model them
    enum.EnumType._create_ = _create_  # type: ignore[attr-defined]  # typeshed leaves out the private _create_


def guarded_operator(guarded_getattr):
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

    members = public_members(operator)
    members["attrgetter"] = attrgetter
    members["methodcaller"] = methodcaller
    return members


