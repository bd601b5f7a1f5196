"""How validation messages are written: for the designer model that must repair the program.

Which seed, which turn, which action, what came back, the program line and its own
traceback; one entry per distinct problem, the rest counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from spade_gym.errors import SandboxError

#: Distinct problems listed per check before the rest are counted.
MAX_LISTED = 3
#: Traceback lines (program frames) quoted per error.
TRACEBACK_LINES = 6


def excerpt(text: Any, limit: int = 80) -> str:
    """A short quoted rendering of a value for messages (long text is cut and its length given)."""
    if not isinstance(text, str):
        text = repr(text)
        return text if len(text) <= limit else text[:limit] + "…"
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"… ({len(text)} characters)"


def describe_error(error: dict | SandboxError) -> str:
    """An error the sandbox reported: its message, then the program's own traceback excerpt."""
    if isinstance(error, SandboxError):
        # The host folds the program's output into ``details`` after its traceback.
        trace_text, _, output_text = (error.details or "").partition("\nProgram output (tail):\n")
        error = {"kind": error.kind, "message": error.message, "lineno": error.lineno, "traceback": trace_text,
                 "output": output_text or None}
    message = str(error.get("message") or "unknown error").strip()
    lines = [message]
    trace = error.get("traceback")
    if trace:
        frames = [line.rstrip() for line in str(trace).splitlines() if line.startswith("  ")][-TRACEBACK_LINES:]
        if frames:
            lines.append("Traceback (program frames, innermost last):")
            lines.extend(frames)
    output = error.get("output")
    if output:
        lines.append(f"Program output before the error (tail): {excerpt(str(output)[-300:], 300)}")
    return "\n".join(lines)


@dataclass
class Problem:
    """One thing wrong, found at one place; problems with the same ``key`` are reported once."""

    key: str
    where: str
    text: str


def format_problems(headline: str, problems: list[Problem], total_label: str = "") -> str:
    """``headline`` then one entry per distinct problem (grouped by key), at most :data:`MAX_LISTED`."""
    groups: dict[str, list[Problem]] = {}
    for problem in problems:
        groups.setdefault(problem.key, []).append(problem)
    lines = [headline]
    for members in list(groups.values())[:MAX_LISTED]:
        first = members[0]
        text_lines = first.text.splitlines() or [""]
        also = f" (and {len(members) - 1} more {total_label or 'case(s)'} like it)" if len(members) > 1 else ""
        lines.append(f"- {first.where}: {text_lines[0]}{also}")
        lines.extend(f"  {line}" for line in text_lines[1:])
    if len(groups) > MAX_LISTED:
        lines.append(f"- ... and {len(groups) - MAX_LISTED} more distinct problem(s)")
    return "\n".join(lines)


def boundary_pattern(text: str) -> re.Pattern:
    return re.compile(r"(?<![0-9A-Za-z])" + re.escape(text) + r"(?![0-9A-Za-z])", re.IGNORECASE)
