"""What registration costs ``import spade_gym``, per suite entry, against plain gymnasium ids.

    python benchmarks/bench_import.py [--entries 1000] [--repeats 3]

* ``-X importtime`` self time of ``spade_gym`` (the package's own work, registration of the
  bundled suite included) divided by the bundled suite's size;
* the CPU time of registering a generated suite of ``--entries`` entries (copies of a bundled
  entry, cards as large as its) as ``import spade_gym`` registers ``$SPADE_GYM_SUITES``, per entry;
* the baseline, measured in the same process: registering as many plain ids with ``gym.register``
  (gymnasium's own checks scan the registry, so both grow alike with its size). CPU time, so
  other processes on a loaded machine do not move the ratio.

Registration parses no card (ids come from directory names; the card is read at make), so an
entry costs a few ``stat`` calls and gymnasium's checks: target <= 0.2 ms per entry.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import print_table  # noqa: E402

from spade_gym.registry import bundled_suite_path  # noqa: E402

#: In a fresh interpreter: ``import spade_gym`` (wall time), then in CPU time ``count`` plain ids,
#: the bundled suite registered again as the import does (``register_default_suites``), and the
#: generated suite the same way (the bundled suite is then a no-op).
TIMING = r"""
import json, os, sys, time
suites = os.environ.pop("SPADE_GYM_SUITES", None)
start = time.perf_counter()
import spade_gym
imported = time.perf_counter() - start
import gymnasium as gym
from spade_gym.registry.registration import register_default_suites
count = int(sys.argv[1])
start = time.process_time()
for i in range(count):
    gym.register(f"spade_plain/Plain{i}-v0", entry_point="spade_gym.registry.make:make_env")
plain = time.process_time() - start
bundled = [env_id for env_id in gym.registry if env_id.startswith("spade/")]
for env_id in bundled:  # registered again below, as on a fresh import
    del gym.registry[env_id]
start = time.process_time()
register_default_suites()
again = time.process_time() - start
os.environ["SPADE_GYM_SUITES"] = suites or ""
start = time.process_time()
register_default_suites()
print(json.dumps({"import": imported, "plain": plain, "suite": time.process_time() - start,
                  "bundled": again, "bundled_ids": len(bundled)}))
"""


def generate(path: Path, count: int) -> None:
    """``count`` copies of the first bundled entry under new names, laid out as ``Suite.add`` does."""
    source_dir = min(d for d in bundled_suite_path().iterdir() if (d / "card.json").is_file())
    card = json.loads((source_dir / "card.json").read_text(encoding="utf-8"))
    for index in range(count):
        name = f"BenchImport{index:05d}"
        directory = path / f"{name}-v0"
        directory.mkdir(parents=True)
        shutil.copyfile(source_dir / "env.py", directory / "env.py")
        card.update(name=name, version=0, id=f"spade/{name}-v0")
        (directory / "card.json").write_text(json.dumps(card), encoding="utf-8")


def run(code: list[str], suites: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SPADE_GYM_SUITES"}
    if suites:
        env["SPADE_GYM_SUITES"] = suites
    return subprocess.run([sys.executable, *code], env=env, capture_output=True, text=True, check=True)


def self_time_ms() -> float:
    """``spade_gym``'s own import time (ms) from ``-X importtime``."""
    done = run(["-X", "importtime", "-c", "import spade_gym"], None)
    match = re.search(r"import time:\s+(\d+) \|\s+\d+ \| spade_gym$", done.stderr, re.M)
    assert match, done.stderr[-500:]
    return int(match.group(1)) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    bundled = sum(1 for d in bundled_suite_path().iterdir() if (d / "card.json").is_file())
    own = min(self_time_ms() for _ in range(args.repeats))
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        generate(Path(tmp), args.entries)
        runs = [json.loads(run(["-c", TIMING, str(args.entries)], tmp).stdout) for _ in range(args.repeats)]
        bare = [json.loads(run(["-c", TIMING, "0"], None).stdout) for _ in range(args.repeats)]
    suite, plain = min(r["suite"] for r in runs), min(r["plain"] for r in runs)
    again, ids = min(r["bundled"] for r in bare), bare[0]["bundled_ids"]
    per_entry, per_plain = 1000 * suite / args.entries, 1000 * plain / args.entries
    print_table(f"registration at import (min of {args.repeats} runs)", ["measure", "ms", "ms per entry"], [
        (f"spade_gym self time (-X importtime, wall), bundled suite ({bundled} entries)", f"{own:.1f}",
         f"{own / bundled:.3f}"),
        (f"CPU: the bundled suite registered as the import does ({ids} ids)", f"{1000 * again:.1f}",
         f"{1000 * again / ids:.3f}"),
        (f"CPU: a {args.entries}-entry suite registered as the import does", f"{1000 * suite:.1f}", f"{per_entry:.3f}"),
        (f"CPU: baseline, {args.entries} plain gym.register ids", f"{1000 * plain:.1f}", f"{per_plain:.3f}"),
        ("wall: import spade_gym (bundled suite only)", f"{1000 * min(r['import'] for r in bare):.1f}", ""),
    ])
    print(f"suite entry / plain id: {per_entry / per_plain:.2f}x; target <= 0.2 ms per entry: "
          f"{'met' if per_entry <= 0.2 and 1000 * again / ids <= 0.2 else 'NOT met'}")

if __name__ == "__main__":
    main()
