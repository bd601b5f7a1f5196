"""Language layer: the rules a program is compiled under (a RestrictedPython transformer).

RestrictedPython's stock policy is written for short scripts: it rejects every name
starting with ``_`` and every augmented assignment to an attribute or item, which
rules out ordinary generated environments (``self._solution``, ``self.turn += 1``,
``counts[k] += 1``). These rules keep its machinery (one visitor per AST node type,
unknown nodes rejected) and changes what is checked:

* attribute *reads* go through ``_getattr_`` (the runtime guard in ``guards.py``),
  attribute *writes* through ``_write_``; items, iteration and unpacking stay native
  because no module or private member is reachable through them;
* dunder names and attributes are rejected except a fixed safe set; single-underscore
  names are fine, but every name a guard lives under (``_getattr_``...) is reserved,
  wherever a program could bind it (parameters, comprehensions, ``global``, imports,
  ``except ... as``, patterns, walrus);
* imports outside :data:`spade_gym.contract.ALLOWED_MODULES` are rejected at compile
  time, with the line, so the designer can repair them;
* ``eval``/``exec``/``open``... are reported when called under their builtin name.

:mod:`spade_gym.sandbox.language.compiler` runs these rules over a program and compiles what passes.
"""

from __future__ import annotations

import ast

from RestrictedPython.transformer import RestrictingNodeTransformer, copy_locations

from spade_gym.contract import ALLOWED_MODULES
from spade_gym.sandbox.language.names import (  # noqa: F401 - part of this module's interface
    DENIED_ATTRIBUTES,
    FORBIDDEN_CALLS,
    GUARD_NAMES,
    GUARDED_ATTRIBUTES,
    READABLE_DUNDER_ATTRS,
    READABLE_DUNDER_NAMES,
    SPECIAL_METHODS,
    natively_readable,
)


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_reserved(name: str) -> bool:
    """Sunder names (``_x_``) are reserved for guards, present and future."""
    return name in GUARD_NAMES or (len(name) > 2 and name.startswith("_") and name.endswith("_"))


#: Importable dotted names: the contract's modules plus numpy's vetted submodules.
IMPORTABLE = frozenset(ALLOWED_MODULES) | {"numpy.random", "numpy.linalg", "numpy.fft"}


def _module_allowed(name: str) -> bool:
    return name in IMPORTABLE


