"""The checks of an engine: the same class statistics as a reference, node by node, and the protocol's members.

An engine is described by an :class:`EngineFactory` (how to build one over a
table, and what it declares: its name, whether it reads a database, whether
it rolls nodes up on the driver).  :func:`engine_checks` yields its checks:

- every node of the lattice of four synthetic registers (missing values,
  non-integer sums, a small cache that evicts, small nodes fetched
  directly) gives the same class statistics as the numpy engine; the
  reference engine (the numpy engine itself) is compared with an
  independent computation with pandas over the released labels instead,
  never with itself;
- a request without sensitive statistics returns none;
- built over a dataset with a minimum generalization (``min_level``), the
  engine counts its most specific classes at the floor (``bottom_levels``),
  every node from the floor up equals the unfloored reference's, a node
  below the floor is refused, and an engine that fetches its bottom class
  table once fetches the floor's classes only;
- ``row_classes`` assigns every record to its class (an engine whose
  records stay in a database refuses it);
- no quasi-identifier gives one class;
- hierarchies given in builder form come out the same whichever path
  builds them (from the records, or from the database's value counts);
- the protocol's other members: ``name``, ``dataset``, ``request``, the
  counters, and ``close`` (idempotent, and the engine refuses work after it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats, StatsRequest
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import DataError
from anonset.methods.full_domain.search import lattice_of
from anonset.testing.checks import Check, expect, raises
from anonset.testing.data import BUILDER_CHILDREN, builder_case, engine_case

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "PROTOCOL_MEMBERS",
    "EngineFactory",
    "assert_matches_independent",
    "assert_same_stats",
    "canonical",
    "check_engine",
    "compare_with_reference",
    "engine_checks",
    "independent_stats",
]

#: build(stack, table, attributes, request, *, cache_cells, direct_rows) -> (engine, the dataset it was built for)
Build = Callable[..., tuple[Engine, Dataset]]


@dataclass(frozen=True)
class EngineFactory:
    """One kind of engine, as the checks build and judge it.

    Attributes
    ----------
    name : str
        What the engine's ``name`` must be.
    build : callable
        ``build(stack, table, attributes, request, *, cache_cells, direct_rows)``:
        the engine over ``table`` (a DataFrame of text and ``None``) with the
        attribute specs, and the dataset it was built for (built the way that
        engine's users build it: from the records, a file, or the database's
        value counts), counted as a run counts it: at the dataset's minimum
        generalization (``floor=dataset.min_levels``).  Whatever it opens goes on ``stack``
        (a :class:`contextlib.ExitStack`), closed when the check ends.
        ``cache_cells`` bounds the cells of class tables it may keep,
        ``direct_rows`` the size under which it may fetch a node's classes
        directly (an engine ignores what it has no use for).
    reference : bool
        The reference engine is checked against an independent computation;
        every other engine against the numpy engine.
    database : bool
        The engine fetches from a database (``rows_fetched`` is an int);
        otherwise it holds the records in memory (``rows_fetched`` is None).
    rolls_up_locally : bool
        The engine fetches the bottom class table once and rolls every node
        up on the driver: ``rows_fetched`` does not grow per node.
    """

    name: str
    build: Build
    reference: bool = False
    database: bool = True
    rolls_up_locally: bool = False


def check_engine(factory: EngineFactory) -> None:
    """Run every check of the engine ``factory`` builds; the first failure raises :class:`CheckFailure`."""
    for _, check in engine_checks(factory):
        check()


def engine_checks(factory: EngineFactory) -> Iterator[tuple[str, Check]]:
    """The engine's checks as ``(name, check)`` pairs; calling a check builds the engines it needs and runs it."""
    subject = f"engine {factory.name!r}"

    def make(name: str, body: Callable[[Builder], None]) -> tuple[str, Check]:
        def run() -> None:
            with ExitStack() as stack:
                body(Builder(factory, stack))
        return name, Check(subject, name, run)

    for seed in range(4):
        yield make(f"every_node_matches_the_reference[{seed}]", _every_node(seed))
    for seed in range(2):
        yield make(f"counted_at_a_floor[{seed}]", _counted_at_a_floor(seed))
    yield make("a_request_without_sensitive_statistics", _request_without_sensitive_statistics)
    yield make("row_classes_assign_records_to_their_classes", _row_classes)
    yield make("no_quasi_identifier_gives_one_class", _no_quasi_identifiers_gives_one_class)
    for seed in range(2):
        yield make(f"builder_hierarchies_are_the_same_on_every_path[{seed}]", _builder_hierarchies(seed))
    yield make("protocol_members", _protocol_members)
    yield make("close_is_idempotent_and_ends_the_engine", _close_is_idempotent)


