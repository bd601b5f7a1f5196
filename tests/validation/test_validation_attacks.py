"""The validator as a reward model under attack: each hole a designer could be optimised into.

Every test here is a program (or a compromised worker) that the previous validator
accepted: probes played inside the program's own worker, fixed seeds 0..15, a verbatim-only
hint check, no look at ``info``, no constant-answer, clock, long-run or degenerate-input
handling.
"""

from __future__ import annotations

import time

import pytest
import spellers
from hypothesis import given, settings
from hypothesis import strategies as st
from testkit import GUESS_SOURCE

from spade_gym.sandbox import ProgramHandle
from spade_gym.sandbox.call_results import Ok
from spade_gym.sandbox.wire import protocol
from spade_gym.sandbox.wire import replies as sandbox_replies
from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.context import draw_seeds
from spade_gym.validation.leaks import leaks, normalise, spell_out_numbers

SMALL = ValidationConfig(seeds=8, fuzz_examples=8, cost_samples=3, seed=11, long_run_resets=40)

# A sound guessing game (1..5000, six guesses, higher/lower): the base the attacks modify.
GAME = '''
import random
import re


class VaultGuessEnv:
    def __init__(self, max_turns=6, **kwargs):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        self.seed = seed or 0
        self._secret = random.Random(seed).randint(1000, 5000)
        self.turns = 0
        return "A vault code from 1000 to 5000; six tries, told higher or lower. \\\\boxed{code}", {}

    def solution(self):
        return str(self._secret)

    def hint(self):
        return HINT

    def step(self, action):
        self.turns += 1
        m = re.search(r"\\\\boxed\\{\\s*(-?\\d{1,6})\\s*\\}", action)
        guess = int(m.group(1)) if m else None
        if guess == self._secret:
            return "Open.", 1.0, True, False, {}
        if self.turns >= self.max_turns:
            return "Locked out.", 0.0, False, True, {}
        word = "higher" if guess is not None and guess < self._secret else "lower"
        return f"No, {word}.", 0.0, False, False, INFO
'''


def game(hint: str = '"Each answer halves what is left."', info: str = "{}", **replace: str) -> str:
    source = GAME.replace("HINT", hint).replace("INFO", info)
    for old, new in replace.items():
        assert old.replace("_", " ") in source or old in source
        source = source.replace(old, new)
    return source


def test_the_base_game_is_valid():
    report = validate_source(game(), config=SMALL)
    assert report.valid, report.summary()


# ----------------------------------------------------------------------------- forged probes


def test_the_worker_has_no_episode_op_to_forge():
    """Probes used to run inside the worker, which then reported its own verdicts."""
    assert not hasattr(ProgramHandle, "episodes")
    with pytest.raises(protocol.ReplyRejected, match="unknown request 'episodes'"):
        protocol.decode_request({"op": "episodes", "i": 0, "seeds": [0], "policy": {"kind": "oracle"},
                                 "max_steps": 3})


def test_a_worker_that_forges_wins_for_every_action_is_rejected(monkeypatch):
    """An escaped program controls every reply of its worker. Host-driven probes leave it one
    lie per call: claiming every step is a win makes a game any answer wins, which the
    baselines then win."""
    real = ProgramHandle.batch

    def forged(self, items, timeout=None):
        results = real(self, items, timeout=timeout)
        return [Ok(sandbox_replies.StepResult("You win!", 1.0, True, False, {}))
                if isinstance(item, protocol.Step) and isinstance(result, Ok) else result
                for item, result in zip(items, results)]

    monkeypatch.setattr(ProgramHandle, "batch", forged)
    report = validate_source(game(), config=SMALL.replace(checks=("static", "load", "non_triviality", "shortcut")))
    assert not report.valid
    assert {c.name for c in report.failures} >= {"non_triviality", "shortcut"}, report.summary()


