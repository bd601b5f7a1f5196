"""Levels that mean something: the statistics and the task comparison behind the ``difficulty`` and
``levels`` checks (see ``docs/validation.md``, "Levels that mean something").

Two levels are compared on the same seeds: their privileged episodes (the task a seed poses at a
level is what ``solution()`` returns and what the privileged policy does, whatever the screen says),
and the zoo's and the privileged policy's outcomes, as paired differences.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, TypeVar

from spade_gym.validation.episodes import ProbeEpisode
from spade_gym.validation.evidence import unbox
from spade_gym.validation.messages import Problem, excerpt
from spade_gym.validation.stats import FAIL, PASS, UNSURE, Rule, Tally

if TYPE_CHECKING:
    from spade_gym.validation.context import Context

# ----------------------------------------------------------------------------- levels: paired statistics

K = TypeVar("K", bound=Hashable)


def paired_difference(ahead: int, behind: int, n: int, confidence: float) -> tuple[float, float, float]:
    """``(estimate, low, high)`` of P(ahead) - P(behind) on ``n`` paired seeds (a seed is *ahead*
    when the second level was easier on it, *behind* when the first was): the Agresti-Min adjusted
    Wald interval (half a count added to each cell of the 2x2 table), two-sided at ``confidence``.
    Unlike a Wilson bound on one rate, it knows that seeds on which the levels agree say nothing
    against the order: no discordant seed among 8 bounds the difference at 20% (95%)."""
    if n <= 0:
        return 0.0, -1.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    low, high = _monotone_low(ahead, behind, n, z), -_monotone_low(behind, ahead, n, z)
    return (ahead - behind) / n, max(-1.0, low), min(1.0, high)


def _adjusted_wald_low(ahead: int, behind: int, n: int, z: float) -> float:
    cells = n + 2
    p_ahead, p_behind = (ahead + 0.5) / cells, (behind + 0.5) / cells
    centre = p_ahead - p_behind
    return centre - z * math.sqrt(max(p_ahead + p_behind - centre * centre, 0.0) / cells)


def _monotone_low(ahead: int, behind: int, n: int, z: float) -> float:
    """The adjusted Wald lower bound, lowered to the least it takes with more seeds ahead (in place of
    concordant ones). Raw, it dips when a few discordant seeds widen the interval faster than they move
    its centre, so one more seed ahead could weaken the case that the second level is easier; the bound
    is convex in the seeds ahead, so the walk stops at its first rise."""
    low = _adjusted_wald_low(ahead, behind, n, z)
    while ahead + behind < n:
        ahead += 1
        following = _adjusted_wald_low(ahead, behind, n, z)
        if following >= low:
            break
        low = following
    return low


@dataclass(frozen=True)
class PairedOrder:
    """Whether the second of two levels is easier than the first by more than ``slack``, on the same seeds."""

    ahead: int
    behind: int
    n: int
    seeds: int
    estimate: float
    low: float
    high: float
    slack: float
    confidence: float
    #: :data:`~spade_gym.validation.stats.FAIL` (easier by more than the slack), ``PASS`` or ``UNSURE``.
    verdict: str
    decided_by: str = ""

    @property
    def failed(self) -> bool:
        return self.verdict == FAIL

    def to_dict(self) -> dict[str, Any]:
        return {"ahead": self.ahead, "behind": self.behind, "n": self.n, "seeds": self.seeds,
                "difference": round(self.estimate, 4), "low": round(self.low, 4), "high": round(self.high, 4),
                "slack": self.slack, "verdict": self.verdict, "decided_by": self.decided_by}

    def describe(self) -> str:
        if self.decided_by == "cap":
            return f"still around the slack at the {self.seeds}-seed cap, where the observed difference decides"
        return f"{self.confidence:.0%} interval {self.low:.0%} to {self.high:.0%}, all of it above the slack"


#: A paired difference varies up to three times as much as one rate (seeds discordant both ways),
#: so it is judged at no less than this confidence, with ``PAIRED_CAP_FACTOR`` times the seed cap:
#: exactly (tests/validation/test_validation_levels.py), a run then disagrees with the majority verdict at most
#: 4.5% of the time at 10 points from the slack, as the rate rule does at 10 points from its limit.
PAIRED_CONFIDENCE = 0.95
PAIRED_CAP_FACTOR = 3


def paired_rule(rule: Rule) -> Rule:
    """The sequential rule for paired differences, from the rate rule of the config."""
    return Rule(max(rule.confidence, PAIRED_CONFIDENCE), rule.step, rule.cap * PAIRED_CAP_FACTOR)


def judge_paired(ahead: int, behind: int, n: int, seeds: int, slack: float, rule: Rule) -> PairedOrder:
    """The rate rule for a paired difference: easier by more than ``slack`` when the interval's lower
    bound is above it, not when its upper bound is below it, else more seeds, up to the cap, where
    the observed difference decides."""
    estimate, low, high = paired_difference(ahead, behind, n, rule.confidence)
    args = (ahead, behind, n, seeds, estimate, low, high, slack, rule.confidence)
    if n == 0 or high < slack:
        return PairedOrder(*args, PASS, "interval")
    if low > slack:
        return PairedOrder(*args, FAIL, "interval")
    if seeds >= rule.cap:
        return PairedOrder(*args, FAIL if estimate > slack else PASS, "cap")
    return PairedOrder(*args, UNSURE)


def settle_paired(rule: Rule, first: Mapping[K, int],
                  measure: Callable[[dict[K, int]], Mapping[K, tuple[int, int, int]]],
                  slack: float) -> dict[K, PairedOrder]:
    """:func:`judge_paired` for several orders; ``measure({key: seeds})`` returns ``(ahead, behind, n)``
    on the first ``seeds`` seeds of the stream, playing what it lacks (the uncertain orders only, in
    one run). An order whose paired seeds cannot grow (nothing more to play, or nothing the baseline
    plays) is decided on what there is, as at the cap."""
    seeds = dict(first)
    counts = dict(measure(dict(seeds)))
    stuck: set[K] = set()
    while True:
        orders = {key: judge_paired(*counts[key], max(seeds[key], rule.cap) if key in stuck else seeds[key], slack,
                                    rule) for key in seeds}
        unsure = {key: rule.next_seeds(seeds[key]) for key, order in orders.items() if order.verdict == UNSURE}
        unsure = {key: n for key, n in unsure.items() if n > seeds[key]}
        if not unsure:
            return {key: (judge_paired(*counts[key], max(seeds[key], rule.cap), slack, rule)
                          if order.verdict == UNSURE else order) for key, order in orders.items()}
        grown = measure(unsure)
        for key, n in unsure.items():
            seeds[key] = n
            if grown[key][2] <= counts[key][2]:
                stuck.add(key)
            counts[key] = grown[key]


# ----------------------------------------------------------------------------- levels: the task itself


def task_signature(episode: ProbeEpisode) -> tuple:
    """What the privileged policy met on one seed: solution() after reset, its moves, the rewards.
    Two levels whose episodes have one signature pose one task, whatever their screens say."""
    return episode.solution0, tuple(episode.actions), tuple(episode.rewards)


_SCREEN_TOKEN = re.compile(r"\w+|[^\w\s]")


def screen_edit(first: str | None, second: str | None) -> tuple:
    """What turns one screen into the other, as token counts removed and added (order aside). A
    banner or a rewording is one edit on every seed; more values or other values are not."""
    a, b = Counter(_SCREEN_TOKEN.findall(first or "")), Counter(_SCREEN_TOKEN.findall(second or ""))
    return tuple(sorted((a - b).items())), tuple(sorted((b - a).items()))


def same_tasks(ctx: Context, first: str, second: str) -> dict[str, Any]:
    """Whether two levels pose the same tasks on the same seeds. Two shares, each against chance
    agreement (the levels' task distributions, as if drawn independently) plus a part of the rest:
    the seeds with the same task and screens that differ by the edit most seeds share (a banner, a
    rewording), against ``max_level_text_only``; the seeds with the same task whatever the screens,
    against ``max_level_same_task``. Each decided with the rate rule, the privileged policy playing
    more seeds of both levels while either is uncertain."""
    rule = ctx.config.rate_rule
    count = ctx.config.shortcut_seeds
    while True:
        played = ctx.level_samples({(first, "oracle"): count, (second, "oracle"): count})
        a = {e.seed: e for e in played[(first, "oracle")] if e.error is None}
        b = {e.seed: e for e in played[(second, "oracle")] if e.error is None}
        seeds = [s for s in a if s in b]
        pairs = [(task_signature(a[s]), task_signature(b[s])) for s in seeds]
        same = [s for s, (x, y) in zip(seeds, pairs) if x == y]
        edits = {s: screen_edit(a[s].obs0, b[s].obs0) for s in seeds}
        common = Counter(edits.values()).most_common(1)[0][0] if edits else None
        text_only = [s for s in same if edits[s] == common]
        in_a, in_b = Counter(x for x, _ in pairs), Counter(y for _, y in pairs)
        chance = sum(in_a[k] * in_b[k] for k in in_a) / len(seeds) ** 2 if seeds else 0.0
        limits = {"text_only": chance + (1 - chance) * ctx.config.max_level_text_only,
                  "same_task": chance + (1 - chance) * ctx.config.max_level_same_task}
        at = count if rule.next_seeds(count) > count else rule.cap  # nothing more to play: decide now
        estimates = {"text_only": rule.judge(Tally(len(text_only), len(seeds), at), limits["text_only"]),
                     "same_task": rule.judge(Tally(len(same), len(seeds), at), limits["same_task"])}
        if any(e.failed for e in estimates.values()) or all(e.verdict != UNSURE for e in estimates.values()):
            break
        count = rule.next_seeds(count)
    failed = next((name for name, e in estimates.items() if e.failed), None)
    shown = text_only if failed == "text_only" or not same else same
    example = next((s for s in shown if a[s].obs0 != b[s].obs0), shown[0] if shown else None)
    return {"levels": [first, second], "estimates": estimates, "failed": failed, "chance": chance,
            "limits": limits, "same_text": bool(same) and all(a[s].obs0 == b[s].obs0 for s in same),
            "example": None if example is None else (example, a[example].obs0, b[example].obs0)}


def same_task_problem(found: dict[str, Any]) -> Problem:
    first, second = found["levels"]
    if found["same_text"]:
        return Problem("same", "all levels", "every level posed the same task for the same seed, word for word: "
                                             "the difficulty keyword has no effect")
    name = found["failed"]
    estimate = found["estimates"][name]
    seed, screen_a, screen_b = found["example"]
    how = ("and screens that differ only by the same edit on every seed" if name == "text_only" else
           "whatever their screens show")
    return Problem("same", f"levels {first} and {second}", (
        f"they pose the same task (the same solution() and the same privileged play) {how} on {estimate.wins:g} "
        f"of {estimate.trials} seeds (chance agreement {found['chance']:.0%}, limit {found['limits'][name]:.0%}; "
        f"{estimate.describe()}: {estimate.reason()}): the levels differ only in their text, e.g. seed {seed}: "
        f"{excerpt(screen_a, 70)} vs {excerpt(screen_b, 70)}\n"
        f"fix: make each level change the task itself (larger or more values, longer solutions, more steps, fewer "
        f"attempts, a stronger opponent), not its wording or a label"))


def order_counts(first: dict[int, Any], second: dict[int, Any]) -> tuple[int, int, int]:
    """Paired on the seeds both have: (seeds where the second was easier, where the first was, seeds)."""
    seeds = [s for s in first if s in second]
    return (sum(second[s] > first[s] for s in seeds), sum(second[s] < first[s] for s in seeds), len(seeds))


def oracle_length(episode: ProbeEpisode) -> tuple[int, int]:
    """How long the privileged policy's episode is: its turns, then the characters of its moves
    (what is inside ``\\boxed{}``: the box is no part of the solution)."""
    return episode.turns, sum(len(unbox(a)) for a in episode.actions)
