"""One conformance suite for every engine: the same class statistics as a reference, node by node.

The engines are the entries of the registry in tests/conftest.py
(:data:`conftest.ENGINES`): today the numpy engine, the SQL engine on DuckDB
(a registered DataFrame, and a CSV file read as text), the SQL engine on
PostgreSQL (the table loaded into a schema of its own; the dataset built from
the table's profile, so no row is read into Python) and the Spark engine.
The checks are anonset's own (:func:`anonset.testing.engine_checks`), so an
engine written outside anonset runs the same ones: every test here runs one
check on one entry.  Each engine is compared with the numpy engine; the
reference entry (the numpy engine) with an independent computation (pandas
over the released labels, :func:`anonset.testing.engines.independent_stats`),
never with itself.  Hierarchies given in builder form are built by each
engine's own path (from the rows, or from the database's value counts) and
must come out the same.  The protocol's other members (name, request,
counters, close) are checked too.  PostgreSQL tests skip with the reason when
the server is unreachable (set ANONSET_TEST_PG_URL to point elsewhere).

The Adult sample (reference data) and the checks' own ability to fail are
tested here too.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import AttributeSpec, Dataset
from anonset.core.stats import ClassStats, StatsRequest
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.hierarchy import read_hierarchy
from anonset.io.tables import read_table
from anonset.methods.full_domain.search import lattice_of
from anonset.testing import EngineFactory, engine_checks
from anonset.testing.data import engine_case
from anonset.testing.engines import (
    PROTOCOL_MEMBERS,
    assert_matches_independent,
    assert_same_stats,
    compare_with_reference,
)
from support import require_adult

if TYPE_CHECKING:
    import conftest

ADULT_QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")


def _unbuilt(stack: ExitStack, *args: Any, **kwargs: Any) -> tuple[Engine, Dataset]:
    raise AssertionError("only the checks' names are read here")


#: Every check of an engine, by name (the same for every entry of the registry).
CHECKS = [name for name, _ in engine_checks(EngineFactory("any", _unbuilt))]


def as_factory(entry: conftest.EngineFactory, request: pytest.FixtureRequest, tmp_path: Path) -> EngineFactory:
    """An entry of the test registry as anonset.testing builds engines (its context: the test's fixtures)."""
    from conftest import EngineContext

    def build(stack: ExitStack, *args: Any, **kwargs: Any) -> tuple[Engine, Dataset]:
        return entry.build(EngineContext(stack, tmp_path, request), *args, **kwargs)

    return EngineFactory(entry.name, build, reference=entry.reference, database=entry.database,
                         rolls_up_locally=entry.rolls_up_locally)


@pytest.mark.parametrize("check", CHECKS)
def test_engine_conformance(engine_factory: conftest.EngineFactory, check: str, request: pytest.FixtureRequest,
                            tmp_path: Path) -> None:
    dict(engine_checks(as_factory(engine_factory, request, tmp_path)))[check]()


def test_every_check_is_the_same_for_every_declaration() -> None:
    """The suite parametrizes by name: every declaration must give the same checks."""
    for reference in (False, True):
        for database in (False, True):
            factory = EngineFactory("any", _unbuilt, reference=reference, database=database)
            assert [name for name, _ in engine_checks(factory)] == CHECKS
    assert {"name", "request", "rows_fetched", "close", "class_stats"} <= set(PROTOCOL_MEMBERS)


# --------------------------------------------------------------------------- the Adult sample (reference data)
def _adult() -> tuple[pd.DataFrame, dict[str, Any]]:
    adult = require_adult()
    table = read_table(adult / "adult.csv", ";")
    attrs: dict[str, Any] = {c: AttributeSpec(role="quasi", hierarchy=read_hierarchy(adult / "hierarchies" / f"{c}.csv",
                                                                                       name=c))
                             for c in ADULT_QUASI}
    attrs["occupation"] = AttributeSpec(role="sensitive")
    return table, attrs


@pytest.fixture(scope="module")
def adult_reference() -> tuple[pd.DataFrame, dict[str, Any], NumpyEngine]:
    table, attrs = _adult()
    return table, attrs, NumpyEngine(Dataset(table, attrs), StatsRequest(frozenset({"occupation"})))


def test_adult_sample_of_nodes(make_engine: conftest.MakeEngine, engine_factory: conftest.EngineFactory,
                               adult_reference: tuple, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    table, attrs, reference = adult_reference
    req = StatsRequest(frozenset({"occupation"}))
    engine, ds = make_engine(table, attrs, req, cache_cells=200_000)
    nodes = lattice_of(ds).nodes
    pick = np.random.default_rng(7).choice(len(nodes), 25, replace=False)
    sample = [nodes[0], nodes[-1], *nodes[pick]]
    factory = as_factory(engine_factory, request, tmp_path)
    for node in sample:
        levels = tuple(int(v) for v in node)
        compare_with_reference(factory, table, ds, reference, engine.class_stats(levels), levels, req)


# --------------------------------------------------------------------------- the checks themselves can fail
def _altered(stats: ClassStats, what: str) -> ClassStats:
    sizes, keys = stats.sizes.copy(), stats.keys.copy()
    hists = {a: h.copy() for a, h in stats.histograms.items()}
    sums = {a: s.copy() for a, s in stats.sums.items()}
    if what == "sizes":
        sizes[0] += 1
    elif what == "keys":
        keys[0, 0] = keys[-1, 0] if keys[0, 0] != keys[-1, 0] else keys[0, 0] + 1
    elif what == "histograms":
        h = hists["s"]
        h[0, 0], h[0, 1] = h[0, 1] + 1, h[0, 0] - 1 if h[0, 0] else h[0, 0] + 1
    else:
        sums["x"][0] += 1e-6 * max(1.0, abs(sums["x"][0]))
    return ClassStats(sizes=sizes, keys=keys, histograms=hists, sums=sums, sumsq=stats.sumsq, levels=stats.levels)


@pytest.mark.parametrize("what", ["sizes", "keys", "histograms", "sums"])
def test_the_comparisons_detect_a_wrong_statistic(what: str) -> None:
    table, attrs = engine_case(0)
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    ds = Dataset(table, attrs)
    engine = NumpyEngine(ds, req)
    levels = tuple(int(v) for v in lattice_of(ds).nodes[0])
    good = engine.class_stats(levels)
    assert_same_stats(good, good, levels)
    assert_matches_independent(table, ds, good, levels, req)
    bad = _altered(good, what)
    with pytest.raises(AssertionError):
        assert_same_stats(good, bad, levels)
    with pytest.raises((AssertionError, KeyError)):
        assert_matches_independent(table, ds, bad, levels, req)
