"""parse_designer_output: recovers program and hint from messy text, or names what is missing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from spade_gym.errors import DesignerOutputError
from spade_gym.generate.designer_output import DesignerOutput, parse_designer_output

# Plain text that cannot be mistaken for structure: no backticks, tags or newlines, and
# it starts with a letter that does not begin "import"/"class"/"from".
_PLAIN = st.text(
    alphabet=st.characters(blacklist_characters="`<>\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029",
                           blacklist_categories=("Cs",)),
    max_size=40,
)
prose = st.builds(lambda s: "Note: " + s, _PLAIN)
hints = _PLAIN.filter(lambda s: s.strip())
class_names = st.from_regex(r"[A-Z][A-Za-z0-9]{0,10}", fullmatch=True).map(lambda s: s + "Env")
string_literals = st.text(
    alphabet=st.characters(blacklist_characters="`<>\\'\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029",
                           blacklist_categories=("Cs",)),
    max_size=20,
)


@st.composite
def programs(draw, think_in_code: bool | None = None) -> str:
    """A small environment program; optionally one that mentions </think> in its code."""
    name = draw(class_names)
    helper = draw(st.booleans())
    lines = ["import random", "import re", ""]
    if helper:
        lines += ["class Board:", "    size = 3", ""]
    lines += [f"class {name}:", "    def __init__(self, max_turns=10, **kwargs):",
              "        self.max_turns = max_turns", ""]
    lines += ["    def reset(self, seed=None):",
              f"        return '{draw(string_literals)}', {{}}", ""]
    if think_in_code if think_in_code is not None else draw(st.booleans()):
        lines += ["    def strip(self, action):", "        return action.split('</think>')[-1]", ""]
    lines += ["    def step(self, action):",
              "        return 'obs', 0.0, False, False, {}", "",
              "    def solution(self):",
              f"        return '{draw(string_literals)}'"]
    return "\n".join(lines) + "\n"


@st.composite
def completions(draw):
    """A completion wrapping a known program and hint in the mess models produce."""
    program = draw(programs())
    hint = draw(st.none() | hints)
    mode = draw(st.sampled_from(["fenced", "unclosed", "unfenced"]))
    parts: list[str] = []
    if draw(st.booleans()):  # thinking, possibly with drafts, discarded
        draft = draw(programs())
        parts.append(draw(prose) + "\n```python\n" + draft + "```\n<hint>draft</hint>\n"
                     + draw(prose) + "</think>\n")
    parts.append(draw(prose) + "\n")
    if mode == "unfenced":
        parts.append(program)
    else:
        if draw(st.booleans()):  # an earlier version, superseded by the final block
            parts.append("```python\n" + draw(programs()) + "```\n" + draw(prose) + "\n")
        if draw(st.booleans()):  # a block in another language that defines a class too
            parts.append("```text\nclass DecoyEnv:\n    pass\n```\n")
        labels = ["python", "py", "Python", "python3", "", "python title=env.py"]
        label = draw(st.sampled_from(labels))
        parts.append(f"```{label}\n{program}")
        if mode == "fenced":
            parts.append("```\n" + draw(prose) + "\n")
            if draw(st.booleans()):  # a usage example after the program
                parts.append("```python\nenv = Thing()\nprint(env)\n```\n")
    if hint is not None:
        parts.append(f"<hint>{hint}</hint>")
        if mode != "unclosed":
            parts.append("\n" + draw(prose))
    text = "".join(parts)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text, program, hint


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(completions())
def test_recovers_program_and_hint(case):
    text, program, hint = case
    parsed = parse_designer_output(text)
    assert parsed.code == program
    if hint is None:
        assert parsed.hint is None
        assert "no <hint>...</hint> section found" in parsed.notes
    else:
        assert parsed.hint == hint.strip()


_FRAGMENTS = st.sampled_from([
    "```", "```python\n", "```py title=x\n", "\n```\n", "</think>", "<think>", "<hint>", "</hint>",
    "class AEnv:\n", "class Env:", "import os\n", "from x import y\n", "\n", "\r\n", "\r", " ",
    "    pass\n", "'</think>'",
])
messy = st.lists(_FRAGMENTS | st.text(max_size=12), max_size=30).map("".join)


@settings(max_examples=500)
@given(st.text() | messy)
@example("import <HINT>\nclass Env")  # a fresh draw found it: the program was cut at the hint, before its class
def test_arbitrary_text_parses_or_raises_designer_output_error(text):
    try:
        parsed = parse_designer_output(text)
    except DesignerOutputError as exc:
        assert "Env" in str(exc)
        return
    assert isinstance(parsed, DesignerOutput)
    assert parsed.code.endswith("\n") and "class " in parsed.code
    assert parsed.hint is None or (parsed.hint == parsed.hint.strip() and parsed.hint
                                   and "</hint>" not in parsed.hint.lower())


@given(prose, st.booleans())
def test_text_without_an_env_class_names_what_is_missing(text, with_block):
    if with_block:
        text += "\n```python\ndef helper():\n    return 1\n```\n<hint>h</hint>"
        expected = "no class whose name ends in 'Env'"
    else:
        expected = "no program found"
    with pytest.raises(DesignerOutputError, match=expected):
        parse_designer_output(text)


@pytest.mark.parametrize("value", [None, b"class AEnv: pass", 42])
def test_non_text_is_rejected(value):
    with pytest.raises(DesignerOutputError, match="must be text"):
        parse_designer_output(value)


# --------------------------------------------------------------------------- regressions

PROGRAM = (
    "import random\n\nclass FooEnv:\n    def reset(self, seed=None):\n        return 'x', {}\n"
)


@pytest.mark.parametrize("text", [
    # CRLF line endings: the fence was not recognised and leaked into the code
    ("```python\n" + PROGRAM + "```\n<hint>use parity</hint>\n").replace("\n", "\r\n"),
    # a block never closed swallowed the hint that followed it
    "```python\n" + PROGRAM + "<hint>use parity</hint>\n",
    # attributes after the language word made the closing fence look like an opening one
    "```python title=env.py\n" + PROGRAM + "```\n<hint>use parity</hint>\n",
    # an empty block ran on into the next block
    "```python\n```\nNow for real:\n```python\n" + PROGRAM + "```\n<hint>use parity</hint>\n",
])
def test_fixed_fence_handling(text):
    parsed = parse_designer_output(text)
    assert parsed.code == PROGRAM and parsed.hint == "use parity"


THINKING_PROGRAM = (
    "class StripEnv:\n    def step(self, action):\n"
    "        action = action.split('</think>')[-1]\n        return action, 0.0, False, False, {}\n"
)


@pytest.mark.parametrize("thinking", ["", "Plan: strip the reasoning.</think>\n"])
def test_think_tag_inside_the_program_is_not_the_end_of_thinking(thinking):
    text = thinking + "```python\n" + THINKING_PROGRAM + "```\n<hint>look after the tag</hint>"
    parsed = parse_designer_output(text)
    assert parsed.code == THINKING_PROGRAM and parsed.hint == "look after the tag"
    assert any("</think>" in note for note in parsed.notes)


def test_draft_in_thinking_is_not_used_when_the_answer_has_no_program():
    text = "```python\n" + PROGRAM + "```\n</think>\nSorry, I could not finish."
    with pytest.raises(DesignerOutputError, match="no program found"):
        parse_designer_output(text)


def test_notes_report_revisions_and_missing_parts():
    text = "```python\n" + PROGRAM + "```\n```python\n" + PROGRAM + "```"
    parsed = parse_designer_output(text)
    assert "2 code blocks define an *Env class; used the last one" in parsed.notes
    assert "no <hint>...</hint> section found" in parsed.notes
    parsed = parse_designer_output("Here:\n" + PROGRAM + "<hint>h</hint>")
    assert parsed.code == PROGRAM and parsed.hint == "h"
    assert "no code fence; took the program from the first import/class line" in parsed.notes
