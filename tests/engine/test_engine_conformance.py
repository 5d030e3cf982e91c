"""One conformance suite for every engine: the same class statistics as a reference, node by node.

The engines are the entries of the registry in tests/conftest.py
(:data:`conftest.ENGINES`): today the numpy engine, the SQL engine on DuckDB
(a registered DataFrame, and a CSV file read as text), and the SQL engine on
PostgreSQL (the table loaded into a schema of its own; the dataset built from
the table's profile, so no row is read into Python).  Every test taking
``make_engine`` runs once per entry.  Each engine is compared with the
reference entry (the numpy engine); the reference is compared with an
independent computation (pandas over the released labels,
:func:`independent_stats`), never with itself.  Hierarchies given in builder
form are built by each engine's own path (from the rows, or from the
database's value counts) and must come out the same.  The protocol's other
members (name, request, counters, close) are checked too.  PostgreSQL tests
skip with the reason when the server is unreachable (set ANONSET_TEST_PG_URL
to point elsewhere).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import AttributeSpec, Dataset
from anonset.core.stats import ClassStats, StatsRequest
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import DataError
from anonset.hierarchy import read_hierarchy
from anonset.io.tables import read_table
from anonset.methods.full_domain.search import lattice_of
from support import random_table, require_adult

if TYPE_CHECKING:
    from conftest import EngineFactory, MakeEngine

ADULT_QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")


def canonical(stats: ClassStats) -> dict[str, np.ndarray]:
    """The statistics with classes sorted by key."""
    order = np.lexsort(stats.keys.T[::-1]) if stats.keys.shape[1] else np.arange(stats.n_classes)
    out = {"keys": stats.keys[order], "sizes": stats.sizes[order]}
    out.update({f"h:{a}": h[order] for a, h in stats.histograms.items()})
    out.update({f"s:{a}": s[order] for a, s in stats.sums.items()})
    out.update({f"q:{a}": s[order] for a, s in stats.sumsq.items()})
    return out


def independent_stats(table: pd.DataFrame, ds: Dataset, levels: tuple[int, ...],
                      req: StatsRequest) -> dict[tuple[str, ...], tuple[int, Counter, dict[str, float]]]:
    """Per class (tuple of released labels): size, sensitive value counts, sums and sums of squares.

    Computed from the raw table and the hierarchies' rows with plain Python,
    sharing no code with the engines.
    """
    labels = []
    for q, level in zip(ds.quasi, levels, strict=True):
        up = {row[0]: row[level] for row in ds.require_hierarchy(q).rows()}
        marker = ds.specs[q].missing[0]
        labels.append([up[str(v)] for v in table[q].fillna(marker)])
    keys = list(zip(*labels, strict=True)) if labels else [()] * len(table)
    values = {a: [str(v) for v in table[a].fillna(ds.specs[a].missing[0])] for a in req.histograms}
    numbers = {a: [float(v) for v in table[a]] for a in req.moments}
    out: dict[tuple[str, ...], tuple[int, Counter, dict[str, float]]] = {}
    for i, key in enumerate(keys):
        size, counts, sums = out.get(key, (0, Counter(), {}))
        for a in values:
            counts[(a, values[a][i])] += 1
        for a in numbers:
            x = numbers[a][i]
            sums[f"s:{a}"] = sums.get(f"s:{a}", 0.0) + x
            sums[f"q:{a}"] = sums.get(f"q:{a}", 0.0) + x * x
        out[key] = (size + 1, counts, sums)
    return out


def assert_matches_independent(table: pd.DataFrame, ds: Dataset, stats: ClassStats, levels: tuple[int, ...],
                               req: StatsRequest) -> None:
    """The engine's statistics, translated to labels, equal :func:`independent_stats`."""
    expected = independent_stats(table, ds, levels, req)
    assert stats.n_classes == len(expected), levels
    for c in range(stats.n_classes):
        key = tuple(str(ds.require_hierarchy(q).labels[lv][stats.keys[c, j]])
                    for j, (q, lv) in enumerate(zip(ds.quasi, levels, strict=True)))
        size, counts, sums = expected[key]
        assert int(stats.sizes[c]) == size, (levels, key)
        got = Counter({(a, str(ds.encoded[a].categories[v])): int(n)
                       for a, h in stats.histograms.items() for v, n in enumerate(h[c]) if n})
        assert got == counts, (levels, key)
        for a in req.moments:
            assert stats.sums[a][c] == pytest.approx(sums[f"s:{a}"], rel=1e-10), (levels, key)
            assert stats.sumsq[a][c] == pytest.approx(sums[f"q:{a}"], rel=1e-10), (levels, key)


