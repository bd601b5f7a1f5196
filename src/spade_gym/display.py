"""Text that is safe to put on a terminal.

Program output, card fields, validation messages and file names are written by
whoever wrote the program or the suite. Printed raw, an ANSI escape in them can
recolour or rewrite what the terminal shows (a fake green "VALID"), move the cursor,
set the window title, or hide text behind bidirectional overrides. :func:`printable`
shows every such character as a visible escape instead, so the reader sees that it
is there and the terminal does nothing with it.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI),
# and the Unicode bidirectional embedding/override/isolate marks.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, *, newlines: bool = True) -> str:
    """``text`` with every control character shown as ``\\xNN`` (``\\uNNNN``).

    Tabs stay; newlines stay unless ``newlines=False`` (for one-line fields such as a
    table cell or an error line), and a carriage return is always escaped (it can
    overwrite what was printed before it on the line).
    """
    out = _UNSAFE.sub(_escape, str(text))
    if not newlines:
        out = out.replace("\n", "\\n")
    return out
