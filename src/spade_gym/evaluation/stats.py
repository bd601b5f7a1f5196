"""Statistics for evaluation reports: success rates, hint gain, turns.

Why these methods: evaluations are small (a handful of episodes per environment) and
success rates sit near 0 or 1 (an oracle wins everything, a weak agent nothing), which
is exactly where the textbook normal ("Wald") interval collapses to a width of zero.

* Success rates get the **Wilson score interval**: never degenerate, never outside [0, 1].
* The **hint gain** is a difference of two proportions measured on the *same* seeds
  (paired data). Its interval is **Newcombe's hybrid score interval for paired
  proportions** (Newcombe 1998, method 10; Altman et al., *Statistics with Confidence*,
  ch. 6): built from the two Wilson intervals and the correlation between the arms, it
  uses the pairing and stays informative when every difference is 0 (a t interval on
  the differences would be the single point 0 there).

Everything is plain Python: no numpy/scipy dependency for a few dozen numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n``; ``(0, 1)`` when ``n == 0``."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)  # exact bounds, not 0.9999999999999999
    return low, high


def paired_difference_interval(both: int, first_only: int, second_only: int, neither: int,
                               z: float = Z95) -> tuple[float, float]:
    """Newcombe's interval for ``p_first - p_second`` from a paired 2x2 table.

    ``first_only`` counts pairs where only the first arm succeeded, and so on. Returns
    ``(-1, 1)`` when there are no pairs.
    """
    counts = (both, first_only, second_only, neither)
    if any(c < 0 for c in counts):
        raise ValueError(f"counts must be non-negative, got {counts}")
    n = sum(counts)
    if n == 0:
        return -1.0, 1.0
    first, second = both + first_only, both + second_only
    p1, p2 = first / n, second / n
    l1, u1 = wilson_interval(first, n, z)
    l2, u2 = wilson_interval(second, n, z)
    margins = first * (n - first) * second * (n - second)
    phi = 0.0
    if margins > 0:
        # Correlation of the arms with Newcombe's continuity correction for positive values.
        cross = both * neither - first_only * second_only
        if cross > n / 2:
            phi = (cross - n / 2) / math.sqrt(margins)
        elif cross < 0:
            phi = cross / math.sqrt(margins)
    diff = p1 - p2
    lower = diff - math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    upper = diff + math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    return max(-1.0, lower), min(1.0, upper)


@dataclass(frozen=True)
class ArmSummary:
    """Outcome of one arm (hint or no hint) over a set of episodes."""

    episodes: int
    successes: int
    success_rate: float
    ci_low: float
    ci_high: float
    mean_turns: float
    mean_reward: float
    errors: int

    def to_dict(self) -> dict:
        return asdict(self)


def summarize_arm(records: Iterable[Mapping]) -> ArmSummary:
    """Success rate (Wilson 95%), mean turns, mean final reward and errors of episode records.

    Each record needs ``success`` (bool), ``turns`` (int), ``final_reward`` (float) and
    ``error`` (None or a description).
    """
    rows = list(records)
    n = len(rows)
    wins = sum(bool(r["success"]) for r in rows)
    low, high = wilson_interval(wins, n)
    return ArmSummary(
        episodes=n, successes=wins, success_rate=wins / n if n else 0.0, ci_low=low, ci_high=high,
        mean_turns=sum(r["turns"] for r in rows) / n if n else 0.0,
        mean_reward=sum(r["final_reward"] for r in rows) / n if n else 0.0,
        errors=sum(r["error"] is not None for r in rows),
    )


@dataclass(frozen=True)
class HintGain:
    """Success with the hint minus success without it, over episodes paired by (env, seed).

    ``helped`` counts pairs won only with the hint, ``hurt`` pairs won only without it.
    """

    pairs: int
    gain: float
    ci_low: float
    ci_high: float
    helped: int
    hurt: int

    def to_dict(self) -> dict:
        return asdict(self)


def hint_gain(records: Iterable[Mapping]) -> HintGain | None:
    """Paired hint gain of records from both arms; None when no (env, seed) has both.

    Records need ``env_id``, ``seed``, ``hint`` and ``success``. A seed played in only
    one arm is left out: pairing is what removes task-to-task variance from the gain.
    """
    arms: dict[tuple[str, int], dict[bool, bool]] = {}
    for r in records:
        arms.setdefault((r["env_id"], r["seed"]), {})[bool(r["hint"])] = bool(r["success"])
    both = helped = hurt = neither = 0
    for outcome in arms.values():
        if len(outcome) != 2:
            continue
        with_hint, without = outcome[True], outcome[False]
        if with_hint and without:
            both += 1
        elif with_hint:
            helped += 1
        elif without:
            hurt += 1
        else:
            neither += 1
    pairs = both + helped + hurt + neither
    if pairs == 0:
        return None
    low, high = paired_difference_interval(both, helped, hurt, neither)
    return HintGain(pairs=pairs, gain=(helped - hurt) / pairs, ci_low=low, ci_high=high, helped=helped, hurt=hurt)


def pass_hat_k(trials: Iterable[Sequence[bool]], k: int) -> float:
    """tau2-bench's pass^k: the chance that ``k`` trials of a task, drawn from its ``n``, all succeed,
    averaged over tasks (``C(c, k) / C(n, k)`` per task with ``c`` successes, as tau2 computes it).

    Each item is one task's trial outcomes; a task with fewer than ``k`` trials raises ValueError
    (its pass^k is undefined), and so does ``k < 1`` or no task.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    values = []
    for outcomes in trials:
        n, c = len(outcomes), sum(bool(o) for o in outcomes)
        if n < k:
            raise ValueError(f"pass^{k} needs at least {k} trials of every task, got a task with {n}")
        values.append(math.comb(c, k) / math.comb(n, k))
    if not values:
        raise ValueError("pass^k of no task")
    return sum(values) / len(values)


def pass_hat_ks(records: Iterable[Mapping], tasks: int) -> dict[str, float]:
    """``{"1": pass^1, ..., "n": pass^n}`` of one env's episode records, where trial ``t`` of task
    ``i`` is seed ``i + t * tasks``; ``n`` is the fewest trials any played task has."""
    by_task: dict[int, list[bool]] = {}
    for r in records:
        by_task.setdefault(int(r["seed"]) % tasks, []).append(bool(r["success"]))
    if not by_task:
        return {}
    fewest = min(len(v) for v in by_task.values())
    return {str(k): pass_hat_k(by_task.values(), k) for k in range(1, fewest + 1)}
