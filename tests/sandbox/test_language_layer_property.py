"""Property: no combination of the vetted surfaces' callables reaches a dunder or private
attribute of an object the program does not own (issue 11 item 4).

Hypothesis writes short programs that chain attribute-reaching callables from the
surfaces (``getattr``, ``operator.attrgetter``/``methodcaller``, ``functools.reduce``/
``partial``/``update_wrapper``, ``dataclasses.replace``, ``copy``, ``str.format`` through
``super``, ``type``, ``typing.get_origin``...) over library objects and the names an escape
needs. The programs are compiled under the policy and run with the guards, in-process so
that the test can look at every value they obtained: none may be a module, frame, code
object, a namespace holding ``__builtins__``, a metaclass, the class table, or a
private/dunder member of a library object.
"""

from __future__ import annotations

import types

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spade_gym.errors import PolicyViolation
from spade_gym.sandbox.language.compiler import compile_program
from spade_gym.sandbox.language.rules import READABLE_DUNDER_ATTRS
from spade_gym.sandbox.limits import Limits
from spade_gym.sandbox.worker.instance import build_namespace
from spade_gym.sandbox.worker.runtime import ProgramRuntime

NAMES = ["__globals__", "__class__", "__base__", "__subclasses__", "__dict__", "__code__", "__builtins__",
         "__init__", "_os", "_inst", "_randbelow", "__reduce_ex__", "__getattribute__", "format", "mro",
         "__mro__", "gi_frame", "__self__", "__func__", "__wrapped__", "__module__", "_abc_impl",
         "__array_interface__", "_fields", "__closure__", "__defaults__", "f_globals"]

OBJECTS = ["random", "json.dumps", "random.Random()", "np.arange(3)", "Mine()", "Mine", "str", "object", "int",
           "json", "functools.partial(print)", "collections.Counter()", "fractions.Fraction(1, 2)",
           "decimal.getcontext()", "re.compile('a')", "(x for x in [1])", "enum.Enum", "abc.ABC", "typing.List",
           "json.JSONEncoder()", "Sub()", "'{0}'", "copy.copy", "types.SimpleNamespace(a=1)", "()"]

# Each takes (obj, name) and tries to reach ``name`` on ``obj`` some way.
REACHERS = [
    "getattr",
    "lambda o, n: operator.attrgetter(n)(o)",
    "lambda o, n: operator.methodcaller(n)(o)",
    "lambda o, n: functools.reduce(getattr, [n], o)",
    "lambda o, n: functools.partial(getattr, o)(n)",
    "lambda o, n: functools.update_wrapper(Mine(), o, assigned=(n,), updated=()).__dict__",
    "lambda o, n: functools.wraps(o, assigned=(n,))(Mine()).__dict__",
    "lambda o, n: dataclasses.replace(o, **{n: 1})",
    "lambda o, n: dataclasses.asdict(o)",
    "lambda o, n: copy.copy(o)",
    "lambda o, n: copy.deepcopy(o)",
    "lambda o, n: ('{0.' + n + '}').format(o)",
    "lambda o, n: str.format('{0.' + n + '}', o)",
    "lambda o, n: Fmt('{0.' + n + '}').leak(o)",
    "lambda o, n: type(o)",
    "lambda o, n: o.__class__",
    "lambda o, n: type(type(o))",
    "lambda o, n: typing.get_origin(o)",
    "lambda o, n: typing.get_args(o)",
    "lambda o, n: hasattr(o, n) and getattr(o, n)",
    "lambda o, n: [getattr(o, n)]",
    "lambda o, n: sorted([o, o], key=operator.attrgetter(n))",
    "lambda o, n: list(map(getattr, [o], [n]))",
    "lambda o, n: functools.total_ordering(o)",
    "lambda o, n: dataclasses.dataclass(o)",
    "lambda o, n: enum.Enum('E', {n: 1})",
    "lambda o, n: types.SimpleNamespace(**{n: 1})",
    "lambda o, n: collections.namedtuple('T', [n])",
    "lambda o, n: o(n)",
    "lambda o, n: o()",
]

PRELUDE = """\
import abc, collections, copy, dataclasses, decimal, enum, fractions, functools, json, operator, random, re
import types, typing
import numpy as np

class Mine:
    pass

class Sub(random.Random):
    pass

class Fmt(str):
    def leak(self, obj):
        return super().format(obj)

RESULTS = []

def attempt(fn, obj, name):
    try:
        value = fn(obj, name)
    except Exception:
        return obj
    RESULTS.append(value)
    return value
"""