def check_engine(factory: EngineFactory, table: pd.DataFrame, ds: Dataset, reference: NumpyEngine,
                 stats: ClassStats, levels: tuple[int, ...], req: StatsRequest) -> None:
    """Every engine against the numpy reference; the reference engine against the independent computation."""
    if factory.reference:
        assert_matches_independent(table, ds, stats, levels, req)
    else:
        assert_same_stats(reference.class_stats(levels), stats, levels)


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
def test_every_node_matches_the_reference(make_engine: MakeEngine, engine_factory: EngineFactory, seed: int) -> None:
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
        check_engine(engine_factory, table, ds, reference, stats, levels, req)
    assert engine.nodes_computed >= len(nodes) - 1


def test_request_without_sensitive_statistics(make_engine: MakeEngine, engine_factory: EngineFactory) -> None:
    table, attrs = _random_case(5)
    reference = NumpyEngine(Dataset(table, attrs))
    engine, ds = make_engine(table, attrs, StatsRequest())
    for node in lattice_of(ds).nodes[::3]:
        levels = tuple(int(v) for v in node)
        stats = engine.class_stats(levels)
        assert not stats.histograms and not stats.sums
        check_engine(engine_factory, table, ds, reference, stats, levels, StatsRequest())


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


def test_adult_sample_of_nodes(make_engine: MakeEngine, engine_factory: EngineFactory, adult_reference: tuple) -> None:
    table, attrs, reference = adult_reference
    req = StatsRequest(frozenset({"occupation"}))
    engine, ds = make_engine(table, attrs, req, cache_cells=200_000)
    nodes = lattice_of(ds).nodes
    pick = np.random.default_rng(7).choice(len(nodes), 25, replace=False)
    sample = [nodes[0], nodes[-1], *nodes[pick]]
    for node in sample:
        levels = tuple(int(v) for v in node)
        check_engine(engine_factory, table, ds, reference, engine.class_stats(levels), levels, req)


def test_row_classes_assign_rows_to_their_classes(make_engine: MakeEngine) -> None:
    table, attrs = _random_case(2)
    engine, ds = make_engine(table, attrs, StatsRequest())
    levels = tuple(min(1, h.max_level) for h in ds.hierarchies)
    if not ds.in_memory:  # a table in PostgreSQL is released in SQL; its rows are never read
        with pytest.raises(DataError, match="released in (SQL|Spark)"):
            engine.row_classes(levels)
        return
    row_class, stats = engine.row_classes(levels)
    np.testing.assert_array_equal(np.bincount(row_class, minlength=stats.n_classes), stats.sizes)
    for j, q in enumerate(ds.quasi):
        h = ds.hierarchy(q)
        np.testing.assert_array_equal(stats.keys[row_class, j], h.generalize(ds.encoded[q].codes, levels[j]))


def test_no_quasi_identifiers_gives_one_class(make_engine: MakeEngine, engine_factory: EngineFactory) -> None:
    table, attrs = _random_case(3)
    attrs = {"s": attrs["s"], "x": attrs["x"]}
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    reference = NumpyEngine(Dataset(table, attrs), req)
    engine, ds = make_engine(table, attrs, req)
    stats = engine.class_stats(())
    assert stats.n_classes == 1 and stats.keys.shape == (1, 0)
    check_engine(engine_factory, table, ds, reference, stats, (), req)


# --------------------------------------------------------------------------- hierarchies in builder form
CHILDREN = ["Zero", "One", "Two", "Three", "Four", "Five"]


