"""Tests of Xu et al.'s bottom-up local recoding (anonset.methods.cluster.bottomup)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.hierarchy import Hierarchy
from anonset.methods.cluster.bottomup import xu_bottom_up
from support import clustering_dataset as _dataset
from support import ncp_by_definition as _ncp


def _check(labels: np.ndarray, n: int, k: int) -> np.ndarray:
    assert labels.dtype == np.int64
    assert labels.shape == (n,)
    sizes = np.bincount(labels)
    assert labels.min() == 0
    assert (sizes > 0).all(), "class ids must be 0..c-1 without gaps"
    # numbered by first row
    _, first = np.unique(labels, return_index=True)
    assert (np.diff(first) > 0).all()
    if n >= k:
        assert sizes.min() >= k
    return sizes


@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_partition_valid(k: int, seed: int) -> None:
    ds = _dataset(seed, 300, 3)
    labels = xu_bottom_up(ds, k)
    sizes = _check(labels, 300, k)
    assert sizes.max() <= 2 * k - 1  # large groups are split (Figure 4, steps 6-7)


@pytest.mark.parametrize("n", [1, 3, 4])
def test_small_tables_are_one_class(n: int) -> None:
    ds = _dataset(4, n, 2)
    labels = xu_bottom_up(ds, 5)
    _check(labels, n, 5)
    assert (labels == 0).all()


def test_k1_makes_every_record_a_class() -> None:
    ds = Dataset(
        pd.DataFrame({"x": ["1", "2", "2", "7"]}), {"x": {"role": "quasi", "type": "numeric"}}
    )
    # the two identical rows form a group of 2 = 2k records, which is split
    assert xu_bottom_up(ds, 1).tolist() == [0, 1, 2, 3]
    assert xu_bottom_up(ds, 1, split=False).tolist() == [0, 1, 1, 2]


def test_deterministic() -> None:
    ds = _dataset(7, 500, 3)
    a = xu_bottom_up(ds, 4)
    assert np.array_equal(a, xu_bottom_up(ds, 4))
    assert np.array_equal(a, xu_bottom_up(ds, 4, seed=5))  # seed is unused


def test_row_order_only_renumbers() -> None:
    ds = _dataset(3, 200, 3)
    perm = np.random.default_rng(0).permutation(200)
    table = ds.table
    assert table is not None
    shuffled = Dataset(
        table.iloc[perm].reset_index(drop=True), {q: ds.specs[q] for q in table.columns}
    )
    a = xu_bottom_up(ds, 5)
    b = xu_bottom_up(shuffled, 5)
    # the same classes (as multisets of quasi-identifier rows) up to which of identical records goes where
    def contents(frame: pd.DataFrame, labels: np.ndarray) -> list[tuple[tuple[str, ...], ...]]:
        rows = [tuple(map(str, r)) for r in frame.itertuples(index=False)]
        return sorted(tuple(sorted(rows[i] for i in np.flatnonzero(labels == g))) for g in np.unique(labels))

    assert contents(table, a) == contents(shuffled.table, b)


def test_duplicate_heavy() -> None:
    # 400 rows over only 3 distinct records
    table = pd.DataFrame(
        {"x": ["1"] * 200 + ["2"] * 150 + ["50"] * 50, "c": ["a"] * 350 + ["b"] * 50}
    )
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi"}})
    labels = xu_bottom_up(ds, 7)
    sizes = _check(labels, 400, 7)
    # every distinct record is already a group of >= 7: nothing is merged (NCP 0); the groups of
    # 200, 150 and 50 identical records are split into 28, 21 and 7 classes of 7 to 13
    assert _ncp(ds, labels) == 0.0
    assert len(sizes) == 200 // 7 + 150 // 7 + 50 // 7
    assert sizes.max() <= 13
    unsplit = xu_bottom_up(ds, 7, split=False)
    assert len(np.unique(unsplit)) == 3


def test_duplicates_with_a_few_singletons() -> None:
    table = pd.DataFrame({"x": ["1"] * 30 + ["2"] + ["40"] * 30 + ["41"]})
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}})
    labels = xu_bottom_up(ds, 5)
    sizes = _check(labels, 62, 5)
    assert sizes.max() <= 9
    values = np.asarray(table["x"].astype(int))
    groups = [frozenset(values[labels == g].tolist()) for g in np.unique(labels)]
    # merging pairs each singleton with its near duplicates; splitting keeps 2 with 1s and 41 with 40s
    assert all(g <= {1, 2} or g <= {40, 41} for g in groups)
    assert len(groups) == 31 // 5 + 31 // 5


def test_all_identical() -> None:
    ds = Dataset(pd.DataFrame({"x": ["3"] * 50}), {"x": {"role": "quasi", "type": "numeric"}})
    labels = xu_bottom_up(ds, 4)
    _check(labels, 50, 4)


def test_hand_example_numeric() -> None:
    ds = Dataset(
        pd.DataFrame({"x": ["1", "11", "2", "12", "3", "10"]}),
        {"x": {"role": "quasi", "type": "numeric"}},
    )
    labels = xu_bottom_up(ds, 3)
    groups = {
        frozenset(np.asarray([1, 11, 2, 12, 3, 10])[labels == g].tolist())
        for g in np.unique(labels)
    }
    assert groups == {frozenset({1, 2, 3}), frozenset({10, 11, 12})}


def test_hand_example_hierarchy() -> None:
    h = Hierarchy.from_rows(
        "c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]]
    )
    values = ["a1", "b1", "a2", "b2", "a1", "b2", "a2", "b1"]
    ds = Dataset(pd.DataFrame({"c": values}), {"c": {"role": "quasi", "hierarchy": h}})
    labels = xu_bottom_up(ds, 4)
    groups = {frozenset(np.asarray(values)[labels == g].tolist()) for g in np.unique(labels)}
    assert groups == {frozenset({"a1", "a2"}), frozenset({"b1", "b2"})}
    assert _ncp(ds, labels) == pytest.approx(8 * 0.5)


@pytest.mark.parametrize("k", [3, 8])
def test_better_than_random_partition(k: int) -> None:
    ds = _dataset(2, 600, 4)
    labels = xu_bottom_up(ds, k)
    _check(labels, 600, k)
    rng = np.random.default_rng(0)
    random_labels = np.empty(600, dtype=np.int64)
    random_labels[rng.permutation(600)] = np.arange(600) // k
    random_labels = np.minimum(random_labels, 600 // k - 1)
    assert np.bincount(random_labels).min() >= k
    assert _ncp(ds, labels) < 0.6 * _ncp(ds, random_labels)


def test_rejects_bad_k() -> None:
    ds = _dataset(0, 20, 2)
    with pytest.raises(ValueError):
        xu_bottom_up(ds, 0)


def test_xu_bottom_up_release_through_the_anonymizer_is_verified() -> None:
    from pycanon import anonymity

    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.datasets import patient_register_dataset

    ds = patient_register_dataset(1500, seed=9)
    release = Anonymizer({}, Requirements([KAnonymity(4)]), method="xu-bottom-up").fit(ds).release_
    assert release.verified and release.levels is None
    quasi = list(ds.quasi)
    assert release.table.groupby(quasi).size().min() >= 4
    assert anonymity.k_anonymity(release.table, quasi) >= 4


# ---------------------------------------------------------------- the merge rule (Figure 4, step 4)
def _numeric(values: list[int]) -> Dataset:
    return Dataset(pd.DataFrame({"x": [str(v) for v in values]}), {"x": {"role": "quasi", "type": "numeric"}})


def _groups(values: list[int], labels: np.ndarray) -> set[tuple[int, ...]]:
    v = np.asarray(values)
    return {tuple(sorted(v[labels == g].tolist())) for g in np.unique(labels)}


def test_merge_rule_is_the_union_ncp_by_default() -> None:
    # k = 3, x in {0, 0, 4, 5, 8, 8} (range 8).  Distinct rows in order: {0,0}, {4}, {5}, {8,8}.
    # {0,0} takes {4} (NCP of the union 3·4/8 = 1.5, against 3·5/8 and 4·8/8).  Then {5} chooses between
    # {0,0,4}: union NCP 4·5/8 = 2.5, increase 2.5 − 1.5 = 1.0; and {8,8}: union 3·3/8 = 1.125, increase 1.125.
    # The paper's rule takes {8,8}; the increase rule takes {0,0,4}, after which {8,8} must join it too.
    values = [0, 0, 4, 5, 8, 8]
    ds = _numeric(values)
    union = xu_bottom_up(ds, 3, split=False)
    assert np.array_equal(union, xu_bottom_up(ds, 3, split=False, merge_cost="union"))
    assert _groups(values, union) == {(0, 0, 4), (5, 8, 8)}
    assert _ncp(ds, union) == pytest.approx(1.5 + 1.125)
    increase = xu_bottom_up(ds, 3, split=False, merge_cost="increase")
    assert _groups(values, increase) == {(0, 0, 4, 5, 8, 8)}
    assert _ncp(ds, increase) == pytest.approx(6.0)


def _figure4_reference(rows: np.ndarray, k: int, rule: str) -> list[tuple[int, ...]]:
    """Figure 4, steps 1-5, written out in plain Python: the groups as sets of row indices.

    Start from groups of identical rows (in sorted order); each round, every group still smaller than k
    merges with the other group minimizing NCP(G ∪ G') (``union``) or NCP(G ∪ G') − NCP(G) − NCP(G')
    (``increase``); ties go to the first group in that order.
    """
    distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    span = rows.max(axis=0) - rows.min(axis=0)
    scale = np.where(span > 0, 1.0 / np.where(span > 0, span, 1), 0.0)
    size = np.bincount(inverse)
    groups = {g: [g] for g in range(len(distinct))}

    def ncp(ids: list[int]) -> float:
        v = distinct[ids]
        return float(size[ids].sum() * sum((v[:, b].max() - v[:, b].min()) * scale[b] for b in range(v.shape[1])))

    while len(groups) > 1 and any(size[m].sum() < k for m in groups.values()):
        for g in sorted(groups):
            if g not in groups or size[groups[g]].sum() >= k:
                continue
            best, best_cost = -1, np.inf
            for h in sorted(groups):
                if h != g:
                    cost = ncp(groups[g] + groups[h])
                    if rule == "increase":
                        cost -= ncp(groups[g]) + ncp(groups[h])
                    if cost < best_cost:
                        best, best_cost = h, cost
            groups[g] += groups.pop(best)
    return sorted(tuple(np.flatnonzero(np.isin(inverse, m)).tolist()) for m in groups.values())


@pytest.mark.parametrize("rule", ["union", "increase"])
def test_merging_follows_a_plain_reimplementation_of_figure_4(rule: str) -> None:
    # two numeric attributes with ranges of 16 and 8, so every NCP is exact in binary and ties are real ties
    rng = np.random.default_rng(3)
    for _ in range(12):
        n = int(rng.integers(8, 40))
        rows = np.column_stack([rng.integers(0, 17, n), rng.integers(0, 9, n)])
        rows[0], rows[1] = (0, 0), (16, 8)
        ds = Dataset(pd.DataFrame({"a": rows[:, 0].astype(str), "b": rows[:, 1].astype(str)}),
                     {"a": {"role": "quasi", "type": "numeric"}, "b": {"role": "quasi", "type": "numeric"}})
        for k in (2, 3, 5):
            labels = xu_bottom_up(ds, k, split=False, merge_cost=rule)
            got = sorted(tuple(np.flatnonzero(labels == g).tolist()) for g in np.unique(labels))
            assert got == _figure4_reference(rows, k, rule)


def test_unknown_merge_cost_is_a_one_line_config_error() -> None:
    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.errors import ConfigError, InputError

    ds = _numeric([1, 2, 3, 4])
    with pytest.raises(ConfigError, match=r"^merge_cost must be one of union, increase; got 'sum'$") as info:
        xu_bottom_up(ds, 2, merge_cost="sum")
    assert isinstance(info.value, InputError)
    with pytest.raises(ConfigError, match="option 'merge_cost' must be one of union \\| increase"):
        Anonymizer({}, Requirements([KAnonymity(2)]), method="xu-bottom-up",
                   method_options={"merge_cost": "sum"}).fit(ds)


@pytest.mark.parametrize("rule", ["union", "increase"])
def test_both_merge_rules_release_verified_tables(rule: str) -> None:
    from pycanon import anonymity

    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.datasets import patient_register_dataset
    from anonset.recheck.verify import verify_release

    ds = patient_register_dataset(800, seed=4)
    requirements = Requirements([KAnonymity(5)])
    release = Anonymizer({}, requirements, method="xu-bottom-up",
                         method_options={"merge_cost": rule}).fit(ds).release_
    assert release.verified
    assert verify_release(release.table, ds, requirements, ds.n_rows).ok
    assert anonymity.k_anonymity(release.table, list(ds.quasi)) >= 5