@dataclass
class Builder:
    """Engines of one factory for one check; everything they open is closed when the check ends."""

    factory: EngineFactory
    stack: ExitStack

    def __call__(self, table: pd.DataFrame, attributes: dict[str, Any], request: StatsRequest,
                 cache_cells: int = 20_000_000, direct_rows: int = 2_000) -> tuple[Engine, Dataset]:
        return self.factory.build(self.stack, table, attributes, request, cache_cells=cache_cells,
                                  direct_rows=direct_rows)


# --------------------------------------------------------------------------- the comparisons
def canonical(stats: ClassStats) -> dict[str, NDArray[Any]]:
    """The statistics with classes sorted by key."""
    order = np.lexsort(stats.keys.T[::-1]) if stats.keys.shape[1] else np.arange(stats.n_classes)
    out = {"keys": stats.keys[order], "sizes": stats.sizes[order]}
    out.update({f"h:{a}": h[order] for a, h in stats.histograms.items()})
    out.update({f"s:{a}": s[order] for a, s in stats.sums.items()})
    out.update({f"q:{a}": s[order] for a, s in stats.sumsq.items()})
    return out


def independent_stats(table: pd.DataFrame, ds: Dataset, levels: tuple[int, ...],
                      req: StatsRequest) -> dict[tuple[str, ...], tuple[int, dict[tuple[str, str], int],
                                                                     dict[str, float]]]:
    """Per class (tuple of released labels): size, counts of each (attribute, value), sums and sums of squares.

    Computed from the raw table and the hierarchies' rows (each leaf's label
    at its level), sharing no code with the engines: the records are grouped
    on their labels with numpy.
    """
    n = len(table)
    columns, labels = [], []
    for q, level in zip(ds.quasi, levels, strict=True):
        up = {row[0]: row[level] for row in ds.require_hierarchy(q).rows()}
        marker = ds.specs[q].missing[0]
        text = table[q].astype(object).where(table[q].notna(), marker).astype(str)
        codes, uniques = pd.factorize(text.map(up), use_na_sentinel=True)
        columns.append(codes)
        labels.append(np.append(np.asarray(uniques, dtype=object).astype(str), "<no label>"))  # -1: none
    if columns:
        rows, inverse = _distinct_rows(columns)
    else:
        rows, inverse = np.zeros((1 if n else 0, 0), dtype=np.int64), np.zeros(n, dtype=np.int64)
    n_classes = len(rows)
    texts = [labels[j][rows[:, j]] for j in range(rows.shape[1])]
    keys = list(zip(*texts, strict=True)) if texts else [()] * n_classes
    sizes = np.bincount(inverse, minlength=n_classes)
    out: dict[tuple[str, ...], tuple[int, dict[tuple[str, str], int], dict[str, float]]] = {
        keys[c]: (int(sizes[c]), {}, {}) for c in range(n_classes)}
    for a in req.histograms:
        text = table[a].astype(object).where(table[a].notna(), ds.specs[a].missing[0]).astype(str)
        values, found = pd.factorize(text)
        uniques = np.asarray(found, dtype=object).astype(str).tolist()
        counts = np.bincount(inverse * len(uniques) + values, minlength=n_classes * len(uniques))
        counts = counts.reshape(n_classes, len(uniques))
        classes, which = np.nonzero(counts)
        for c, v, k in zip(classes.tolist(), which.tolist(), counts[classes, which].tolist(), strict=True):
            out[keys[c]][1][(a, uniques[v])] = k
    for a in req.moments:
        x = table[a].astype(float).to_numpy()
        sums, squares = np.bincount(inverse, x, n_classes), np.bincount(inverse, x * x, n_classes)
        for c in range(n_classes):
            out[keys[c]][2].update({f"s:{a}": float(sums[c]), f"q:{a}": float(squares[c])})
    return out