def _builder_case(seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every builder, given in its configuration form; the first rows are not in sorted order."""
    rng = np.random.default_rng(seed)
    n = 300
    days = pd.Timestamp("2019-11-20") + pd.to_timedelta(rng.integers(0, 120, n), unit="D")
    table = pd.DataFrame({
        "edu": rng.choice(["1", "2", "3", "4"], n),
        "children": rng.choice(CHILDREN, n),
        "age": rng.integers(17, 80, n).astype(str),
        "zip": rng.choice(["47906", "47907", "47911", "48000", "48012"], n),
        "day": days.strftime("%Y-%m-%d"),
        "colour": rng.choice(["red", "green", "blue"], n),
        "s": [f"s{v}" for v in rng.integers(0, 4, n)],
        "x": rng.integers(0, 50, n).astype(str),
    }, dtype=object)
    table.loc[:3, "edu"] = ["3", "4", "2", "1"]  # as in the cmc file: first appearance is not the order
    table.loc[:5, "children"] = ["Two", "Zero", "Five", "One", "Four", "Three"]
    if seed % 2:
        table.loc[rng.random(n) < 0.1, "age"] = None
    attrs: dict[str, Any] = {
        "edu": {"role": "quasi", "hierarchy": {"builder": "ordered", "fanouts": [2, 2]}},
        "children": {"role": "quasi", "type": "ordinal", "order": CHILDREN,
                     "hierarchy": {"builder": "ordered", "fanouts": [3]}},
        "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
        "zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 3}},
        "day": {"role": "quasi", "type": "date", "hierarchy": {"builder": "dates", "levels": ["month", "year"]}},
        "colour": {"role": "quasi", "hierarchy": {"builder": "flat"}},
        "s": {"role": "sensitive"},
        "x": {"role": "sensitive", "type": "numeric"},
    }
    return table, attrs


@pytest.mark.parametrize("seed", range(2))
def test_builder_hierarchies_are_the_same_on_every_path(make_engine: MakeEngine, engine_factory: EngineFactory,
                                                       seed: int) -> None:
    """Built from the rows (numpy, DuckDB) or from the database's value counts (PostgreSQL): one hierarchy."""
    table, attrs = _builder_case(seed)
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    memory = Dataset(table, attrs)
    reference = NumpyEngine(memory, req)
    engine, ds = make_engine(table, attrs, req)
    for q in memory.quasi:
        assert ds.require_hierarchy(q).rows() == memory.require_hierarchy(q).rows(), q
    # by hand: groups of the sorted values (not of their order of appearance); "1..4" would equal the root
    assert ds.require_hierarchy("edu").rows() == [["1", "1..2", "*"], ["2", "1..2", "*"], ["3", "3..4", "*"],
                                                  ["4", "3..4", "*"]]
    assert ds.require_hierarchy("children").rows() == [[c, "Zero..Two" if i < 3 else "Three..Five", "*"]
                                                       for i, c in enumerate(CHILDREN)]
    assert [r[1:] for r in ds.require_hierarchy("zip").rows()] == [
        ["4790*", "479**", "47***", "*"], ["4790*", "479**", "47***", "*"], ["4791*", "479**", "47***", "*"],
        ["4800*", "480**", "48***", "*"], ["4801*", "480**", "48***", "*"]]
    nodes = lattice_of(ds).nodes
    pick = np.random.default_rng(seed).choice(len(nodes), 30, replace=False)
    for node in [nodes[0], nodes[-1], *nodes[pick]]:
        levels = tuple(int(v) for v in node)
        check_engine(engine_factory, table, ds, reference, engine.class_stats(levels), levels, req)


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
    table, attrs = _random_case(0)
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


# --------------------------------------------------------------------------- the protocol's other members
#: Every member of the Engine protocol (checked by mypy for the engines in src/, here for every registered one).
PROTOCOL_MEMBERS = sorted(n for n in vars(Engine) if not n.startswith("_")) + ["__enter__", "__exit__"]


def test_protocol_members(make_engine: MakeEngine, engine_factory: EngineFactory) -> None:
    table, attrs = _random_case(1)
    req = StatsRequest(frozenset({"s"}))
    engine, ds = make_engine(table, attrs, req)
    assert {"name", "request", "rows_fetched", "close", "class_stats"} <= set(PROTOCOL_MEMBERS)
    assert [m for m in PROTOCOL_MEMBERS if not hasattr(engine, m)] == []
    assert engine.name == engine_factory.name
    assert engine.dataset is ds and engine.request == req
    nodes = lattice_of(ds).nodes
    before = engine.rows_fetched
    stats = engine.class_stats(tuple(int(v) for v in nodes[1]))
    after = engine.rows_fetched
    if engine_factory.rolls_up_locally:  # the bottom class table came once; nodes are rolled up on the driver
        assert isinstance(before, int) and after == before >= stats.n_classes
    elif engine_factory.database:  # exactly the class table's rows travel
        assert isinstance(before, int) and isinstance(after, int)
        assert after - before == stats.n_classes
    else:
        assert before is None and after is None
    assert engine.nodes_computed >= 1 and engine.rows_read >= stats.n_classes


def test_close_is_idempotent_and_ends_the_engine(make_engine: MakeEngine) -> None:
    table, attrs = _random_case(1)
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    engine, ds = make_engine(table, attrs, req)
    levels = tuple(int(v) for v in lattice_of(ds).nodes[-1])
    engine.class_stats(levels)
    with engine as same:
        assert same is engine
    engine.close()  # again: nothing happens (and the fixture closes it a third time)
    for call in (lambda: engine.class_stats(levels), lambda: engine.small_class_rows(levels, 2),
                 lambda: engine.row_classes(levels)):
        with pytest.raises(RuntimeError, match="closed"):
            call()
    assert engine.name and engine.dataset is ds and engine.request == req  # still readable
    assert engine.nodes_computed >= 0 and engine.rows_read >= 0
