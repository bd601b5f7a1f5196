"""The attack corpus: programs that try to get out of the sandbox.

Every escape attack is written so that under plain ``exec`` (the SPADE reference
loader's way) its ``reset()`` returns an observation starting with ``ESCAPED`` and
carrying evidence (the canary secret from the host environment, a listing of the
working directory, a file it wrote...). The tests first prove that on plain CPython,
then that the sandbox stops it with the expected kind of error.

``kind`` is where the sandbox must stop it: ``policy`` (rejected at compile time, with
a line number) or ``program`` (refused at run time by a guard or a missing member).
"""

from __future__ import annotations

CANARY_VAR = "SPADE_CANARY_SECRET"

TEMPLATE = '''\
{prelude}

class AttackEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.max_turns = max_turns

    def reset(self, seed=None):
{body}
        return "contained", {{}}

    def solution(self):
        return "x"

    def step(self, action):
        return "o", 0.0, True, False, {{}}
'''


def program(body: str, prelude: str = "") -> str:
    indented = "\n".join("        " + line if line.strip() else "" for line in body.strip("\n").splitlines())
    return TEMPLATE.format(prelude=prelude.strip("\n"), body=indented)


# name -> (prelude, body, kind)
ESCAPES: dict[str, tuple[str, str, str]] = {
    "import_os": (
        "import os",
        "return 'ESCAPED ' + os.environ.get('SPADE_CANARY_SECRET', ''), {}",
        "policy",
    ),
    "import_subprocess": (
        "import subprocess",
        "return 'ESCAPED ' + subprocess.run(['env'], capture_output=True, text=True).stdout, {}",
        "policy",
    ),
    "dunder_import": (
        "",
        "os = __import__('os')\nreturn 'ESCAPED ' + os.environ['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "builtins_dict": (
        "",
        "imp = __builtins__['__import__'] if isinstance(__builtins__, dict) else __builtins__.__import__\n"
        "return 'ESCAPED ' + imp('os').environ['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "random_private_os": (
        "import random",
        "return 'ESCAPED ' + random._os.environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "getattr_private_os": (
        "import random",
        "os = getattr(random, '_' + 'os')\nreturn 'ESCAPED ' + os.environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "collections_sys": (
        "import collections",
        "return 'ESCAPED ' + collections._sys.modules['os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "fractions_sys_pivot": (
        "import fractions",
        "return 'ESCAPED ' + fractions.sys.modules['os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "re_enum_sys_pivot": (
        "import re",
        "return 'ESCAPED ' + re.enum.sys.modules['os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "json_decoder_pivot": (
        "import json",
        "mod = json.decoder.re\nreturn 'ESCAPED ' + mod.enum.sys.modules['os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "numpy_submodule_pivot": (
        "import numpy as np",
        "return 'ESCAPED ' + np.lib._npyio_impl.os.environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "from_import_submodule_fallback": (
        "from json import decoder",
        "return 'ESCAPED ' + decoder.re.enum.sys.modules['os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "from_numpy_import_lib": (
        "from numpy import lib",
        "return 'ESCAPED ' + lib._npyio_impl.os.environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "math_verify_sympy_pivot": (
        "import math_verify",
        "return 'ESCAPED ' + math_verify.parser.re.enum.sys.modules['os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "attributeerror_obj_pivot": (
        "import random",
        "try:\n    random.no_such_member\nexcept AttributeError as exc:\n    mod = exc.obj\n"
        "return 'ESCAPED ' + mod._os.environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "subclasses_walk": (
        "",
        "for cls in ().__class__.__base__.__subclasses__():\n"
        "    if cls.__name__ == '_wrap_close':\n"
        "        return 'ESCAPED ' + cls.__init__.__globals__['environ']['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "subclasses_walk_dynamic": (
        "",
        "base = getattr(getattr((), '__cla' + 'ss__'), '__ba' + 'se__')\n"
        "for cls in getattr(base, '__subcla' + 'sses__')():\n"
        "    if cls.__name__ == '_wrap_close':\n"
        "        g = getattr(getattr(cls, '__init__'), '__glo' + 'bals__')\n"
        "        return 'ESCAPED ' + g['environ']['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "function_globals": (
        "import random",
        "g = random.shuffle.__func__.__globals__\n"
        "return 'ESCAPED ' + g['_os'].environ['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "generator_frame": (
        "",
        "gen = (x for x in [1])\nb = gen.gi_frame.f_builtins\n"
        "return 'ESCAPED ' + b['__import__']('os').environ['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "generator_frame_dynamic": (
        "",
        "gen = (x for x in [1])\nframe = getattr(gen, 'gi_' + 'frame')\nb = getattr(frame, 'f_' + 'builtins')\n"
        "return 'ESCAPED ' + b['__import__']('os').environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "traceback_frame": (
        "",
        "try:\n    1 / 0\nexcept ZeroDivisionError as exc:\n    tb = exc.__traceback__\n"
        "b = tb.tb_frame.f_builtins\nreturn 'ESCAPED ' + b['__import__']('os').environ['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "format_traversal": (
        "import random",
        "leak = '{0._os.environ[SPADE_CANARY_SECRET]}'.format(random)\nreturn 'ESCAPED ' + leak, {}",
        "program",
    ),
    "format_map_traversal": (
        "import random",
        "leak = '{r._os.environ[SPADE_CANARY_SECRET]}'.format_map({'r': random})\nreturn 'ESCAPED ' + leak, {}",
        "program",
    ),
    "str_format_unbound": (
        "import random",
        "leak = str.format('{0._os.environ[SPADE_CANARY_SECRET]}', random)\nreturn 'ESCAPED ' + leak, {}",
        "program",
    ),
    "string_formatter": (
        "import random\nimport string",
        "f = string.Formatter()\nleak = f.format('{0._os.environ[SPADE_CANARY_SECRET]}', random)\n"
        "return 'ESCAPED ' + leak, {}",
        "program",
    ),
    "operator_attrgetter": (
        "import operator\nimport random",
        "os = operator.attrgetter('_os')(random)\nreturn 'ESCAPED ' + os.environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "operator_methodcaller": (
        "import operator",
        "subs = operator.methodcaller('__subclasses__')(object)\n"
        "cls = [c for c in subs if c.__name__ == '_wrap_close'][0]\n"
        "g = operator.attrgetter('__init__.__globals__')(cls)\n"
        "return 'ESCAPED ' + g['environ']['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "reduce_getattr_chain": (
        "import functools\nimport random",
        "os = functools.reduce(getattr, ['_os'], random)\nreturn 'ESCAPED ' + os.environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "shadow_getattr_assign": (
        "",
        "_getattr_ = lambda obj, name: object.__getattribute__(obj, name)\n"
        "return 'ESCAPED ' + str(_getattr_), {}",
        "policy",
    ),
    "shadow_guard_parameter": (
        "def helper(_getattr_=None):\n    return _getattr_",
        "return 'ESCAPED ' + str(helper()), {}",
        "policy",
    ),
    "shadow_guard_comprehension": (
        "",
        "names = [_write_ for _write_ in range(3)]\nreturn 'ESCAPED ' + str(names), {}",
        "policy",
    ),
    "shadow_guard_global": (
        "def rebind():\n    global _getattr_\n    _getattr_ = None",
        "rebind()\nreturn 'ESCAPED rebound', {}",
        "policy",
    ),
    "shadow_guard_import_as": (
        "import math as _getattr_",
        "return 'ESCAPED ' + str(_getattr_), {}",
        "policy",
    ),
    "shadow_guard_except_as": (
        "",
        "try:\n    raise ValueError('x')\nexcept ValueError as _write_:\n    return 'ESCAPED ' + str(_write_), {}",
        "policy",
    ),
    "shadow_guard_walrus": (
        "",
        "if (_getattr_ := 1):\n    return 'ESCAPED walrus', {}",
        "policy",
    ),
    "shadow_guard_posonly_kwonly": (
        "def f(a, _write_=1, /, *, _getattr_=2):\n    return a",
        "return 'ESCAPED ' + str(f(1)), {}",
        "policy",
    ),
    "shadow_guard_match_rest": (
        "",
        "match {'a': 1}:\n    case {**_getattr_}:\n        return 'ESCAPED ' + str(_getattr_), {}",
        "policy",
    ),
    "numpy_save_file": (
        "import numpy as np",
        "np.save('escaped.npy', np.arange(3))\nreturn 'ESCAPED wrote escaped.npy', {}",
        "program",
    ),
    "numpy_tofile": (
        "import numpy as np",
        "np.arange(3).tofile('escaped.bin')\nreturn 'ESCAPED wrote escaped.bin', {}",
        "policy",
    ),
    "numpy_dump_pickle": (
        "import numpy as np",
        "np.arange(3).dump('escaped.pkl')\nreturn 'ESCAPED wrote escaped.pkl', {}",
        "program",
    ),
    "numpy_fromfile_read": (
        "import numpy as np",
        "data = np.fromfile('/proc/self/environ', dtype=np.uint8)\nreturn 'ESCAPED ' + bytes(data).decode(), {}",
        "program",
    ),
    "numpy_memmap": (
        "import numpy as np",
        "m = np.memmap('escaped.mm', dtype='uint8', mode='w+', shape=(4,))\nreturn 'ESCAPED memmap', {}",
        "program",
    ),
    "numpy_ctypes": (
        "import numpy as np",
        "c = np.arange(3).ctypes\nreturn 'ESCAPED ' + str(c.data), {}",
        "policy",
    ),
    "numpy_ctypeslib": (
        "import numpy as np",
        "lib = np.ctypeslib\nreturn 'ESCAPED ' + str(lib), {}",
        "program",
    ),
    "open_file": (
        "",
        "with open('/proc/self/environ') as handle:\n    return 'ESCAPED ' + handle.read()[:80], {}",
        "policy",
    ),
    "open_via_alias": (
        "reader = open",
        "return 'ESCAPED ' + reader('/proc/self/environ').read()[:80], {}",
        "program",
    ),
    "eval_call": (
        "",
        "return 'ESCAPED ' + eval(\"__import__('os').environ['SPADE_CANARY_SECRET']\"), {}",
        "policy",
    ),
    "exec_call": (
        "",
        "ns = {}\nexec(\"import os; v = os.environ['SPADE_CANARY_SECRET']\", ns)\nreturn 'ESCAPED ' + ns['v'], {}",
        "policy",
    ),
    "compile_call": (
        "",
        "code = compile('1', 'x', 'eval')\nreturn 'ESCAPED compiled', {}",
        "policy",
    ),
    "globals_builtins": (
        "",
        "b = globals()['__builtins__']\nimp = b['__import__'] if isinstance(b, dict) else b.__import__\n"
        "return 'ESCAPED ' + imp('os').environ['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "vars_module": (
        "import random",
        "return 'ESCAPED ' + vars(random)['_os'].environ['SPADE_CANARY_SECRET'], {}",
        "policy",
    ),
    "type_three_args": (
        "",
        "Sneaky = type('Sneaky', (), {'x': 1})\nreturn 'ESCAPED ' + Sneaky.__name__, {}",
        "policy",
    ),
    "type_three_args_dynamic": (
        "maker = type",
        "Sneaky = maker('Sneaky', (), {'x': 1})\nreturn 'ESCAPED ' + Sneaky.__name__, {}",
        "program",
    ),
    "typing_get_type_hints_eval": (
        "import typing",
        "class C:\n    x: \"type(__import__('os').environ['SPADE_CANARY_SECRET'].replace('-', '_'), (), {})\"\n"
        "return 'ESCAPED ' + typing.get_type_hints(C)['x'].__name__, {}",
        "program",
    ),
    "dataclasses_make_dataclass": (
        "import dataclasses",
        "C = dataclasses.make_dataclass('C', [('x', int)], namespace={'y': 1})\nreturn 'ESCAPED ' + C.__name__, {}",
        "program",
    ),
    "sys_modules": (
        "import sys",
        "return 'ESCAPED ' + sys.modules['os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "object_setattr_bypass": (
        "import json",
        "object.__setattr__(json.JSONEncoder(), 'indent', 4)\nreturn 'ESCAPED patched', {}",
        "policy",
    ),
    "setattr_module": (
        "import json",
        "setattr(json, 'dumps', lambda *a, **k: 'forged')\nreturn 'ESCAPED ' + json.dumps(1), {}",
        "program",
    ),
    "monkeypatch_module": (
        "import json",
        "json.dumps = lambda *a, **k: 'forged'\nreturn 'ESCAPED ' + json.dumps(1), {}",
        "program",
    ),
    "monkeypatch_library_class": (
        "import json",
        "json.JSONEncoder.encode = lambda self, o: 'forged'\nreturn 'ESCAPED ' + json.JSONEncoder().encode(1), {}",
        "program",
    ),
    "dict_of_library_object": (
        "import random",
        "state = random.Random().__dict__\nreturn 'ESCAPED ' + str(state), {}",
        "program",
    ),
    # --- issue 11 item 4: each class of hole, proven under plain exec first
    "real_type_via_class_class": (
        "import random",
        "T = ().__class__.__class__\nC = T('C', (), {'leak': random.shuffle})\n"
        "g = getattr(getattr(C, 'le' + 'ak'), '__glo' + 'bals__')\n"
        "return 'ESCAPED ' + g['_os'].environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "real_type_via_type_of_class": (
        "",
        "T = type(int)\nC = T('C', (), {})\nreturn 'ESCAPED built ' + C.__name__, {}",
        "program",
    ),
    "abcmeta_builds_any_dunder": (
        "import abc",
        "C = abc.ABCMeta('C', (), {'__reduce_ex__': lambda self, p: (print, ('x',))})\n"
        "return 'ESCAPED built ' + C.__name__, {}",
        "program",
    ),
    "typing_get_origin_type": (
        "import typing",
        "T = typing.get_origin(typing.Type[int])\nC = T('C', (), {})\nreturn 'ESCAPED built ' + C.__name__, {}",
        "program",
    ),
    "enum_functional_dunder_member": (
        "import enum",
        "E = enum.Enum('E', {'A': 1, '__reduce_ex__': 2})\nreturn 'ESCAPED built ' + E.__name__, {}",
        "program",
    ),
    "update_wrapper_copies_globals": (
        "import functools\nimport json\nclass Holder:\n    pass",
        "h = Holder()\nfunctools.update_wrapper(h, json.dumps, assigned=('__globals__',), updated=())\n"
        "g = h.__dict__['__glo' + 'bals__']\nreturn 'ESCAPED ' + g['__builtins__']['__import__']('os')"
        ".environ['SPADE_CANARY_SECRET'], {}",
        "program",
    ),
    "singledispatch_evaluates_annotation": (
        "import functools\nLEAK = []",
        "@functools.singledispatch\ndef f(x):\n    return 0\n"
        "def g(x: \"LEAK.append([c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close']"
        "[0].__init__.__globals__['environ']['SPADE_CANARY_SECRET']) or int\"):\n    return 1\n"
        "try:\n    f.register(g)\nexcept Exception:\n    pass\n"
        "return 'ESCAPED ' + LEAK[0], {}",
        "program",
    ),
    "dataclass_patches_library_class": (
        "import dataclasses\nimport json",
        "dataclasses.dataclass(json.JSONEncoder)\nreturn 'ESCAPED patched ' + str(json.JSONEncoder.__eq__), {}",
        "program",
    ),
    "total_ordering_patches_library_class": (
        "import functools\nimport fractions",
        "functools.total_ordering(fractions.Fraction)\nreturn 'ESCAPED patched', {}",
        "program",
    ),
    "library_private_via_subclass": (
        "import random\nclass R(random.Random):\n    pass",
        "return 'ESCAPED ' + str(R()._randbelow(5)), {}",
        "program",
    ),
    "simplenamespace_array_interface": (
        "import types\nimport numpy as np",
        "raw = b'ESCAPED raw memory'\nns = types.SimpleNamespace(__array_interface__={'data': (id(raw) + 32, True), "
        "'shape': (18,), 'typestr': '|u1', 'version': 3})\ndata = bytes(np.asarray(ns))\n# numpy turns a refused hook into an object array whose bytes are a pointer: only the\n# raw-memory read counts, and anything else must fail the same way on every run\nif not data.startswith(b'ESCAPED'):\n    raise ValueError('no raw memory')\nreturn data.decode(), {}",
        "program",
    ),
    "instance_dict_array_interface": (
        "import numpy as np\nclass Holder:\n    pass",
        "raw = b'ESCAPED raw memory'\nh = Holder()\nh.__dict__['__array_interface__'] = {'data': (id(raw) + 32, True), "
        "'shape': (18,), 'typestr': '|u1', 'version': 3}\ndata = bytes(np.asarray(h))\n# numpy turns a refused hook into an object array whose bytes are a pointer: only the\n# raw-memory read counts, and anything else must fail the same way on every run\nif not data.startswith(b'ESCAPED'):\n    raise ValueError('no raw memory')\nreturn data.decode(), {}",
        "program",
    ),
    "getattr_hook_array_interface": (
        "import numpy as np\nRAW = b'ESCAPED raw memory'\nclass Hook:\n    def __getattr__(self, name):\n"
        "        if name.startswith('__array_i'):\n"
        "            return {'data': (id(RAW) + 32, True), 'shape': (18,), 'typestr': '|u1', 'version': 3}\n"
        "        raise AttributeError(name)",
        "data = bytes(np.asarray(Hook()))\n# numpy turns a refused hook into an object array whose bytes are a pointer: only the\n# raw-memory read counts, and anything else must fail the same way on every run\nif not data.startswith(b'ESCAPED'):\n    raise ValueError('no raw memory')\nreturn data.decode(), {}",
        "program",
    ),
    "super_format_traversal": (
        "import random\nclass S(str):\n    def leak(self, obj):\n        return super().format(obj)",
        "leak = S('{0._randbelow}').leak(random.Random())\nreturn 'ESCAPED ' + leak, {}",
        "program",
    ),
    "relative_import": (
        "from . import os",
        "return 'ESCAPED ' + str(os), {}",
        "policy",
    ),
}

#: Attacks whose plain-exec proof needs an optional package, by name.
NEEDS_PACKAGE = {"math_verify_sympy_pivot": "math_verify"}
#: Attacks that cannot succeed under plain exec either (relative imports need a package):
#: kept because the sandbox must still reject them with a clear policy error.
PLAIN_EXEC_EXEMPT = {"relative_import"}
