"""Verdicts are statistics: the same program gets the same verdict on fresh-seed runs.

The rule (``spade_gym.validation.stats``): Wilson interval at ``confidence``; pass when its
upper bound is below the limit, fail when its lower bound is above, otherwise more seeds, up to
``max_probe_seeds``, where the point estimate decides. The programs in ``tests/programs/rates``
cheat at a known rate, decided by the seed; each is validated 20 times with fresh run seeds.
"""

from __future__ import annotations

import zlib
from collections import Counter
from pathlib import Path

import pytest

from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.config import DEFAULT_CONFIG
from spade_gym.validation.stats import FAIL, PASS, UNSURE, Rule, Tally, operating_characteristic, wilson

RATES = Path(__file__).resolve().parents[1] / "programs" / "rates"
RUNS = 20


def rate_program(name: str, rate: float) -> str:
    return (RATES / f"{name}.py").read_text().replace("RATE = 0.0", f"RATE = {rate!r}")


#: Small configs: only the checks under test, and only the policies they read.
SHORTCUT = ValidationConfig(checks=("static", "load", "shortcut"), seeds=8, baseline_policies=())
BASELINE = ValidationConfig(checks=("static", "load", "non_triviality"), seeds=8, shortcut_baselines=(),
                            baseline_policies=({"kind": "random_numbers", "low": 0, "high": 100},))
SAME_ANSWER = ValidationConfig(checks=("static", "load", "distinct_solutions"), seeds=8, baseline_policies=(),
                               shortcut_baselines=())


# ----------------------------------------------------------------------------- the statistics


def test_wilson_interval_matches_known_values():
    assert wilson(0, 16, 0.90) == (0.0, pytest.approx(0.1446, abs=1e-4))
    low, high = wilson(5, 10, 0.95)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson(8, 8, 0.90)[1] == 1.0 and wilson(0, 0, 0.9) == (0.0, 1.0)


def test_the_rule_passes_fails_or_asks_for_more_seeds():
    rule = Rule(confidence=0.90, step=8, cap=32)
    assert rule.judge(Tally(0, 16, 16), 0.15).verdict == PASS       # upper bound 14.5% < 15%
    assert rule.judge(Tally(0, 8, 8), 0.15).verdict == UNSURE       # 8 seeds cannot clear 15%
    assert rule.judge(Tally(1, 6, 6), 0.15).verdict == UNSURE       # self-play's 1 of 6 no longer fails
    assert rule.judge(Tally(12, 16, 16), 0.5).verdict == FAIL
    at_cap = rule.judge(Tally(17, 32, 32), 0.5)
    assert (at_cap.verdict, at_cap.decided_by) == (FAIL, "cap")     # the point estimate decides at the cap
    assert rule.judge(Tally(16, 32, 32), 0.5).verdict == PASS       # at the limit is not above it


def test_settle_plays_more_seeds_only_for_uncertain_rates_and_stops_at_the_cap():
    rule = Rule(confidence=0.90, step=8, cap=40)
    asked: list[dict] = []
    truth = {"clear": 0.0, "edge": 0.5}

    def extend(targets):
        asked.append(dict(targets))
        return {key: Tally(round(truth[key] * n), n, n) for key, n in targets.items()}

    estimates = rule.settle({"clear": Tally(0, 8, 8), "edge": Tally(4, 8, 8)}, extend, 0.5)
    assert estimates["clear"].verdict == PASS and "clear" not in {k for a in asked for k in a}
    assert [a["edge"] for a in asked] == [16, 24, 32, 40]
    assert estimates["edge"].decided_by == "cap" and estimates["edge"].verdict == PASS
    # a rate whose tally cannot grow (nothing more to play) is decided on what there is
    stuck = rule.settle({"x": Tally(4, 8, 8)}, lambda targets: {}, 0.5)["x"]
    assert stuck.verdict == PASS and stuck.decided_by == "cap"


@pytest.mark.parametrize("limit, first", [(DEFAULT_CONFIG.max_baseline_win_rate, DEFAULT_CONFIG.baseline_seeds),
                                          (DEFAULT_CONFIG.max_shortcut_win_rate, DEFAULT_CONFIG.shortcut_seeds),
                                          (DEFAULT_CONFIG.max_same_solution_share, DEFAULT_CONFIG.shortcut_seeds)])
def test_the_default_rule_meets_the_stability_target_exactly(limit, first):
    """Exactly, over the binomial: 10 points from the limit or more, a run disagrees with the
    majority verdict at most 2.5% of the time (the target, 19 of 20 runs, allows 5%)."""
    rule = DEFAULT_CONFIG.rate_rule
    for distance in (0.10, 0.15, 0.20, 0.30):
        for rate in (limit - distance, limit + distance):
            if not 0.0 <= rate <= 1.0:
                continue
            p_fail, _ = operating_characteristic(rate, limit, rule, first)
            disagree = p_fail if rate < limit else 1 - p_fail
            assert disagree <= 0.025, (limit, rate, disagree)
    # and a sound program (a rate of 0) is decided on the first look
    assert operating_characteristic(0.0, limit, rule, first) == (0.0, first)


# ----------------------------------------------------------------------------- the validator, 20 runs each


CASES = [
    # program, check, config, true rate, expected verdict (the limit: shortcut 50%, baseline 15%, answer 50%)
    ("shown_code", "shortcut", SHORTCUT, 0.10, True),
    ("shown_code", "shortcut", SHORTCUT, 0.30, True),
    ("shown_code", "shortcut", SHORTCUT, 0.70, False),
    ("shown_code", "shortcut", SHORTCUT, 0.90, False),
    ("open_lock", "non_triviality", BASELINE, 0.03, True),
    ("open_lock", "non_triviality", BASELINE, 0.30, False),
    ("open_lock", "non_triviality", BASELINE, 0.60, False),
    ("house_code", "distinct_solutions", SAME_ANSWER, 0.25, True),
    ("house_code", "distinct_solutions", SAME_ANSWER, 0.75, False),
]


