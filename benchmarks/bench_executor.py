"""The executor seam's cost: validation throughput through Ray on this machine vs the local pool.

    python benchmarks/bench_executor.py [--repeat N] [--seed N] [--cpus-per-unit X ...] [--echo N]

Validates the benign corpus (``tests/programs/benign``) ``--repeat`` times (3) with the default
:class:`ValidationConfig` and a fixed run seed, the same run three times: on the local pool
(:class:`LocalExecutor`, twice the cores in threads), then through a Ray started here on
every core (one run per ``--cpus-per-unit``: Ray's CPUs per unit; 0.5 runs two units per
core, as the local pool does), then on the local pool again (the ratio is against the mean of
the two local runs, which brackets the machine's drift). Ray's start, its workers' first
units (each starts its own sandbox fork server) and a warm-up pass are not timed: the
question is what Ray costs per unit once it runs, where a single machine does not need it.

Per-unit overhead: ``--echo`` units that do nothing (``spade_gym.executor.base:echo_task``)
through each executor, all at once (ms per unit at full concurrency) and one at a time
(the round trip a unit pays). Target: Ray throughput >= 0.8 of the local pool. A validation the
busy machine stopped (its 120 s backstop, ``kind: machine``) is counted in its own column.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENIGN, print_table  # noqa: E402

from spade_gym.executor import LocalExecutor, Unit  # noqa: E402
from spade_gym.executor.validation import Program, validate_batch  # noqa: E402
from spade_gym.validation import ValidationConfig  # noqa: E402


def timed_batch(programs, executor, config) -> tuple[float, list]:
    """Seconds for the batch, and its reports (every one valid, but for the busy machine's)."""
    start = time.perf_counter()
    result = validate_batch(programs, executor=executor, config=config)
    elapsed = time.perf_counter() - start
    wrong = [r.summary() for r in result.reports if not r.valid and not busy(r)]
    assert not wrong, f"sound programs reported invalid: {wrong[:1]}"
    return elapsed, result.reports


def busy(report) -> bool:
    """Stopped because the machine was busy (``kind: machine``): the load's verdict, not the program's."""
    return any((c.details or {}).get("kind") == "machine" for c in report.failures)


def echo_costs(executor, count: int) -> tuple[float, float]:
    """(ms per unit with every unit submitted at once, ms per unit one at a time)."""
    units = [Unit(f"echo-{i}", "spade_gym.executor.base:echo_task", {"i": i}) for i in range(count)]
    start = time.perf_counter()
    outcomes = list(executor.run(units))
    batch = time.perf_counter() - start
    assert all(o.ok for o in outcomes)
    start = time.perf_counter()
    for unit in units[: max(1, count // 10)]:
        [outcome] = executor.run([unit])
        assert outcome.ok
    single = (time.perf_counter() - start) / max(1, count // 10)
    return 1000 * batch / count, 1000 * single


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes over the benign corpus per measurement")
    parser.add_argument("--seed", type=int, default=0, help="validation run seed (the same probes in every run)")
    parser.add_argument("--cpus-per-unit", type=float, nargs="+", default=[1.0, 0.5],
                        help="Ray CPUs each unit asks for (one Ray run per value)")
    parser.add_argument("--echo", type=int, default=400, help="no-op units for the per-unit overhead")
    args = parser.parse_args()
    config = ValidationConfig(seed=args.seed)
    corpus = {p.stem: p.read_text() for p in sorted(BENIGN.glob("*.py"))}
    programs = [Program(f"{name}#{i}", text) for i in range(args.repeat) for name, text in corpus.items()]
    warm = [Program(f"warm-{name}", text) for name, text in corpus.items()]
    cores = os.cpu_count() or 1

    rows, local_rates, echo_rows = [], [], []

    def local_run(label: str) -> None:
        with LocalExecutor() as executor:
            validate_batch(warm[:1], executor=executor, config=config)
            elapsed, reports = timed_batch(programs, executor, config)
            if label == "local pool (before)":
                echo_rows.append(("local pool", *echo_costs(executor, args.echo)))
        local_rates.append(len(programs) / elapsed)
        rows.append((label, f"{executor.workers} threads", len(programs), f"{elapsed:.2f}",
                     f"{len(programs) / elapsed:.2f}", sum(map(busy, reports)), ""))

    local_run("local pool (before)")
    import ray

    from spade_gym.executor.ray_cluster import RayExecutor

    ray.init(num_cpus=cores, object_store_memory=256 * 1024 * 1024, include_dashboard=False, log_to_driver=False)
    ray_rates = []
    try:
        for cpus in args.cpus_per_unit:
            with RayExecutor(cpus_per_unit=cpus) as executor:
                slots = int(cores / cpus)
                validate_batch(warm * max(1, slots // len(warm) + 1), executor=executor, config=config)
                elapsed, reports = timed_batch(programs, executor, config)
                ray_rates.append((cpus, len(programs) / elapsed))
                rows.append((f"Ray, {cpus:g} CPU per unit", f"{slots} tasks", len(programs), f"{elapsed:.2f}",
                             f"{len(programs) / elapsed:.2f}", sum(map(busy, reports)), ""))
                if cpus == args.cpus_per_unit[0]:
                    echo_rows.append((f"Ray ({cpus:g} CPU per unit)", *echo_costs(executor, args.echo)))
    finally:
        ray.shutdown()
    local_run("local pool (after)")
    local = statistics.mean(local_rates)
    rows = [(*row[:6], f"{float(row[4]) / local:.2f}") for row in rows]
    print_table(f"Validation throughput, the same run on each executor ({len(corpus)} benign programs x "
                f"{args.repeat}, default config, seed {args.seed}, {cores} CPU cores, load average "
                f"{os.getloadavg()[0]:.1f})", ["executor", "at once", "programs", "s", "prog/s",
                                                "busy stops", "vs local"], rows)
    print_table(f"Per-unit overhead ({args.echo} no-op units)", ["executor", "ms/unit, all at once",
                                                                  "ms/unit, one at a time"],
                [(name, f"{batch:.2f}", f"{single:.2f}") for name, batch, single in echo_rows])
    best = max(rate for _, rate in ray_rates)
    print(f"Ray / local pool: {best / local:.2f} (best Ray setting; target >= 0.8)")


if __name__ == "__main__":
    main()
