"""Instances in one worker share nothing (issue 20): not the module namespace library code
resolves names in, not an ABC registry, not a library class's attributes, not a library
object a helper decorates. And ``match`` class patterns read attributes under the same
rules as ``obj.attr``.

Two kinds of test: real workers (two instances of one hostile program, one reading what
the other wrote), and an in-process audit that runs hostile instances under the guards
and compares every process-wide registry we know of before and after.
"""

from __future__ import annotations

import abc
import atexit
import codecs
import collections.abc
import copyreg
import decimal
import enum
import json
import numbers
import random
import resource
import sys
import textwrap
import typing
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spade_gym.errors import PolicyViolation
from spade_gym.sandbox import ProgramHandle
from spade_gym.sandbox.language.compiler import compile_program
from spade_gym.sandbox.language.names import GUARDED_ATTRIBUTES, natively_readable
from spade_gym.sandbox.limits import Limits
from spade_gym.sandbox.worker.runtime import ProgramRuntime

# ----------------------------------------------------------------------------- real workers

# Instance with an odd seed publishes ``CV = typing.ClassVar`` in its own module; a
# dataclass built in the *other* instance treats a ``"CV[int]"`` annotation as a class
# variable only if library code resolves that string in the wrong namespace.
NAMESPACE_PROBE = '''
import dataclasses, typing

class ProbeEnv:
    def reset(self, seed=None):
        global CV
        if seed % 2:
            CV = typing.ClassVar
        return "ready", {}

    def step(self, action):
        @dataclasses.dataclass
        class P:
            x: "CV[int]" = 0
        return f"fields={len(dataclasses.fields(P))}", 0.0, True, False, {}

    def solution(self):
        return "x"
'''

# Instance 1 tries every process-wide registry write it can; instance 0 reports what it sees.
REGISTRY_PROBE = '''
import abc, collections, enum, json, numbers, textwrap, typing

class Mine(numbers.Integral):
    pass

def attempt(fn):
    try:
        fn()
        return "done"
    except Exception as exc:
        return type(exc).__name__

class ProbeEnv:
    def reset(self, seed=None):
        self.log = []
        if seed == 1:
            self.log.append(attempt(lambda: numbers.Integral.register(float)))
            self.log.append(attempt(lambda: Mine.register(float)))
            self.log.append(attempt(lambda: collections.abc.Sequence.register(dict)))
            self.log.append(attempt(lambda: abc.ABC.register(int)))
            self.log.append(attempt(lambda: getattr(numbers.Real, "register")(str)))
            self.log.append(attempt(lambda: textwrap.TextWrapper.unicode_whitespace_trans.__setitem__(97, 98)))
            self.log.append(attempt(lambda: enum.global_enum(enum.IntEnum)))
            self.log.append(attempt(lambda: abc.abstractmethod(json.dumps)))
            self.log.append(attempt(lambda: typing.runtime_checkable(typing.Protocol)))
        return "ready", {}

    def step(self, action):
        seen = (isinstance(2.5, numbers.Integral), isinstance({}, collections.abc.Sequence),
                isinstance(1, abc.ABC), issubclass(str, numbers.Real), textwrap.fill("a b", 10))
        return repr(seen) + " " + ",".join(self.log), 0.0, True, False, {}

    def solution(self):
        return "x"
'''


def test_library_code_resolves_names_in_the_calling_instance_namespace():
    with ProgramHandle(NAMESPACE_PROBE, count=2) as handle:
        handle.reset(seed=0, index=0)
        handle.reset(seed=1, index=1)  # the latest instance to run defines CV
        assert handle.step("go", index=0).observation == "fields=1"
        assert handle.step("go", index=1).observation == "fields=0"  # its own CV does count
        handle.reset(seed=2, index=0)
        assert handle.step("go", index=0).observation == "fields=1"