class SpadeRules(RestrictingNodeTransformer):
    """spade-gym's compile-time rules (see the module docstring)."""

    def __init__(self, errors=None, warnings=None, used_names=None):
        super().__init__(errors, warnings, used_names)
        self._class_stack: list[str] = []
        self._function_depth = 0
        #: ``(node, name)`` of calls to forbidden builtins, judged once all bindings are known.
        self.forbidden_calls: list[tuple[ast.AST, str]] = []
        #: Every name the program binds anywhere; a call to ``compile(...)`` is only
        #: reported when ``compile`` is not one of the program's own names.
        self.bound_names: set[str] = set()

    # ------------------------------------------------------------------ names

    def check_name(self, node, name, allow_magic_methods=False):  # noqa: D401 - RP hook
        if name is None or name == "_":
            return
        if _is_dunder(name):
            self.error(node, f'"{name}" is not allowed: dunder names are reserved in SPADE programs.')
        elif _is_reserved(name):
            self.error(node, f'"{name}" is a reserved name (used by the sandbox guards).')

    def _check_bound(self, node, name):
        if name is None:
            return
        self.bound_names.add(name)
        self.check_name(node, name)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in READABLE_DUNDER_NAMES:
            return node
        if not isinstance(node.ctx, ast.Load):
            self.bound_names.add(node.id)
        self.check_name(node, node.id)
        return node

    def check_function_argument_names(self, node):
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            self._check_bound(node, arg.arg)
        if args.vararg:
            self._check_bound(node, args.vararg.arg)
        if args.kwarg:
            self._check_bound(node, args.kwarg.arg)

    def check_import_names(self, node):
        for alias in node.names:
            if alias.name == "*":
                self.error(node, '"from ... import *" is not allowed; import the names you use.')
                continue
            bound = alias.asname or alias.name.split(".")[0]
            if isinstance(node, ast.ImportFrom):
                bound = alias.asname or alias.name
                if _is_dunder(alias.name) or alias.name.startswith("_"):
                    self.error(node, f'cannot import private name "{alias.name}" from "{node.module}".')
            self._check_bound(node, bound)
        return self.node_contents_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            if not _module_allowed(alias.name):
                self.error(node, _import_message(alias.name))
        return self.check_import_names(node)

    def visit_ImportFrom(self, node):
        if node.level:
            self.error(node, "relative imports are not allowed in SPADE programs.")
        elif node.module == "__future__":
            pass
        elif not _module_allowed(node.module or ""):
            self.error(node, _import_message(node.module or ""))
        return self.check_import_names(node)

    def visit_Global(self, node):
        for name in node.names:
            self._check_bound(node, name)
        return node

    def visit_Nonlocal(self, node):
        for name in node.names:
            self._check_bound(node, name)
        return node

    def visit_ExceptHandler(self, node):
        node = self.node_contents_visit(node)
        self._check_bound(node, node.name)
        return node

    # ------------------------------------------------------------------ attributes

    def _mangle(self, attr: str) -> str:
        """Apply Python's private-name mangling ourselves: attribute *reads* become
        ``_getattr_(obj, "name")`` calls, and the compiler never mangles strings."""
        if attr.startswith("__") and not attr.endswith("__") and self._class_stack:
            owner = self._class_stack[-1].lstrip("_")
            if owner:
                return f"_{owner}{attr}"
        return attr

    def _check_attr(self, node, attr: str, *, reading: bool) -> None:
        if _is_dunder(attr):
            if not reading or attr not in READABLE_DUNDER_ATTRS:
                verb = "read" if reading else "assigned"
                self.error(node, f'attribute "{attr}" may not be {verb} in SPADE programs.')
        elif attr in DENIED_ATTRIBUTES:
            self.error(node, f'attribute "{attr}" is not allowed (it leads out of the sandbox).')

    def visit_Attribute(self, node):
        """``a.b`` -> guarded read; ``a.b = v`` -> ``_write_(a).b = v``.

        When the base is a plain name, the guard call is skipped for objects whose
        class hierarchy the program wrote itself (the set ``_P_``, kept by the runtime):
        ``(a.b if _type_(a) in _P_ else _getattr_(a, "b"))``. Everything such an object
        holds came from program code, which could only obtain guarded values, so the
        native read is safe — and it is most of the attribute traffic of a ``step``.
        """
        attr = self._mangle(node.attr)
        reading = isinstance(node.ctx, ast.Load)
        self._check_attr(node, attr, reading=reading)
        node = self.node_contents_visit(node)
        node.attr = attr
        base = node.value
        inline = isinstance(base, ast.Name) and not _is_dunder(attr)
        if reading:
            slow = attr.startswith("_") or attr in GUARDED_ATTRIBUTES
            guarded = ast.Call(func=ast.Name("_getattr_slow_" if slow else "_getattr_", ast.Load()),
                               args=[base, ast.Constant(attr)], keywords=[])
            if not inline:
                copy_locations(guarded, node)
                return guarded
            new_node = ast.IfExp(test=_owned_test(base), body=node, orelse=guarded)
            copy_locations(new_node, node)
            ast.fix_missing_locations(new_node)
            return new_node
        guarded_base: ast.expr = ast.Call(func=ast.Name("_write_", ast.Load()), args=[base], keywords=[])
        if inline:
            guarded_base = ast.IfExp(test=_owned_test(base), body=ast.Name(base.id, ast.Load()), orelse=guarded_base)
        copy_locations(guarded_base, base)
        ast.fix_missing_locations(guarded_base)
        node.value = guarded_base
        return node

    # ------------------------------------------------------------------ native constructs

    def visit_Subscript(self, node):
        return self.node_contents_visit(node)

    def guard_iter(self, node):
        return self.node_contents_visit(node)

    def visit_Assign(self, node):
        return self.node_contents_visit(node)

    def visit_With(self, node):
        return self.node_contents_visit(node)

    def visit_AugAssign(self, node):
        # ``x += 1``, ``self.n += 1`` and ``d[k] += 1`` all stay native statements; the
        # attribute case is still routed through ``_write_`` by visit_Attribute (Store ctx),
        # so the implicit read happens only on an object the program may write.
        return self.node_contents_visit(node)

    def visit_AnnAssign(self, node):
        return self.node_contents_visit(node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name):
            if func.id in FORBIDDEN_CALLS:
                self.forbidden_calls.append((node, func.id))
            if func.id == "type" and len(node.args) + len(node.keywords) >= 2:
                self.error(node, "type() with 3 arguments (dynamic class creation) is not allowed; "
                                 "use a class statement.")
        return self.node_contents_visit(node)

    def visit_JoinedStr(self, node):
        return self.node_contents_visit(node)

    # ------------------------------------------------------------------ definitions

    def visit_FunctionDef(self, node):
        in_class_body = bool(self._class_stack) and self._function_depth == 0
        name = node.name
        if _is_dunder(name):
            if not (in_class_body and name in SPECIAL_METHODS):
                where = "a special method" if in_class_body else "a function name"
                self.error(node, f'"{name}" is not allowed as {where} in SPADE programs.')
        else:
            self._check_bound(node, name)
        self.bound_names.add(name)
        self.check_function_argument_names(node)
        self._function_depth += 1
        try:
            return self.node_contents_visit(node)
        finally:
            self._function_depth -= 1

    def visit_Lambda(self, node):
        self.check_function_argument_names(node)
        return self.node_contents_visit(node)

    def visit_ClassDef(self, node):
        self._check_bound(node, node.name)
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                self.error(node, 'the "metaclass" keyword is not allowed; subclass ABC/Enum instead.')
        # Decorators and bases are evaluated outside the class scope.
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        saved_depth = self._function_depth
        self._class_stack.append(node.name)
        self._function_depth = 0
        try:
            new_body = []
            for stmt in node.body:
                result = self.visit(stmt)
                if result is None:
                    continue
                new_body.extend(result if isinstance(result, list) else [result])
            node.body = new_body or [ast.Pass()]
        finally:
            self._class_stack.pop()
            self._function_depth = saved_depth
        return node

    def visit_NamedExpr(self, node):
        node = self.node_contents_visit(node)
        if isinstance(node.target, ast.Name):
            self._check_bound(node, node.target.id)
        return node

    # ------------------------------------------------------------------ pattern matching

    def visit_Match(self, node):
        return self.node_contents_visit(node)

    def visit_match_case(self, node):
        return self.node_contents_visit(node)

    def visit_MatchValue(self, node):
        return self.node_contents_visit(node)

    def visit_MatchSingleton(self, node):
        return node

    def visit_MatchSequence(self, node):
        return self.node_contents_visit(node)

    def visit_MatchOr(self, node):
        return self.node_contents_visit(node)

    def visit_MatchStar(self, node):
        self._check_bound(node, node.name)
        return node

    def visit_MatchAs(self, node):
        self._check_bound(node, node.name)
        return self.node_contents_visit(node)

    def visit_MatchMapping(self, node):
        self._check_bound(node, node.rest)
        return self.node_contents_visit(node)

    def visit_MatchClass(self, node):
        """``case C(x, k=y)`` reads attributes natively, bypassing ``_getattr_``: the class
        expression (``random.Random``), the keyword names and — for positional patterns —
        the names in ``C.__match_args__``. The first two must be names an attribute read would
        pass without a guard's judgement (:func:`~spade_gym.sandbox.language.names.natively_readable`:
        not private, denied or object-judged like ``format``); the class expression stays a
        native dotted name, which is all the grammar allows. ``__match_args__`` cannot be
        defined by a program (a dunder) and lists only natively readable names on every
        vetted library class (a test audits them)."""
        chain = node.cls
        while isinstance(chain, ast.Attribute):
            if not natively_readable(chain.attr):
                self.error(node, f'pattern class attribute "{chain.attr}" is not allowed.')
            chain = chain.value
        if isinstance(chain, ast.Name):
            self.check_name(node, chain.id)
        for attr in node.kwd_attrs:
            # The same rule as an attribute read: a name the guards would judge (private,
            # denied, or judged by its object such as ``format``) cannot be read natively.
            if not natively_readable(attr):
                self.error(node, f'pattern attribute "{attr}" is not allowed (read it as obj.{attr} instead).')
        node.patterns = [self.visit(p) for p in node.patterns]
        node.kwd_patterns = [self.visit(p) for p in node.kwd_patterns]
        return node

    # ------------------------------------------------------------------ module

    def visit_Module(self, node):
        return self.node_contents_visit(node)


def _owned_test(base: ast.Name) -> ast.Compare:
    """``_type_(base) in _P_``: is ``base`` an instance of a program-only class?"""
    return ast.Compare(
        left=ast.Call(func=ast.Name("_type_", ast.Load()), args=[ast.Name(base.id, ast.Load())], keywords=[]),
        ops=[ast.In()],
        comparators=[ast.Name("_P_", ast.Load())],
    )


def _import_message(module: str) -> str:
    allowed = ", ".join(m for m in ALLOWED_MODULES if m != "__future__")
    return f'import of "{module}" is not allowed in SPADE programs (allowed: {allowed}).'
