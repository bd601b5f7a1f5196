"""Compile a program under spade-gym's language rules (:mod:`spade_gym.sandbox.language.rules`): size and
syntax limits, every violation reported with its line, then the code object a worker runs.

Compiling is pure AST work (no program code runs), but it still happens inside the
worker process, so a pathological source can only take the worker down.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from spade_gym import syntax
from spade_gym.errors import PolicyViolation
from spade_gym.sandbox.language.rules import SpadeRules

#: The filename compiled programs carry; tracebacks use it to keep program frames only.
PROGRAM_FILENAME = "<spade-program>"
#: Largest source accepted (characters). Generated environments are a few hundred lines.
MAX_SOURCE_CHARS = 200_000

@dataclass
class CompiledProgram:
    """A program that passed the language rules, ready to ``exec`` inside a worker."""

    code: object  # types.CodeType
    source: str
    sha256: str
    warnings: list[str] = field(default_factory=list)



def source_sha256(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def compile_program(source: str) -> CompiledProgram:
    """Compile ``source`` under the spade-gym language rules.

    Raises :class:`PolicyViolation` listing every violation (``Line N: ...``) with
    ``lineno`` set to the first one. Syntax errors are policy violations too: either
    way the program cannot run, and the message says where.
    """
    if not isinstance(source, str):
        raise PolicyViolation(f"program source must be str, got {type(source).__name__}")
    if len(source) > MAX_SOURCE_CHARS:
        raise PolicyViolation(f"program is {len(source)} characters long; the limit is {MAX_SOURCE_CHARS}")
    if "\x00" in source:
        raise PolicyViolation("program source contains a NUL character")
    try:
        tree = syntax.parse(source, PROGRAM_FILENAME)
    except SyntaxError as exc:
        text = (exc.text or "").strip()
        where = f" at: {text!r}" if text else ""
        raise PolicyViolation(f"Line {exc.lineno}: SyntaxError: {exc.msg}{where}", lineno=exc.lineno) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise PolicyViolation(f"program could not be parsed: {type(exc).__name__}: {exc}") from None
    errors: list[str] = []
    warnings: list[str] = []
    rules = SpadeRules(errors, warnings, {})
    try:
        rules.visit(tree)
    except RecursionError:
        raise PolicyViolation("program is nested too deeply to analyse") from None
    for node, name in rules.forbidden_calls:
        if name not in rules.bound_names:
            rules.error(node, f"{name}() is not available in SPADE programs (no eval/exec/file/console access).")
    if errors:
        first = _first_line(errors)
        raise PolicyViolation("\n".join(sorted(set(errors), key=_line_key)), lineno=first)
    try:
        code = syntax.compile_tree(tree, PROGRAM_FILENAME)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        lineno = getattr(exc, "lineno", None)
        raise PolicyViolation(f"Line {lineno}: {type(exc).__name__}: {exc}", lineno=lineno) from None
    return CompiledProgram(code=code, source=source, sha256=source_sha256(source), warnings=warnings)


def _line_key(message: str) -> int:
    try:
        return int(message.split(":", 1)[0].removeprefix("Line ").strip())
    except ValueError:
        return 0


def _first_line(errors: list[str]) -> int | None:
    lines = [_line_key(e) for e in errors]
    lines = [n for n in lines if n]
    return min(lines) if lines else None
