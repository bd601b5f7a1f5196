"""Run a *trusted test program* with plain ``exec``, the way the SPADE reference loader does.

Only for comparing the sandbox against plain CPython in tests; never used on
untrusted code. Run as a script (in a subprocess with PYTHONHASHSEED=0):
``python plain_runner.py PROGRAM.py '{"seeds": [...], "actions": [...], "kwargs": {...}, "hint": true}'``
and prints one JSON document with every reset/solution/step result.
"""

import collections
import copy
import functools
import heapq
import importlib.util
import itertools
import json
import math
import operator
import random
import re
import statistics
import string
import sys
import typing

import numpy as np

from spade_gym.sandbox.language import mathverify

INJECTED = {
    "itertools": itertools, "math": math, "random": random, "re": re, "json": json,
    "collections": collections, "functools": functools, "string": string, "copy": copy,
    "heapq": heapq, "operator": operator, "statistics": statistics, "np": np, "numpy": np,
    "deque": collections.deque, "defaultdict": collections.defaultdict, "Counter": collections.Counter,
    "OrderedDict": collections.OrderedDict, "namedtuple": collections.namedtuple,
    "combinations": itertools.combinations, "permutations": itertools.permutations,
    "product": itertools.product, "chain": itertools.chain, "accumulate": itertools.accumulate,
    "reduce": functools.reduce, "lru_cache": functools.lru_cache, "deepcopy": copy.deepcopy,
    "heappush": heapq.heappush, "heappop": heapq.heappop,
    **{n: getattr(typing, n) for n in ("Tuple", "Dict", "List", "Optional", "Union", "Any", "Set",
                                         "FrozenSet", "Callable", "Iterable", "Sequence", "Mapping")},
}


def load(source, real_math_verify=False):
    """``real_math_verify``: use the installed math_verify package when there is one
    (the attack corpus proves pivots through it); otherwise spade-gym's built-in one."""
    if not real_math_verify or importlib.util.find_spec("math_verify") is None:
        sys.modules["math_verify"] = mathverify
    namespace = {"__name__": "dynamic_game"}
    namespace.update(INJECTED)  # plain_tooluse_runner adds the ToolUseBaseEnv stand-in here
    exec(compile(source, "<plain>", "exec"), namespace)
    classes = [v for k, v in namespace.items() if isinstance(v, type) and k.endswith("Env")
               and getattr(v, "__module__", None) == "dynamic_game"]
    leaves = [c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)]
    return leaves[0]


def play_steps(env, actions) -> list:
    """Step ``env`` through ``actions`` until the episode ends: each step's result, JSON-ready."""
    steps = []
    for action in actions:
        result = list(env.step(action))
        result[1] = float(result[1])
        steps.append(result)
        if result[2] or result[3]:
            break
    return steps


def main():
    source = open(sys.argv[1]).read()
    spec = json.loads(sys.argv[2])
    cls = load(source)
    env = cls(**spec.get("kwargs", {}))
    out = []
    for seed in spec["seeds"]:
        obs, info = env.reset(seed=seed)
        solution = str(env.solution())
        entry = {"reset": [obs, info], "solution": solution}
        if spec.get("hint"):  # {"hint": true}: the hint() text too (None without a hint method)
            entry["hint"] = env.hint() if callable(getattr(env, "hint", None)) else None
        entry["steps"] = play_steps(env, spec["actions"])
        out.append(entry)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
