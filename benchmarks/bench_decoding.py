"""Leak decoding speed: ``spade_gym.decoding.reveals`` and ``candidates`` on game-like observations.

    python benchmarks/bench_decoding.py [--calls N] [--chars N]

``reveals`` runs on every hint, info value and task text the validator checks, and the shortcut
zoo reads ``candidates`` off every observation it sees, so both must stay cheap. Texts are
synthetic game screens (words, numbers, line breaks) of ``--chars`` characters. Three rows:

* **fresh**: every call gets a new text (nothing cached): the cost of decoding a text;
* **same text, another solution**: the hint check asks one text about every seed's solution;
  the decoding is cached per text, so only the lookup is paid;
* **candidates, fresh**: every reading listed, as the zoo asks.

Times are CPU seconds of this process (``time.process_time``), so a busy shared machine does
not inflate them. Target: reveals on a fresh 2,000-character text in under 5 ms.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import print_table  # noqa: E402

from spade_gym.decoding import candidates, reveals  # noqa: E402

WORDS = ("you have attempts left guess the number between and the vault door key is hidden behind a red stone "
         "north south east west gold coins score turn one two three first").split()


def screens(count: int, chars: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = []
    for index in range(count):
        parts = [f"Turn {index}:"]
        size = len(parts[0])
        while size < chars:
            roll = rng.random()
            part = str(rng.randint(0, 9999)) if roll < 0.15 else rng.choice(WORDS) + ("." if roll > 0.93 else "")
            part += "\n" if rng.random() < 0.05 else " "
            parts.append(part)
            size += len(part)
        out.append("".join(parts)[:chars])
    return out


def timed(fn, texts) -> float:
    start = time.process_time()
    for text in texts:
        fn(text)
    return (time.process_time() - start) / len(texts) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--chars", type=int, default=2000)
    args = parser.parse_args()
    fresh = timed(lambda t: reveals(t, "4821"), screens(args.calls, args.chars, seed=1))
    again = timed(lambda t: reveals(t, "5713"), screens(args.calls, args.chars, seed=1))
    listed = timed(candidates, screens(args.calls, args.chars, seed=2))
    rows = [("reveals, fresh text", f"{fresh:.2f}", f"{fresh * args.calls / 1000:.2f}"),
            ("reveals, same text, another solution", f"{again:.3f}", f"{again * args.calls / 1000:.3f}"),
            ("candidates, fresh text", f"{listed:.2f}", f"{listed * args.calls / 1000:.2f}")]
    print_table(f"{args.calls} calls on {args.chars}-character observations", ["call", "ms per call",
                                                                               f"s per {args.calls} calls"], rows)


if __name__ == "__main__":
    main()
