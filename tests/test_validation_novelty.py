"""Novelty across every registered suite and within a batch, by code and by behaviour."""

from __future__ import annotations

import pytest

from conftest import GUESS_SOURCE, build_suite
from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.validation import check_novelty
from spade_gym.validation.novelty import behaviour_signature, behaviour_similarity

BUNDLED = Suite(bundled_suite_path()).entries()


@pytest.fixture(scope="module")
def bundled_entry():
    return next(e for e in BUNDLED if e.card.kind == "game")


def test_an_exact_copy_of_a_bundled_program_is_caught(bundled_entry):
    """Self-play used to compare only with its own suite: a bundled program registered as new."""
    verdict = check_novelty(bundled_entry.read_source(), suites=[Suite(bundled_suite_path())], behaviour=False)
    assert not verdict.novel and verdict.nearest.env_id == bundled_entry.id and verdict.nearest.exact


def test_a_comment_only_change_is_caught_within_a_batch():
    """Two designs of one batch that differ by a comment were both registered."""
    twin = "# a brand new game, honestly\n" + GUESS_SOURCE.replace("    def solution(self):",
                                                                     "    # the answer\n    def solution(self):")
    verdict = check_novelty(twin, suites=[], batch={"design-0": GUESS_SOURCE})
    assert not verdict.novel and verdict.nearest.env_id == "batch:design-0"
    assert "the same code up to names, strings, comments and docstrings" in verdict.reason


def test_a_different_program_is_novel_and_names_its_nearest():
    other = (__import__("conftest").BENIGN_DIR / "numpy_grid.py").read_text()
    verdict = check_novelty(other, suites=[], batch={"design-0": GUESS_SOURCE})
    assert verdict.novel and verdict.nearest is not None and verdict.nearest.env_id == "batch:design-0"


def test_default_compares_with_every_registered_suite(tmp_path, bundled_entry):
    from spade_gym.registry import register_suite

    own = tmp_path / "own"
    build_suite(own, {"guess": GUESS_SOURCE.replace("NumberHuntEnv", "NoveltyProbeHuntEnv")})
    register_suite(own)
    for source in (bundled_entry.read_source(), GUESS_SOURCE):
        verdict = check_novelty(source, behaviour=False)
        assert not verdict.novel, verdict.reason


def test_an_unreadable_entry_is_reported_not_dropped(tmp_path):
    """An entry the novelty check cannot fingerprint used to be skipped silently."""
    source = GUESS_SOURCE + f"\n# registered by {tmp_path.name}\n"  # a checksum no other test has cached
    build_suite(tmp_path, {"guess": source})
    entry = Suite(tmp_path).entries()[0]
    entry.env_path.write_text(source + "# tampered\n")  # the checksum no longer matches
    verdict = check_novelty((__import__("conftest").BENIGN_DIR / "numpy_grid.py").read_text(), suites=[Suite(tmp_path)],
                            behaviour=False)
    assert verdict.skipped and verdict.skipped[0][0] == entry.id
    assert verdict.to_dict()["skipped"][0]["id"] == entry.id


def test_a_reskin_with_rewritten_code_is_caught_by_behaviour():
    """The same mechanic with new names, texts and a slightly different structure."""
    reskin = (GUESS_SOURCE.replace("NumberHuntEnv", "TreasureDepthEnv").replace("Number Hunt", "Treasure Depth")
              .replace("I picked a number", "The treasure lies at a depth")
              .replace("        self.history = []\n        self.reset()",
                       "        self.history = []\n        self.depth_log = {}\n        self.reset()")
              .replace("        self.history.append(value)\n",
                       "        self.history.append(value)\n        self.depth_log[value] = self.turn_count\n"))
    verdict = check_novelty(reskin, suites=[], batch={"design-0": GUESS_SOURCE})
    assert not verdict.novel and "in another skin" in verdict.reason, verdict.reason
    assert verdict.nearest.code_similarity < 0.95 and verdict.nearest.behaviour_similarity == 1.0


def test_behaviour_signatures_separate_different_mechanics():
    grid = (__import__("conftest").BENIGN_DIR / "numpy_grid.py").read_text()
    a, b = behaviour_signature(GUESS_SOURCE), behaviour_signature(grid)
    assert a is not None and b is not None
    assert behaviour_similarity(a, a) == 1.0 and behaviour_similarity(a, b) < 0.8
