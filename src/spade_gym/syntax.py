"""One lock for every conversion between program text and Python AST objects on the host.

CPython 3.11 keeps the AST converters' recursion-depth bookkeeping in interpreter-wide
state, so two threads parsing (or compiling a tree) at the same moment can fail with
``SystemError: AST constructor recursion depth mismatch``. Validation runs programs in
parallel threads, so every ``ast.parse`` and every ``compile`` of a tree goes through here.
"""

from __future__ import annotations

import ast
import threading
from types import CodeType

AST_LOCK = threading.RLock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``source`` as a module's syntax tree (programs are modules: there is no other mode)."""
    with AST_LOCK:
        return ast.parse(source, filename, "exec")


def compile_tree(tree: ast.Module, filename: str) -> CodeType:
    with AST_LOCK:
        return compile(tree, filename, "exec", dont_inherit=True)
