"""The names the language layer judges: what a program may define, read, call and bind.

Shared by the compile-time policy (``policy.py``) and the run-time guards (``guards.py``).
"""

from __future__ import annotations

#: Special methods a program may define on its own classes.
SPECIAL_METHODS = frozenset(
    """
    __init__ __new__ __post_init__ __repr__ __str__ __format__ __hash__ __bool__ __len__
    __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __contains__ __iter__ __next__ __reversed__
    __getitem__ __setitem__ __delitem__ __missing__ __call__ __enter__ __exit__
    __add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__
    __matmul__ __rmatmul__ __truediv__ __rtruediv__ __itruediv__ __floordiv__ __rfloordiv__
    __ifloordiv__ __mod__ __rmod__ __imod__ __divmod__ __rdivmod__ __pow__ __rpow__ __ipow__
    __neg__ __pos__ __abs__ __invert__ __round__ __trunc__ __floor__ __ceil__
    __and__ __rand__ __iand__ __or__ __ror__ __ior__ __xor__ __rxor__ __ixor__
    __lshift__ __rlshift__ __ilshift__ __rshift__ __rrshift__ __irshift__
    __int__ __float__ __complex__ __index__ __copy__ __deepcopy__ __getattr__
    __class_getitem__ __init_subclass__ __set_name__ __get__ __set__ __delete__
    __sizeof__ __del__
    """.split()
)

#: Dunder attributes a program may *read*: the special methods above (so that
#: ``super().__init__()`` and ``super().__eq__(o)`` work) plus harmless metadata.
#: Everything else (``__globals__``, ``__subclasses__``, ``__mro__``...) is rejected.
READABLE_DUNDER_ATTRS = (SPECIAL_METHODS - {"__new__", "__init_subclass__", "__set_name__",
                                            "__get__", "__set__", "__delete__", "__del__"}) | {
    "__name__", "__qualname__", "__class__", "__doc__", "__module__", "__dict__",
}

#: Dunder names a program may read as plain names.
READABLE_DUNDER_NAMES = frozenset({"__name__"})

#: Attribute names that lead to frames, code objects, tracebacks or foreign memory.
DENIED_ATTRIBUTES = frozenset(
    """
    gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await cr_origin ag_frame ag_code ag_await
    f_back f_builtins f_code f_generator f_globals f_locals f_trace f_lineno tb_frame tb_next tb_lasti tb_lineno
    co_code co_consts co_names co_varnames co_filename
    ctypes cffi tofile
    """.split()
)

#: Attribute names whose reads take the slow guard, which looks at the object as well
#: as the name (string formatting traversal, numpy's pickle-to-file ``dump``, an ABC's
#: process-wide ``register``...).
GUARDED_ATTRIBUTES = frozenset({"format", "format_map", "dump", "dumps", "mro", "register"})


def natively_readable(attr: str) -> bool:
    """May ``attr`` be read with no guard call at all? Only where the grammar reads an
    attribute natively (``case C(attr=...)``); every name that needs a guard's judgement
    (private, denied, or judged by its object) is refused there instead."""
    return not attr.startswith("_") and attr not in DENIED_ATTRIBUTES and attr not in GUARDED_ATTRIBUTES

#: Builtins that do not exist inside the sandbox; calling them under their builtin
#: name is reported at compile time (a program may still define its own ``compile``).
FORBIDDEN_CALLS = frozenset(
    "eval exec compile open globals vars locals breakpoint input memoryview help exit quit".split()
)

#: Names the runtime injects; a program may never bind them.
GUARD_NAMES = frozenset({"_getattr_", "_getattr_slow_", "_write_", "_type_", "_P_"})
