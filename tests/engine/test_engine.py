"""The numpy engine: roll-ups equal statistics computed straight from the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.stats import StatsRequest
from anonset.engine.numpy.engine import NumpyEngine
from anonset.methods.full_domain.search import lattice_of
from support import random_table


def _direct(ds: Dataset, levels: tuple[int, ...]) -> pd.DataFrame:
    """Class sizes and sensitive counts by pandas groupby on generalized labels (an independent path)."""
    frame = pd.DataFrame({q: ds.hierarchy(q).label(lv, ds.hierarchy(q).generalize(ds.encoded[q].codes, lv))
                          for q, lv in zip(ds.quasi, levels, strict=True)})
    frame["s"] = ds.table["s"].to_numpy()
    frame["x"] = ds.table["x"].astype(float).to_numpy()
    grouped = frame.groupby(list(ds.quasi), sort=True)
    out = grouped.size().rename("size").to_frame()
    out["distinct"] = grouped["s"].nunique()
    out["sum"] = grouped["x"].sum()
    out["sumsq"] = grouped["x"].apply(lambda v: float((v * v).sum()))
    return out.sort_values(["size", "distinct", "sum", "sumsq"]).reset_index(drop=True)


def _engine_frame(ds: Dataset, stats) -> pd.DataFrame:
    out = pd.DataFrame({
        "size": stats.sizes,
        "distinct": (stats.histograms["s"] > 0).sum(axis=1),
        "sum": stats.sums["x"],
        "sumsq": stats.sumsq["x"],
    })
    return out.sort_values(["size", "distinct", "sum", "sumsq"]).reset_index(drop=True)


def test_rollup_matches_direct_grouping_on_every_node() -> None:
    for seed in range(5):
        rng = np.random.default_rng(seed)
        table, hierarchies = random_table(rng, 300, 3)
        attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
        attrs["s"] = {"role": "sensitive"}
        attrs["x"] = {"role": "sensitive", "type": "numeric"}
        ds = Dataset(table, attrs)
        engine = NumpyEngine(ds, StatsRequest(frozenset({"s"}), frozenset({"x"})), cache_cells=200)
        nodes = lattice_of(ds).nodes
        for node in nodes[rng.permutation(len(nodes))]:
            levels = tuple(int(v) for v in node)
            stats = engine.class_stats(levels)
            assert stats.n_rows == ds.n_rows
            assert stats.histograms["s"].sum() == ds.n_rows
            expected = _direct(ds, levels)
            got = _engine_frame(ds, stats)
            assert len(got) == len(expected)
            np.testing.assert_array_equal(got["size"], expected["size"])
            np.testing.assert_array_equal(got["distinct"], expected["distinct"])
            np.testing.assert_allclose(got["sum"], expected["sum"])
            np.testing.assert_allclose(got["sumsq"], expected["sumsq"])


def test_row_classes_assign_each_row_to_its_generalized_class() -> None:
    rng = np.random.default_rng(11)
    table, hierarchies = random_table(rng, 200, 3)
    ds = Dataset(table, {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()})
    engine = NumpyEngine(ds)
    levels = (1, 0, 1)
    row_class, stats = engine.row_classes(levels)
    np.testing.assert_array_equal(np.bincount(row_class, minlength=stats.n_classes), stats.sizes)
    for j, q in enumerate(ds.quasi):
        h = ds.hierarchy(q)
        np.testing.assert_array_equal(stats.keys[row_class, j], h.generalize(ds.encoded[q].codes, levels[j]))


def test_cache_stays_within_budget() -> None:
    rng = np.random.default_rng(3)
    table, hierarchies = random_table(rng, 500, 4)
    ds = Dataset(table, {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()})
    engine = NumpyEngine(ds, cache_cells=1_000)
    for node in lattice_of(ds).nodes:
        engine.class_stats(tuple(int(v) for v in node))
        assert engine._cells <= max(1_000, max((s.n_classes for s in engine._cache.values()), default=0) * 5)


def test_engine_built_on_a_bottom_class_table_counted_elsewhere() -> None:
    """Handed the bottom class table (as Spark counts it), the engine rolls every node up to the same statistics."""
    from anonset.core.stats import ClassStats
    from anonset.errors import DataError

    rng = np.random.default_rng(11)
    table, hierarchies = random_table(rng, 300, 3)
    ds = Dataset(table, {**{q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()},
                         "s": {"role": "sensitive"}})
    req = StatsRequest(frozenset({"s"}))
    full = NumpyEngine(ds, req)
    order = rng.permutation(full.bottom.n_classes)  # classes may come in any order from elsewhere
    b = full.bottom
    shuffled = ClassStats(b.sizes[order], b.keys[order], {"s": b.histograms["s"][order]}, levels=b.levels)
    local = NumpyEngine(ds, req, bottom=shuffled)
    for levels in lattice_of(ds).nodes:
        node = tuple(int(v) for v in levels)
        x, y = full.class_stats(node), local.class_stats(node)
        assert _by_key(x) == _by_key(y)
    with pytest.raises(DataError, match="rows"):
        local.row_classes(tuple(0 for _ in ds.quasi))
    with pytest.raises(ValueError, match="counts"):
        NumpyEngine(ds, req, bottom=ClassStats(b.sizes[:-1], b.keys[:-1], {"s": b.histograms["s"][:-1]}))
    with pytest.raises(ValueError, match="lacks"):
        NumpyEngine(ds, req, bottom=ClassStats(b.sizes, b.keys))


def _by_key(stats) -> dict:
    """Class key -> (size, histogram of s): a class table compared whatever the order of its classes."""
    return {tuple(k): (int(n), tuple(h)) for k, n, h in zip(stats.keys.tolist(), stats.sizes, stats.histograms["s"],
                                                            strict=True)}


def test_a_live_leaf_engine_shares_its_grouping_of_the_records_and_the_dataset_keeps_none_of_it() -> None:
    """leaf_combinations gives group_rows' answer at the leaves: the numpy engine's own array while an engine
    counted at the leaves lives, grouped again once it is gone or when the engine counted at a floor."""
    import gc
    import weakref

    from anonset.engine.numpy.engine import group_rows, leaf_combinations

    table, hierarchies = random_table(np.random.default_rng(8), 400, 3)
    attrs = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    ds = Dataset(table, attrs)
    expected = group_rows(ds, (0, 0, 0))[1]
    engine = NumpyEngine(ds)
    shared = leaf_combinations(ds)
    assert shared is engine._row_to_bottom and np.array_equal(shared, expected)
    gone = weakref.ref(shared)
    del engine, shared
    gc.collect()
    assert gone() is None  # the dataset did not keep the engine's array alive
    again = leaf_combinations(ds)
    assert np.array_equal(again, expected)
    floored = Dataset(table, {q: {**spec, "min_level": 1} for q, spec in attrs.items()})
    coarse = NumpyEngine(floored, floor=floored.min_levels)
    assert coarse._row_to_bottom is not None and leaf_combinations(floored) is not coarse._row_to_bottom
    assert np.array_equal(leaf_combinations(floored), expected)


def test_an_engine_that_gave_its_rows_back_still_counts_every_node() -> None:
    """drop_rows: the records' classes and the cached tables go; class statistics roll up as before, row_classes
    refuses by name."""
    import weakref

    table, hierarchies = random_table(np.random.default_rng(9), 500, 3)
    ds = Dataset(table, {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()})
    engine = NumpyEngine(ds)
    nodes = [tuple(int(v) for v in levels) for levels in lattice_of(ds).nodes]
    before = {node: _by_key_sizes(engine.class_stats(node)) for node in nodes}
    rows = weakref.ref(engine._row_to_bottom)
    engine.drop_rows()
    assert rows() is None and not engine._cache
    assert {node: _by_key_sizes(engine.class_stats(node)) for node in nodes} == before
    with pytest.raises(RuntimeError, match="drop_rows"):
        engine.row_classes(nodes[0])


def _by_key_sizes(stats) -> dict:
    """Class key -> size."""
    return dict(zip(map(tuple, stats.keys.tolist()), stats.sizes.tolist(), strict=True))


def test_a_fit_gives_its_engines_rows_back_before_it_renders_the_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine a fit builds lends the records' grouping to the metrics, then gives it back: the release is
    rendered and re-checked without it, and scores the same as with it."""
    from anonset import Anonymizer
    from anonset.engine.numpy.engine import _LEAF_GROUPING
    from anonset.privacy import KAnonymity, Requirements
    from anonset.release import build

    table, hierarchies = random_table(np.random.default_rng(10), 600, 3)
    attrs = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs.update({c: {"role": "insensitive"} for c in table.columns if c not in attrs})
    seen = []
    render = build.render_full_domain

    def watched(dataset, *args, **kwargs):
        seen.append(dataset.cache[_LEAF_GROUPING]())
        return render(dataset, *args, **kwargs)

    monkeypatch.setattr(build, "render_full_domain", watched)
    release = Anonymizer(attrs, Requirements([KAnonymity(3)], max_suppression=0.05)).fit(Dataset(table, attrs)).release_
    assert seen == [None]
    monkeypatch.undo()
    again = Anonymizer(attrs, Requirements([KAnonymity(3)], max_suppression=0.05)).fit(Dataset(table, attrs)).release_
    assert release.metrics == again.metrics and release.metrics["kl_divergence"] > 0