def _distinct_rows(columns: list[NDArray[np.intp]]) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """The distinct rows of the code columns (each from −1) in lexicographic order, and each record's row.

    The codes are read as the digits of one integer per record (a sort of
    one number instead of a sort of rows), unless those integers could pass 2**62.
    """
    radix = [int(c.max(initial=-1)) + 2 for c in columns]
    if float(np.prod(radix, dtype=np.float64)) >= 2.0**62:
        rows, inverse = np.unique(np.column_stack(columns), axis=0, return_inverse=True)
        return rows.astype(np.int64), inverse.reshape(-1)
    number = np.zeros(len(columns[0]), dtype=np.int64)
    for codes, base in zip(columns, radix, strict=True):
        number = number * base + (codes.astype(np.int64) + 1)
    distinct, inverse = np.unique(number, return_inverse=True)
    rows = np.empty((len(distinct), len(columns)), dtype=np.int64)
    for j in range(len(columns) - 1, -1, -1):
        distinct, digit = np.divmod(distinct, radix[j])
        rows[:, j] = digit - 1
    return rows, inverse.reshape(-1)


def assert_matches_independent(table: pd.DataFrame, ds: Dataset, stats: ClassStats, levels: tuple[int, ...],
                               req: StatsRequest) -> None:
    """The engine's statistics, translated to labels, equal :func:`independent_stats` (else ``AssertionError``)."""
    expected = independent_stats(table, ds, levels, req)
    expect(stats.n_classes == len(expected), f"node {levels}: {stats.n_classes} classes, computed independently"
           f" {len(expected)}")
    texts = [np.asarray(ds.require_hierarchy(q).labels[lv], dtype=object).astype(str)[stats.keys[:, j]]
             for j, (q, lv) in enumerate(zip(ds.quasi, levels, strict=True))]
    keys = list(zip(*texts, strict=True)) if texts else [()] * stats.n_classes
    got: list[dict[tuple[str, str], int]] = [{} for _ in range(stats.n_classes)]
    for a, h in stats.histograms.items():
        categories = np.asarray(ds.encoded[a].categories, dtype=object).astype(str).tolist()
        classes, which = np.nonzero(h)
        for c, v, n in zip(classes.tolist(), which.tolist(), h[classes, which].tolist(), strict=True):
            got[c][(a, categories[v])] = int(n)
    for c, key in enumerate(keys):  # messages are made only for a class that fails (thousands pass)
        if key not in expected:
            raise AssertionError(f"node {levels}: class {key} is no class of the table")
        size, counts, sums = expected[key]
        if int(stats.sizes[c]) != size:
            raise AssertionError(f"node {levels}, class {key}: size {int(stats.sizes[c])}, computed independently"
                                 f" {size}")
        if got[c] != counts:
            raise AssertionError(f"node {levels}, class {key}: value counts {got[c]}, computed independently"
                                 f" {counts}")
    for a in req.moments:
        expected_sums = np.array([expected[key][2][f"s:{a}"] for key in keys])
        expected_squares = np.array([expected[key][2][f"q:{a}"] for key in keys])
        for what, values, want in (("sum", stats.sums[a], expected_sums),
                                   ("sum of squares", stats.sumsq[a], expected_squares)):
            bad = np.flatnonzero(~np.isclose(values, want, rtol=1e-10, atol=1e-12))  # pytest.approx(rel=1e-10)
            if len(bad):
                c = int(bad[0])
                raise AssertionError(f"node {levels}, class {keys[c]}: {what} of {a!r} {values[c]!r}, computed"
                                     f" independently {want[c]!r}")


