"""Verdicts are statistics: how a rate measured on a few probe seeds is judged against its limit.

A rate check (a cheap baseline's win rate, a shortcut script's, the share of seeds one answer
wins) sees a handful of seeds drawn afresh in every run. Comparing the observed rate with the
limit directly gives a program whose true rate is anywhere near the limit a different verdict
on different runs: a 30% baseline passes a 15% limit on 8 seeds one run in four. So every rate
check decides with a confidence interval and plays more seeds while it cannot:

* **PASS** when the interval's upper bound is below the limit, **FAIL** when its lower bound
  is above it, **UNSURE** otherwise;
* while UNSURE, the check plays :attr:`Rule.step` more seeds (drawn from the run seed, continuing
  the run's seed stream, so a run with a fixed seed replays exactly), up to :attr:`Rule.cap`;
* at the cap, the point estimate decides: above the limit fails (the old ``>`` rule), at or
  below it passes. Only a program whose true rate is within a few points of the limit gets
  there, and for it either verdict is fair.

The interval is Wilson's score interval at :attr:`Rule.confidence` (two-sided): it behaves at
0 and at 100% (the usual case: a sound program's baselines never win), where the normal
approximation collapses to a point. Why 90%: the target is the same verdict in at least 19 of
20 fresh-seed runs for every program whose true rate is 10 points or more from the limit, i.e. at
most 5% disagreement per run there. With 8-seed looks up to 160 seeds, :func:`operating_characteristic`
(the exact probability, over the binomial, of each verdict of this whole sequential procedure)
gives at most 2.1% disagreement at exactly 10 points from a 50% limit and 1.3% from a 15% limit,
and under 0.2% at 20 points. A higher level buys little there (the cap dominates) and costs every
sound program more seeds: at 90% a baseline that never wins is cleared against 15% on 16 seeds
(upper bound 14.5%), at 95% it takes 24, at 99% 40.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, TypeVar

PASS, FAIL, UNSURE = "pass", "fail", "unsure"

K = TypeVar("K", bound=Hashable)


def wilson(successes: float, trials: float, confidence: float) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion, two-sided at ``confidence``."""
    if trials <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = min(1.0, max(0.0, successes / trials))
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials)) / (1 + z2n)
    # Exactly 0 and 1 at the ends (floating error would put 0 wins a hair above zero).
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Tally:
    """What a rate was measured on: ``wins`` of ``trials``, over ``seeds`` probe seeds (a pooled
    rate counts several episodes per seed; the cap counts seeds)."""

    wins: float
    trials: int
    seeds: int

    @classmethod
    def of(cls, outcomes: Sequence[bool]) -> Tally:
        return cls(sum(bool(o) for o in outcomes), len(outcomes), len(outcomes))


@dataclass(frozen=True)
class Estimate:
    """A rate judged against its limit."""

    wins: float
    trials: int
    seeds: int
    low: float
    high: float
    limit: float
    confidence: float
    #: :data:`PASS`, :data:`FAIL` or :data:`UNSURE` (the latter only before the cap).
    verdict: str
    #: ``"interval"`` (the interval cleared the limit) or ``"cap"`` (the point estimate decided
    #: at the seed cap); ``""`` while UNSURE.
    decided_by: str = ""

    @property
    def rate(self) -> float:
        return self.wins / self.trials if self.trials else 0.0

    @property
    def passed(self) -> bool:
        return self.verdict == PASS

    @property
    def failed(self) -> bool:
        return self.verdict == FAIL

    def to_dict(self) -> dict[str, Any]:
        """The plain-data form reports and cards keep: the interval, not only the rate."""
        wins: Any = int(self.wins) if float(self.wins).is_integer() else round(self.wins, 4)
        return {"wins": wins, "trials": self.trials, "seeds": self.seeds, "rate": round(self.rate, 4),
                "low": round(self.low, 4), "high": round(self.high, 4), "verdict": self.verdict,
                "decided_by": self.decided_by}

    def describe(self) -> str:
        """``'6 of 16, 90% interval 19-61%'`` (and how it was decided at the cap), for messages."""
        text = f"{self.wins:g} of {self.trials}, {self.confidence:.0%} interval {self.low:.0%}-{self.high:.0%}"
        return text + (f"; at the {self.seeds}-seed cap the observed rate decides" if self.decided_by == "cap" else "")

    def reason(self) -> str:
        """Why the verdict, for messages: which bound cleared the limit, or the cap."""
        if self.decided_by == "cap":
            return f"still around the limit at the {self.seeds}-seed cap, where the observed rate decides"
        if self.failed:
            return "all of it above the limit"
        if self.passed:
            return "all of it below the limit"
        return "it straddles the limit"


