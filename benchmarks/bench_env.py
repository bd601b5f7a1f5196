"""Gymnasium-level costs: ``gym.make`` latency and vectorised steps/s, against in-process runs.

    python benchmarks/bench_env.py [--steps 300]

* ``gym.make`` + ``reset`` of a registered environment (warm fork server) vs loading the
  same program in-process with plain ``exec`` and constructing + resetting it;
* steps/s of ``gym.make_vec`` with 1, 2, 4 and 8 environments in ``sync``, ``async``
  (gymnasium's defaults) and ``vector_entry_point`` (spade-gym's batched workers) modes vs
  the same number of plain in-process instances stepped in a loop.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gymnasium as gym  # noqa: E402
from _common import BENIGN, load_plain, print_table  # noqa: E402

from spade_gym.registry import Card, Suite, env_name_from_class, register_suite, sha256_text  # noqa: E402

PROGRAM = BENIGN / "injected_names.py"  # a typical step: ~5 us in plain Python
ACTIONS = ["\\boxed{north}", "\\boxed{east}", "\\boxed{south}", "\\boxed{west}"]


def register() -> str:
    source = PROGRAM.read_text()
    suite = Suite(tempfile.mkdtemp(prefix="bench-env-"))
    entry = suite.add(source, Card(name=env_name_from_class("WalkerEnv") + "Bench", version=0, skill="bench",
                                   description="benchmark", hint=None, max_turns=12,
                                   sha256=sha256_text(source)))
    register_suite(suite.path)
    return entry.id


def make_latency(env_id: str, n: int) -> tuple[float, float]:
    gym.make(env_id).close()  # start the fork server
    sandboxed = []
    for i in range(n):
        start = time.perf_counter()
        env = gym.make(env_id)
        env.reset(seed=i)
        sandboxed.append(time.perf_counter() - start)
        env.close()
    source = PROGRAM.read_text()
    plain = []
    for i in range(n):
        start = time.perf_counter()
        env = load_plain(source)()
        env.reset(seed=i)
        plain.append(time.perf_counter() - start)
    return statistics.median(sandboxed), statistics.median(plain)


def vector_rate(env_id: str, mode: str, n: int, steps: int) -> float:
    env = gym.make_vec(env_id, num_envs=n, vectorization_mode=mode)
    env.reset(seed=0)
    for t in range(5):
        env.step([ACTIONS[(t + i) % 4] for i in range(n)])
    start = time.perf_counter()
    for t in range(steps):
        env.step([ACTIONS[(t + i) % 4] for i in range(n)])
    elapsed = time.perf_counter() - start
    env.close()
    return steps * n / elapsed


def plain_rate(n: int, steps: int) -> float:
    cls = load_plain(PROGRAM.read_text())
    envs = [cls() for _ in range(n)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    start = time.perf_counter()
    for t in range(steps):
        for i, env in enumerate(envs):
            _, _, terminated, truncated, _ = env.step(ACTIONS[(t + i) % 4])
            if terminated or truncated:
                env.reset(seed=t)
    return steps * n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--makes", type=int, default=30)
    args = parser.parse_args()
    env_id = register()
    sandboxed, plain = make_latency(env_id, args.makes)
    print_table("gym.make + reset (median)", ("sandboxed", "plain in-process", "ratio"),
                [(f"{sandboxed * 1e3:.1f} ms", f"{plain * 1e3:.2f} ms", f"{sandboxed / plain:.0f}x")])
    rows = []
    for n in (1, 2, 4, 8):
        base = plain_rate(n, args.steps)
        row = [str(n), f"{base:,.0f}"]
        for mode in ("sync", "async", "vector_entry_point"):
            rate = vector_rate(env_id, mode, n, args.steps)
            row.append(f"{rate:,.0f} ({rate / base:.2f})")
        rows.append(row)
    print_table("environment steps per second (fraction of plain in-process)",
                ("envs", "plain", "sync", "async", "vector_entry_point"), rows)


if __name__ == "__main__":
    main()