@pytest.mark.parametrize("program, check, config, rate, expected", CASES,
                         ids=[f"{c[1]}-{c[3]:.0%}" for c in CASES])
def test_a_program_gets_the_same_verdict_on_fresh_seed_runs(program, check, config, rate, expected):
    source = rate_program(program, rate)
    verdicts: Counter = Counter()
    for run in range(RUNS):
        # fresh run seeds (distinct per case and run), fixed so the test itself is reproducible
        seed = zlib.crc32(f"{program}:{rate}:{run}".encode())
        report = validate_source(source, config=config.replace(seed=seed))
        assert [c.name for c in report.failures] in ([], [check]), report.summary()
        verdicts[report.check(check).passed] += 1
    assert verdicts[expected] >= RUNS - 1, (rate, dict(verdicts))


def test_self_play_seed_counts_never_decide_a_rate():
    """Self-play validates with few seeds (``ValidationConfig(seeds=6)``): the oracle plays 6, but
    the cheap baselines still start at ``baseline_seeds`` and the zoo at ``shortcut_seeds``."""
    config = ValidationConfig(seeds=6, seed=5, checks=("static", "load", "non_triviality", "shortcut"))
    report = validate_source(rate_program("open_lock", 0.0), config=config)
    assert report.valid, report.summary()
    intervals = report.details["baseline_win_intervals"]
    assert all(row["seeds"] >= config.baseline_seeds for row in intervals.values())
    zoo = report.details["shortcut_win_intervals"]["default"]
    assert all(row["seeds"] >= config.shortcut_seeds for row in zoo.values())


def test_a_fixed_run_seed_replays_the_added_seeds_exactly():
    source = rate_program("shown_code", 0.5)  # at the limit: always needs more seeds
    config = SHORTCUT.replace(seed=77, max_probe_seeds=40)
    first, again = (validate_source(source, config=config) for _ in range(2))
    assert first.details["shortcut_win_intervals"] == again.details["shortcut_win_intervals"]
    rows = first.details["shortcut_win_intervals"]["default"]
    assert max(row["seeds"] for row in rows.values()) > config.shortcut_seeds


def test_reports_and_cards_give_the_interval():
    config = ValidationConfig(checks=("static", "load", "non_triviality", "shortcut"), seed=3, max_probe_seeds=24)
    report = validate_source(rate_program("shown_code", 0.5), config=config)
    card = report.card_summary()
    assert card["rate_rule"] == {"interval": "wilson", "confidence": 0.9, "step": 8, "max_probe_seeds": 24}
    full = report.details["shortcut_win_intervals"]["default"]["enumeration"]
    assert set(full) >= {"wins", "trials", "seeds", "rate", "low", "high", "verdict", "decided_by"}
    assert full["low"] <= full["rate"] <= full["high"]
    row = card["shortcut_win_intervals"]["default"]["enumeration"]  # the card's compact form
    assert {k: row[k] for k in ("wins", "seeds", "low", "high")} == {k: full[k] for k in ("wins", "seeds", "low", "high")}
    assert set(card["baseline_win_intervals"]) == set(card["baseline_win_rates"])
    # the old key keeps its meaning: the observed rate per level and baseline
    assert card["shortcut_win_rates"]["default"]["enumeration"] == full["rate"]
    message = report.check("shortcut").message
    assert "interval" in message


#: Run seed 15005 draws 8 probe seeds whose lottery answers (ticket digit sums, 25 21 24 21 21 24 24 25)
#: cluster on three values: the zoo's prior, learning each seed's answer from the other 7, wins all 8 of
#: its own seeds, though on fresh seeds it wins about 18% (found by plain arithmetic over ``draw_seeds``,
#: as ``test_a_clustered_window_is_what_run_seed_15005_draws`` redoes it; about 1 run seed in 1,300).
CLUSTERED_RUN_SEED = 15005
LOTTERY = (Path(__file__).resolve().parents[1] / "programs" / "informative_lottery_sound.py").read_text()


def _digit_sum_answer(seed: int) -> str:
    """The lottery's answer at ``seed``, computed as its reset() does (plain arithmetic, no program run)."""
    import random

    ticket = random.Random(seed).randint(10000, 99999)
    return str(sum(int(d) for d in str(ticket)))


def test_a_clustered_window_is_what_run_seed_15005_draws():
    from spade_gym.validation.context import draw_seeds

    answers = [_digit_sum_answer(s) for s in draw_seeds(CLUSTERED_RUN_SEED, SHORTCUT.shortcut_seeds)]
    leave_one_out_wins = sum(answer in [v for v, _ in Counter(answers[:i] + answers[i + 1:]).most_common(3)]
                             for i, answer in enumerate(answers))
    assert leave_one_out_wins == len(answers)


def test_a_prior_that_wins_its_own_window_is_judged_on_seeds_it_never_saw():
    """The zoo's first look plays the seeds its priors learned from: there the prior wins 8 of 8 (a FAIL at
    a 50% limit), and only on held-out seeds does it show its real rate, which passes."""
    report = validate_source(LOTTERY, config=SHORTCUT.replace(seed=CLUSTERED_RUN_SEED))
    assert report.valid, report.summary()
    row = report.details["shortcut_win_intervals"]["default"]["prior"]
    assert row["held_out"] is True and row["verdict"] == PASS
    assert row["seeds"] >= SHORTCUT.shortcut_seeds  # judged on seeds played, not on an empty sample
    assert row["rate"] < SHORTCUT.max_shortcut_win_rate
