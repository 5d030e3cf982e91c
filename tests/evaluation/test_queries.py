"""Aggregate-query accuracy: hand-computed uniform-spread estimates, exact identity releases, full suppression."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset import ConfigError, KAnonymity, Requirements
from anonset.anonymizer import Anonymizer
from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Partition, partition_of_assignment
from anonset.datasets import patient_register_dataset
from anonset.evaluation.patterns import pattern_survival
from anonset.evaluation.queries import (
    RangeQuery,
    estimated_counts,
    query_accuracy,
    random_workload,
    true_counts,
)
from anonset.hierarchy import Hierarchy


def _tiny() -> Dataset:
    """x in 1..4 numeric; c with leaves a1 a2 under A and b1 b2 under B."""
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]])
    table = pd.DataFrame({"x": ["1", "2", "3", "4", "4"], "c": ["a1", "a2", "b1", "b2", "b1"]})
    return Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h}})


def _codes(ds: Dataset, name: str, labels: list[str]) -> np.ndarray:
    leaves = [str(v) for v in ds.require_hierarchy(name).labels[0]]
    return np.array([leaves.index(v) for v in labels], dtype=np.int64)


def test_uniform_spread_estimate_by_hand() -> None:
    """Classes {x in [1, 2], c = A} (2 records) and {x in [3, 4], c = B} (3 records); query x in [2, 3], c in {a2, b1}.

    Class 0 keeps 1 of its 2 x values and 1 of its 2 leaves: 2 · 1/2 · 1/2 = 0.5; class 1 likewise
    3 · 1/2 · 1/2 = 0.75; the estimate is 1.25.  Truly (2, a2) and (3, b1) match: 2, relative error 0.375.
    """
    ds = _tiny()
    partition = partition_of_assignment(ds, np.array([0, 0, 1, 1, 1]))
    query = RangeQuery({"x": (2.0, 3.0), "c": _codes(ds, "c", ["a2", "b1"])})
    assert true_counts(ds, [query]).tolist() == [2]
    assert estimated_counts(ds, partition, [query]).tolist() == pytest.approx([1.25])
    result = query_accuracy(ds, partition, [query])
    assert result.errors.tolist() == pytest.approx([0.375])
    assert result.share_above == 1.0


def test_hierarchy_node_spreads_over_its_leaves() -> None:
    """One class: x = [1, 4] (4 values), c = the root (4 leaves); x in [1, 1] and c = b2 -> 5 · 1/4 · 1/4."""
    ds = _tiny()
    partition = partition_of_assignment(ds, np.zeros(5, dtype=np.int64))
    assert isinstance(partition.values["c"], HierarchyNodes) and partition.values["c"].levels.tolist() == [2]
    query = RangeQuery({"x": (1.0, 1.0), "c": _codes(ds, "c", ["b2"])})
    assert estimated_counts(ds, partition, [query]).tolist() == pytest.approx([5 / 16])
    # the true answer is 0: the error is the absolute error (denominator max(true, 1))
    assert query_accuracy(ds, partition, [query]).errors.tolist() == pytest.approx([5 / 16])


def test_fully_suppressed_release_gives_the_uniform_estimate() -> None:
    ds = _tiny()
    partition = partition_of_assignment(ds, np.full(5, -1))
    assert partition.n_classes == 0 and partition.n_suppressed == 5
    query = RangeQuery({"x": (2.0, 3.0), "c": _codes(ds, "c", ["a2", "b1"])})
    assert estimated_counts(ds, partition, [query]).tolist() == pytest.approx([5 * 2 / 4 * 2 / 4])
    workload = random_workload(ds, 20, dimension=1, selectivity=0.5, seed=3)
    # one attribute, half of its four values: every query keeps 2 of 4 -> 2.5 records
    assert estimated_counts(ds, partition, workload).tolist() == pytest.approx([2.5] * 20)


def test_release_without_generalization_answers_every_query_exactly() -> None:
    ds = patient_register_dataset(400, seed=5)
    _, row_class = np.unique(ds.qi_codes(), axis=0, return_inverse=True)
    identity = partition_of_assignment(ds, row_class.ravel())
    for dimension in (1, 2, 4):
        result = query_accuracy(ds, identity, n_queries=200, dimension=dimension, selectivity=0.2, seed=dimension)
        assert result.errors.max() == pytest.approx(0.0, abs=1e-9)
        assert result.true.sum() > 0
    # the same with hierarchy nodes at level 0 (how a full-domain release at the bottom node looks)
    codes = ds.qi_codes()
    leaves = Partition(values={q: HierarchyNodes(np.zeros(ds.n_rows, dtype=np.int16), codes[:, j].astype(np.int32))
                               for j, q in enumerate(ds.quasi)},
                       sizes=np.ones(ds.n_rows, dtype=np.int64), n_suppressed=0,
                       row_class=np.arange(ds.n_rows, dtype=np.int64))
    assert query_accuracy(ds, leaves, n_queries=200, dimension=3, seed=1).errors.max() == pytest.approx(0.0, abs=1e-9)


def test_workload_is_seeded_and_has_the_asked_shape() -> None:
    ds = patient_register_dataset(300, seed=1)
    a = random_workload(ds, 50, dimension=3, selectivity=0.1, seed=7)
    b = random_workload(ds, 50, dimension=3, selectivity=0.1, seed=7)
    assert all(len(q.constraints) == 3 for q in a)
    assert true_counts(ds, a).tolist() == true_counts(ds, b).tolist()
    with pytest.raises(ConfigError, match="query dimension"):
        random_workload(ds, 5, dimension=len(ds.quasi) + 1)
    with pytest.raises(ConfigError, match="selectivity"):
        random_workload(ds, 5, selectivity=0)


@pytest.mark.parametrize("method", ["optimal", "k-member", "xu-top-down", "mondrian"])
def test_releases_of_every_family_through_the_anonymizer(method: str) -> None:
    ds = patient_register_dataset(240, seed=2)
    release = Anonymizer({}, Requirements([KAnonymity(5)]), method=method, seed=0).fit(ds).release_
    partition = release.partition
    result = query_accuracy(ds, partition, n_queries=100, dimension=2, selectivity=0.1, seed=0)
    assert np.isfinite(result.errors).all() and (result.errors >= 0).all()
    assert np.isfinite([result.mean, result.median, result.share_above]).all()
    # the estimates of a release conserve the records: a query with no constraint left would count all of them
    whole = RangeQuery({"age": (-1e9, 1e9)})
    assert estimated_counts(ds, partition, [whole]).tolist() == pytest.approx([ds.n_rows])
    survival = pattern_survival(ds, partition, "diagnosis", seed=0)
    assert 0 <= survival.release_score <= 1 and 0 <= survival.raw_score <= 1
    assert 0 <= survival.overlap <= 1
    # the identity release of the same records is exact
    _, row_class = np.unique(ds.qi_codes(), axis=0, return_inverse=True)
    identity = partition_of_assignment(ds, row_class.ravel())
    assert query_accuracy(ds, identity, n_queries=100, seed=0).errors.max() == pytest.approx(0.0, abs=1e-9)