def assert_same_stats(expected: ClassStats, got: ClassStats, levels: tuple[int, ...]) -> None:
    """``got`` holds the classes and statistics of ``expected`` (in any class order), else ``AssertionError``."""
    a, b = canonical(expected), canonical(got)
    expect(sorted(a) == sorted(b), f"node {levels}: statistics {sorted(b)}, the reference's {sorted(a)}")
    expect(got.levels == levels, f"the statistics of node {levels} say they are of node {got.levels}")
    expect(got.keys.dtype == np.int32 and got.sizes.dtype == np.int64,
           f"node {levels}: keys are {got.keys.dtype} (int32 expected), sizes {got.sizes.dtype} (int64 expected)")
    for name in a:
        if name.startswith(("s:", "q:")):
            np.testing.assert_allclose(b[name], a[name], rtol=1e-10, err_msg=f"{name} at {levels}")
        else:
            np.testing.assert_array_equal(b[name], a[name], err_msg=f"{name} at {levels}")


def compare_with_reference(factory: EngineFactory, table: pd.DataFrame, ds: Dataset, reference: NumpyEngine,
                           stats: ClassStats, levels: tuple[int, ...], req: StatsRequest) -> None:
    """Every engine against the numpy reference; the reference engine against the independent computation."""
    if factory.reference:
        assert_matches_independent(table, ds, stats, levels, req)
    else:
        assert_same_stats(reference.class_stats(levels), stats, levels)


# --------------------------------------------------------------------------- the checks
def _every_node(seed: int) -> Callable[[Builder], None]:
    def check(make: Builder) -> None:
        table, attrs = engine_case(seed)
        req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
        reference = NumpyEngine(Dataset(table, attrs), req)
        # even seeds: every node materialized in a small cache (evictions happen); odd: small nodes fetched directly
        engine, ds = make(table, attrs, req, cache_cells=300, direct_rows=0 if seed % 2 == 0 else 2_000)
        expect(ds.n_rows == len(table), f"its dataset has {ds.n_rows} records, the table {len(table)}")
        nodes = lattice_of(ds).nodes
        order = np.random.default_rng(seed).permutation(len(nodes))
        for node in nodes[order]:
            levels = tuple(int(v) for v in node)
            stats = engine.class_stats(levels)
            expect(stats.n_rows == len(table), f"node {levels}: the classes hold {stats.n_rows} records, the"
                   f" table {len(table)}")
            compare_with_reference(make.factory, table, ds, reference, stats, levels, req)
        expect(engine.nodes_computed >= len(nodes) - 1, f"nodes_computed is {engine.nodes_computed} after"
               f" {len(nodes)} nodes")
    return check


def _counted_at_a_floor(seed: int) -> Callable[[Builder], None]:
    """The first quasi-identifier floored one level up, the last (of two or more) at its top."""
    def check(make: Builder) -> None:
        table, attrs = engine_case(seed)
        req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
        reference = NumpyEngine(Dataset(table, attrs), req)
        quasi = reference.dataset.quasi
        floor = [0] * len(quasi)
        floor[0] = min(1, reference.dataset.require_hierarchy(quasi[0]).max_level)
        if len(quasi) > 1:
            floor[-1] = reference.dataset.require_hierarchy(quasi[-1]).max_level
        floored = dict(attrs)
        for q, level in zip(quasi, floor, strict=True):
            floored[q] = replace(attrs[q], min_level=level)
        engine, ds = make(table, floored, req, cache_cells=300, direct_rows=0 if seed % 2 == 0 else 2_000)
        expect(engine.bottom_levels == tuple(floor), f"its bottom_levels are {engine.bottom_levels}, the dataset's"
               f" min_level {tuple(floor)}")
        counted = engine.class_stats(tuple(floor))
        if make.factory.rolls_up_locally:
            expect(engine.rows_fetched == counted.n_classes, f"{engine.rows_fetched} rows came to the driver for"
                   f" a floor of {counted.n_classes} classes")
        nodes = lattice_of(ds).nodes
        expect(tuple(int(v) for v in nodes[0]) == tuple(floor), "the dataset's lattice does not start at the floor")
        for node in nodes[np.random.default_rng(seed).permutation(len(nodes))]:
            levels = tuple(int(v) for v in node)
            compare_with_reference(make.factory, table, ds, reference, engine.class_stats(levels), levels, req)
        if floor[0]:
            below = (0, *floor[1:])
            with raises(ValueError, f"node {below}, below the floor", ("below",)):
                engine.class_stats(below)
    return check


