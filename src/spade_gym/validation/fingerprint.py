"""Program fingerprints: is this program a copy of one already in the suite?

A suite should not fill up with the same game under new names. Two measures, both
computed from the AST so that formatting, comments and naming never matter:

Both are taken of the code the host can reach: module-level functions, classes and
methods nothing reachable names are dropped first (padding is not novelty).

* the **exact fingerprint** hashes the normalized tree: docstrings removed, every
  identifier (names, arguments, functions, classes, attributes, keywords) replaced by
  its order of first occurrence, string literal contents blanked (f-strings keep only
  their placeholders). A copy with
  renamed identifiers and reworded text has the same fingerprint.
* the **structural similarity** compares multisets of node-type n-grams (pre-order,
  with operators and constant kinds, without names or values) by weighted Jaccard.
  It catches copies with a few statements added, removed or edited, where the exact
  fingerprint already differs.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
import threading
from collections import Counter
from dataclasses import dataclass

from spade_gym import syntax

#: The host's one AST lock (see :mod:`spade_gym.syntax`), also held while a tree is normalised.
AST_LOCK = syntax.AST_LOCK

#: Length of the node-type n-grams the similarity compares.
NGRAM = 4


@dataclass(frozen=True)
class Fingerprint:
    """The two views of one program used by the novelty check."""

    exact: str
    #: n-gram -> count, each n-gram as its id in this process (:func:`_gram_id`): comparing a
    #: program with a suite intersects int keys, not tuples of tokens hashed afresh each time.
    grams: Counter
    size: int  # total number of n-grams (sum of ``grams``)


_GRAM_IDS: dict[tuple[str, ...], int] = {}


def _gram_id(gram: tuple[str, ...]) -> int:
    """The id of ``gram`` in this process (one per distinct n-gram; callers hold ``AST_LOCK``)."""
    found = _GRAM_IDS.get(gram)
    if found is None:
        found = _GRAM_IDS[gram] = len(_GRAM_IDS)
    return found


class _Normalizer(ast.NodeTransformer):
    """Renames identifiers by first occurrence and blanks strings (in place)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def canon(self, name: str) -> str:
        if name not in self.names:
            self.names[name] = f"v{len(self.names)}"
        return self.names[name]

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.canon(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.canon(node.arg)
        node.annotation = None
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self.canon(node.attr)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        self.generic_visit(node)
        node.arg = self.canon(node.arg) if node.arg is not None else None
        return node

    def _named(self, node):
        node.name = self.canon(node.name)
        self.generic_visit(node)
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _named

    def visit_alias(self, node: ast.alias) -> ast.AST:
        # Module names stay (they are part of what the program does); local aliases are canonical.
        node.asname = self.canon(node.asname) if node.asname else None
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        # f-string text between placeholders is string content too: keep only the placeholders.
        node.values = [v for v in node.values if not isinstance(v, ast.Constant)]
        self.generic_visit(node)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str):
            node.value = ""
        elif isinstance(node.value, bytes):
            node.value = b""
        return node


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]


#: Methods the host (or the tool-use base class) calls by name: always reachable.
_ENTRY_METHODS = frozenset({"__init__", "reset", "step", "solution", "hint", "close", "render"})
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _used_names(nodes) -> tuple[set[str], set[str]]:
    """(names, attributes) a piece of code can reach: the names it reads, plus strings that
    are exactly an identifier (``getattr(self, "helper")``); and the attributes it reads
    (``self.helper``), plus those strings. Words inside prose do not count: a dead helper
    named after a word on the screen must not come alive."""
    names: set[str] = set()
    attributes: set[str] = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                attributes.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _IDENTIFIER.fullmatch(node.value):
                names.add(node.value)
                attributes.add(node.value)
    return names, attributes


def _always_live(name: str) -> bool:
    return (name in _ENTRY_METHODS or name.startswith("tool_")
            or (name.startswith("__") and name.endswith("__")))


def _strip_dead_code(tree: ast.Module) -> None:
    """Drop module-level functions and classes, and methods, that nothing reachable uses.

    Padding a known program with dead helpers (or dead methods) changes its n-grams but not
    what it does; what the host can reach — the environment classes, module-level statements,
    the methods it calls — and everything they name, transitively, is what is compared.
    Bodies of reachable functions are kept whole.
    """
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    top = [node for node in tree.body if isinstance(node, defs)]
    live: list[ast.AST] = [node for node in tree.body if not isinstance(node, defs)]
    live += [node for node in top if isinstance(node, ast.ClassDef) and node.name.endswith("Env")]
    live_ids = {id(node) for node in live}
    live_methods: set[int] = set()
    while True:
        names, attributes = _used_names(_live_parts(live, live_methods))
        grown = False
        for node in top:  # a module-level def is reached by its name
            if id(node) not in live_ids and node.name in names:
                live.append(node)
                live_ids.add(id(node))
                grown = True
        for part in live:
            if isinstance(part, ast.ClassDef):
                for item in part.body:
                    if (isinstance(item, defs[:2]) and id(item) not in live_methods
                            and (_always_live(item.name) or item.name in attributes or item.name in names)):
                        live_methods.add(id(item))
                        grown = True
        if not grown:
            break
    tree.body = [node for node in tree.body if not isinstance(node, defs) or id(node) in live_ids]
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            stmt.body = [item for item in stmt.body
                         if not isinstance(item, defs[:2]) or id(item) in live_methods] or [ast.Pass()]