def test_one_instance_cannot_change_what_another_sees_through_process_wide_state():
    with ProgramHandle(REGISTRY_PROBE, count=2) as handle:
        handle.reset(seed=0, index=0)
        handle.reset(seed=1, index=1)
        attempts = handle.step("go", index=1).observation.split(" ", 5)[-1]
        seen = handle.step("go", index=0).observation
    assert seen.startswith("(False, False, False, False, 'a b')"), seen
    assert "done" not in attempts, attempts  # every write was refused, none silently ignored


# ----------------------------------------------------------------------------- in-process audit


class _Owner:
    recursion_limit = sys.getrecursionlimit()


def _abc_classes():
    found = {}
    for module in (numbers, collections.abc, abc, typing):
        for name in dir(module):
            value = getattr(module, name)
            if isinstance(value, abc.ABCMeta):
                found[f"{module.__name__}.{name}"] = value
    return found


_PROBE_TYPES = (int, float, str, bytes, dict, list, tuple, set, complex, bool, type(None), decimal.Decimal)


def _registries() -> dict:
    """Every process-wide registry a program might write, as comparable plain data."""
    snapshot: dict = {}
    for name, cls in _abc_classes().items():
        registry = abc._get_dump(cls)[0]
        snapshot[f"abc registry {name}"] = sorted(repr(ref()) for ref in registry)
        snapshot[f"isinstance {name}"] = [issubclass(t, cls) for t in _PROBE_TYPES]
    snapshot["copyreg.dispatch_table"] = sorted(map(repr, copyreg.dispatch_table))
    snapshot["copyreg extensions"] = sorted(map(repr, copyreg._extension_registry))
    snapshot["codecs"] = [codecs.lookup(n).name for n in ("utf-8", "latin-1", "ascii")]
    snapshot["warnings.filters"] = [repr(f) for f in warnings.filters]
    snapshot["atexit callbacks"] = atexit._ncallbacks()
    snapshot["sys hooks"] = [repr(h) for h in (sys.excepthook, sys.displayhook, sys.breakpointhook,
                                                sys.unraisablehook, sys.gettrace(), sys.getprofile())]
    snapshot["sys state"] = [sys.get_int_max_str_digits(), sys.getswitchinterval(), list(sys.path),
                             [repr(m) for m in sys.meta_path], [repr(h) for h in sys.path_hooks]]
    snapshot["random"] = random.getstate()
    snapshot["numpy random"] = repr(np.random.get_state(legacy=True)[1][:4])
    snapshot["numpy options"] = [repr(np.get_printoptions()), repr(np.geterr()), np.getbufsize()]
    snapshot["decimal"] = repr(decimal.getcontext())
    snapshot["textwrap"] = dict(textwrap.TextWrapper.unicode_whitespace_trans)
    snapshot["enum reprs"] = [repr(c.__dict__.get("__repr__")) for c in (enum.Enum, enum.IntEnum, enum.Flag)]
    snapshot["abstract flags"] = [getattr(f, "__isabstractmethod__", False) for f in (json.dumps, json.loads)]
    snapshot["protocol flags"] = [getattr(typing.Protocol, "_is_runtime_protocol", False)]
    snapshot["program module"] = repr(sys.modules.get("spade_program"))
    return snapshot


HOSTILE = REGISTRY_PROBE + '''
def everything():
    import decimal, random, sys
    for fn in (lambda: decimal.setcontext(decimal.Context(prec=3)), lambda: random.seed(99),
               lambda: sys.setrecursionlimit(5000), lambda: copy_table(),
               lambda: typing.final(json.dumps), lambda: abc.update_abstractmethods(numbers.Integral),
               lambda: typing.dataclass_transform()(json.JSONEncoder)):
        attempt(fn)

def copy_table():
    import copy
    copy.dispatch_table[int] = None

everything()
'''