def test_malformed_raw_results_are_program_failures_not_verdicts():
    # the host decodes every reply once (the episodes record the decoded values as they are)
    with pytest.raises(protocol.ReplyRejected):
        sandbox_replies.decode_step(["obs", float("nan"), True, False, {}], 100)
    with pytest.raises(protocol.ReplyRejected):
        sandbox_replies.decode_step(["obs", 1.0, "yes", False, {}], 100)
    with pytest.raises(protocol.ReplyRejected):
        sandbox_replies.decode_step([42, 1.0, True, False, {}], 100)


# ----------------------------------------------------------------------------- predictable seeds


def test_probe_seeds_are_fresh_per_run_and_recorded():
    first = validate_source(GUESS_SOURCE, config=SMALL.replace(seed=None, checks=("static", "load")))
    second = validate_source(GUESS_SOURCE, config=SMALL.replace(seed=None, checks=("static", "load")))
    assert first.run_seed != second.run_seed
    assert draw_seeds(first.run_seed, 8) != draw_seeds(second.run_seed, 8)
    assert not set(draw_seeds(first.run_seed, 16)) & set(range(16))


def test_a_program_that_misbehaves_off_the_old_fixed_seeds_is_caught():
    """Leaks the answer through hint() only on seeds the old validator never used (>= 16)."""
    source = game(hint='f"Try {self._secret}." if self.seed >= 16 else "Halve the range."')
    report = validate_source(source, config=SMALL)
    assert [c.name for c in report.failures] == ["hint"], report.summary()


def test_a_program_that_changes_after_many_resets_is_caught():
    """Behaves for the first 25 resets of an instance (validation's old budget), then lets any
    answer win."""
    source = game().replace("        self.seed = seed or 0\n",
                            "        self.seed = seed or 0\n        global RESETS\n        RESETS += 1\n")
    source = source.replace("class VaultGuessEnv:", "RESETS = 0\n\n\nclass VaultGuessEnv:")
    source = source.replace("        if guess == self._secret:", "        if guess == self._secret or RESETS > 25:")
    report = validate_source(source, config=SMALL.replace(long_run_resets=100))
    assert "determinism" in [c.name for c in report.failures], report.summary()
    assert "after" in report.check("determinism").message and "resets" in report.check("determinism").message


def test_a_program_that_reads_the_clock_is_rejected():
    """Could behave one way under fast probes and another for a slow agent."""
    source = "import time\n" + game().replace("        if guess == self._secret:",
                                              "        if guess == self._secret or time.time() % 7 < 1:")
    report = validate_source(source, config=SMALL)
    assert report.failures[0].name == "static" and "reads the clock" in report.failures[0].message


# ----------------------------------------------------------------------------- leaks in other spellings


@pytest.mark.parametrize("spelling", [
    "It starts {d[0]}-{d[1]}-{d[2]}-{d[3]}.", "Think of the {n}th house.", "Roughly {n:,} coins.",
    "The digits are {d[0]} {d[1]} {d[2]} {d[3]}.", "Exactly {words}.",
    # Spellings that passed the list-of-spellings normaliser (spade_gym.decoding reads them all):
    "The plaque reads {roman}.", "The dial remembers {fullwidth}.", "The dial remembers {zero_width}.",
    "Try {n:#x}.", "In hex: {n:x}.", "Le code est {french}.", "Der Code ist {german}.", "El código es {spanish}.",
    "The dial last showed {reversed}.", "It is {d[0]}, {d[1]}, {d[2]} and {d[3]}.", "Say it as {pairs}.",
    "Ref zz{n}qq.", "{reversed}, reversed",
])
def test_hint_leaks_in_other_spellings_are_caught(spelling):
    seed = draw_seeds(SMALL.seed, SMALL.seeds)[0]
    with ProgramHandle(game()) as handle:
        handle.reset(seed=seed)
        answer = int(handle.solution())
    digits = str(answer)
    assert answer % 100 >= 10, "the year-style spelling needs two two-digit halves"
    text = spelling.format(d=digits, n=answer, words=_spell(answer), roman=spellers.roman(answer),
                           fullwidth=spellers.fullwidth(digits), zero_width=spellers.zero_width_split(digits),
                           french=spellers.french(answer), german=spellers.german(answer),
                           spanish=spellers.spanish(answer), reversed=digits[::-1],
                           pairs=f"{_spell(answer // 100)} {_spell(answer % 100)}")
    report = validate_source(game(), hint=text, config=SMALL.replace(checks=("static", "load", "hint")))
    assert [c.name for c in report.failures] == ["hint"], (text, report.summary())
    assert f"contains the solution of seed {seed}" in report.check("hint").message


