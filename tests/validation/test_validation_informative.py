"""``informative`` asks whether what the agent sees predicts the answer, not whether it differs.

Evidence, in the order the check looks for it: a zoo script that reads the screen and the feedback
beats the scripts that do not (guessing other seeds' answers); the program's information flow carries
the random choices the answer is made of to a screen (``validation.information_flow``); the feedback
to legal moves (other seeds' winning moves) sorts them differently on different seeds. The programs in
``tests/programs/informative_*.py``: a lottery with a ticket on its screen, one that decorates its
replies, their sound twins, and code-breaking games that show the same opening screen on every seed.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.evidence import sign_test
from spade_gym.validation.information_flow import DRAW, analyse

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
#: The checks under test and what they read (the zoo's episodes, for the readers against chance). No
#: run seed: every validation here draws fresh probe seeds (the verdicts must not depend on them).
INFORMATIVE = ValidationConfig(checks=("static", "load", "shortcut", "informative"), seeds=8, baseline_policies=())


def program(name: str) -> str:
    return (PROGRAMS / f"{name}.py").read_text()


def game(reset: str, step: str, solution: str = "return str(self.answer)", extra: str = "") -> str:
    """A small game program: ``reset`` and ``step`` bodies (``rng``, ``action`` and ``guess`` given)."""
    body = textwrap.indent(textwrap.dedent(reset), " " * 8)
    moves = textwrap.indent(textwrap.dedent(step), " " * 8)
    return (f"import random\nimport re\n\n\nclass SmallEnv:\n    def __init__(self, max_turns=4, **kwargs):\n"
            f"        self.max_turns = max_turns\n        self.turns = 0\n\n    def reset(self, seed=None):\n"
            f"        rng = random.Random(seed)\n        self.turns = 0\n{body}\n\n    def solution(self):\n"
            f"        {solution}\n\n    def step(self, action):\n        self.turns += 1\n"
            f"        m = re.search(r'\\\\boxed\\{{(\\d+)\\}}', action)\n        guess = int(m.group(1)) if m else -1\n"
            f"{moves}\n{textwrap.indent(textwrap.dedent(extra), ' ' * 4)}\n")


WIN = "if guess == self.answer:\n    return 'Yes!', 1.0, True, False, {}\n"


# ----------------------------------------------------------------------------- the statistics


def test_sign_test_is_the_binomial_tail():
    assert sign_test(0, 0) == 1.0
    assert sign_test(7, 0) == pytest.approx(1 / 128)
    assert sign_test(5, 2) == pytest.approx((21 + 7 + 1) / 128)
    assert sign_test(0, 5) == 1.0


# ----------------------------------------------------------------------------- information flow


def test_an_answer_drawn_apart_from_the_screen_never_reaches_it():
    lottery = game("self.ticket = rng.randint(10000, 99999)\nself.answer = rng.randint(1, 100)\n"
                   "return f'Ticket {self.ticket}. Guess 1-100.', {}",
                   WIN + "if self.turns >= self.max_turns:\n    return f'No. It was {self.answer}.', 0.0, True, False, {}\n"
                         "return 'No.', 0.0, False, False, {}")
    report = analyse(lottery)
    assert report.analysed and not report.reaches
    line = lottery.splitlines().index("        self.answer = rng.randint(1, 100)") + 1
    assert report.hidden_lines == [line] and {kind for kind, _, _ in report.answer_sources} == {DRAW}
    # the same game, the winning number made of the ticket's digits: what the screen shows decides it
    twin = lottery.replace("self.answer = rng.randint(1, 100)", "self.answer = sum(int(d) for d in str(self.ticket))")
    assert analyse(twin).reaches


@pytest.mark.parametrize("feedback, reaches", [
    # higher/lower: a comparison that is not an equality tells where the answer lies
    ("return ('Higher' if guess < self.answer else 'Lower'), 0.0, False, False, {}", True),
    # the same, decided in a helper method that sets what the step returns
    ("self._note(guess)\nreturn self.note, 0.0, False, False, {}", True),
    # right or wrong only, in a flag first: equality with the action is no evidence
    ("correct = guess == self.answer\nreturn ('Right' if correct else 'Wrong'), 0.0, False, False, {}", False),
    # the answer's own text in a message is an echo, not evidence, wherever the episode stands
    ("done = self.turns >= self.max_turns\nreturn 'Wrong.' + (f' It was {self.answer}' if done else ''), 0.0, "
     "done, False, {}", False),
    # a derived clue is evidence
    ("return f'Wrong. It is {\"even\" if self.answer % 2 == 0 else \"odd\"}.', 0.0, False, False, {}", True),
])
def test_feedback_reaches_the_agent_through_data_and_decisions_but_not_through_equality(feedback, reaches):
    source = game("self.answer = rng.randint(1, 100)\nreturn 'Guess 1-100.', {}", WIN + feedback,
                  extra="def _note(self, guess):\n    self.note = 'Higher' if guess < self.answer else 'Lower'\n")
    report = analyse(source)
    assert report.analysed and report.reaches is reaches, source


def test_tool_outputs_are_what_a_tool_use_agent_sees():
    source = textwrap.dedent("""
        class VaultToolsEnv(ToolUseBaseEnv):
            def reset(self, seed=None):
                import random
                rng = random.Random(seed)
                self._state = {"code": rng.randint(1000, 9999), "decoy": rng.randint(1, 9)}
                self._expected_answer = str(self._state["code"])
                self._tools = {"read_note": {"description": "read the note", "parameters": {}}}
                return "Find the vault code.", {}

            def tool_read_note(self):
                return f"The note says {self.NOTE}"

            def solution(self):
                return '<tool_call>{"name": "read_note", "arguments": {}}</tool_call>\\n<answer>' + \\
                    self._expected_answer + '</answer>'
    """)
    hidden = analyse(source.replace("self.NOTE", "self._state['decoy'] * 0 + 7"), tool_use=True)
    shown = analyse(source.replace("self.NOTE", "self._state['code']"), tool_use=True)
    # the state dict is one place to the analysis: the decoy and the code merge (it errs towards reaching)
    assert shown.reaches and hidden.reaches
    apart = source.replace('self._state = {"code": rng.randint(1000, 9999), "decoy": rng.randint(1, 9)}',
                           'self._state = {}\n        self.code = rng.randint(1000, 9999)\n'
                           '        self.decoy = rng.randint(1, 9)').replace('str(self._state["code"])', 'str(self.code)')
    assert not analyse(apart.replace("self.NOTE", "self.decoy"), tool_use=True).reaches
    assert analyse(apart.replace("self.NOTE", "self.code"), tool_use=True).reaches


def test_a_tool_use_solution_names_the_task_values_it_calls_with_and_they_are_not_echoes():
    """A call script's arguments are the task's values; only the <answer> part is the answer, so
    the task screen showing those values is evidence, and showing the answer itself is an echo."""
    source = textwrap.dedent("""
        class ConvertEnv(ToolUseBaseEnv):
            def reset(self, seed=None):
                import random
                rng = random.Random(seed)
                self._value = rng.randint(3, 400)
                self._expected_answer = self._value * 3
                self._tools = {"triple": {"description": "x3", "parameters": {}}}
                return f"Triple {SHOWN}.", {}

            def solution(self):
                return (f'<tool_call>{{"name": "triple", "arguments": {{"x": {self._value}}}}}</tool_call>\\n'
                        f"<answer>{self._expected_answer}</answer>")
    """)
    assert analyse(source.replace("SHOWN", "self._value"), tool_use=True).reaches
    assert not analyse(source.replace("SHOWN", "self._expected_answer"), tool_use=True).reaches


def test_programs_the_analysis_cannot_follow_are_reported_not_guessed():
    assert not analyse("def broken(:\n").analysed
    deep = game("self.answer = rng.randint(1, 9)\nx = " + "(" * 400 + "1" + ")" * 400 + "\nreturn 'Guess.', {}",
                WIN + "return 'No.', 0.0, False, False, {}")
    report = analyse(deep)
    assert report.analysed or report.reason  # parsed deep nesting is either followed or said so
    assert not analyse("x = 1\n").analysed  # no environment class


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: st.tuples(
    st.just(k), st.sets(st.integers(0, k - 1), min_size=0, max_size=k),
    st.sets(st.integers(0, k - 1), min_size=1, max_size=k))))
def test_the_answer_reaches_the_screen_exactly_when_a_draw_it_uses_is_shown(case):
    draws, shown, used = case
    lines = [f"self.d{i} = rng.randint(1, 50)" for i in range(draws)]
    screen = " ".join(f"{{self.d{i}}}" for i in sorted(shown)) or "nothing"
    lines += [f"self.answer = {' + '.join(f'self.d{i}' for i in sorted(used))}", f"return f'Numbers: {screen}', {{}}"]
    report = analyse(game("\n".join(lines), WIN + "return 'No.', 0.0, False, False, {}"))
    assert report.analysed and report.reaches == bool(shown & used)
    assert len(report.answer_sources) == len(used)


# ----------------------------------------------------------------------------- the programs


def test_a_lottery_with_a_ticket_on_its_screen_is_rejected_with_the_line_that_hides_the_answer():
    report = validate_source(program("informative_lottery"), config=INFORMATIVE)
    assert [c.name for c in report.failures] == ["informative"], report.summary()
    message = report.check("informative").message
    for fragment in ("nothing the agent sees predicts the answer", "the first observation differs between seeds",
                     "only in what the answer does not depend on", "legal moves that won other seeds",
                     "line 16: `self.winning = rng.randint(1, 100)`", "the agent can only guess",
                     "Derive the answer from what the screen shows"):
        assert fragment in message, message
    details = report.check("informative").details
    assert details["evidence"] is None and details["readers"]["p_value"] >= INFORMATIVE.informative_alpha


def test_the_lottery_whose_ticket_decides_the_answer_passes_on_its_information_flow():
    report = validate_source(program("informative_lottery_sound"), config=INFORMATIVE)
    assert report.valid, report.summary()
    assert report.check("informative").details["evidence"] == "information flow"


def test_decorated_replies_are_not_feedback():
    """Every reply names the seed's ticket, so replies differ between seeds; every seed answers every
    legal move alike all the same."""
    report = validate_source(program("informative_lottery_echo"), config=INFORMATIVE)
    assert [c.name for c in report.failures] == ["informative"], report.summary()
    feedback = report.check("informative").details["feedback"]
    assert feedback["pairs"] > 0 and feedback["differing_pairs"] == 0 and feedback["legal_moves"] >= 4


@pytest.mark.parametrize("name, evidence", [("informative_codebreak", ("information flow", "feedback")),
                                            ("informative_marks", ("feedback",))])
def test_code_breaking_games_with_one_opening_screen_are_judged_on_their_feedback(name, evidence):
    # no zoo script that reads the screen: what decides is the program's flow or its feedback
    config = INFORMATIVE.replace(shortcut_baselines=("prior", "blind_script"))
    report = validate_source(program(name), config=config)
    assert report.valid, report.summary()
    details = report.check("informative").details
    assert details["evidence"] in evidence
    if details["evidence"] == "feedback":
        assert details["feedback"]["differing_pairs"] > 0 and details["feedback"]["legal_moves"] >= 4


def test_a_script_that_reads_the_feedback_is_evidence_against_chance():
    """Halving 1-100 on higher/lower replies wins far more seeds than guessing other seeds' answers."""
    source = game("self.answer = rng.randint(1, 100)\nreturn 'Guess a number from 1 to 100.', {}",
                  WIN + "if self.turns >= self.max_turns:\n    return 'Out.', 0.0, True, False, {}\n"
                        "return ('Higher' if guess < self.answer else 'Lower'), 0.0, False, False, {}")
    report = validate_source(source.replace("max_turns=4", "max_turns=10"),
                             config=INFORMATIVE.replace(checks=("static", "load", "informative"), shortcut_seeds=16,
                                                        shortcut_baselines=("prior", "bisection")))
    details = report.check("informative").details
    assert report.check("informative").passed and details["evidence"] == "reader", report.summary()
    assert details["readers"]["baseline"] == "bisection" and details["readers"]["ahead"] >= 7


@pytest.mark.parametrize("name, valid", [("informative_lottery", False), ("informative_lottery_sound", True),
                                         ("informative_codebreak", True), ("informative_marks", True)])
def test_the_informative_verdicts_hold_on_fresh_seeds(name, valid):
    """Two more fresh-seed runs each (every run of these tests draws fresh seeds; 20-run measurements are
    in the report of this change). The informative check's verdict is the subject: informative_marks is
    also rejected by the shortcut check's ``marks`` search on every run (test_validation_code_search.py)."""
    source = program(name)
    verdicts = [validate_source(source, config=INFORMATIVE).check("informative").passed for _ in range(2)]
    assert verdicts == [valid] * 2
