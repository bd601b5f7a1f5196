"""What a value is made of: the expressions and calls of the information-flow analysis (a mixin of
:class:`~spade_gym.validation.information_flow.program.Analysis`)."""

from __future__ import annotations

import ast

from spade_gym.validation.information_flow.sources import (
    DRAW,
    DRAWS,
    ECHO,
    EQ,
    EQUALITY_OPS,
    IN_PLACE_DRAWS,
    Function,
    V,
    base_name,
    is_text,
    text_parts,
    union,
)


class Values:
    """The flows of an expression, given where values are (``self.store``)."""

    # provided by the analysis this mixes into
    functions: dict[str, Function]
    by_name: dict[str, list[str]]
    module_functions: dict[str, str]
    classes: dict[str, ast.ClassDef]
    modules: set[str]
    answer_attrs: set[str]
    action_mask: int

    def _load(self, location: tuple) -> int:
        raise NotImplementedError

    def _add(self, location: tuple, flows: int) -> None:
        raise NotImplementedError

    def _bit(self, flow: tuple) -> int:
        raise NotImplementedError

    def _as(self, how: str, bits: int) -> int:
        raise NotImplementedError

    def _control(self, context: int) -> int:
        raise NotImplementedError

    def _assign(self, target: ast.expr, flows: int, fn: Function, context: int) -> None:
        raise NotImplementedError

    def _name_location(self, name: str, fn: Function) -> tuple:
        raise NotImplementedError

    def _ev(self, node: ast.expr, fn: Function, context: int) -> int:
        ev = self._ev
        if isinstance(node, ast.Constant):
            return 0
        if isinstance(node, ast.Name):
            location = self._name_location(node.id, fn)
            flows = self._load(location)
            if location[0] == "global" and node.id in self.module_functions:
                flows |= self._load(("ret", self.module_functions[node.id]))
            return flows
        if isinstance(node, ast.Attribute):
            flows = self._load(("attr", node.attr))
            for qual in self.by_name.get(node.attr, []):  # a method used as a value (dispatch tables)
                flows |= self._load(("ret", qual))
            if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                flows |= ev(node.value, fn, context)
            return flows
        if isinstance(node, ast.Subscript):
            return ev(node.value, fn, context) | ev(node.slice, fn, context)
        if isinstance(node, ast.BinOp):
            texty = isinstance(node.op, ast.Mod) and is_text(node.left) or isinstance(node.op, ast.Add) and (
                is_text(node.left) or is_text(node.right))
            if texty:
                return self._text(node.left, fn, context) | self._text(node.right, fn, context)
            return ev(node.left, fn, context) | ev(node.right, fn, context)
        if isinstance(node, ast.BoolOp):
            return union(ev(v, fn, context) for v in node.values)
        if isinstance(node, ast.UnaryOp):
            return ev(node.operand, fn, context)
        if isinstance(node, ast.Compare):
            parts = [ev(node.left, fn, context)] + [ev(c, fn, context) for c in node.comparators]
            flows = union(parts)
            if flows & self.action_mask and any(isinstance(op, EQUALITY_OPS) for op in node.ops):
                return self._as(EQ, flows)
            return flows
        if isinstance(node, ast.IfExp):
            return ev(node.test, fn, context) | ev(node.body, fn, context) | ev(node.orelse, fn, context)
        if isinstance(node, ast.Call):
            return self._call(node, fn, context)
        if isinstance(node, ast.JoinedStr):
            return union(self._text(v.value if isinstance(v, ast.FormattedValue) else v, fn, context)
                          for v in node.values)
        if isinstance(node, ast.FormattedValue):
            return self._text(node.value, fn, context)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return union(ev(e, fn, context) for e in node.elts)
        if isinstance(node, ast.Dict):
            return union(ev(e, fn, context) for e in [*node.keys, *node.values] if e is not None)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            flows = 0
            for generator in node.generators:
                iterated = ev(generator.iter, fn, context)
                self._assign(generator.target, iterated | self._control(context), fn, context)
                flows |= iterated
                for condition in generator.ifs:
                    flows |= ev(condition, fn, context)
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for element in elements:
                flows |= ev(element, fn, context)
            return flows
        if isinstance(node, ast.Lambda):
            return ev(node.body, fn, context)
        if isinstance(node, (ast.Starred, ast.Await)):
            return ev(node.value, fn, context)
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            flows = ev(node.value, fn, context) if node.value is not None else 0
            self._add(("ret", fn.qual), flows | self._control(context))
            return flows
        if isinstance(node, ast.NamedExpr):
            flows = ev(node.value, fn, context)
            self._assign(node.target, flows | self._control(context), fn, context)
            return flows
        if isinstance(node, ast.Slice):
            return union(ev(p, fn, context) for p in (node.lower, node.upper, node.step) if p is not None)
        return union(ev(c, fn, context) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))

    def _text(self, node: ast.expr, fn: Function, context: int) -> int:
        """A part of a message: the answer's own text there is an echo, not evidence."""
        parts = text_parts(node)
        if len(parts) == 1 and isinstance(parts[0], ast.Attribute) and parts[0].attr in self.answer_attrs:
            return self._as(ECHO, self._ev(node, fn, context))
        return self._ev(node, fn, context)

    def _call(self, node: ast.Call, fn: Function, context: int) -> int:
        ev = self._ev
        positional = [ev(a, fn, context) for a in node.args]
        keywords = {k.arg: ev(k.value, fn, context) for k in node.keywords}
        arguments = union([*positional, *keywords.values()])
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        local_function = isinstance(func, ast.Name) and self._name_location(func.id, fn)[0] == "local"
        if name in DRAWS and not (isinstance(func, ast.Name) and (func.id in self.module_functions or local_function)):
            drawn = self._bit(((DRAW, node.lineno, node.col_offset), V)) | arguments
            if name in IN_PLACE_DRAWS and node.args:
                self._assign(node.args[0], drawn | self._control(context), fn, context)
            return drawn
        targets, offset = self._targets(func, fn)
        if targets:
            for qual in targets:
                callee = self.functions[qual]
                self._add(("callctx", qual), context)
                params = callee.params
                skip = 1 if (offset and callee.is_method) else 0
                args = callee.node.args
                for index, flows in enumerate(positional):
                    if isinstance(node.args[index], ast.Starred):
                        for param in params[skip:]:
                            self._add(("local", qual, param), flows | self._control(context))
                    elif skip + index < len(params):
                        self._add(("local", qual, params[skip + index]), flows | self._control(context))
                    elif args.vararg is not None:
                        self._add(("local", qual, args.vararg.arg), flows | self._control(context))
                for key, flows in keywords.items():
                    names = [p for p in params + [a.arg for a in args.kwonlyargs] if key is None or p == key]
                    if not names and args.kwarg is not None:
                        names = [args.kwarg.arg]
                    for param in names:
                        self._add(("local", qual, param), flows | self._control(context))
            result = union(self._load(("ret", q)) for q in targets)
            if isinstance(func, ast.Name) and func.id in self.classes:
                result |= arguments  # a new instance: what it was built from
            return result
        # a call the analysis does not know: its result and its receiver take every argument
        result = arguments
        if isinstance(func, ast.Attribute):
            receiver = ev(func.value, fn, context)
            result |= receiver
            if (isinstance(func.value, (ast.Name, ast.Attribute, ast.Subscript)) and arguments
                    and base_name(func.value) not in self.modules):
                self._assign(func.value, arguments | self._control(context), fn, context)
        elif not isinstance(func, ast.Name):
            result |= ev(func, fn, context)
        # program functions passed along (sort keys, callbacks) see every argument
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            for qual in self._referenced(argument, fn):
                for param in self.functions[qual].params:
                    self._add(("local", qual, param), arguments | self._control(context))
                result |= self._load(("ret", qual))
        return result

    def _targets(self, func: ast.expr, fn: Function) -> tuple[list[str], bool]:
        """Program functions a call may run, and whether it is a method call (``self`` bound)."""
        if isinstance(func, ast.Name):
            location = self._name_location(func.id, fn)
            if location[0] == "local":
                nested = [q for q in self.by_name.get(func.id, []) if self.functions[q].enclosing is not None]
                return nested, False
            if func.id in self.module_functions:
                return [self.module_functions[func.id]], False
            if func.id in self.classes:
                return [q for q in self.by_name.get("__init__", []) if self.functions[q].cls == func.id], True
            return [], False
        if isinstance(func, ast.Attribute):
            return [q for q in self.by_name.get(func.attr, []) if self.functions[q].cls is not None], True
        if (isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr"
                and not (len(func.args) > 1 and isinstance(func.args[1], ast.Constant))):
            return [q for q, f in self.functions.items() if f.cls is not None], True  # dynamic dispatch: any method
        return [], False

    def _referenced(self, node: ast.expr, fn: Function) -> list[str]:
        if isinstance(node, ast.Name) and self._name_location(node.id, fn)[0] == "global":
            return [self.module_functions[node.id]] if node.id in self.module_functions else []
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return [q for q in self.by_name.get(node.attr, []) if self.functions[q].cls is not None]
        return []