def _request_without_sensitive_statistics(make: Builder) -> None:
    table, attrs = engine_case(5)
    reference = NumpyEngine(Dataset(table, attrs))
    engine, ds = make(table, attrs, StatsRequest())
    for node in lattice_of(ds).nodes[::3]:
        levels = tuple(int(v) for v in node)
        stats = engine.class_stats(levels)
        expect(not stats.histograms and not stats.sums, f"node {levels}: sensitive statistics nobody requested")
        compare_with_reference(make.factory, table, ds, reference, stats, levels, StatsRequest())


def _row_classes(make: Builder) -> None:
    table, attrs = engine_case(2)
    engine, ds = make(table, attrs, StatsRequest())
    levels = tuple(min(1, h.max_level) for h in ds.hierarchies)
    if not ds.in_memory:  # a table in a database is released where it is; its records are never read
        with raises(DataError, "row_classes on a table whose records stay where they are",
                    pattern="released in (SQL|Spark)"):
            engine.row_classes(levels)
        return
    row_class, stats = engine.row_classes(levels)
    np.testing.assert_array_equal(np.bincount(row_class, minlength=stats.n_classes), stats.sizes,
                                  err_msg="the records per class are not the class sizes")
    for j, q in enumerate(ds.quasi):
        h = ds.hierarchy(q)
        assert h is not None
        np.testing.assert_array_equal(stats.keys[row_class, j], h.generalize(ds.encoded[q].row_codes(), levels[j]),
                                      err_msg=f"records placed in a class of another {q!r}")


def _no_quasi_identifiers_gives_one_class(make: Builder) -> None:
    table, attrs = engine_case(3)
    attrs = {"s": attrs["s"], "x": attrs["x"]}
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    reference = NumpyEngine(Dataset(table, attrs), req)
    engine, ds = make(table, attrs, req)
    stats = engine.class_stats(())
    expect(stats.n_classes == 1 and stats.keys.shape == (1, 0), f"no quasi-identifier gave {stats.n_classes}"
           f" classes with keys of shape {stats.keys.shape}, not one class with keys of shape (1, 0)")
    compare_with_reference(make.factory, table, ds, reference, stats, (), req)


