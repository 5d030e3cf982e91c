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
    frozenset({"release"}),
    frozenset({"anonymizer"}),
    frozenset({"config", "evaluation", "precompile"}),
    frozenset({"report", "starter"}),
    frozenset({"commands"}),
    frozenset({"cli"}),
    frozenset({"__init__"}),
)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports() -> dict[str, set[tuple[str, str]]]:
    """Unit -> {(imported unit, importing module)} over every anonset import in the tree."""
    edges: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for path in SRC.rglob("*.py"):
        module = ".".join(("anonset", *path.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
        unit = _unit(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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


@pytest.mark.parametrize("unit", ["methods", "engine", "release", "core"])
def test_family_packages_re_export_nothing(unit: str) -> None:
    """A method family's ``__init__`` holds a docstring only, so importing one method loads no other."""
    for init in [*(SRC / unit).glob("*/__init__.py"), *([SRC / unit / "__init__.py"] if unit in ("release", "core")
                                                      else [])]:
        body = [n for n in ast.parse(init.read_text(encoding="utf-8")).body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        assert not body, f"{init.relative_to(SRC)} has code: keep it a docstring"