def _program(steps) -> str:
    lines = [PRELUDE, f"v = {OBJECTS[steps[0][0]]}"]
    for _, reacher, name in steps:
        lines.append(f"v = attempt({REACHERS[reacher]}, v, {NAMES[name]!r})")
    return "\n".join(lines) + "\n"


def _run(source: str):
    runtime = ProgramRuntime(Limits())

    class Owner:
        recursion_limit = 1000

    namespace = build_namespace(runtime.guards, runtime.surfaces.for_instance(Owner()))
    exec(compile_program(source).code, namespace)
    return namespace, runtime.guards


_SAFE_DUNDERS = READABLE_DUNDER_ATTRS


def _leak(value, namespace, guards, depth: int = 0) -> str | None:
    if isinstance(value, (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType)):
        return f"a {type(value).__name__}"
    if isinstance(value, type) and issubclass(value, type):
        return f"the metaclass {value!r}"
    if isinstance(value, dict) and "__builtins__" in value and value is not namespace:
        return "a module namespace"
    if isinstance(value, (list, tuple)) and len(value) > 50 and all(isinstance(v, type) for v in value):
        return "the class table"
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        for key, item in value.items():
            # ``__wrapped__`` (set by update_wrapper) holds the object the program passed in
            if key.startswith("__") and key.endswith("__") and key not in _SAFE_DUNDERS | {"__wrapped__"}:
                return f"a dict holding {key}"
            if depth < 2 and (problem := _leak(item, namespace, guards, depth + 1)):
                return f"{key}: {problem}"
    # (a class is fine: ``type(x)`` of an object the program holds is ordinary Python)
    name = getattr(value, "__name__", None) if callable(value) and not isinstance(value, type) else None
    if isinstance(name, str) and name.startswith("_") and name not in _SAFE_DUNDERS:
        owner = getattr(value, "__self__", None)
        if owner is None or not guards.is_program_object(owner):
            qualname = getattr(value, "__qualname__", name)
            if not str(qualname).startswith(("Mine", "Sub", "Fmt", "attempt", "<lambda>")):
                return f"the library member {qualname}"
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(OBJECTS) - 1), st.integers(0, len(REACHERS) - 1),
                          st.integers(0, len(NAMES) - 1)), min_size=1, max_size=4))
def test_no_chain_of_surface_callables_reaches_a_library_private(steps):
    source = _program(steps)
    try:
        namespace, guards = _run(source)
    except PolicyViolation:
        return  # rejected before running: nothing reached
    for value in namespace["RESULTS"]:
        problem = _leak(value, namespace, guards)
        assert problem is None, f"{problem} reached by:\n{source}"


def test_match_args_of_vetted_library_classes_are_public():
    """Positional class patterns read ``__match_args__`` names natively; every vetted class
    must list only public, non-denied names there (programs cannot define it)."""
    from spade_gym.sandbox.language.rules import DENIED_ATTRIBUTES

    runtime = ProgramRuntime(Limits())

    class Owner:
        recursion_limit = 1000

    checked = 0
    for surface in runtime.surfaces.for_instance(Owner()).values():
        for value in vars(surface).values():
            names = getattr(value, "__match_args__", None) if isinstance(value, type) else None
            if names:
                checked += 1
                assert all(not n.startswith("_") and n not in DENIED_ATTRIBUTES for n in names), (value, names)
    assert checked >= 3


def test_dotted_class_patterns_run_natively_and_privately_named_ones_are_refused():
    namespace, _ = _run("import random\nimport difflib\nm = difflib.Match(1, 2, 3)\n"
                        "match m:\n    case difflib.Match(a, b, size=s):\n        OUT = (a, b, s)\n"
                        "match random.Random(0):\n    case random.Random():\n        KIND = 'rng'\n")
    assert namespace["OUT"] == (1, 2, 3) and namespace["KIND"] == "rng"
    import pytest

    with pytest.raises(PolicyViolation, match="pattern class attribute"):
        compile_program("import random\nmatch 1:\n    case random._inst():\n        pass\n")
    with pytest.raises(PolicyViolation, match="pattern attribute"):
        compile_program("match 1:\n    case int(_secret=x):\n        pass\n")
