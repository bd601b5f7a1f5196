"""Reading a designer's completion: the program and its ``<hint>``, out of messy model text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from spade_gym.errors import DesignerOutputError


@dataclass(frozen=True)
class DesignerOutput:
    """A designer completion split into its parts."""

    code: str
    hint: str | None
    #: Non-fatal remarks about the parse (several code blocks, missing hint, ...).
    notes: tuple[str, ...] = ()


_THINK_END = re.compile(r"</think>", re.IGNORECASE)
#: A fenced block. The opening fence may carry a language word and attributes
#: (```python title=env.py); the closing fence is ``` at the start of a line, so an empty
#: block (```python + ```) closes at once. A block nobody closed runs to the end (group 3 is None).
_FENCE = re.compile(
    r"```[ \t]*(?:([A-Za-z][\w+.-]*)(?:[ \t][^\n`]*)?)?\n(.*?)(?:(^[ \t]*```)|\Z)",
    re.DOTALL | re.MULTILINE,
)
_HINT = re.compile(r"<hint>(.*?)(?:</hint>|\Z)", re.DOTALL | re.IGNORECASE)
_HINT_OPEN = re.compile(r"<hint>", re.IGNORECASE)
_HINT_LINE = re.compile(r"^[ \t]*<hint>", re.MULTILINE | re.IGNORECASE)
_CLASS_ENV = re.compile(r"^class\s+\w*Env\b", re.MULTILINE)
_CODE_LANGUAGES = ("python", "py", "python3", "")
#: How many ``</think>`` cut points are tried before giving up (bounds the work on garbage).
_MAX_THINK_CUTS = 16


def parse_designer_output(text: str) -> DesignerOutput:
    """Extract the program and the ``<hint>`` from a designer completion.

    Tolerant by design: models wrap answers in thinking text, emit several code
    blocks, forget the fence or the closing tag. The rules, in order:

    * line endings are normalised to ``\\n`` (a CRLF fence would otherwise not be seen);
    * everything up to the last ``</think>`` is discarded, unless that ``</think>`` is
      code (a string literal in the program): then the thinking ends at the latest
      earlier ``</think>`` after which every later one lies inside a code block, or
      there was no thinking at all;
    * the program is the fenced block (``python`` or unlabelled) that defines an
      ``*Env`` class — the last such block if there are several, since models revise;
      a block that is never closed ends at a line starting with ``<hint>``;
      without any fence, the text from the first ``import``/``class`` line is used;
    * the hint is the content of the last ``<hint>...</hint>`` outside code blocks.

    Raises :class:`DesignerOutputError` naming exactly what was missing.
    """
    if not isinstance(text, str):
        raise DesignerOutputError(f"designer output must be text, got {type(text).__name__}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    ends = [m.end() for m in _THINK_END.finditer(text)]
    # Cut points to try: the last </think> first, 0 (no thinking) last.
    cuts = ends[::-1][:_MAX_THINK_CUTS] + [0]
    first_error: DesignerOutputError | None = None
    for cut in cuts:
        try:
            output, code_spans = _parse_answer(text[cut:])
        except DesignerOutputError as exc:
            first_error = first_error or exc
            continue
        later = [end - cut for end in ends if end > cut]
        if all(any(lo < end <= hi for lo, hi in code_spans) for end in later):
            if later:
                note = "'</think>' occurs inside code; not treated as the end of thinking"
                output = DesignerOutput(output.code, output.hint, output.notes + (note,))
            return output
    # Reachable only after the first cut failed: it has no later </think> to check.
    assert first_error is not None
    raise first_error


def _parse_answer(text: str) -> tuple[DesignerOutput, list[tuple[int, int]]]:
    """Parse the answer part of a completion; also return the spans of all code in it."""
    notes: list[str] = []
    blocks = []  # (language, block span, content span, closed)
    for m in _FENCE.finditer(text):
        language = (m.group(1) or "").lower()
        content_start, content_end = m.span(2)
        block_end = m.end()
        closed = m.group(3) is not None
        if not closed and language in _CODE_LANGUAGES:
            hint_at = _HINT_LINE.search(text, content_start, content_end)
            if hint_at:
                content_end = block_end = hint_at.start()
        blocks.append((language, (m.start(), block_end), (content_start, content_end), closed))
    code_blocks = [b for b in blocks if b[0] in _CODE_LANGUAGES]
    env_blocks = [b for b in code_blocks if _CLASS_ENV.search(text, *b[2])]
    spans = [b[2] for b in blocks]
    outside = text
    for _, (start, end), _, _ in reversed(blocks):
        outside = outside[:start] + outside[end:]
    if env_blocks:
        _, _, span, closed = env_blocks[-1]
        if not closed:
            notes.append("the code block is not closed with ```")
        if len(env_blocks) > 1:
            notes.append(f"{len(env_blocks)} code blocks define an *Env class; used the last one")
    elif code_blocks:
        raise DesignerOutputError(
            "found a ```python block but no class whose name ends in 'Env' in it; "
            "the program must define the environment class (e.g. `class MazeEnv:`)"
        )
    else:
        start = re.search(r"^(?:from\s+\S+\s+import|import\s|class\s)", text, re.MULTILINE)
        env_class = _CLASS_ENV.search(text, start.start()) if start is not None else None
        if start is None or env_class is None:
            raise DesignerOutputError(
                "no program found: expected one ```python code block defining a class whose "
                "name ends in 'Env'"
            )
        # The program runs at least to its Env class: a <hint> before it ("import <HINT>\nclass
        # Env") is part of the (broken) program text, not where the program ends.
        hint_at = _HINT_OPEN.search(text, env_class.start())
        span = (start.start(), hint_at.start() if hint_at else len(text))
        spans.append(span)
        outside = text[: span[0]] + text[span[1]:]
        notes.append("no code fence; took the program from the first import/class line")
    hints = [h.strip() for h in _HINT.findall(outside)]
    hints = [h for h in hints if h]
    hint = hints[-1] if hints else None
    if hint is None:
        notes.append("no <hint>...</hint> section found")
    code = text[span[0]:span[1]].strip("\n") + "\n"
    return DesignerOutput(code=code, hint=hint, notes=tuple(notes)), spans
