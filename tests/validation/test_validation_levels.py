"""Levels that mean something: a level must change the task itself, and the hardest level must be
no easier than the easiest, for the shortcut zoo and for the privileged policy, on the same seeds.

The programs in ``tests/programs/levels_*.py`` pair a bad design the old checks let through (only a
decorative banner changes; the ranges are ordered backwards) with its sound twin.
"""

from __future__ import annotations

import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.config import DEFAULT_CONFIG
from spade_gym.validation.level_rules import (
    PAIRED_CONFIDENCE,
    judge_paired,
    paired_difference,
    paired_rule,
    screen_edit,
    settle_paired,
)
from spade_gym.validation.stats import FAIL, PASS, UNSURE, Rule

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
#: The checks under test and what they read: the levels' privileged episodes and a small zoo. No run
#: seed: every validation here draws fresh probe seeds (the verdicts must not depend on them).
LEVELS = ValidationConfig(checks=("static", "load", "difficulty", "levels"), seeds=8, baseline_policies=(),
                          shortcut_baselines=("prior", "bisection", "enumeration"))
RULE = paired_rule(DEFAULT_CONFIG.rate_rule)


def program(name: str) -> str:
    return (PROGRAMS / f"{name}.py").read_text()


# ----------------------------------------------------------------------------- the paired statistics


def test_paired_difference_matches_the_adjusted_wald_interval():
    estimate, low, high = paired_difference(0, 0, 8, 0.95)
    # half a count in each of the four cells: p = 0.5 / 10 both ways, variance 0.1 / 10
    assert estimate == 0.0 and low == pytest.approx(-0.196, abs=1e-3) and high == pytest.approx(0.196, abs=1e-3)
    estimate, low, high = paired_difference(8, 0, 8, 0.95)
    assert estimate == 1.0 and low == pytest.approx(0.8 - 1.96 * math.sqrt(0.26 / 10), abs=1e-4) and high == 1.0
    assert paired_difference(0, 0, 0, 0.95) == (0.0, -1.0, 1.0)


def test_judge_paired_passes_fails_or_asks_for_more_seeds():
    assert RULE.confidence == PAIRED_CONFIDENCE and RULE.cap == 3 * DEFAULT_CONFIG.max_probe_seeds
    assert judge_paired(0, 0, 8, 8, 0.25, RULE).verdict == PASS      # nothing discordant: decided at once
    assert judge_paired(8, 0, 8, 8, 0.25, RULE).verdict == FAIL      # easier on every seed
    assert judge_paired(3, 0, 8, 8, 0.25, RULE).verdict == UNSURE    # could be luck: more seeds
    at_cap = judge_paired(200, 80, RULE.cap, RULE.cap, 0.25, RULE)
    assert (at_cap.verdict, at_cap.decided_by) == (PASS, "cap")      # 25% net, at the slack: not above it
    above = judge_paired(205, 80, RULE.cap, RULE.cap, 0.25, RULE)
    assert (above.verdict, above.decided_by) == (FAIL, "cap")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 200), st.integers(0, 200), st.integers(0, 200), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
@example(0, 0, 12, 0.99)  # the raw adjusted Wald bound dips here: one discordant seed widens more than it moves
def test_paired_difference_is_a_symmetric_interval_that_rises_with_the_seeds_ahead(ahead, behind, rest, confidence):
    n = ahead + behind + rest
    estimate, low, high = paired_difference(ahead, behind, n, confidence)
    assert -1.0 <= low <= high <= 1.0 and -1.0 <= estimate <= 1.0
    mirrored = paired_difference(behind, ahead, n, confidence)
    assert mirrored[0] == pytest.approx(-estimate) and mirrored[1] == pytest.approx(-high)
    assert mirrored[2] == pytest.approx(-low)
    if rest:  # one more seed ahead instead of a concordant one never lowers the bounds
        raised = paired_difference(ahead + 1, behind, n, confidence)
        assert raised[1] >= low - 1e-12 and raised[2] >= high - 1e-12


