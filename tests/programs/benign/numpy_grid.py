"""numpy legacy RNG, itertools, functools, statistics, fractions, decimal, json, copy, bisect, operator, string."""
import bisect
import copy
import functools
import itertools
import json
import math
import operator
import statistics
import string
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np


@functools.lru_cache(maxsize=None)
def paths(r, c):
    if r == 0 or c == 0:
        return 1
    return paths(r - 1, c) + paths(r, c - 1)


class GridSumEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self.grid = None
        self._target = ""
        self.reset()

    def reset(self, seed=None):
        np.random.seed(seed if seed is not None else 0)
        self.turn_count = 0
        n = np.random.randint(3, 6)
        self.grid = np.random.randint(0, 10, size=(n, n))
        diag = int(np.trace(self.grid))
        anti = int(np.fliplr(self.grid).diagonal().sum())
        letters = string.ascii_uppercase[:n]
        pairs = list(itertools.combinations(letters, 2))
        med = statistics.median(self.grid.flatten().tolist())
        frac = Fraction(diag, anti + 1)
        getcontext().prec = 6
        dec = Decimal(diag) / Decimal(7)
        sorted_row = sorted(self.grid[0].tolist())
        pos = bisect.bisect_left(sorted_row, 5)
        total = functools.reduce(operator.add, self.grid.sum(axis=1).tolist())
        meta = json.dumps({"n": int(n), "pairs": len(pairs)}, sort_keys=True)
        snapshot = copy.deepcopy(self.grid.tolist())
        self._target = str(diag * anti + paths(n - 1, n - 1) + total % 7)
        rows = "\n".join(" ".join(str(v) for v in row) for row in snapshot)
        obs = (f"Grid ({meta}):\n{rows}\nCompute trace*antitrace + lattice paths({n - 1},{n - 1}) + (sum mod 7). "
               f"median={med} frac={frac} dec={dec} pos={pos} sqrt={math.sqrt(diag):.3f}. Answer \\boxed{{n}}.")
        return obs, {"n": int(n)}

    def solution(self):
        return self._target

    def step(self, action):
        self.turn_count += 1
        inner = action.split("\\boxed{")[-1].split("}")[0].strip() if "\\boxed{" in action else None
        if inner == self._target:
            return "Correct.", 1.0, True, False, {}
        return "Incorrect.", 0.0, False, self.turn_count >= self.max_turns, {}