def _live_parts(live: list[ast.AST], live_methods: set[int]):
    """The code of the live nodes: a class contributes its bases, decorators, class-level
    statements and live methods, not its other methods."""
    for node in live:
        if isinstance(node, ast.ClassDef):
            yield from node.bases
            yield from node.keywords
            yield from node.decorator_list
            for item in node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) or id(item) in live_methods:
                    yield item
        else:
            yield node


def _token(node: ast.AST) -> str:
    name = type(node).__name__
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.AugAssign)):
        return f"{name}:{type(node.op).__name__}"
    if isinstance(node, ast.Compare):
        return f"{name}:{','.join(type(op).__name__ for op in node.ops)}"
    if isinstance(node, ast.Constant):
        return f"{name}:{type(node.value).__name__}"
    return name


def _preorder(node: ast.AST, out: list[str]) -> None:
    # Iterative: generated programs can nest deeply enough to exhaust Python's recursion limit.
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)):
            continue
        out.append(_token(current))
        stack.extend(reversed(list(ast.iter_child_nodes(current))))


@functools.lru_cache(maxsize=4096)
def fingerprint(source: str) -> Fingerprint:
    """The fingerprint of a program; raises ``SyntaxError``/``ValueError`` if it does not parse."""
    with AST_LOCK:
        tree = syntax.parse(source)
        _strip_dead_code(tree)
        _strip_docstrings(tree)
        tree = _Normalizer().visit(tree)
        exact = hashlib.sha256(ast.dump(tree, annotate_fields=False).encode("utf-8")).hexdigest()
        tokens: list[str] = []
        _preorder(tree, tokens)
        grams = Counter(_gram_id(tuple(tokens[i:i + NGRAM])) for i in range(max(1, len(tokens) - NGRAM + 1)))
    return Fingerprint(exact=exact, grams=grams, size=sum(grams.values()))


def similarity(a: Fingerprint, b: Fingerprint) -> float:
    """Weighted Jaccard of the two n-gram multisets: 1.0 for structurally identical programs."""
    if a.exact == b.exact:
        return 1.0
    if not a.size or not b.size:
        return 0.0
    # only the n-grams both hold count (the key intersection runs in C; most grams are not shared)
    shared = sum(min(a.grams[gram], b.grams[gram]) for gram in a.grams.keys() & b.grams.keys())
    return shared / (a.size + b.size - shared)


@dataclass(frozen=True)
class Match:
    """The closest existing program: its id, similarity, and whether the fingerprints are equal."""

    env_id: str
    similarity: float
    exact: bool


_suite_cache: dict[str, Fingerprint] = {}
_suite_lock = threading.Lock()


def entry_fingerprint(entry) -> Fingerprint:
    """Fingerprint of a suite entry, cached by the checksum on its card (files are only read once).

    Raises when the entry cannot be read or parsed: the caller reports it (an entry nobody
    can compare with is a hole in the novelty check, not something to drop silently).
    """
    key = entry.card.sha256
    with _suite_lock:
        cached = _suite_cache.get(key)
    if cached is not None:
        return cached
    result = fingerprint(entry.read_source())
    with _suite_lock:
        _suite_cache[key] = result
    return result


def nearest(source: str, entries, *, exclude_sha256: str | None = None,
            skipped: list[tuple[str, str]] | None = None) -> Match | None:
    """The most similar program among suite ``entries`` (``SuiteEntry`` objects), or None.

    ``exclude_sha256`` skips the entry holding exactly this program (re-importing a
    program already in the suite is idempotent, not a duplicate). Entries that cannot be
    fingerprinted are appended to ``skipped`` as (id, reason).
    """
    mine = fingerprint(source)
    best: Match | None = None
    for entry in entries:
        if exclude_sha256 is not None and entry.card.sha256 == exclude_sha256:
            continue
        try:
            other = entry_fingerprint(entry)
        except Exception as exc:  # noqa: BLE001 - reported to the caller, never dropped silently
            if skipped is not None:
                skipped.append((entry.id, f"{type(exc).__name__}: {exc}"[:200]))
            continue
        if other.exact == mine.exact:
            return Match(entry.id, 1.0, True)
        # Weighted Jaccard never exceeds the ratio of the sizes: skip clearly different programs.
        bound = min(mine.size, other.size) / max(mine.size, other.size, 1)
        if best is not None and bound <= best.similarity:
            continue
        score = similarity(mine, other)
        if best is None or score > best.similarity:
            best = Match(entry.id, score, False)
    return best
