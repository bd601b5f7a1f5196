"""Generation pipeline overhead per environment, everything except model latency.

    python benchmarks/bench_generate.py [--rounds 3]

Runs ``spade-gym generate``'s pipeline with the replay backend (no model) over the
benign corpus. Inside the same run it times every ``validate_source`` call, so the
pipeline's own cost — prompt building, memory selection, parsing, registration (atomic
suite write under the lock, fsync), the log and bookkeeping — is the wall time minus
the validation time, measured on the same programs at the same moment (this machine
is noisy; a separate baseline run would measure the load, not the pipeline).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENIGN, print_table  # noqa: E402

import spade_gym.validation as validation  # noqa: E402
from spade_gym.generate.backends import ReplayBackend  # noqa: E402
from spade_gym.generate.pipeline import GenerateConfig, GenerationPipeline, Target  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sources = [p.read_text() for p in sorted(BENIGN.glob("*.py"))]
    validate = validation.validate_source
    spent = {"validation": 0.0}

    def timed_validate(*a, **k):
        start = time.perf_counter()
        try:
            return validate(*a, **k)
        finally:
            spent["validation"] += time.perf_counter() - start

    validation.validate_source = timed_validate
    totals, validating = [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "designs.jsonl"
            log.write_text("".join(json.dumps({"completion": f"```python\n{s}```\n<hint>Work it out.</hint>",
                                               "skill": "Memory Recall"}) + "\n" for s in sources))
            targets = tuple(Target(i, "Memory Recall", False) for i in range(len(sources)))
            config = GenerateConfig(targets=targets, attempts=1, concurrency=1)
            spent["validation"] = 0.0
            start = time.perf_counter()
            summary = GenerationPipeline(ReplayBackend(log), Path(tmp) / "suite", config,
                                         log_path=Path(tmp) / "run.jsonl").run()
            totals.append((time.perf_counter() - start) / len(sources))
            validating.append(spent["validation"] / len(sources))
            assert len(summary.accepted) == len(sources), summary.to_dict()
    total, val = statistics.median(totals), statistics.median(validating)
    rows = [
        ("pipeline wall time per accepted env (replay backend)", f"{total * 1000:.0f} ms", "100%"),
        ("  of which validation", f"{val * 1000:.0f} ms", f"{val / total:.0%}"),
        ("  of which the pipeline itself", f"{(total - val) * 1000:.0f} ms", f"{(total - val) / total:.0%}"),
    ]
    print_table(f"Generation pipeline ({len(sources)} programs x {args.rounds} rounds, sequential)",
                ("measure", "per env", "share"), rows)


if __name__ == "__main__":
    main()
