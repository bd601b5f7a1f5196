"""Novelty's code comparison at suite scale: one program against every bundled environment.

    python benchmarks/bench_novelty.py [--repeat N]

The novelty check compares each validated program with every entry of the target suite, so its
cost grows with the suite (a self-play run's suite reaches thousands of entries). Measured in
the same run against a baseline: the weighted Jaccard of the same n-gram multisets keyed by
token tuples and summed over every n-gram of the smaller program (the textbook computation).
Both give the same number for every pair; the table gives the time per program compared with
the whole suite and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, print_table  # noqa: E402

from spade_gym.validation import fingerprint as fp  # noqa: E402


def tuple_keyed(f: fp.Fingerprint, names: dict[int, tuple[str, ...]]) -> Counter:
    return Counter({names[gram]: count for gram, count in f.grams.items()})


def textbook(a: Counter, b: Counter, size_a: int, size_b: int) -> float:
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    shared = sum(min(count, large.get(gram, 0)) for gram, count in small.items())
    return shared / (size_a + size_b - shared)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes over the suite per measurement (best kept)")
    args = parser.parse_args()
    sources = [p.read_text() for p in sorted((ROOT / "envs_generated").glob("*/env.py"))]
    prints = [fp.fingerprint(s) for s in sources]
    names = {i: gram for gram, i in fp._GRAM_IDS.items()}
    tuples = [tuple_keyed(f, names) for f in prints]
    pairs = [(i, j) for i in range(len(prints)) for j in range(len(prints)) if prints[i].exact != prints[j].exact]
    for i, j in pairs:  # the same number, pair by pair
        expected = textbook(tuples[i], tuples[j], prints[i].size, prints[j].size)
        assert abs(fp.similarity(prints[i], prints[j]) - expected) < 1e-12, (i, j)

    def best(run) -> float:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times) / len(prints)  # per program compared with the whole suite

    baseline = best(lambda: [textbook(tuples[i], tuples[j], prints[i].size, prints[j].size) for i, j in pairs])
    current = best(lambda: [fp.similarity(prints[i], prints[j]) for i, j in pairs])
    print_table(f"Novelty code comparison, one program vs {len(prints)} suite entries "
                f"({len(pairs)} pairs checked equal)",
                ["comparison", "ms per program", "ratio"],
                [("textbook (token-tuple keys, every n-gram)", f"{1000 * baseline:.1f}", "1.00"),
                 ("similarity (interned ids, shared keys)", f"{1000 * current:.1f}", f"{current / baseline:.2f}")])


if __name__ == "__main__":
    main()