def _builder_hierarchies(seed: int) -> Callable[[Builder], None]:
    """Built from the records (numpy, DuckDB) or from the database's value counts: one hierarchy."""
    def check(make: Builder) -> None:
        table, attrs = builder_case(seed)
        req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
        memory = Dataset(table, attrs)
        reference = NumpyEngine(memory, req)
        engine, ds = make(table, attrs, req)
        for q in memory.quasi:
            expect(ds.require_hierarchy(q).rows() == memory.require_hierarchy(q).rows(),
                   f"the hierarchy of {q!r} differs from the one built from the records")
        # by hand: groups of the sorted values (not of their order of appearance); "1..4" would equal the root
        expect(ds.require_hierarchy("edu").rows() == [["1", "1..2", "*"], ["2", "1..2", "*"], ["3", "3..4", "*"],
                                                       ["4", "3..4", "*"]], "the ordered hierarchy of 'edu'")
        expect(ds.require_hierarchy("children").rows() == [[c, "Zero..Two" if i < 3 else "Three..Five", "*"]
                                                           for i, c in enumerate(BUILDER_CHILDREN)],
               "the ordered hierarchy of the ordinal 'children'")
        expect([r[1:] for r in ds.require_hierarchy("zip").rows()] == [
            ["4790*", "479**", "47***", "*"], ["4790*", "479**", "47***", "*"], ["4791*", "479**", "47***", "*"],
            ["4800*", "480**", "48***", "*"], ["4801*", "480**", "48***", "*"]], "the masking hierarchy of 'zip'")
        nodes = lattice_of(ds).nodes
        pick = np.random.default_rng(seed).choice(len(nodes), 30, replace=False)
        for node in [nodes[0], nodes[-1], *nodes[pick]]:
            levels = tuple(int(v) for v in node)
            compare_with_reference(make.factory, table, ds, reference, engine.class_stats(levels), levels, req)
    return check


#: Every member of the Engine protocol (checked by mypy for the engines in src/, here for any engine).
PROTOCOL_MEMBERS = sorted(n for n in vars(Engine) if not n.startswith("_")) + ["__enter__", "__exit__"]


def _protocol_members(make: Builder) -> None:
    table, attrs = engine_case(1)
    req = StatsRequest(frozenset({"s"}))
    engine, ds = make(table, attrs, req)
    missing = [m for m in PROTOCOL_MEMBERS if not hasattr(engine, m)]
    expect(not missing, f"it lacks the protocol's members {missing}")
    expect(engine.name == make.factory.name, f"its name is {engine.name!r}, not {make.factory.name!r}")
    expect(engine.dataset is ds and engine.request == req, "its dataset or request is not the one it was built for")
    nodes = lattice_of(ds).nodes
    before = engine.rows_fetched
    stats = engine.class_stats(tuple(int(v) for v in nodes[1]))
    after = engine.rows_fetched
    if make.factory.rolls_up_locally:  # the bottom class table came once; nodes are rolled up on the driver
        expect(isinstance(before, int) and after == before and before >= stats.n_classes,
               f"rows_fetched went from {before} to {after} for a node it rolls up locally")
    elif make.factory.database:  # exactly the class table's rows travel
        expect(isinstance(before, int) and isinstance(after, int) and after - before == stats.n_classes,
               f"rows_fetched went from {before} to {after} for a node of {stats.n_classes} classes")
    else:
        expect(before is None and after is None, f"an engine holding the records in memory reports rows_fetched"
               f" {before}, then {after} (None expected)")
    expect(engine.nodes_computed >= 1 and engine.rows_read >= stats.n_classes,
           f"nodes_computed {engine.nodes_computed}, rows_read {engine.rows_read} after a node of"
           f" {stats.n_classes} classes")


def _close_is_idempotent(make: Builder) -> None:
    table, attrs = engine_case(1)
    req = StatsRequest(frozenset({"s"}), frozenset({"x"}))
    engine, ds = make(table, attrs, req)
    levels = tuple(int(v) for v in lattice_of(ds).nodes[-1])
    engine.class_stats(levels)
    with engine as same:
        expect(same is engine, "entering the engine gives another object")
    engine.close()  # again: nothing happens (and the stack closes it a third time)
    calls: list[tuple[str, Callable[[], object]]] = [
        ("class_stats", lambda: engine.class_stats(levels)),
        ("small_class_rows", lambda: engine.small_class_rows(levels, 2)),
        ("row_classes", lambda: engine.row_classes(levels))]
    for name, call in calls:
        with raises(RuntimeError, f"{name} after close", ("closed",)):
            call()
    expect(bool(engine.name) and engine.dataset is ds and engine.request == req,
           "its name, dataset or request can no longer be read after close")
    expect(engine.nodes_computed >= 0 and engine.rows_read >= 0, "its counters can no longer be read after close")
