"""Shared helpers for the benchmark scripts (trusted benchmark programs only)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from spade_gym.contract import INJECTED_NAMES
from spade_gym.sandbox.language import mathverify
from spade_gym.validation.baselines.zoo import make_baseline

ROOT = Path(__file__).resolve().parent.parent
BENIGN = ROOT / "tests" / "programs" / "benign"


def load_plain(source: str):
    """Load a program with plain ``exec`` (the reference implementation's way).

    Only ever used on the repository's own benchmark programs: this is the
    unsandboxed baseline the sandbox is measured against.
    """
    import importlib

    sys.modules.setdefault("math_verify", mathverify)
    module = type(sys)("plain_program")
    sys.modules["plain_program"] = module  # as the reference loader does
    namespace = module.__dict__
    for alias, target in INJECTED_NAMES.items():
        module_name, _, member = target.partition(".")
        module = importlib.import_module(module_name)
        namespace[alias] = getattr(module, member) if member else module
    exec(compile(source, "<plain>", "exec", dont_inherit=True), namespace)
    classes = [v for k, v in namespace.items() if isinstance(v, type) and k.endswith("Env")
               and v.__module__ == "plain_program"]
    return [c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)][0]


def plain_episode(env, seed: int, baseline_spec: dict, max_steps: int) -> int:
    """The validator's probe loop, in-process; returns the number of calls made."""
    baseline = make_baseline(baseline_spec, seed)
    obs, _ = env.reset(seed=seed)
    baseline.begin(obs)
    calls = 1
    for turn in range(max_steps):
        solution = env.solution() if baseline.needs_solution else None
        obs, reward, terminated, truncated, info = env.step(baseline.act(obs, turn, solution))
        calls += 1
        if terminated or truncated:
            break
    return calls


def print_table(title: str, columns, rows) -> None:
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*[str(c) for c in row])
    Console().print(table)