@dataclass(frozen=True)
class Rule:
    """The sequential rule: confidence level, first look, seeds per extra look, seed cap."""

    confidence: float = 0.90
    step: int = 8
    cap: int = 160

    def judge(self, tally: Tally, limit: float) -> Estimate:
        """The verdict on what has been measured so far (the point estimate decides at the cap)."""
        low, high = wilson(tally.wins, tally.trials, self.confidence)
        args = (tally.wins, tally.trials, tally.seeds, low, high, limit, self.confidence)
        if tally.trials == 0:
            return Estimate(*args, PASS, "interval")  # nothing measured: nothing won
        if high < limit:
            return Estimate(*args, PASS, "interval")
        if low > limit:
            return Estimate(*args, FAIL, "interval")
        if tally.seeds >= self.cap:
            return Estimate(*args, FAIL if tally.wins / tally.trials > limit else PASS, "cap")
        return Estimate(*args, UNSURE)

    def next_seeds(self, seeds: int) -> int:
        """How many seeds the next look measures."""
        return min(self.cap, seeds + self.step)

    def settle(self, tallies: Mapping[K, Tally], extend: Callable[[dict[K, int]], Mapping[K, Tally]],
               limit: float | Mapping[K, float]) -> dict[K, Estimate]:
        """Judge every rate; while some are UNSURE, ask ``extend({key: seeds})`` to measure those
        on more seeds (it returns their new tallies, in one lock-step run if it likes), until
        every rate is decided. A rate whose tally ``extend`` could not grow is decided as if at
        the cap (by its point estimate), so a baseline with nothing more to play ends the loop."""
        current = dict(tallies)
        limits = limit if isinstance(limit, Mapping) else {key: limit for key in current}
        while True:
            estimates = {key: self.judge(t, limits[key]) for key, t in current.items()}
            unsure = {key: self.next_seeds(current[key].seeds) for key, e in estimates.items()
                      if e.verdict == UNSURE}
            if not unsure:
                return estimates
            grown = extend(unsure)
            stuck = []
            for key in unsure:
                tally = grown.get(key, current[key])
                if tally.seeds <= current[key].seeds:
                    stuck.append(key)
                current[key] = tally
            for key in stuck:  # nothing more to measure: decide on what there is
                current[key] = Tally(current[key].wins, current[key].trials, max(current[key].seeds, self.cap))


def operating_characteristic(rate: float, limit: float, rule: Rule, first: int) -> tuple[float, float]:
    """``(P(FAIL), expected seeds)`` of :meth:`Rule.settle` on one rate whose true value is
    ``rate``, starting with ``first`` seeds: exact, over the binomial distribution of wins (the
    test of the rule's stability and the numbers in the module docstring come from here)."""
    looks = [first]
    while looks[-1] < rule.cap:
        looks.append(rule.next_seeds(looks[-1]))
    alive = {0: 1.0}
    p_fail = expected = 0.0
    previous = 0
    for n in looks:
        added = n - previous
        grown: dict[int, float] = {}
        for wins, p in alive.items():
            for extra in range(added + 1):
                q = p * math.comb(added, extra) * rate ** extra * (1 - rate) ** (added - extra)
                grown[wins + extra] = grown.get(wins + extra, 0.0) + q
        alive = {}
        for wins, p in grown.items():
            estimate = rule.judge(Tally(wins, n, n), limit)
            if estimate.verdict == UNSURE:
                alive[wins] = p
                continue
            expected += p * n
            if estimate.failed:
                p_fail += p
        previous = n
    return p_fail, expected


__all__ = ["FAIL", "PASS", "UNSURE", "Estimate", "Rule", "Tally", "operating_characteristic", "wilson"]
