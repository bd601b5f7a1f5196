"""The program, the fixpoint and the statements of the information-flow analysis: where values go."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from spade_gym.validation.information_flow.sources import (
    ACTION_LABEL,
    CTL,
    DRAW,
    MAX_ROUNDS,
    SEED,
    SEED_LABEL,
    Flow,
    FlowReport,
    Function,
    NotAnalysed,
    V,
    exits,
    local_names,
    text_parts,
)
from spade_gym.validation.information_flow.values import Values


class Analysis(Values):
    """One analysis of one program (see the package docstring)."""


    def __init__(self, tree: ast.Module, env_class: str | None, tool_use: bool):
        self.tree = tree
        self.tool_use = tool_use
        self.functions: dict[str, Function] = {}
        self.by_name: dict[str, list[str]] = {}
        self.module_functions: dict[str, str] = {}
        self.classes: dict[str, ast.ClassDef] = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
        self.store: dict[tuple, int] = {}
        self.flows: list[Flow] = []
        self.index: dict[Flow, int] = {}
        self.action_mask = 0
        self.controls: dict[int, int] = {}
        self.exit_cache: dict[int, bool] = {}
        self.changed = False
        self.module = Function("<module>", ast.Lambda(args=ast.arguments([], [], None, [], [], None, []),
                                                       body=ast.Constant(None)), None, None)
        self._collect(tree.body, None, None, "")
        self.module.locals = set()  # module names are globals
        #: Names of imported modules: a call on a module (``re.search(p, action)``) changes no state.
        self.modules = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                        for a in n.names}
        self.env = self._env_class(env_class)
        self.env_methods = self._mro_methods(self.env)
        self.answer_attrs = self._answer_attrs()

    # ------------------------------------------------------------------ program structure

    def _collect(self, body: list[ast.stmt], cls: str | None, enclosing: Function | None, prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = f"{prefix}{stmt.name}@{stmt.lineno}"
                fn = Function(qual, stmt, cls, enclosing)
                fn.locals = local_names(stmt)
                fn.globals = {n for s in ast.walk(stmt) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}
                fn.locals -= fn.globals
                self.functions[qual] = fn
                self.by_name.setdefault(stmt.name, []).append(qual)
                if cls is None and enclosing is None:
                    self.module_functions[stmt.name] = qual
                self._collect(stmt.body, None, fn, qual + ".")
            elif isinstance(stmt, ast.ClassDef):
                self._collect(stmt.body, stmt.name, enclosing, f"{prefix}{stmt.name}.")

    def _env_class(self, name: str | None) -> ast.ClassDef | None:
        if name and name in self.classes:
            return self.classes[name]
        candidates = [c for c in self.classes.values() if c.name.endswith("Env")]
        return candidates[-1] if candidates else None

    def _mro_methods(self, cls: ast.ClassDef | None) -> dict[str, list[str]]:
        """Method name -> qualnames defined by the env class and its program bases."""
        out: dict[str, list[str]] = {}
        seen: set[str] = set()
        stack = [cls] if cls is not None else []
        while stack:
            node = stack.pop(0)
            if node.name in seen:
                continue
            seen.add(node.name)
            for fn in self.functions.values():
                if fn.cls == node.name and fn.enclosing is None:
                    out.setdefault(fn.node.name, []).append(fn.qual)  # type: ignore[union-attr]
            stack += [self.classes[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in self.classes]
        return out

    def _answer_attrs(self) -> set[str]:
        """Attributes ``solution()`` returns as they are (after text conversions): their text in a
        message is an echo of the answer."""
        attrs: set[str] = set()
        for qual in self.env_methods.get("solution", []):
            for node in ast.walk(self.functions[qual].node):
                if isinstance(node, ast.Return) and node.value is not None:
                    for part in text_parts(self._answer_segment(node.value)):
                        if isinstance(part, ast.Attribute):
                            attrs.add(part.attr)
        return attrs

    def _answer_segment(self, value: ast.expr) -> ast.expr:
        """A tool-use solution is a call script: its arguments are the task's own values (shown
        on the task screen, which is evidence), only what stands inside ``<answer>...</answer>``
        is the answer whose text on a screen would be an echo."""
        if not self.tool_use or not isinstance(value, ast.JoinedStr):
            return value
        inside, kept = False, []
        for part in value.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                text = part.value
                if "<answer>" in text:
                    inside = "</answer>" not in text.rsplit("<answer>", 1)[1]
                elif "</answer>" in text:
                    inside = False
            elif inside:
                kept.append(part)
        return ast.JoinedStr(values=kept)

    # ------------------------------------------------------------------ the fixpoint

    def run(self) -> FlowReport:
        if self.env is None or "solution" not in self.env_methods:
            return FlowReport(False, reason="no environment class with solution()")
        self._seed_parameters()
        for _ in range(MAX_ROUNDS):
            self.changed = False
            self._exec(self.tree.body, self.module, 0, top=True)
            for fn in self.functions.values():
                context = self.store.get(("callctx", fn.qual), 0)
                self._exec(fn.node.body, fn, context)  # type: ignore[arg-type]
            if not self.changed:
                break
        else:
            raise NotAnalysed(f"the flow did not settle in {MAX_ROUNDS} rounds")
        answer = {label for label, _ in self._decode(self._load(("answer",))) if label[0] in (DRAW, SEED)}
        seen = {label for label, how in self._decode(self._load(("seen",)))
                if how in (V, CTL) and label[0] in (DRAW, SEED)}
        return FlowReport(True, frozenset(answer), frozenset(answer & seen))

    def _seed_parameters(self) -> None:
        for name, quals in self.env_methods.items():
            for qual in quals:
                fn = self.functions[qual]
                params = fn.params[1:] if fn.is_method else fn.params
                args = fn.node.args
                keyword_only = [a.arg for a in args.kwonlyargs]
                if name == "reset":
                    for param in ([p for p in params + keyword_only if p == "seed"] or params[:1]):
                        self._add(("local", qual, param), self._bit((SEED_LABEL, V)))
                elif name == "step" or (self.tool_use and name.startswith("tool_")):
                    extra = [a.arg for a in (args.vararg, args.kwarg) if a is not None]
                    for param in params + keyword_only + extra:
                        self._add(("local", qual, param), self._bit((ACTION_LABEL, V)))

    # Flow sets are bit sets (an int, one bit per (source, how) pair): the fixpoint unions them
    # millions of times, and int | int is what makes the analysis cost milliseconds.

    def _bit(self, flow: Flow) -> int:
        index = self.index.get(flow)
        if index is None:
            index = self.index[flow] = len(self.flows)
            self.flows.append(flow)
            if flow == (ACTION_LABEL, V):  # the action's own value (not a branch it decided)
                self.action_mask |= 1 << index
        return 1 << index

    def _decode(self, bits: int) -> Iterable[Flow]:
        while bits:
            low = bits & -bits
            yield self.flows[low.bit_length() - 1]
            bits ^= low

    def _as(self, how: str, bits: int) -> int:
        """The same sources, flowed as ``how``."""
        out = 0
        for label, _ in self._decode(bits):
            out |= self._bit((label, how))
        return out

    def _control(self, context: int) -> int:
        """What a branch's test passes to what the branch does: its values as control flow (an
        equality test with the action stays one, an echo stays one)."""
        out = self.controls.get(context)
        if out is None:
            out = 0
            for label, how in self._decode(context):
                out |= self._bit((label, CTL if how == V else how))
            self.controls[context] = out
        return out

    def _add(self, location: tuple, flows: int) -> None:
        old = self.store.get(location, 0)
        new = old | flows
        if new != old:
            self.store[location] = new
            self.changed = True

    def _load(self, location: tuple) -> int:
        return self.store.get(location, 0)

    # ------------------------------------------------------------------ statements

    def _exec(self, body: list[ast.stmt], fn: Function, context: int, top: bool = False) -> None:
        for stmt in body:
            context = self._stmt(stmt, fn, context, top)

    def _stmt(self, stmt: ast.stmt, fn: Function, context: int, top: bool) -> int:
        """Runs one statement; returns the context of the statements after it (a branch that
        returns makes the rest depend on its test)."""
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return context  # walked on its own
        if isinstance(stmt, ast.ClassDef):
            for member in stmt.body:
                if isinstance(member, (ast.Assign, ast.AnnAssign)) and getattr(member, "value", None) is not None:
                    flows = self._ev(member.value, fn, context)  # type: ignore[arg-type]
                    targets = member.targets if isinstance(member, ast.Assign) else [member.target]
                    for target in targets:
                        if isinstance(target, ast.Name):
                            self._add(("attr", target.id), flows)
            return context
        if isinstance(stmt, ast.Assign):
            flows = self._ev(stmt.value, fn, context) | self._control(context)
            for target in stmt.targets:
                self._assign(target, flows, fn, context)
        elif isinstance(stmt, ast.AugAssign):
            flows = self._ev(stmt.value, fn, context) | self._ev(stmt.target, fn, context) | self._control(context)
            self._assign(stmt.target, flows, fn, context)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._assign(stmt.target, self._ev(stmt.value, fn, context) | self._control(context), fn, context)
        elif isinstance(stmt, ast.Return):
            flows = (self._ev(stmt.value, fn, context) if stmt.value is not None else 0) | self._control(context)
            self._add(("ret", fn.qual), flows)
            self._observe(stmt, fn, context)
        elif isinstance(stmt, ast.Expr):
            self._ev(stmt.value, fn, context)
        elif isinstance(stmt, ast.If):
            test = self._ev(stmt.test, fn, context)
            inner = context | test
            self._exec(stmt.body, fn, inner)
            self._exec(stmt.orelse, fn, inner)
            if self._exits(stmt.body) or self._exits(stmt.orelse):
                return inner
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            iterated = self._ev(stmt.iter, fn, context)
            self._assign(stmt.target, iterated | self._control(context), fn, context)
            inner = context | iterated
            self._exec(stmt.body, fn, inner)
            self._exec(stmt.orelse, fn, inner)
            if self._exits(stmt.body):
                return inner
        elif isinstance(stmt, ast.While):
            inner = context | self._ev(stmt.test, fn, context)
            self._exec(stmt.body, fn, inner)
            self._exec(stmt.orelse, fn, inner)
            return inner
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                flows = self._ev(item.context_expr, fn, context)
                if item.optional_vars is not None:
                    self._assign(item.optional_vars, flows | self._control(context), fn, context)
            self._exec(stmt.body, fn, context)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self._exec(stmt.body, fn, context)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                self._exec(handler.body, fn, context)
            self._exec(stmt.orelse, fn, context)  # type: ignore[attr-defined]
            self._exec(stmt.finalbody, fn, context)  # type: ignore[attr-defined]
        elif isinstance(stmt, ast.Match):
            inner = context | self._ev(stmt.subject, fn, context)
            for case in stmt.cases:
                self._exec(case.body, fn, inner)
            return inner
        elif isinstance(stmt, (ast.Raise, ast.Assert)):
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self._ev(child, fn, context)
        elif isinstance(stmt, ast.Delete):
            pass
        return context

    def _exits(self, body: list[ast.stmt]) -> bool:
        key = id(body)  # the tree outlives the analysis: its lists keep their ids
        if key not in self.exit_cache:
            self.exit_cache[key] = exits(body)
        return self.exit_cache[key]

    def _observe(self, stmt: ast.Return, fn: Function, context: int) -> None:
        """Records what a return of ``reset``/``step``/a tool shows the agent, and the answer."""
        qual, value = fn.qual, stmt.value
        if value is None:
            return
        if qual in self.env_methods.get("solution", []):
            self._add(("answer",), self._ev(value, fn, context) | self._control(context))
            return
        name = fn.node.name  # type: ignore[union-attr]
        if qual not in self.env_methods.get(name, []):
            return
        is_tool = self.tool_use and name.startswith("tool_")
        if name not in ("reset", "step") and not is_tool:
            return
        shown = value
        if isinstance(value, ast.Tuple) and value.elts:
            if name == "step" and any(isinstance(flag, ast.Constant) and flag.value is True
                                      for flag in value.elts[2:4]):
                return  # the episode ends here: what it says comes after the last answer
            shown = value.elts[0]
        self._add(("seen",), self._ev(shown, fn, context) | self._control(context))

    def _assign(self, target: ast.expr, flows: int, fn: Function, context: int) -> None:
        if isinstance(target, ast.Name):
            self._add(self._name_location(target.id, fn), flows)
        elif isinstance(target, ast.Attribute):
            self._add(("attr", target.attr), flows)
        elif isinstance(target, ast.Subscript):
            self._assign(target.value, flows | self._ev(target.slice, fn, context), fn, context)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._assign(element, flows, fn, context)
        elif isinstance(target, ast.Starred):
            self._assign(target.value, flows, fn, context)

    def _name_location(self, name: str, fn: Function) -> tuple:
        scope: Function | None = fn
        while scope is not None:
            if name in scope.locals and name not in scope.globals:
                return ("local", scope.qual, name)
            scope = scope.enclosing
        return ("global", name)

    # ------------------------------------------------------------------ expressions

