"""One conformance suite for every engine: the same class statistics as the numpy reference, node by node.

Engines: the numpy engine itself, the SQL engine on DuckDB (a registered
DataFrame, and a CSV file read as text), and the SQL engine on PostgreSQL
(the table loaded into a schema of its own; the dataset built from the
table's profile, so no row is read into Python).  PostgreSQL tests skip with
the reason when the server is unreachable (set ANONSET_TEST_PG_URL to point
elsewhere).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.dataset import AttributeSpec, Dataset
from anonset.engine import ClassStats, NumpyEngine, StatsRequest
from anonset.engine.sql_backends import DuckDBBackend, PostgresBackend
from anonset.engine.sql_engine import SqlEngine
from anonset.engine.sql_profile import dataset_from_table
from anonset.errors import DataError
from anonset.hierarchy import read_hierarchy
from anonset.io.tables import read_table, write_table
from anonset.search.full_domain import lattice_of
from support import PG_URL, PgSchema, random_table, require_adult

ENGINES = ["numpy", "duckdb-frame", "duckdb-csv", "postgres"]
ADULT_QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")

# make(table, attributes, request, cache_cells=..., direct_rows=...) -> (engine, dataset); the fixture closes it all.
MakeEngine = Callable[..., tuple[Any, Dataset]]


# --------------------------------------------------------------------------- PostgreSQL
@pytest.fixture(scope="module")
def pg() -> Iterator[PgSchema]:
    schema = PgSchema(PG_URL)
    yield schema
    schema.close()


# --------------------------------------------------------------------------- engines
@pytest.fixture(params=ENGINES)
def make_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MakeEngine]:
    kind = request.param
    pg_schema = request.getfixturevalue("pg") if kind == "postgres" else None
    stack = ExitStack()

    def make(table: pd.DataFrame, attributes: dict[str, Any], req: StatsRequest,
             cache_cells: int = 20_000_000, direct_rows: int = 2_000) -> tuple[Any, Dataset]:
        options = {"cache_cells": cache_cells, "direct_rows": direct_rows}
        if kind == "numpy":
            ds = Dataset(table, attributes)
            return NumpyEngine(ds, req, cache_cells=cache_cells), ds
        if kind == "duckdb-frame":
            ds = Dataset(table, attributes)
            backend = stack.enter_context(DuckDBBackend.from_dataframe(table))
            return stack.enter_context(SqlEngine(ds, req, backend, "data", **options)), ds
        if kind == "duckdb-csv":
            path = tmp_path / f"table{secrets.token_hex(3)}.csv"
            write_table(table, path, delimiter=";")
            ds = Dataset(read_table(path, ";"), attributes, source=str(path))
            backend = stack.enter_context(DuckDBBackend.from_file(path, ";"))
            return stack.enter_context(SqlEngine(ds, req, backend, "data", **options)), ds
        assert pg_schema is not None
        ref = pg_schema.load(table)
        backend = stack.enter_context(PostgresBackend(pg_schema.url))
        ds = dataset_from_table(backend, ref, attributes)
        return stack.enter_context(SqlEngine(ds, req, backend, ref, **options)), ds

    yield make
    stack.close()


def canonical(stats: ClassStats) -> dict[str, np.ndarray]:
    """The statistics with classes sorted by key."""
    order = np.lexsort(stats.keys.T[::-1]) if stats.keys.shape[1] else np.arange(stats.n_classes)
    out = {"keys": stats.keys[order], "sizes": stats.sizes[order]}
    out.update({f"h:{a}": h[order] for a, h in stats.histograms.items()})
    out.update({f"s:{a}": s[order] for a, s in stats.sums.items()})
    out.update({f"q:{a}": s[order] for a, s in stats.sumsq.items()})
    return out


def assert_same_stats(expected: ClassStats, got: ClassStats, levels: tuple[int, ...]) -> None:
    a, b = canonical(expected), canonical(got)
    assert sorted(a) == sorted(b), levels
    assert got.levels == levels
    assert got.keys.dtype == np.int32 and got.sizes.dtype == np.int64
    for name in a:
        if name.startswith(("s:", "q:")):
            np.testing.assert_allclose(b[name], a[name], rtol=1e-10, err_msg=f"{name} at {levels}")
        else:
            np.testing.assert_array_equal(b[name], a[name], err_msg=f"{name} at {levels}")


# --------------------------------------------------------------------------- the suite
def _random_case(seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, int(rng.integers(150, 400)), int(rng.integers(2, 5)))
    if seed % 2:  # missing values: NULL in the database, '' (the default marker) in the dataset
        table.loc[rng.random(len(table)) < 0.1, "q0"] = None
        table.loc[rng.random(len(table)) < 0.05, "s"] = None
    if seed % 3 == 0:  # non-integer numbers: sums added in another order differ in the last bits only
        table["x"] = np.round(rng.normal(50.0, 20.0, len(table)), 3).astype(str).astype(object)
    attrs: dict[str, Any] = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["x"] = {"role": "sensitive", "type": "numeric"}
    return table, attrs


@pytest.mark.parametrize("seed", range(4))
def test_every_node_matches_the_numpy_engine(make_engine: MakeEngine, seed: int) -> None:
    table, attrs = _random_case(seed)
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    reference = NumpyEngine(Dataset(table, attrs), req)
    # even seeds: every node materialized in a small cache (evictions happen); odd: small nodes fetched directly
    engine, ds = make_engine(table, attrs, req, cache_cells=300, direct_rows=0 if seed % 2 == 0 else 2_000)
    assert ds.n_rows == len(table)
    nodes = lattice_of(ds).nodes
    order = np.random.default_rng(seed).permutation(len(nodes))
    for node in nodes[order]:
        levels = tuple(int(v) for v in node)
        stats = engine.class_stats(levels)
        assert stats.n_rows == len(table)
        assert_same_stats(reference.class_stats(levels), stats, levels)
    assert engine.nodes_computed >= len(nodes) - 1


def test_request_without_sensitive_statistics(make_engine: MakeEngine) -> None:
    table, attrs = _random_case(5)
    reference = NumpyEngine(Dataset(table, attrs))
    engine, ds = make_engine(table, attrs, StatsRequest())
    for node in lattice_of(ds).nodes[::3]:
        levels = tuple(int(v) for v in node)
        assert_same_stats(reference.class_stats(levels), engine.class_stats(levels), levels)


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


def test_adult_sample_of_nodes(make_engine: MakeEngine, adult_reference: tuple) -> None:
    table, attrs, reference = adult_reference
    engine, ds = make_engine(table, attrs, StatsRequest(frozenset({"occupation"})), cache_cells=200_000)
    nodes = lattice_of(ds).nodes
    pick = np.random.default_rng(7).choice(len(nodes), 25, replace=False)
    sample = [nodes[0], nodes[-1], *nodes[pick]]
    for node in sample:
        levels = tuple(int(v) for v in node)
        assert_same_stats(reference.class_stats(levels), engine.class_stats(levels), levels)


def test_row_classes_assign_rows_to_their_classes(make_engine: MakeEngine) -> None:
    table, attrs = _random_case(2)
    engine, ds = make_engine(table, attrs, StatsRequest())
    levels = tuple(min(1, h.max_level) for h in ds.hierarchies)
    if not ds.in_memory:  # a table in PostgreSQL is released in SQL; its rows are never read
        with pytest.raises(DataError, match="released in SQL"):
            engine.row_classes(levels)
        return
    row_class, stats = engine.row_classes(levels)
    np.testing.assert_array_equal(np.bincount(row_class, minlength=stats.n_classes), stats.sizes)
    for j, q in enumerate(ds.quasi):
        h = ds.hierarchy(q)
        np.testing.assert_array_equal(stats.keys[row_class, j], h.generalize(ds.encoded[q].codes, levels[j]))


def test_no_quasi_identifiers_gives_one_class(make_engine: MakeEngine) -> None:
    table, attrs = _random_case(3)
    attrs = {"s": attrs["s"], "x": attrs["x"]}
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    reference = NumpyEngine(Dataset(table, attrs), req)
    engine, _ = make_engine(table, attrs, req)
    stats = engine.class_stats(())
    assert stats.n_classes == 1 and stats.keys.shape == (1, 0)
    assert_same_stats(reference.class_stats(()), stats, ())
