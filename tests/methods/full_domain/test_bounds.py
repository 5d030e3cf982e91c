"""The suppression lower bounds of the optimal search: never above the truth, exact where they must be."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.engine.numpy.engine import NumpyEngine
from anonset.methods.full_domain.bounds import (
    single_attribute_suppression,
    subset_suppression,
    suppression_lower_bound,
)
from anonset.methods.full_domain.search import lattice_of
from support import random_table


def _small_rows(ds: Dataset, node: tuple[int, ...], k: int, columns: list[int]) -> int:
    """Records in groups smaller than k of the generalized labels of ``columns``, counted by pandas."""
    labels = {}
    for j in columns:
        q = ds.quasi[j]
        h = ds.require_hierarchy(q)
        leaves = ds.encoded[q].row_codes()
        labels[q] = np.asarray(h.labels[node[j]], dtype=object)[h.maps[node[j]][leaves]]
    frame = pd.DataFrame(labels).assign(one=1)
    size = frame.groupby(list(labels), sort=False)["one"].transform("size").to_numpy()
    return int((size < k).sum())


@pytest.mark.parametrize("seed", range(12))
def test_bounds_never_exceed_and_match_on_their_own_attributes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, int(rng.integers(40, 300)), int(rng.integers(3, 6)))
    ds = Dataset(table, {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()})
    k = int(rng.integers(2, 8))
    lattice = lattice_of(ds)
    single = single_attribute_suppression(ds, k)
    rows = ds.qi_codes()
    ones = np.ones(len(rows), dtype=np.int64)
    subsets = subset_suppression(ds.hierarchies, rows, ones, k, 2)
    subsets.update(subset_suppression(ds.hierarchies, rows, ones, k, 3))
    assert all(len(s) == 2 for s in subset_suppression(ds.hierarchies, rows, ones, k, 2))
    # the distinct leaf tuples with their counts (the engine's bottom node) give the same tables as the records
    bottom = NumpyEngine(ds).bottom
    for width in (2, 3):
        from_rows = subset_suppression(ds.hierarchies, rows, ones, k, width)
        from_classes = subset_suppression(ds.hierarchies, bottom.keys, bottom.sizes, k, width)
        assert from_rows.keys() == from_classes.keys()
        assert all(np.array_equal(from_rows[s], from_classes[s]) for s in from_rows)
        # the hashed grouping (grids too large for a dense array) counts what the dense array counts
        hashed = subset_suppression(ds.hierarchies, bottom.keys, bottom.sizes, k, width, dense_limit=0)
        assert hashed.keys() == from_rows.keys()
        assert all(np.array_equal(hashed[s], from_rows[s]) for s in from_rows)
    lower = suppression_lower_bound(lattice.nodes, single, subsets)
    d = len(ds.quasi)
    tops = lattice.max_levels
    for i, node in enumerate(lattice.nodes):
        levels = tuple(int(v) for v in node)
        truth = _small_rows(ds, levels, k, list(range(d)))
        assert lower[i] <= truth, levels
        # with every other attribute fully generalized, the classes are the groups of the rest
        below_top = [j for j in range(d) if levels[j] < tops[j]]
        if 1 <= len(below_top) <= 3:
            assert lower[i] == truth, levels
    # every single, pair and triple table entry is the small-group count of its attributes alone
    for width in (2, 3):
        for subset in combinations(range(d), width):
            table_of = subset_suppression(ds.hierarchies, rows, ones, k, width)[subset]
            for idx in np.ndindex(table_of.shape):
                if any(idx[i] == tops[j] for i, j in enumerate(subset)):
                    assert table_of[idx] == 0  # covered by the smaller sets
                    continue
                node = [0] * d
                for i, j in enumerate(subset):
                    node[j] = idx[i]
                assert table_of[idx] == _small_rows(ds, tuple(node), k, list(subset))


def test_no_bounds_without_k_or_enough_attributes() -> None:
    rng = np.random.default_rng(3)
    table, hierarchies = random_table(rng, 50, 3)
    ds = Dataset(table, {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()})
    rows = ds.qi_codes()
    ones = np.ones(len(rows), dtype=np.int64)
    assert subset_suppression(ds.hierarchies, rows, ones, 1, 2) == {}
    assert subset_suppression(ds.hierarchies, rows, ones, 5, 4) == {}
    assert subset_suppression(ds.hierarchies, rows[:0], ones[:0], 5, 2) == {}
