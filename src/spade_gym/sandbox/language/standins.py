"""Stand-ins the guards put between a program and what it must not hold or answer.

* :class:`GuardedMeta` — a metaclass (``type``, ``ABCMeta``, ``EnumType``...) as a program
  sees it: ``isinstance``/``issubclass``/one-argument ``type(x)``, never class creation;
* :class:`Absent` — a data descriptor every program class carries for numpy's
  raw-memory hooks (``__array_interface__``), shadowing instance dicts;
* :func:`public_getattr` — a program's ``__getattr__`` that never answers dunder names.
"""

from __future__ import annotations


class SandboxAttributeError(AttributeError):
    """An attribute access refused by the sandbox (a policy decision, not a missing name)."""


class GuardedMeta:
    """Stands in for a metaclass (``type``, ``ABCMeta``, ``EnumType``...) in program hands:
    ``isinstance``/``issubclass``/one-argument ``type(x)`` work, building a class does not
    (a class built outside a ``class`` statement could carry any dunder)."""

    __slots__ = ("_meta",)

    def __init__(self, meta):
        object.__setattr__(self, "_meta", meta)

    def __call__(self, *args, **kwargs):
        meta = object.__getattribute__(self, "_meta")
        if meta is type and len(args) == 1 and not kwargs:
            return guard_class(type(args[0]))
        raise SandboxAttributeError(f"calling the metaclass {meta.__name__} (dynamic class creation) "
                                    "is blocked by the sandbox; use a class statement")

    def __instancecheck__(self, obj):
        return isinstance(obj, object.__getattribute__(self, "_meta"))

    def __subclasscheck__(self, cls):
        return issubclass(cls, object.__getattribute__(self, "_meta"))

    def __repr__(self):
        return repr(object.__getattribute__(self, "_meta"))

    def __eq__(self, other):
        meta = object.__getattribute__(self, "_meta")
        return other is meta or isinstance(other, GuardedMeta) and object.__getattribute__(other, "_meta") is meta

    def __hash__(self):
        return hash(object.__getattribute__(self, "_meta"))

    def __setattr__(self, name, value):
        raise SandboxAttributeError("metaclass stand-ins are read-only")


_GUARDED_METAS: dict = {}


def guard_class(value):
    """``value`` unless it is a metaclass, which programs only ever see as a stand-in."""
    if type(value) is type and value is not type and not issubclass(value, type):
        return value
    if isinstance(value, type) and issubclass(value, type):
        stand_in = _GUARDED_METAS.get(value)
        if stand_in is None:
            stand_in = _GUARDED_METAS[value] = GuardedMeta(value)
        return stand_in
    return value


#: Attributes numpy reads from *instances* and trusts (``__array_interface__`` carries a
#: raw memory address). Every program class gets a data descriptor for each that
#: answers "no such attribute", shadowing instance dicts and program ``__getattr__``.
SHADOWED_PROTOCOL_ATTRS = ("__array_interface__", "__array_struct__")


class Absent:
    """A data descriptor that makes an attribute absent on a program class's instances."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(self.name)

    def __set__(self, obj, value):
        raise SandboxAttributeError(f"setting '{self.name}' is blocked by the sandbox")

    def __delete__(self, obj):
        raise AttributeError(self.name)


def public_getattr(hook):
    """A program's ``__getattr__``, answering only names a program could write itself:
    dunder lookups come from the interpreter or libraries (numpy's raw-memory
    ``__array_interface__``...), never from program code."""

    def __getattr__(self, name):
        if name[:2] == "__" and name[-2:] == "__":
            raise AttributeError(name)
        return hook(self, name)

    __getattr__.__wrapped_hook__ = hook  # type: ignore[attr-defined]  # functions take attributes; mypy does not model them
    return __getattr__
