"""Tests of Xu et al.'s top-down local recoding (anonset.methods.cluster.topdown)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.hierarchy import Hierarchy
from anonset.methods.cluster.topdown import xu_top_down
from support import clustering_dataset as _dataset
from support import ncp_by_definition as _ncp


def _check(labels: np.ndarray, n: int, k: int) -> np.ndarray:
    assert labels.dtype == np.int64
    assert labels.shape == (n,)
    sizes = np.bincount(labels)
    assert labels.min() == 0
    assert (sizes > 0).all(), "class ids must be 0..c-1 without gaps"
    if n >= k:
        assert sizes.min() >= k
    if n < 2 * k:
        assert len(sizes) == 1
    return sizes


@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_partition_valid(k: int, seed: int) -> None:
    ds = _dataset(seed, 300, 3)
    labels = xu_top_down(ds, k, seed=seed)
    sizes = _check(labels, 300, k)
    assert len(sizes) >= 300 // (4 * k)  # it really splits


@pytest.mark.parametrize("n", [1, 3, 5, 9])
def test_small_tables_are_one_class(n: int) -> None:
    ds = _dataset(4, n, 2)
    labels = xu_top_down(ds, 5)
    _check(labels, n, 5)
    assert (labels == 0).all()


def test_deterministic_per_seed() -> None:
    ds = _dataset(7, 500, 3)
    a = xu_top_down(ds, 4, seed=11)
    b = xu_top_down(ds, 4, seed=11)
    assert np.array_equal(a, b)
    others = [xu_top_down(ds, 4, seed=s) for s in range(1, 6)]
    assert any(not np.array_equal(a, o) for o in others)


def test_duplicate_heavy() -> None:
    # 400 rows over only 3 distinct records
    table = pd.DataFrame({"x": ["1"] * 200 + ["2"] * 150 + ["50"] * 50, "c": ["a"] * 350 + ["b"] * 50})
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi"}})
    labels = xu_top_down(ds, 7, seed=3)
    sizes = _check(labels, 400, 7)
    assert len(sizes) >= 400 // 14
    # duplicates of a value should end up mostly in pure classes
    assert _ncp(ds, labels) <= 0.2 * _ncp(ds, np.zeros(400, dtype=np.int64))


def test_all_identical() -> None:
    ds = Dataset(pd.DataFrame({"x": ["3"] * 50}), {"x": {"role": "quasi", "type": "numeric"}})
    labels = xu_top_down(ds, 4)
    sizes = _check(labels, 50, 4)
    assert len(sizes) >= 50 // 8


@pytest.mark.parametrize("seed", range(5))
def test_hand_example_numeric(seed: int) -> None:
    ds = Dataset(pd.DataFrame({"x": ["1", "11", "2", "12", "3", "10"]}), {"x": {"role": "quasi", "type": "numeric"}})
    labels = xu_top_down(ds, 3, seed=seed)
    groups = {frozenset(np.asarray([1, 11, 2, 12, 3, 10])[labels == g].tolist()) for g in np.unique(labels)}
    assert groups == {frozenset({1, 2, 3}), frozenset({10, 11, 12})}


@pytest.mark.parametrize("seed", range(5))
def test_hand_example_hierarchy(seed: int) -> None:
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]])
    values = ["a1", "b1", "a2", "b2", "a1", "b2", "a2", "b1"]
    ds = Dataset(pd.DataFrame({"c": values}), {"c": {"role": "quasi", "hierarchy": h}})
    labels = xu_top_down(ds, 4, seed=seed)
    groups = {frozenset(np.asarray(values)[labels == g].tolist()) for g in np.unique(labels)}
    assert groups == {frozenset({"a1", "a2"}), frozenset({"b1", "b2"})}
    assert _ncp(ds, labels) == pytest.approx(8 * 0.5)


@pytest.mark.parametrize("k", [3, 8])
def test_better_than_random_partition(k: int) -> None:
    ds = _dataset(2, 600, 4)
    labels = xu_top_down(ds, k, seed=0)
    rng = np.random.default_rng(0)
    random_labels = np.empty(600, dtype=np.int64)
    random_labels[rng.permutation(600)] = np.arange(600) // k
    random_labels = np.minimum(random_labels, 600 // k - 1)  # fold a short tail into the last class
    assert np.bincount(random_labels).min() >= k
    ours = _ncp(ds, labels)
    assert ours < 0.6 * _ncp(ds, random_labels)


def test_rejects_bad_arguments() -> None:
    ds = _dataset(0, 20, 2)
    with pytest.raises(ValueError):
        xu_top_down(ds, 0)
    with pytest.raises(ValueError):
        xu_top_down(ds, 2, rounds=0)


def test_xu_top_down_release_through_the_anonymizer_is_verified() -> None:
    from pycanon import anonymity

    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.datasets import patient_register_dataset

    ds = patient_register_dataset(2000, seed=8)
    release = Anonymizer({}, Requirements([KAnonymity(6)]), method="xu-top-down", seed=2).fit(ds).release_
    assert release.verified and release.levels is None
    quasi = list(ds.quasi)
    assert release.table.groupby(quasi).size().min() >= 6
    assert anonymity.k_anonymity(release.table, quasi) >= 6
    assert 0.0 < release.metrics["gcp"] < 1.0


@pytest.mark.parametrize("limit", [0, 3])
def test_meeting_level_tables_change_no_class(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    """Where a record meets a seed is read from a leaf-by-leaf table, a seed's own table or a hierarchy walk
    depending on the attribute's leaves and the segment's size: the classes are the same whichever is used
    (limit 0: no attribute has a leaf-by-leaf table; 3: those with at most 3 leaves, two of the four)."""
    from anonset.methods.cluster import qi_space

    ds = _dataset(21, 3000, 4)
    leaves = [ds.require_hierarchy(q).n_leaves for q in ds.quasi if q != "x"]
    assert sorted(leaves) == [3, 3, 5, 6]
    expected = xu_top_down(ds, 4, seed=5)
    monkeypatch.setattr(qi_space, "_MEETS_LEAVES", limit)
    assert np.array_equal(xu_top_down(ds, 4, seed=5), expected)