def test_hostile_instances_leave_every_known_registry_as_it_was():
    import gc

    gc.collect()
    before = _registries()
    runtime = ProgramRuntime(Limits())
    saved_module = sys.modules.get("spade_program")
    # The worker runtime gives each episode a CPU budget through RLIMIT_CPU: run here, in the
    # test process, it must not leave that limit on pytest (which would die of SIGXCPU later).
    cpu_limit = resource.getrlimit(resource.RLIMIT_CPU)
    try:
        runtime.load(HOSTILE, {}, 2)
        for index in (0, 1):
            runtime.reset(index, index)
            runtime.step(index, "go")
    finally:
        if saved_module is None:
            sys.modules.pop("spade_program", None)
        else:
            sys.modules["spade_program"] = saved_module
        sys.setrecursionlimit(_Owner.recursion_limit)
        unchanged = resource.getrlimit(resource.RLIMIT_CPU) == cpu_limit
        resource.setrlimit(resource.RLIMIT_CPU, cpu_limit)
    assert unchanged, "the runtime, used in-process, changed the host's RLIMIT_CPU"
    gc.collect()
    after = _registries()
    changed = {key for key in before if before[key] != after[key]}
    assert not changed, {key: (before[key], after[key]) for key in changed}


# ----------------------------------------------------------------------------- match class patterns

PATTERN_CLASSES = ["str", "int", "object", "float", "list", "dict", "numbers.Integral", "random.Random",
                   "json.JSONEncoder", "np.ndarray", "Mine"]
PATTERN_NAMES = sorted(GUARDED_ATTRIBUTES | {"__init__", "__class__", "_inst", "__globals__", "gi_frame",
                                              "f_globals", "real", "imag", "upper", "count", "ctypes"})


SHAPES = ["{p}", "[{p}, *rest]", "({p}) | ({p})", "{{'k': {p}}}", "{p} as whole", "({p}, [{p2}])"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATTERN_CLASSES), st.lists(st.sampled_from(PATTERN_NAMES), min_size=1, max_size=3, unique=True),
       st.sampled_from(["x", "_", "[a, *b]", "str(s)", "{'k': v}"]), st.sampled_from(SHAPES),
       st.sampled_from(PATTERN_CLASSES), st.sampled_from(PATTERN_NAMES))
def test_class_patterns_follow_the_attribute_rules(cls, names, capture, shape, cls2, name2):
    """A keyword in a class pattern is an attribute read: it compiles only where
    ``obj.name`` would need no guard at all, whatever the pattern's shape or nesting."""
    keywords = ", ".join(f"{n}={capture if i == 0 else f'c{i}'}" for i, n in enumerate(names))
    used = list(names) + ([name2] if "{p2}" in shape else [])
    pattern = shape.format(p=f"{cls}({keywords})", p2=f"{cls2}({name2}=_)")
    source = (f"import json, numbers, random\nimport numpy as np\nclass Mine:\n    pass\n"
              f"def f(v):\n    match v:\n        case {pattern}:\n            return 1\n    return 0\n")
    allowed = all(natively_readable(n) for n in used)
    try:
        compile_program(source)
    except PolicyViolation as exc:
        assert "SyntaxError" not in str(exc), (source, exc)  # the generator writes valid Python
        assert not allowed, (source, exc)
        assert "pattern attribute" in str(exc), exc
        return
    assert allowed, f"compiled a native read of a guarded name:\n{source}"


@pytest.mark.parametrize("pattern", ["str(format=f)", "str(format_map=f)", "type(mro=m)", "object(register=r)",
                                     "np.ndarray(dump=d)", "np.ndarray(dumps=d)"])
def test_guarded_names_in_class_patterns_are_refused(pattern):
    source = f"import numpy as np\nmatch 'x':\n    case {pattern}:\n        pass\n"
    with pytest.raises(PolicyViolation, match="pattern attribute"):
        compile_program(source)


def test_a_refused_pattern_would_really_have_leaked_under_plain_python():
    """The attack the rule closes: ``case str(format=f)`` hands over the native
    ``str.format``, which walks ``{0.__init__.__globals__}`` (proven here in plain CPython)."""
    namespace: dict = {}
    exec("def leak(v):\n    match v:\n        case str(format=f):\n            return f\n", namespace)
    native = namespace["leak"]("{0.__init__.__globals__[__name__]}")
    assert native(textwrap.TextWrapper()) == "textwrap"
