"""Novelty across every registered suite and within a batch, by code and by behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import GUESS_SOURCE, build_suite

from spade_gym.registry import Suite, bundled_suite_path
from spade_gym.validation import check_novelty
from spade_gym.validation.novelty import behaviour_signature, behaviour_similarity

BUNDLED = Suite(bundled_suite_path()).entries()
# Without --suite, validation compares with every registered suite: here only the bundled one,
# as in a fresh process (other modules register suites of the same test programs).
pytestmark = pytest.mark.usefixtures("fresh_process_registry")


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


# ----------------------------------------------------------------------------- padding and rewrites (issue 22 item 6)

PADDING = "\n".join(f"def table_{i}(rows, width):\n    total = rows * {i} + width\n    for k in range(total % 7):\n"
                    f"        if k % 3 == 0:\n            total -= k\n    return total\n" for i in range(60))


def padded(source: str) -> str:
    """A known program plus 60 dead helpers, a dead method and a renamed environment class."""
    import re

    cls = re.search(r"^class (\w+Env)\b", source, re.M).group(1)
    source = source.replace(cls, "Brand" + cls).replace(
        "    def reset(self", "    def render_table(self, rows):\n        return table_1(rows, 3)\n\n    def reset(self", 1)
    return PADDING + "\n\n" + source


def test_dead_code_padding_is_seen_through(bundled_entry):
    """Was accepted as new: 'code similarity 0.42, behaviour 1.00'."""
    source = bundled_entry.read_source()
    twin = padded(source)
    exec(compile(twin, "twin", "exec"), {"__name__": "twin"})  # valid Python, and the padding is really there
    verdict = check_novelty(twin, suites=[Suite(bundled_suite_path())], behaviour=False)
    assert not verdict.novel and verdict.nearest.env_id == bundled_entry.id, verdict.reason


def test_plain_validate_compares_with_the_registered_suites(bundled_entry):
    """`spade-gym validate` used to skip novelty without --suite."""
    from spade_gym.validation import ValidationConfig, validate_source

    report = validate_source(padded(bundled_entry.read_source()),
                             config=ValidationConfig(seeds=4, fuzz_examples=4, cost_samples=2, difficulty_seeds=1,
                                                     long_run_resets=8))
    check = report.check("novelty")
    assert not check.passed and bundled_entry.id in check.message and "registered suite" in check.message


# guess_number written another way: a table of messages, a helper class, a loop instead of a
# regex - the same screens, answers and rewards on every seed.
REWRITE = '''
import random


class Feedback:
    WORDS = {True: "higher", False: "lower"}

    def direction(self, guess, secret):
        return self.WORDS[guess < secret]


class HiddenNumberEnv:
    title = "Number Hunt"

    def __init__(self, max_turns=8, **kwargs):
        self.max_turns = max_turns
        self.turns = 0
        self.secret = 0
        self.seen = []
        self.feedback = Feedback()
        self.reset()

    def reset(self, seed=None):
        if seed is not None:
            random.seed(seed)
        self.turns, self.seen = 0, []
        self.secret = random.randint(1, 1000)
        return (self.title + ": I picked a number between 1 and 1000. You have " + str(self.max_turns)
                + " guesses. Answer with \\\\boxed{number}."), {}

    def solution(self):
        return str(self.secret)

    def _inside(self, text):
        start = text.find("\\\\boxed{")
        if start < 0:
            return None
        end = text.find("}", start + 7)
        return None if end < 0 else text[start + 7:end]

    def step(self, action):
        self.turns += 1
        out_of_turns = self.turns >= self.max_turns
        inner = self._inside(action)
        if inner is None:
            return "Please answer in the format \\\\boxed{number}.", 0.0, False, out_of_turns, {}
        guess = inner.strip()
        if guess == str(self.secret):
            return "Correct! It was " + str(self.secret) + ".", 1.0, True, False, {}
        try:
            value = int(guess)
        except ValueError:
            return "That is not a whole number. " + str(self.max_turns - self.turns) + " guesses left.", 0.0, False, out_of_turns, {}
        self.seen.append(value)
        if out_of_turns:
            return "Out of guesses. The number was " + str(self.secret) + ".", 0.0, False, True, {}
        return ("Wrong. Go " + self.feedback.direction(value, self.secret) + ". Guesses so far: " + str(self.seen),
                0.0, False, False, {"turn": self.turns})
'''


def test_a_rewrite_with_the_same_transcripts_is_the_same_game():
    from spade_gym.validation.fingerprint import fingerprint, similarity

    code = similarity(fingerprint(REWRITE), fingerprint(GUESS_SOURCE))
    assert code < 0.6  # far apart as code: only behaviour can tell
    verdict = check_novelty(REWRITE, suites=[], batch={"design-0": GUESS_SOURCE})
    assert not verdict.novel and "identical screens, answers and rewards" in verdict.reason, verdict.reason
    # its sound twin: the same code with another rule (wrong guesses say nothing) is a different game
    other = REWRITE.replace('"Wrong. Go " + self.feedback.direction(value, self.secret) + ". Guesses so far: "',
                            '"Wrong. Guesses so far: "')
    assert check_novelty(other, suites=[], batch={"design-0": GUESS_SOURCE}).novel


def test_code_similarity_is_the_weighted_jaccard_of_the_n_gram_multisets():
    """The fast path (interned n-gram ids, shared keys only) against the definition, computed with
    Counter's multiset intersection and union, on every pair of the benign corpus and two rewrites."""
    from spade_gym.validation.fingerprint import fingerprint, similarity

    sources = [p.read_text() for p in sorted((Path(__file__).resolve().parents[1] / "programs" / "benign").glob("*.py"))]
    prints = [fingerprint(s) for s in [*sources, REWRITE, GUESS_SOURCE]]
    for a in prints:
        for b in prints:
            if a.exact == b.exact:
                assert similarity(a, b) == 1.0
                continue
            shared, union = sum((a.grams & b.grams).values()), sum((a.grams | b.grams).values())
            assert similarity(a, b) == pytest.approx(shared / union, abs=1e-12)
            assert 0.0 <= similarity(a, b) < 1.0
