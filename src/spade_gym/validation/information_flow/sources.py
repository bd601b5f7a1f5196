"""What the information-flow analysis reads off a program: its sources, the kinds of flow, its
functions and names (see :mod:`spade_gym.validation.information_flow`)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Methods (of any object) and functions whose result is a fresh random choice.
DRAWS = frozenset({
    "random", "randint", "randrange", "choice", "choices", "sample", "shuffle", "uniform", "triangular", "gauss",
    "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate",
    "paretovariate", "weibullvariate", "getrandbits", "randbytes", "binomialvariate",
    # numpy generators
    "integers", "permutation", "permuted", "rand", "randn", "random_sample", "normal", "poisson", "binomial",
    "standard_normal", "exponential",
})
#: Draws that shuffle their first argument in place.
IN_PLACE_DRAWS = frozenset({"shuffle"})
#: Comparison operators whose only news for the agent is "equal or not".
EQUALITY_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
#: Calls that turn a value into its text unchanged (an echo of the answer stays an echo).
TEXT_CALLS = frozenset({"str", "repr", "format", "int", "float", "strip", "lower", "upper", "title", "capitalize",
                        "casefold", "join"})
#: Fixpoint rounds before giving up (each round walks every function once; real programs need < 10).
MAX_ROUNDS = 40

V, CTL, EQ, ECHO = "value", "control", "eq", "echo"
DRAW, SEED, ACTION = "draw", "seed", "action"

Label = tuple[str, int, int]          # (source kind, line, column)
Flow = tuple[Label, str]              # (source, how it flowed: V, CTL, EQ or ECHO)
SEED_LABEL: Label = (SEED, 0, 0)
ACTION_LABEL: Label = (ACTION, 0, 0)


@dataclass(frozen=True)
class FlowReport:
    """What the analysis found. ``analysed`` is False when it could not follow the program."""

    analysed: bool
    #: Random choices (and the seed) the answer depends on, as (kind, line, column).
    answer_sources: frozenset[Label] = frozenset()
    #: Those of them that reach what the agent sees before the episode ends.
    shown_sources: frozenset[Label] = frozenset()
    reason: str = ""

    @property
    def reaches(self) -> bool:
        """The answer depends on a random choice (or the seed) that the agent sees (the vacuous
        case, an answer that depends on none, counts as reaching: nothing is hidden)."""
        return bool(self.shown_sources) or not self.answer_sources

    @property
    def hidden_lines(self) -> list[int]:
        return sorted({line for kind, line, _ in self.answer_sources - self.shown_sources if kind == DRAW})


@dataclass
class Function:
    qual: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    cls: str | None
    enclosing: Function | None
    locals: set[str] = field(default_factory=set)
    globals: set[str] = field(default_factory=set)

    @property
    def params(self) -> list[str]:
        args = self.node.args
        return [a.arg for a in args.posonlyargs + args.args]

    @property
    def is_method(self) -> bool:
        return self.cls is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in getattr(self.node, "decorator_list", []))


class NotAnalysed(Exception):
    """The analysis cannot follow this program (the report says why)."""


def base_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def union(parts: Iterable[int]) -> int:
    out = 0
    for part in parts:
        out |= part
    return out


def local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters and names bound in ``fn`` (not in functions nested in it)."""
    args = fn.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            lambda_args = node.args
            names |= {a.arg for a in lambda_args.posonlyargs + lambda_args.args + lambda_args.kwonlyargs}
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        stack.extend(ast.iter_child_nodes(node))
    return names


def exits(body: list[ast.stmt]) -> bool:
    """Whether a branch can leave the enclosing block (so what follows depends on its test)."""
    return any(isinstance(n, (ast.Return, ast.Raise, ast.Break, ast.Continue))
               for stmt in body for n in ast.walk(stmt) if not isinstance(n, (ast.FunctionDef, ast.Lambda)))


def is_text(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str")


def text_parts(node: ast.expr) -> list[ast.expr]:
    """``node`` with text conversions peeled off (``str(x)``, ``x.strip()``, ``", ".join(x)``,
    ``f"{x}"``): the values whose text it is."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in TEXT_CALLS and node.args:
            return text_parts(node.args[0])
        if isinstance(func, ast.Attribute) and func.attr in TEXT_CALLS:
            if func.attr == "join" and node.args:
                return text_parts(node.args[0])
            return text_parts(func.value)
    if isinstance(node, ast.JoinedStr):
        return [p for v in node.values if isinstance(v, ast.FormattedValue) for p in text_parts(v.value)]
    return [node]


