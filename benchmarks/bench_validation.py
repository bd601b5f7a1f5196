"""Validation throughput: programs validated per second with the default config.

    python benchmarks/bench_validation.py [--repeat N] [--workers N ...] [--seed N]

Validates the benign corpus (``tests/programs/benign``, sound programs in the SPADE
reference style) ``--repeat`` times with ``validate_many`` and the default
:class:`ValidationConfig` (16 seeds, every check), after one warm-up validation that
starts the sandbox's fork server. Prints programs/s per worker count and the time split
by check (sum of ``Check.seconds``: wall time inside each check, summed over programs).
Probe episodes are driven from the host in lock-step and run by the first check that needs
them (later checks only read them). The run seed is fixed (``--seed``) so that every pass
validates the same probe seeds: verdicts of borderline programs would otherwise vary.
Target on a 2-core machine: >= 5 programs/s.

Shared machines make wall-clock throughput depend on what else runs, so the table also
gives the CPU time spent per program (this process, the sandbox's fork server and every
worker it reaped) and, as "prog/s idle", the throughput that CPU cost allows on idle
cores: cores / CPU seconds per program.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENIGN, print_table  # noqa: E402

from spade_gym.validation import CHECK_NAMES, ValidationConfig, validate_many, validate_source  # noqa: E402


def cpu_seconds() -> float:
    """CPU used so far by this process and the sandbox (fork server + reaped workers)."""
    import resource

    from spade_gym.sandbox.process.host import Zygote

    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    ticks = os.sysconf("SC_CLK_TCK")
    fields = Path(f"/proc/{Zygote.get().process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    # utime, stime, cutime, cstime are fields 14-17 of /proc/<pid>/stat (1-based, pid first)
    return total + sum(int(v) for v in fields[11:15]) / ticks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="passes over the benign corpus per measurement")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4], help="worker counts to measure")
    parser.add_argument("--seed", type=int, default=0, help="validation run seed (probe seeds are drawn from it)")
    args = parser.parse_args()
    config = ValidationConfig(seed=args.seed)

    corpus = {p.stem: p.read_text() for p in sorted(BENIGN.glob("*.py"))}
    sources = {f"{name}#{i}": source for i in range(args.repeat) for name, source in corpus.items()}
    warm = validate_source(next(iter(corpus.values())), config=config)
    assert warm.valid, warm.summary()

    rows = []
    split: dict[str, float] = defaultdict(float)
    for workers in args.workers:
        cpu_start, start = cpu_seconds(), time.perf_counter()
        reports = validate_many(sources, workers=workers, config=config)
        elapsed = time.perf_counter() - start
        time.sleep(1.5)  # the fork server reaps finished workers at least once a second
        cpu = (cpu_seconds() - cpu_start) / len(reports)
        invalid = [f"{r.name}: {r.first_failure.name}" for r in reports if not r.valid and r.first_failure]
        assert not invalid, f"sound programs reported invalid: {invalid}"
        rows.append((workers, len(reports), f"{elapsed:.2f}", f"{len(reports) / elapsed:.1f}",
                     f"{1000 * elapsed / len(reports):.0f}", f"{1000 * cpu:.0f}", f"{(os.cpu_count() or 1) / cpu:.1f}"))
        if workers == args.workers[-1]:
            for report in reports:
                for check in report.checks:
                    split[check.name] += check.seconds
    print_table(f"Validation throughput ({len(corpus)} benign programs x {args.repeat}, default config, "
                f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f})",
                ["workers", "programs", "s", "prog/s", "ms/prog", "CPU ms/prog", "prog/s idle"], rows)
    total = sum(split.values())
    print_table(f"Time split by check (workers={args.workers[-1]}, summed over programs)",
                ["check", "seconds", "share"],
                [(name, f"{split[name]:.2f}", f"{100 * split[name] / total:.1f}%") for name in CHECK_NAMES])


if __name__ == "__main__":
    main()
