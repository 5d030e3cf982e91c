"""The method registry: lazy, the one list every reader uses, and open to a new method with one module and one line."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.errors import ConfigError
from anonset.methods import registry
from anonset.methods.base import Family

TOY_MODULE = '''
"""A toy method: every record in one class (valid whenever the table has at least k records)."""

from typing import Any

import numpy as np

from anonset.methods.base import Family, Method, Option, Problem


class OneClass:
    def __init__(self, n_rows: int) -> None:
        self.row_class = np.zeros(n_rows, dtype=np.int64)

    def assign(self, dataset: Any) -> np.ndarray:
        return np.zeros(dataset.n_rows, dtype=np.int64)


def _fit(problem: Problem) -> OneClass:
    return OneClass(problem.dataset.n_rows)


METHOD = Method(name="toy", family=Family.GROUPING, summary="every record in one class", fit=_fit,
                options=(Option("loud", "bool", False, "an option to show validation"),), suppresses=False,
                models=frozenset({"KAnonymity"}))
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The toy method as a module on the path, registered by one line."""
    (tmp_path / "toy_method.py").write_text(TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register("toy_method", name="toy")  # the one line
    yield "toy"
    registry.unregister("toy")


def test_a_new_method_is_one_module_and_one_registry_line(toy: str, tmp_path: Path) -> None:
    table = pd.DataFrame({"age": [str(20 + i % 7) for i in range(40)], "zip": [f"1{i % 5}" for i in range(40)],
                          "disease": ["flu", "cold"] * 20})
    table.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "run.yaml").write_text(textwrap.dedent("""
        input: {path: in.csv}
        attributes:
          age: {role: quasi, type: numeric}
          zip: {role: quasi}
          disease: {role: sensitive}
        privacy: {k: 5}
        method: {name: toy, loud: true}
        output: {path: out.csv}
    """))
    result = CliRunner().invoke(main, ["anonymize", str(tmp_path / "run.yaml"), "-q"])
    assert result.exit_code == 0, result.output
    released = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert len(released) == len(table)
    assert len(released.drop_duplicates(["age", "zip"])) == 1  # one class, recomputed from the output
    assert released["age"].iloc[0] == "20-26"
    assert sorted(released["disease"]) == sorted(table["disease"])

    (tmp_path / "bad.yaml").write_text((tmp_path / "run.yaml").read_text().replace("loud: true", "loud: 3"))
    bad = CliRunner().invoke(main, ["anonymize", str(tmp_path / "bad.yaml")])
    assert bad.exit_code == 2 and "option 'loud' must be true or false; got 3" in bad.output
    assert "toy" in CliRunner().invoke(main, ["methods"]).output


def test_the_new_method_passes_the_contract_checks_shipped_with_anonset(toy: str) -> None:
    """What the conformance suite runs on the built-in methods, a method from outside runs too."""
    from anonset.testing import check_method, method_checks

    assert "refuses[TCloseness]" in dict(method_checks(toy))  # from its declaration: it enforces k only
    check_method(toy)


def test_unknown_method_lists_the_registered_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        registry.get("mondrain")
    assert all(name in str(caught.value) for name in registry.names())


def test_registering_a_taken_name_is_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.get("mondrian"))
    with pytest.raises(ValueError, match="built in"):
        registry.unregister("optimal")


def test_every_entry_declares_itself_under_its_own_name() -> None:
    for name in registry.names():
        method = registry.get(name)
        assert method.name == name and isinstance(method.family, Family) and method.summary
        assert len({o.name for o in method.options}) == len(method.options)
        method.check_options({})  # the defaults pass their own checks


def test_docs_list_every_method_as_the_registry_declares_it() -> None:
    """docs/methods.md carries ``anonset methods --markdown`` verbatim, so the docs table cannot drift."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "methods.md").read_text(encoding="utf-8")
    start = docs.index("| method | family |")
    end = docs.index("<!-- end of the generated table -->")
    printed = CliRunner().invoke(main, ["methods", "--markdown"]).output
    assert docs[start:end] == printed


def test_reading_the_registry_loads_no_method_code() -> None:
    """Every declaration can be read (for a config check, ``anonset methods``) without importing a method family."""
    code = ("import sys; from anonset.methods import registry\n"
            "specs = [registry.get(n) for n in registry.names()]\n"
            "heavy = [m for m in sys.modules if m.startswith(('anonset.methods.mondrian.regions',"
            " 'anonset.methods.cluster.kmember', 'anonset.methods.full_domain.search',"
            " 'anonset.methods.pareto.objectives', 'numba', 'pandas'))]\n"
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_method_returning_another_family_s_result_is_named_as_the_bug() -> None:
    """The Anonymizer checks that ``fit`` returned its family's result before using it."""
    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.methods.base import Method

    broken = Method(name="broken", family=Family.GROUPING, summary="returns a dict", fit=lambda problem: {},
                    suppresses=False)
    registry.register(broken)
    try:
        table = pd.DataFrame({"zip": [f"1{i % 3}" for i in range(12)]})
        with pytest.raises(TypeError, match="method 'broken' .grouping. returned dict, not a Grouping"):
            Anonymizer({"zip": {"role": "quasi"}}, Requirements([KAnonymity(2)]), method="broken").fit(table)
    finally:
        registry.unregister("broken")


class _OwnClasses:
    """Every record a class of its own: breaks any k above 1."""

    def __init__(self, n_rows: int) -> None:
        self.row_class = np.arange(n_rows, dtype=np.int64)

    def assign(self, dataset: Any) -> np.ndarray:
        return np.arange(dataset.n_rows, dtype=np.int64)


def test_a_release_an_outside_method_breaks_names_that_method() -> None:
    """The re-check catches the release; its error names the method's module and check_method, not only anonset."""
    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.methods.base import Method

    careless = Method(name="careless", family=Family.GROUPING, summary="a class per record",
                      fit=lambda problem: _OwnClasses(problem.dataset.n_rows), suppresses=False)
    registry.register(careless)
    try:
        table = pd.DataFrame({"zip": [f"1{i:02d}" for i in range(12)]})  # twelve values: twelve released classes
        with pytest.raises(RuntimeError, match=r"bug in method 'careless' of test_registry, registered from outside"
                                               r" anonset, or in anonset \(anonset.testing.check_method\('careless'\)"):
            Anonymizer({"zip": {"role": "quasi"}}, Requirements([KAnonymity(2)]), method="careless").fit(table)
    finally:
        registry.unregister("careless")
    assert registry.accountable("mondrian") == "anonset"


def test_a_partitioning_method_cannot_declare_it_runs_in_a_database() -> None:
    """anonset has no flow that groups records left in a database: the declaration is refused, not a later fit."""
    from anonset.methods.base import Method

    with pytest.raises(ValueError, match="method 'grouped-in-sql': a partitioning method needs the records in memory;"
                                         " declare in_memory=True"):
        Method(name="grouped-in-sql", family=Family.GROUPING, summary="", fit=lambda problem: None, in_memory=False)
    assert not Method(name="node", family=Family.NODE, summary="", fit=lambda problem: None, in_memory=False).in_memory
