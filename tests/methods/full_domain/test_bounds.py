"""The suppression lower bounds of the optimal search: never above the truth, exact where they must be.

The class-size bounds and the floors of the models that judge sensitive values (β-likeness, δ-disclosure,
l-diversity) alike.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats
from anonset.engine.numpy.engine import NumpyEngine
from anonset.methods.full_domain.bounds import (
    floor_suppression,
    single_attribute_suppression,
    subset_suppression,
    suppression_lower_bound,
)
from anonset.methods.full_domain.search import lattice_of
from anonset.privacy import (
    BetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    Requirements,
    TCloseness,
)
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


def _models(rng: np.random.Generator) -> list:
    """k-anonymity with one model that judges the sensitive values, its parameters drawn at random."""
    choice = int(rng.integers(0, 6))
    k = KAnonymity(int(rng.integers(1, 4))) if rng.random() < 0.7 else KAnonymity(2)
    if choice == 0:
        return [k, BetaLikeness("s", float(rng.uniform(0.1, 3.0)))]
    if choice == 1:
        return [k, BetaLikeness("s", float(rng.uniform(0.1, 3.0)), "enhanced")]
    if choice == 2:
        return [k, DeltaDisclosure("s", float(rng.uniform(0.3, 2.5)))]
    if choice == 3:
        return [k, DistinctLDiversity("s", int(rng.integers(2, 4)))]
    if choice == 5:
        return [k, TCloseness("s", float(rng.uniform(0.05, 0.5)))]
    return [k, EntropyLDiversity("s", float(rng.uniform(1.5, 3.0)))]


@pytest.mark.parametrize("seed", range(30))
def test_a_models_group_floor_never_exceeds_what_any_division_violates(seed: int) -> None:
    # a group of records with a skewed sensitive attribute, divided into classes at random many times: the
    # violating records of each division (judged by the model itself) are never fewer than the group's floor
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 60))
    values = rng.choice(5, n, p=rng.dirichlet(np.ones(5) * 0.5))
    table = pd.DataFrame({"q0": ["a"] * n, "s": [f"s{v}" for v in values]})
    background = rng.integers(0, 5, 40)  # the rest of the table sets the frequencies p the models compare with
    whole = pd.concat([table, pd.DataFrame({"q0": ["b"] * 40, "s": [f"s{v}" for v in background]})],
                      ignore_index=True)
    ds = Dataset(whole, {"q0": {"role": "quasi"}, "s": {"role": "sensitive"}})
    requirements = Requirements(_models(rng), 0.0)
    requirements.validate(ds)
    codes = ds.encoded["s"].row_codes()[:n]
    m = ds.encoded["s"].n_categories
    group = ClassStats(np.array([n]), np.zeros((1, 0), dtype=np.int32),
                       histograms={"s": np.bincount(codes, minlength=m)[None, :].astype(np.int64)})
    floor = requirements.violation_floor(group)
    assert floor is not None
    for _ in range(200):
        labels = rng.integers(0, int(rng.integers(1, n + 1)), n)
        _, labels = np.unique(labels, return_inverse=True)
        classes = ClassStats(np.bincount(labels).astype(np.int64), np.zeros((labels.max() + 1, 0), dtype=np.int32),
                             histograms={"s": np.bincount(labels * m + codes, minlength=(labels.max() + 1) * m)
                                         .reshape(-1, m).astype(np.int64)})
        verdict = requirements.judge(classes, n)
        assert verdict.suppressed_rows >= floor[0], (requirements.describe(), verdict.suppressed_rows, floor)


def test_group_floors_bind() -> None:
    # a group holding a value far above its share of the table: some of its records violate however divided
    ds = Dataset(pd.DataFrame({"q0": list("aaaaaaaabbbbbbbbbbbb"), "s": ["x"] * 8 + ["y"] * 10 + ["x", "z"]}),
                 {"q0": {"role": "quasi"}, "s": {"role": "sensitive"}})
    for model in (BetaLikeness("s", 0.5), DeltaDisclosure("s", 0.5), DistinctLDiversity("s", 2),
                  TCloseness("s", 0.1)):
        model.validate(ds)
        codes = ds.encoded["s"].row_codes()[:8]
        group = ClassStats(np.array([8]), np.zeros((1, 0), dtype=np.int32),
                           histograms={"s": np.bincount(codes, minlength=3)[None, :].astype(np.int64)})
        floor = model.violation_floor(group)
        assert floor is not None and floor[0] > 0, model.describe()
    # the ordered and hierarchical distances can be below the equal one: no floor from it
    assert not TCloseness("s", 0.2, "ordered").gives_violation_floor and TCloseness("s", 0.2).gives_violation_floor


@pytest.mark.parametrize("seed", range(12))
def test_model_floor_tables_never_exceed_and_match_on_their_own_attributes(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    table, hierarchies = random_table(rng, int(rng.integers(40, 300)), int(rng.integers(2, 5)))
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    ds = Dataset(table, attrs)
    requirements = Requirements(_models(rng), 0.05)
    requirements.validate(ds)
    engine = NumpyEngine(ds, requirements.request)
    bottom = engine.class_stats(tuple(0 for _ in ds.quasi))
    lattice = lattice_of(ds)
    tops = lattice.max_levels
    tables = {}
    for width in (1, 2):
        tables.update(floor_suppression(ds.hierarchies, bottom, requirements.violation_floor, width))
    lower = suppression_lower_bound(lattice.nodes, [np.zeros(t + 1, dtype=np.int64) for t in tops], tables)
    for i, node in enumerate(lattice.nodes):
        levels = tuple(int(v) for v in node)
        truth = requirements.judge(engine.class_stats(levels), ds.n_rows).suppressed_rows
        assert lower[i] <= truth, levels
    # every entry is the summed floor of the groups of its attributes alone, grouped here by pandas
    codes = ds.encoded["s"].row_codes()
    m = ds.encoded["s"].n_categories
    for subset, table_of in tables.items():
        for idx in np.ndindex(table_of.shape):
            if any(idx[i] == tops[j] for i, j in enumerate(subset)):
                assert table_of[idx] == 0
                continue
            labels = {}
            for i, j in enumerate(subset):
                h = ds.require_hierarchy(ds.quasi[j])
                labels[j] = np.asarray(h.labels[idx[i]], dtype=object)[h.maps[idx[i]][ds.encoded[ds.quasi[j]]
                                                                                      .row_codes()]]
            group = pd.DataFrame(labels).groupby(list(labels), sort=False).ngroup().to_numpy()
            n_groups = int(group.max()) + 1
            groups = ClassStats(np.bincount(group).astype(np.int64), np.zeros((n_groups, 0), dtype=np.int32),
                                histograms={"s": np.bincount(group * m + codes, minlength=n_groups * m)
                                            .reshape(n_groups, m).astype(np.int64)})
            floors = requirements.violation_floor(groups)
            assert floors is not None
            assert table_of[idx] == int(floors.sum()), (subset, idx)