_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
        "seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _spell(n: int) -> str:
    parts = []
    if n >= 1000:
        parts.append(f"{_ONES[n // 1000]} thousand")
        n %= 1000
    if n >= 100:
        parts.append(f"{_ONES[n // 100]} hundred")
        n %= 100
    if n >= 20:
        parts.append(_TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else ""))
    elif n:
        parts.append(_ONES[n])
    return " ".join(parts) or "zero"


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=100, max_value=19999))
def test_spelled_and_separated_numbers_normalise_to_digits(n):
    assert leaks(f"it is {_spell(n)} today", str(n))
    assert leaks("-".join(str(n)) + " is it", str(n))
    assert spell_out_numbers(_spell(n)) == str(n)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=100, max_value=9999), st.integers(min_value=100, max_value=9999))
def test_other_numbers_do_not_count_as_leaks(n, m):
    if n != m and str(n) != str(m)[::-1]:  # the digits backwards are a spelling of their own
        assert not leaks(f"the vault has {m} doors and {_spell(m)} keys", str(n))


def test_normal_form_examples():
    assert normalise("The 4821st, 4,821 or four thousand eight hundred twenty-one") == "the 4821, 4821 or 4821"
    assert normalise("C-A-T") == "cat"


@settings(max_examples=200)
@given(st.integers(min_value=0, max_value=19), st.integers(min_value=0, max_value=99))
def test_adjacent_numbers_stay_apart(a, b):
    # "keep the first one that fits" once read as 2 (first -> one, then one + one), and a sound
    # program's hint was rejected for naming the answer 2.
    assert normalise("keep the first one that fits") == "keep the 1 1 that fits"
    assert normalise(f"{_spell(a)} {_spell(b)}") == f"{a} {b}"
    assert not leaks(f"pick {_spell(a)} {_spell(b)} times", str(a + b)) or a + b in (a, b)


def test_the_answer_in_info_is_caught():
    report = validate_source(game(info='{"left": self._secret - 0}'), config=SMALL)
    assert [c.name for c in report.failures] == ["info_leak"], report.summary()
    assert "step() info at turn 1 holds info['left']" in report.check("info_leak").message


def test_a_counter_in_info_is_not_a_leak():
    report = validate_source(game(info='{"turn": self.turns}'), config=SMALL)
    assert report.valid, report.summary()


# ----------------------------------------------------------------------------- wins without an answer


def test_a_win_for_unboxed_text_is_rejected():
    """A backdoor: any reply without a box wins (an LLM that rambles gets reward)."""
    source = game().replace("        if guess == self._secret:",
                            "        if guess == self._secret or '\\\\boxed' not in action:")
    report = validate_source(source, config=SMALL)
    assert "contract" in [c.name for c in report.failures], report.summary()
    assert "though it gives no answer" in report.check("contract").message


def test_a_win_for_an_empty_box_is_rejected():
    source = game().replace("        if guess == self._secret:",
                            "        if guess == self._secret or action.strip() == '\\\\boxed{}':")
    report = validate_source(source, config=SMALL)
    assert "contract" in [c.name for c in report.failures], report.summary()


# ----------------------------------------------------------------------------- degenerate inputs


