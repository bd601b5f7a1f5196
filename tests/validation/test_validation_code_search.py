"""A code space too big to list is searched, not skipped: consistent-candidate search is a shortcut.

The ``marks`` baseline listed every code only when there were at most 5,000 of them; over 6 colours
and 5 pegs (7,776 codes) it tried the screen's words and other seeds' answers only, so a game that
consistent-candidate search wins in 10 guesses passed, except on the odd run where the training
answers happened to miss a colour and the space shrank under the limit (2 runs of 120 flipped).
Now a big space over a small alphabet is searched lazily
(:mod:`spade_gym.validation.consistent_codes`), the verdict is "shortcut" on every run, and a
program with too few guesses for the search is still accepted.
"""

from __future__ import annotations

import itertools
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from testkit import PROGRAMS, SUPPORT

from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.consistent_codes import next_consistent
from spade_gym.validation.feedback_marks import CountRule, MarkModel, PositionRule, mark_labels

#: The shortcut check alone, at a fresh run seed each time (the verdict must not depend on it).
SHORTCUT_ONLY = ValidationConfig(checks=("static", "load", "shortcut"), seeds=8)

#: The exploit with the game's meaning written in: the first code consistent with every count.
EXPLOIT = r'''
import itertools, json, re, sys
sys.path.insert(0, sys.argv[2])
import plain_runner
source, turns = open(sys.argv[1]).read(), int(sys.argv[3])
wins = 0
for seed in range(20):
    env = plain_runner.load(source.replace("max_turns=10", f"max_turns={turns}"))()
    env.reset(seed=seed)
    alive = list(itertools.product("ABCDEF", repeat=5))
    while alive:
        guess = alive[0]
        obs, reward, done, cut, _ = env.step("\\boxed{%s}" % "".join(guess))
        if reward > 0:
            wins += 1
            break
        if done or cut:
            break
        right = int(re.match(r"(\d+)", obs).group(1))
        alive = [c for c in alive if sum(x == y for x, y in zip(guess, c)) == right]
print(json.dumps(wins / 20))
'''


def source(turns: int) -> str:
    text = (PROGRAMS / "informative_marks.py").read_text()
    assert "max_turns=10" in text
    return text.replace("max_turns=10", f"max_turns={turns}")


def exploit_rate(turns: int) -> float:
    proc = subprocess.run([sys.executable, "-c", EXPLOIT, str(PROGRAMS / "informative_marks.py"), str(SUPPORT),
                           str(turns)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return float(proc.stdout)


def test_the_exploit_is_real_under_plain_cpython():
    assert exploit_rate(10) >= 0.9
    assert exploit_rate(4) <= 0.1


def test_consistent_candidate_search_rejects_a_code_too_big_to_list_on_every_run():
    for _ in range(3):  # fresh probe seeds each run
        report = validate_source(source(10), config=SHORTCUT_ONLY)
        assert [c.name for c in report.failures] == ["shortcut"], report.summary()
        rates = report.check("shortcut").details["win_rates"]["default"]
        assert rates["marks"] > 0.5, rates


def test_the_twin_with_too_few_guesses_is_accepted():
    report = validate_source(source(4), config=SHORTCUT_ONLY)
    assert report.valid, report.summary()


# ----------------------------------------------------------------------------- the search itself

EXACT = PositionRule("s", "units", "start", 0, 1, "exact", ())
WORDLE = PositionRule("s", "units", "start", 0, 1, "wordle", ())
COUNTS = {scheme: CountRule("s", "start", 0, scheme) for scheme in ("b", "w", "b+w", "L-b", "L-b-w")}


@st.composite
def searches(draw):
    """A small code space, a hidden code, a few guesses marked against it by some rules, codes to skip."""
    alphabet = draw(st.lists(st.sampled_from("abcdefg"), min_size=2, max_size=4, unique=True))
    length = draw(st.integers(2, 4))
    code = st.tuples(*[st.sampled_from(alphabet)] * length)
    answer = draw(code)
    rules = draw(st.lists(st.sampled_from([EXACT, WORDLE, *COUNTS.values()]), min_size=1, max_size=3, unique=True))
    constraints = []
    for guess in draw(st.lists(code, max_size=4)):
        labels = mark_labels(guess, answer)
        constraints.append((guess, {rule: labels[rule.scheme] for rule in rules}))
    orders = [draw(st.permutations(alphabet)) for _ in range(length)]
    skip = set(draw(st.lists(code, max_size=3)))
    return orders, constraints, skip, answer


@settings(max_examples=300, deadline=None)
@given(searches())
def test_the_search_finds_the_first_consistent_code_in_the_given_order(case):
    orders, constraints, skip, answer = case
    expected = next((c for c in itertools.product(*orders)
                     if c not in skip and all(MarkModel.fits(g, c, m) for g, m in constraints)), None)
    assert next_consistent(orders, constraints, skip) == expected
    if answer not in skip:  # the hidden code drew every mark, so something is always found
        assert expected is not None


def test_the_budget_bounds_the_search():
    alphabet = list("abcdef")
    orders = [alphabet] * 5
    # exactly two f's and exactly two places shared with "aaaff": no such code among the first ten nodes
    constraints = [(("f",) * 5, {COUNTS["b"]: 2}), (("a", "a", "a", "f", "f"), {COUNTS["b"]: 2})]
    found = next_consistent(orders, constraints, set())
    assert found is not None and all(MarkModel.fits(g, found, m) for g, m in constraints)
    assert next_consistent(orders, constraints, set(), budget=10) is None
    assert next_consistent(orders, constraints, {found}) not in (None, found)
