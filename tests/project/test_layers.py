"""The layers of DESIGN.md, checked from the source: imports point down only.

Every import in ``src/spade_gym`` (function-level ones included) is read from the AST; a
module may import its own layer or a lower one, never a higher one. The package root is
the public facade (it may re-export any layer, lazily); importing it runs suite
registration, so only layers above the registry may import it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from testkit import ROOT

PACKAGE = ROOT / "src" / "spade_gym"
#: Bottom to top. Shared leaf modules (errors, display, toolcalls, syntax, contract, decoding) are the floor.
LAYERS = [
    {"errors", "display", "toolcalls", "syntax", "contract", "decoding"},
    {"sandbox"},
    {"env"},
    {"registry"},
    {"validation"},
    {"executor"},
    {"generate"},
    {"agents"},
    {"evaluation", "adapters"},
    {"selfplay", "integrations"},
    {"cli"},
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
ROOT_IMPORTERS_FROM = RANK["validation"]  # the first layer above the registry


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "spade_gym":
        return None
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path, module: str):
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != "spade_gym":
                yield node.lineno, target
                continue
            # `from spade_gym import registry` names a submodule; any other name is the root's
            for alias in node.names:
                if (PACKAGE / alias.name).is_dir() or (PACKAGE / f"{alias.name}.py").exists():
                    yield node.lineno, f"spade_gym.{alias.name}"
                else:
                    yield node.lineno, target


def test_every_module_belongs_to_a_layer():
    tops = {p.stem if p.suffix == ".py" else p.name for p in PACKAGE.iterdir()
            if p.name != "__init__.py" and (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))}
    missing = sorted(tops - set(RANK))
    assert not missing, f"modules with no layer in tests/project/test_layers.py: {missing}"


def test_imports_point_down():
    upward = []
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if module.endswith(".__init__"):
            module = module[: -len(".__init__")]
        own = _layer_of(module)
        if own == "":
            continue  # the facade
        for line, target in _imports(path, module):
            layer = _layer_of(target)
            if layer is None or layer == own:
                continue
            if layer == "" and RANK[own] >= ROOT_IMPORTERS_FROM:
                continue
            if layer == "" or RANK[layer] > RANK[own]:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {target} ({own} -> {layer or 'the root'})")
    assert not upward, "imports that point up a layer:\n" + "\n".join(sorted(upward))


#: One job per module: a module past this many lines is doing several (split it by job).
MAX_MODULE_LINES = 400


def test_no_module_outgrows_one_job():
    long = sorted((len(path.read_text().splitlines()), str(path.relative_to(ROOT)))
                  for path in PACKAGE.rglob("*.py"))
    over = [f"{name} ({lines} lines)" for lines, name in long if lines > MAX_MODULE_LINES]
    assert not over, f"modules over {MAX_MODULE_LINES} lines (split each by job): {', '.join(over)}"


#: The sandbox's own layers, bottom to top (docs/security.md): shared records and limits, then the
#: language layer and the wire (neither knows the other), the worker runtime that uses both, the
#: process layer that births workers, and the host's face (``ProgramHandle``) on top.
SANDBOX_LAYERS = [
    {"limits", "call_results", "language", "wire"},
    {"worker"},
    {"process"},
    {"handle", ""},
]
SANDBOX_RANK = {name: rank for rank, names in enumerate(SANDBOX_LAYERS) for name in names}


def _sandbox_part(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["spade_gym", "sandbox"]:
        return None
    return parts[2] if len(parts) > 2 else ""


def test_every_sandbox_module_belongs_to_a_sandbox_layer():
    parts = {p.stem if p.suffix == ".py" else p.name for p in (PACKAGE / "sandbox").iterdir()
             if p.name != "__init__.py" and (p.suffix == ".py" or (p / "__init__.py").exists())}
    missing = sorted(parts - set(SANDBOX_RANK))
    assert not missing, f"sandbox modules with no layer in tests/project/test_layers.py: {missing}"


def test_sandbox_imports_point_down():
    upward = []
    for path in (PACKAGE / "sandbox").rglob("*.py"):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        own = _sandbox_part(module)
        for line, target in _imports(path, module):
            part = _sandbox_part(target)
            # the package itself is no one layer (the zygote imports it whole, to preload every layer)
            if part is None or own is None or part == own or part == "":
                continue
            if SANDBOX_RANK[part] > SANDBOX_RANK[own] or (SANDBOX_RANK[part] == SANDBOX_RANK[own] and own):
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {target} ({own} -> {part})")
    assert not upward, "sandbox imports that point up (or across) a layer:\n" + "\n".join(sorted(upward))
