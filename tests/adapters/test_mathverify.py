"""The built-in math_verify stand-in."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.sandbox.language.mathverify import parse, verify


@pytest.mark.parametrize("gold, answer", [
    ("42", "\\boxed{42}"),
    ("0.5", "\\boxed{\\frac{1}{2}}"),
    ("3/4", "$0.75$"),
    ("1,000", "1000"),
    ("50%", "0.5"),
    ("-\\frac{2}{3}", "\\boxed{-2/3}"),
    ("(1, 2)", "\\boxed{(1,2)}"),
    ("\\{3, 1\\}", "\\boxed{\\{1, 3\\}}"),
    ("Paris", "\\boxed{paris}"),
    ("x = 5", "5"),
    ("2\\sqrt{2}", "2.8284271"),
])
def test_equal_answers(gold, answer):
    assert verify(parse(gold), parse(answer))


@pytest.mark.parametrize("gold, answer", [
    ("42", "\\boxed{43}"),
    ("0.5", "\\boxed{0.51}"),
    ("(1, 2)", "(2, 1)"),
    ("Paris", "London"),
    ("7", ""),
])
def test_different_answers(gold, answer):
    assert not verify(parse(gold), parse(answer))


def test_parse_returns_candidates():
    assert parse("The answer is \\boxed{\\frac{3}{6}}")[0] == Fraction(1, 2)
    assert parse("") == []
    assert parse("so it is 17 apples")[0] == 17


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.text(max_size=200))
def test_never_raises(a, b):
    assert verify(parse(a), parse(b)) in (True, False)
    assert verify(a, b) in (True, False)