def test_settle_paired_plays_more_seeds_only_for_uncertain_orders():
    truth = {"clear": (0.0, 0.0), "inverted": (0.9, 0.0), "edge": (0.3, 0.0)}
    asked: list[dict] = []

    def measure(targets):
        asked.append(dict(targets))
        return {key: (round(truth[key][0] * n), round(truth[key][1] * n), n) for key, n in targets.items()}

    orders = settle_paired(Rule(0.95, 8, 48), {key: 8 for key in truth}, measure, 0.25)
    assert orders["clear"].verdict == PASS and orders["inverted"].failed
    assert all("clear" not in a for a in asked[1:]) and [a["edge"] for a in asked[1:]] == [16, 24, 32, 40, 48]
    assert orders["edge"].decided_by == "cap" and orders["edge"].failed  # 30% net > 25% at the cap
    stuck = settle_paired(Rule(0.95, 8, 48), {"x": 8}, lambda targets: {"x": (3, 0, 8)}, 0.25)["x"]
    assert stuck.verdict in (PASS, FAIL)  # what cannot grow is decided on what there is


def _judge_grid(n: int, slack: float, rule: Rule) -> tuple[np.ndarray, np.ndarray]:
    """:func:`judge_paired` over every (ahead, behind) of ``n`` seeds at once: (fails, decided)."""
    ahead, behind = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    z = NormalDist().inv_cdf(0.5 + rule.confidence / 2)
    cells = n + 2
    p_ahead, p_behind = (ahead + 0.5) / cells, (behind + 0.5) / cells
    centre = p_ahead - p_behind
    half = z * np.sqrt(np.maximum(p_ahead + p_behind - centre ** 2, 0.0) / cells)
    low, high = np.maximum(-1.0, centre - half), np.minimum(1.0, centre + half)
    valid = ahead + behind <= n
    if n >= rule.cap:
        fails = (ahead - behind) / n > slack
        passes = ~fails
    else:
        passes, fails = high < slack, (low > slack) & ~(high < slack)
    return fails & valid, (fails | passes) & valid


def inversion_probability(p_ahead: float, p_behind: float, slack: float, rule: Rule, first: int = 8) -> float:
    """P(inverted) of :func:`settle_paired` on one order whose seeds are ahead, behind or even with
    the given probabilities: exact over the trinomial distribution of each look's counts (states
    holding less than 1e-15 are dropped)."""
    alive = np.zeros((1, 1))
    alive[0, 0] = 1.0
    failed, seen = 0.0, 0
    n = first
    while True:
        added = n - seen
        grown = np.zeros((n + 1, n + 1))
        p_even = 1.0 - p_ahead - p_behind
        # only the block that still holds probability moves on (the rest was decided)
        rows, cols = np.nonzero(alive > 1e-15)
        if rows.size:
            r0, r1, c0, c1 = rows.min(), rows.max() + 1, cols.min(), cols.max() + 1
            block = alive[r0:r1, c0:c1]
            for a in range(added + 1):
                for b in range(added + 1 - a):
                    weight = (math.comb(added, a) * math.comb(added - a, b) * p_ahead ** a * p_behind ** b
                              * p_even ** (added - a - b))
                    grown[r0 + a:r1 + a, c0 + b:c1 + b] += weight * block
        fails, decided = _judge_grid(n, slack, rule)
        failed += float((grown * fails).sum())
        alive = np.where(decided, 0.0, grown)
        if n >= rule.cap or alive.sum() < 1e-12:
            return failed
        seen, n = n, rule.next_seeds(n)


