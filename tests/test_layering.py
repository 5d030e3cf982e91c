"""The layering of the source tree: core imports nothing above errors, and no two subpackages import each other.

Every ``import`` and ``from ... import`` of an anonset module counts, wherever
it stands (module level, inside a function, under ``TYPE_CHECKING``): an
import inside a function is still a dependency, only a later one.  A unit is
a subpackage (``core``, ``methods``, ...) or a top-level module
(``anonymizer``, ``cli``, ...); the package's ``__init__`` is the public face
and no module may import it.  The layers below are the order docs/architecture.md
describes; an import may only go down.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "anonset"

#: Lowest first.  A unit may import units of lower layers (and its own); never a higher or equal other one.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "version", "progress"}),
    frozenset({"core"}),
    frozenset({"risk"}),
    frozenset({"io", "privacy"}),
    frozenset({"hierarchy", "datasets"}),
    frozenset({"engine"}),
    frozenset({"metrics"}),
    frozenset({"methods"}),
    frozenset({"recheck"}),
    frozenset({"sinks"}),
    frozenset({"release"}),
    frozenset({"anonymizer"}),
    frozenset({"config", "distributed", "evaluation", "precompile", "testing"}),
    frozenset({"report", "starter"}),
    frozenset({"runs"}),
    frozenset({"app"}),
    frozenset({"commands"}),
    frozenset({"cli"}),
    frozenset({"__init__"}),
)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@functools.cache
def _trees() -> dict[Path, ast.Module]:
    """Every module of the package, parsed once for all the checks."""
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(SRC.rglob("*.py"))}


@functools.cache
def _imports() -> dict[str, set[tuple[str, str]]]:
    """Unit -> {(imported unit, importing module)} over every anonset import in the tree."""
    edges: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for path, tree in _trees().items():
        module = ".".join(("anonset", *path.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
        unit = _unit(module)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                if target == "anonset" or target.startswith("anonset."):
                    edges[unit].add((_unit(target), module))
    return edges


def _layer(unit: str) -> int:
    for index, layer in enumerate(LAYERS):
        if unit in layer:
            return index
    raise AssertionError(f"unit {unit!r} is in no layer: add it to LAYERS and to docs/architecture.md")


def test_every_unit_has_a_layer() -> None:
    units = {_unit(".".join(("anonset", *p.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__"))
             for p in SRC.rglob("*.py")}
    for unit in units:
        _layer(unit)


def test_core_imports_nothing_above_errors() -> None:
    bad = sorted(f"{module} imports anonset.{target}" for target, module in _imports()["core"]
                 if target not in ("core", "errors"))
    assert not bad, bad


def test_imports_only_go_down() -> None:
    bad = sorted(f"{module} imports anonset.{target}" for unit, edges in _imports().items()
                 for target, module in edges if target != unit and _layer(target) >= _layer(unit))
    assert not bad, bad


def test_no_two_units_import_each_other() -> None:
    graph = {unit: {t for t, _ in edges if t != unit} for unit, edges in _imports().items()}
    cycles = sorted({tuple(sorted((a, b))) for a, targets in graph.items() for b in targets
                     if a in graph.get(b, set())})
    assert not cycles, cycles


#: Packages whose subpackages' ``__init__`` is a docstring only, and whether their own is too
#: (``engine`` and ``methods`` name their public parts, imported on first use).
DOCSTRING_ONLY = {"core": True, "engine": False, "methods": False, "recheck": True, "sinks": True, "release": True,
                  "distributed": True}


@pytest.mark.parametrize("unit", DOCSTRING_ONLY)
def test_packages_re_export_nothing(unit: str) -> None:
    """A package's ``__init__`` holds a docstring only, so importing one module loads no other."""
    for init in [*(SRC / unit).glob("*/__init__.py"), *([SRC / unit / "__init__.py"] if DOCSTRING_ONLY[unit]
                                                      else [])]:
        body = [n for n in ast.parse(init.read_text(encoding="utf-8")).body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        assert not body, f"{init.relative_to(SRC)} has code: keep it a docstring"


#: Where a branch may name an engine: the run layer only (the config reads what each engine accepts from ENGINE_KINDS).
ENGINE_BRANCHES = ("runs/",)
ENGINES = {"numpy", "duckdb", "postgresql", "spark"}


def _names_engine(node: ast.expr) -> bool:
    """``engine``, ``x.engine`` or ``engine.name``: an expression that holds an engine's name."""
    if isinstance(node, ast.Name):
        return node.id == "engine"
    if isinstance(node, ast.Attribute):
        return node.attr == "engine" or (node.attr == "name" and isinstance(node.value, ast.Name)
                                         and node.value.id == "engine")
    return False


def _engine_constants(node: ast.expr) -> bool:
    items = node.elts if isinstance(node, (ast.Tuple, ast.Set, ast.List)) else [node]
    return any(isinstance(e, ast.Constant) and e.value in ENGINES for e in items)


def test_no_engine_branch_outside_the_run_layer() -> None:
    """``engine == "duckdb"`` and the like only in anonset/runs/ (one module per kind of engine, one registry)."""
    bad = []
    for path, tree in _trees().items():
        where = path.relative_to(SRC).as_posix()
        if where.startswith(ENGINE_BRANCHES):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(_names_engine(o) for o in operands) and any(_engine_constants(o) for o in operands):
                    bad.append(f"{where}:{node.lineno}")
    assert not bad, f"branches on an engine's name outside anonset/runs/: {bad}"


def test_no_method_list_outside_the_registry() -> None:
    """A method is named in one list only, the registry's; everything else asks its declaration."""
    from anonset.methods import registry

    names = set(registry.names())
    bad = []
    for path, tree in _trees().items():
        where = path.relative_to(SRC).as_posix()
        if where == "methods/registry.py":
            continue
        exported = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)}
        for node in ast.walk(tree):
            if id(node) in exported:
                continue
            if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
                items: list[ast.expr | None] = list(node.elts)
            elif isinstance(node, ast.Dict):
                items = list(node.keys)
            else:
                continue
            listed = [e.value for e in items if isinstance(e, ast.Constant) and e.value in names]
            if listed:
                bad.append(f"{where}:{node.lineno} {listed}")
    assert not bad, f"methods listed outside the registry (ask the method's declaration instead): {bad}"
