"""The compile-time policy: ordinary generated code compiles; escapes are rejected with a line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.errors import PolicyViolation
from spade_gym.sandbox.language.compiler import MAX_SOURCE_CHARS, compile_program

ACCEPTED = {
    "underscore_attrs": "class A:\n    def f(self):\n        self._solution = 1\n        return self._solution",
    "aug_assign_attr": "class A:\n    def f(self):\n        self.turn_count = 0\n        self.turn_count += 1",
    "aug_assign_item": "d = {}\nd['k'] = 0\nd['k'] += 1",
    "format_and_fstring": "x = '{} {}'.format(1, 2) + f'{x!r:>5}' if False else ''",
    "nonlocal": "def outer():\n    n = 0\n    def inner():\n        nonlocal n\n        n += 1\n    inner()\n    return n",
    "annotated_class_attrs": "class A:\n    size: int = 3\n    name: str",
    "dataclass": "from dataclasses import dataclass, field\n@dataclass(order=True)\nclass P:\n    x: int = 0\n    y: list = field(default_factory=list)",
    "property_staticmethod": "class A:\n    @property\n    def v(self):\n        return 1\n    @staticmethod\n    def s():\n        return 2",
    "dunder_methods": "class A:\n    def __repr__(self):\n        return 'A'\n    def __eq__(self, o):\n        return True\n    def __lt__(self, o):\n        return False\n    def __hash__(self):\n        return 1",
    "super_init": "class B:\n    def __init__(self):\n        pass\nclass A(B):\n    def __init__(self):\n        super().__init__()",
    "try_except": "try:\n    x = 1 / 0\nexcept (ZeroDivisionError, ValueError) as e:\n    x = str(e)\nfinally:\n    y = 2",
    "single_underscore_helpers": "_cache = {}\ndef _helper(_x):\n    return _cache.get(_x)\n_ = [_helper(i) for i in range(3)]",
    "match_statement": "match [1, 2]:\n    case [a, *rest]:\n        b = a\n    case {'k': v, **others}:\n        b = v\n    case _:\n        b = 0",
    "main_guard": "if __name__ == '__main__':\n    print('demo')",
    "class_name_dunder": "class A:\n    def f(self):\n        return type(self).__name__ + self.__class__.__name__",
    "private_mangling": "class A:\n    def __init__(self):\n        self.__secret = 1\n    def get(self):\n        return self.__secret",
    "allowed_imports": "import random, re, math, itertools, functools, collections, string, json, copy, heapq\n"
                       "import operator, statistics, fractions, decimal, datetime, dataclasses, typing, enum, bisect\n"
                       "import numpy as np\nfrom math_verify import parse, verify\nfrom collections.abc import Iterable\n"
                       "from __future__ import annotations" if False else
                       "from __future__ import annotations\nimport random, re, math, itertools, functools, collections\n"
                       "import string, json, copy, heapq, operator, statistics, fractions, decimal, datetime\n"
                       "import dataclasses, typing, enum, bisect\nimport numpy as np\nimport numpy.random\n"
                       "from math_verify import parse, verify\nfrom collections.abc import Iterable",
    "own_compile_method": "class A:\n    def compile(self):\n        return 1\ndef input(x):\n    return x\nv = input(3)",
    "walrus_and_lambda": "if (n := 3) > 2:\n    f = lambda a, *b, c=1, **d: a",
    "generators": "def g():\n    yield 1\n    yield from [2, 3]",
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_ordinary_code_compiles(name):
    compile_program(ACCEPTED[name])


REJECTED = {
    "import_os": ("x = 1\nimport os", 2, 'import of "os"'),
    "from_socket": ("from socket import socket", 1, 'import of "socket"'),
    "relative": ("from . import thing", 1, "relative imports"),
    "star_import": ("from math import *", 1, "import *"),
    "private_import": ("from random import _os", 1, "private name"),
    "dunder_attr": ("x = ().__class__.__bases__", 1, "__bases__"),
    "globals_attr": ("def f():\n    pass\ng = f.__globals__", 3, "__globals__"),
    "subclasses": ("y = 1\nz = object.__subclasses__()", 2, "__subclasses__"),
    "frame_attr": ("g = (i for i in [1])\nf = g.gi_frame", 2, "gi_frame"),
    "traceback_attr": ("try:\n    pass\nexcept Exception as e:\n    t = e.__traceback__", 4, "__traceback__"),
    "guard_name": ("_getattr_ = None", 1, "reserved"),
    "guard_param": ("def f(*, _write_=1):\n    pass", 1, "reserved"),
    "dunder_name": ("__builtins__['x'] = 1", 1, "__builtins__"),
    "dunder_assign": ("class A:\n    __slots__ = ()", 2, "__slots__"),
    "eval": ("eval('1')", 1, "eval()"),
    "exec": ("x = 1\nexec('y = 2')", 2, "exec()"),
    "open": ("f = open('x')", 1, "open()"),
    "globals_call": ("g = globals()", 1, "globals()"),
    "type3": ("T = type('T', (), {})", 1, "type() with 3 arguments"),
    "metaclass": ("class A(metaclass=type):\n    pass", 1, "metaclass"),
    "unknown_dunder_def": ("class A:\n    def __reduce__(self):\n        return 1", 2, "__reduce__"),
    "module_dunder_def": ("def __init__():\n    pass", 1, "__init__"),
    "async": ("async def f():\n    pass", 1, "AsyncFunctionDef"),
    "setattr_dunder": ("class A:\n    pass\nA.__name__ = 'B'", 3, "__name__"),
    "syntax": ("def f(:\n    pass", 1, "SyntaxError"),
    "match_private_kw": ("class P:\n    pass\nmatch P():\n    case P(_x=1):\n        pass", 4, "_x"),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_escapes_rejected_with_line(name):
    source, line, fragment = REJECTED[name]
    with pytest.raises(PolicyViolation) as info:
        compile_program(source)
    assert info.value.lineno == line
    assert fragment in str(info.value)
    assert f"Line {line}" in str(info.value)


def test_size_limit():
    with pytest.raises(PolicyViolation, match="limit"):
        compile_program("x = 1\n" * (MAX_SOURCE_CHARS // 5))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_compiles_or_is_a_policy_violation(text):
    try:
        compile_program(text)
    except PolicyViolation:
        pass
