"""The report's plots: every panel labelled, counts and iterations on whole numbers,
empty panels say so, and the warm start is part of the time plot."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from spade_gym.selfplay.report import CURVES, curves_figure, phases_figure  # noqa: E402


def rows(n: int) -> list[dict]:
    return [{"iteration": i, "validity_rate": 0.5, "regret_mean": 0.1, "return_with_hint": 0.4,
             "return_without_hint": 0.2, "agent_win_rate_suite": None, "pool_size": 64 + i,
             "tokens_designer": 1000 + i, "tokens_agent": 40 + i, "design_s": 3.0, "validate_s": 1.0,
             "play_s": 2.0, "update_s": 0.5} for i in range(1, n + 1)]


def whole(values) -> bool:
    return all(float(v).is_integer() for v in values)


@pytest.mark.parametrize("n", [1, 3, 30])
def test_curves_are_labelled_with_whole_iterations_and_counts(n):
    fig = curves_figure(rows(n))
    for ax, (key, title, ylabel, span) in zip(fig.axes, CURVES):
        assert ax.get_xlabel() == "iteration" and ax.get_ylabel() == ylabel and ax.get_title() == title
        low, high = ax.get_xlim()
        assert whole(t for t in ax.get_xticks() if low <= t <= high), (key, ax.get_xticks())
        if span is None:  # a count
            low, high = ax.get_ylim()
            assert whole(t for t in ax.get_yticks() if low <= t <= high), (key, ax.get_yticks())
    empty = fig.axes[[c[0] for c in CURVES].index("agent_win_rate_suite")]
    assert any("no data" in text.get_text() for text in empty.texts)
    full = fig.axes[0]
    assert not any("no data" in text.get_text() for text in full.texts)


def test_phases_show_the_warm_start_and_whole_iterations():
    fig = phases_figure(rows(3), warm_start_s=120.0)
    (ax,) = fig.axes
    assert ax.get_ylabel() == "seconds" and ax.get_xlabel() == "iteration"
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["warm\nstart", "1", "2", "3"]
    assert "warm start" in [t.get_text() for t in ax.get_legend().get_texts()]
    heights = [p.get_height() for p in ax.patches]
    assert 120.0 in heights
    without = phases_figure(rows(2)).axes[0]
    assert [t.get_text() for t in without.get_xticklabels()] == ["1", "2"]