def test_the_judge_grid_is_judge_paired():
    for n in (8, 40, RULE.cap):
        fails, decided = _judge_grid(n, 0.25, RULE)
        for ahead, behind in [(0, 0), (3, 0), (n // 2, 0), (n // 3, n // 6), (n, 0), (1, 1)]:
            order = judge_paired(ahead, behind, n, n, 0.25, RULE)
            assert bool(fails[ahead, behind]) == order.failed
            assert bool(decided[ahead, behind]) == (order.verdict != UNSURE)


@pytest.mark.parametrize("slack, behind", [(DEFAULT_CONFIG.level_order_slack, 0.0),
                                           (DEFAULT_CONFIG.level_order_slack, 0.2),
                                           (DEFAULT_CONFIG.level_length_slack, 0.1)])
def test_the_level_order_meets_the_stability_target_exactly(slack, behind):
    """10 points from the slack, a run disagrees with the majority verdict at most 5% of the time; an
    order that is not inverted at all (the same win rates) is almost never called inverted."""
    assert inversion_probability(behind + slack + 0.1, behind, slack, RULE) >= 0.95
    assert inversion_probability(behind + slack - 0.1, behind, slack, RULE) <= 0.05
    assert inversion_probability(0.3, 0.3, slack, RULE) <= 0.01


# ----------------------------------------------------------------------------- what "the same task" means


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 999), min_size=1, max_size=8))
def test_a_banner_is_one_edit_on_every_seed_and_other_values_are_not(values):
    body = f"Add up these numbers: {', '.join(map(str, values))}."
    other = f"Add up these numbers: {', '.join(map(str, values + [1000 + len(values)]))}."
    banner = screen_edit("~ Gentle warm-up ~\n" + body, "!!! EXPERT CHALLENGE !!!\n" + body)
    assert banner == screen_edit("~ Gentle warm-up ~\nAdd up these numbers: 1.", "!!! EXPERT CHALLENGE !!!\nAdd up "
                                                                                 "these numbers: 1.")
    assert screen_edit(body, body) == ((), ()) and screen_edit(body, other) != ((), ())
    assert screen_edit(body, other)[1] == ((",", 1), (str(1000 + len(values)), 1))


# ----------------------------------------------------------------------------- the programs


def test_levels_that_only_change_a_banner_are_rejected_with_what_to_change():
    report = validate_source(program("levels_prefix"), config=LEVELS)
    assert [c.name for c in report.failures] == ["difficulty"], report.summary()
    message = report.check("difficulty").message
    assert "the levels differ only in their text" in message and "only by the same edit on every seed" in message
    assert "fix: make each level change the task itself" in message
    same = report.check("difficulty").details["same_task"]["easy/medium"]["text_only"]
    assert same["wins"] == same["trials"] and same["verdict"] == FAIL


def test_levels_that_change_the_task_pass_and_more_values_from_the_same_draws_are_a_change():
    sound = validate_source(program("levels_prefix_sound"), config=LEVELS)
    assert sound.valid, sound.summary()
    # the hardest of these levels draws the same first values and adds more: the same answer on many
    # seeds (the largest digit sum is often among the first), a different task all the same
    shared = validate_source((PROGRAMS / "broken" / "levels.py").read_text(),
                             config=LEVELS.replace(checks=("static", "load", "difficulty")))
    assert shared.valid, shared.summary()


def test_inverted_levels_are_rejected_and_their_sound_twin_passes():
    report = validate_source(program("levels_inverted"), config=LEVELS)
    assert [c.name for c in report.failures] == ["levels"], report.summary()
    message = report.check("levels").message
    assert "level hard is easier than easy" in message and "the privileged policy" in message
    assert "shorter on hard" in message
    order = report.check("levels").details["order"]
    assert order["oracle_length"]["verdict"] == FAIL and order["levels"] == ["easy", "hard"]
    twin = validate_source(program("levels_inverted_sound"), config=LEVELS)
    assert twin.valid, twin.summary()
    assert twin.check("levels").details["order"]["oracle_length"]["verdict"] == PASS


@pytest.mark.parametrize("name, valid", [("levels_prefix", False), ("levels_prefix_sound", True),
                                         ("levels_inverted", False), ("levels_inverted_sound", True)])
def test_the_level_verdicts_hold_on_fresh_seeds(name, valid):
    """Two more fresh-seed runs each (every run of these tests draws fresh seeds; 20-run measurements are
    in the report of this change)."""
    source = program(name)
    verdicts = [validate_source(source, config=LEVELS).valid for _ in range(2)]
    assert verdicts == [valid] * 2