def test_int_string_limit_on_a_5000_digit_number_is_a_warning_not_a_rejection():
    """int() of a 5,000-digit string raises ValueError (Python's limit): sound programs do it."""
    source = game().replace('m = re.search(r"\\\\boxed\\{\\s*(-?\\d{1,6})\\s*\\}", action)',
                            'm = re.search(r"\\\\boxed\\{\\s*(-?\\d+)\\s*\\}", action)')
    report = validate_source(source, config=SMALL)
    assert report.valid, report.summary()
    assert any("degenerate" in w or "Exceeds the limit" in w or "int" in w for w in report.warnings), report.warnings


def test_an_exception_on_a_realistic_input_still_rejects():
    source = game().replace("        guess = int(m.group(1)) if m else None", "        guess = int(m.group(1))")
    report = validate_source(source, config=SMALL)
    assert "contract" in [c.name for c in report.failures], report.summary()


# ----------------------------------------------------------------------------- deadlines


def test_slow_but_legal_steps_cannot_run_past_the_backstop():
    """Each step costs ~0.15 s (legal, under the per-call deadline): the run must stop at its
    budget, not between checks."""
    source = game().replace("        self.turns += 1\n",
                            "        self.turns += 1\n        x = 0\n        for i in range(700_000):\n"
                            "            x += i\n")
    start = time.monotonic()
    report = validate_source(source, config=SMALL.replace(max_seconds=4.0, probe_call_allowance=1.0))
    elapsed = time.monotonic() - start
    assert not report.valid and elapsed < 4.0 + 3.5, (elapsed, report.summary())
    assert "time limit" in report.summary() or "too slow" in report.summary()


# ----------------------------------------------------------------------------- chance, not evidence


def test_level_inversion_needs_more_than_a_lucky_streak():
    from spade_gym.validation.checks.shortcut import inversion_p_value

    assert inversion_p_value(3, 8, 0, 8) == pytest.approx(0.1)       # 3 of 8 on hard vs 0 of 8: chance
    assert inversion_p_value(6, 8, 0, 8) == pytest.approx(28 / 8008)  # 6 of 8 vs 0 of 8: an ordering
    assert inversion_p_value(0, 8, 0, 8) == 1.0
    assert inversion_p_value(2, 8, 5, 8) > 0.9


@given(st.integers(0, 16), st.integers(1, 16), st.integers(0, 16), st.integers(1, 16))
def test_inversion_p_value_is_a_probability_that_falls_as_hard_wins_more(a, n, b, m):
    from spade_gym.validation.checks.shortcut import inversion_p_value

    a, b = min(a, n), min(b, m)
    p = inversion_p_value(a, n, b, m)
    assert 0.0 <= p <= 1.0 + 1e-12
    if a < n:
        assert inversion_p_value(a + 1, n, b, m) <= p + 1e-12


def test_a_fixed_hint_may_meet_one_short_answer_by_coincidence_but_not_many_or_a_long_one():
    from spade_gym.validation.checks.leaks import static_hint_tolerance

    program = '''
import random
class WordPickEnv:
    WORDS = ["be", "to", "of", "in", "at", "on", "by", "up", "ox", "ax", "id", "ok", "go", "do", "so", "we"]
    def __init__(self, max_turns=1, **kwargs):
        self.max_turns = max_turns
        self.answer = "be"
    def reset(self, seed=None):
        self.answer = random.Random(seed).choice(self.WORDS)
        return "Which short word am I thinking of? Answer \\\\boxed{word}.", {}
    def solution(self):
        return self.answer
    def step(self, action):
        won = action.strip() == "\\\\boxed{" + self.answer + "}"
        return ("Right." if won else "Wrong."), float(won), True, False, {}
'''
    config = SMALL.replace(checks=("static", "load", "hint"))
    one_word = validate_source(program, hint="Think about what it could be.", config=config)
    assert one_word.check("hint").passed, one_word.summary()
    many = validate_source(program, hint="It is be, to, of, in, at, on, by, up, ox, ax, id, ok, go, do, so or we.",
                           config=config)
    assert not many.check("hint").passed and "contains the solution" in many.check("hint").message
    assert static_hint_tolerance(16) == 2 and static_hint_tolerance(4) == 1
