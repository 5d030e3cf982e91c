"""Tests of greedy k-member clustering (anonset.methods.cluster.kmember)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.hierarchy import Hierarchy
from anonset.methods.cluster.kmember import greedy_k_member
from anonset.metrics.total_il import cluster_information_loss, information_loss
from support import clustering_dataset, il_by_definition, random_table, total_il_by_definition


def _dataset(seed: int, n_rows: int, n_quasi: int, numeric: bool = True) -> Dataset:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n_rows, n_quasi)
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    if numeric:
        attrs["x"] = {"role": "quasi", "type": "numeric"}
    return Dataset(table, attrs)


def _check_partition(labels: np.ndarray, n: int, k: int) -> None:
    assert labels.dtype == np.int64
    assert labels.shape == (n,)
    sizes = np.bincount(labels)
    assert labels.min() == 0
    assert (sizes > 0).all(), "cluster ids must be 0..c-1 without gaps"
    if n >= k:
        assert sizes.min() >= k
        assert sizes.max() <= 2 * k - 1
    else:
        assert len(sizes) == 1


def _attributes(ds: Dataset) -> list[tuple[str, np.ndarray, float, Hierarchy | None]]:
    """(kind, per-row values or leaf codes, weight, hierarchy) per quasi-identifier, as the paper defines them."""
    out: list[tuple[str, np.ndarray, float, Hierarchy | None]] = []
    for q in ds.quasi:
        enc = ds.encoded[q]
        if ds.specs[q].type.value == "numeric":
            assert enc.numbers is not None
            v = enc.numbers[enc.row_codes()]
            span = v.max() - v.min()
            out.append(("n", v, 1.0 / span if span > 0 else 0.0, None))
    for q in ds.quasi:
        if ds.specs[q].type.value != "numeric":
            h = ds.require_hierarchy(q)
            out.append(("c", ds.encoded[q].row_codes(), 1.0 / h.max_level, h))
    return out


def _distortion(attrs, members: list[int]) -> float:
    """IL(e) / |e| straight from Definition 5 (summed in the kernel's attribute order)."""
    d = 0.0
    for kind, col, w, h in attrs:
        vals = col[members]
        if kind == "n":
            d += (vals.max() - vals.min()) * w
        else:
            level = next(lv for lv in range(h.n_levels) if len(set(h.maps[lv][vals].tolist())) == 1)
            d += level * w
    return d


def _naive(ds: Dataset, k: int, seed: int) -> np.ndarray:
    """Fig. 5 of Byun et al. written out plainly, ties to the lowest row (cluster) index."""
    attrs = _attributes(ds)
    n = ds.n_rows
    labels = np.full(n, -1, dtype=np.int64)
    if n <= k:
        return np.zeros(n, dtype=np.int64)
    remaining = list(range(n))
    r = int(np.random.default_rng(seed).integers(n))
    clusters: list[list[int]] = []
    while len(remaining) >= k:
        r = max(remaining, key=lambda j: (_distortion(attrs, [r, j]), -j))
        remaining.remove(r)
        c = [r]
        while len(c) < k:
            r = min(remaining, key=lambda j: (_distortion(attrs, c + [j]), j))
            remaining.remove(r)
            c.append(r)
        clusters.append(c)
    for j in remaining:
        incs = [(len(c) + 1) * _distortion(attrs, c + [j]) - len(c) * _distortion(attrs, c) for c in clusters]
        clusters[int(np.argmin(incs))].append(j)
    for i, c in enumerate(clusters):
        labels[c] = i
    return labels


def _numeric_dataset(values: list[float]) -> Dataset:
    table = pd.DataFrame({"v": [str(v) for v in values]})
    return Dataset(table, {"v": {"role": "quasi", "type": "numeric"}})


def test_hand_checked_two_clusters() -> None:
    ds = _numeric_dataset([1, 2, 3, 10, 11, 12])
    for seed in range(6):
        labels = greedy_k_member(ds, 3, seed=seed)
        groups = {frozenset(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)}
        assert groups == {frozenset({0, 1, 2}), frozenset({3, 4, 5})}
        # IL = 3 * (2 / 11) per cluster
        assert information_loss(ds, labels) == pytest.approx(2 * 3 * 2 / 11)


def test_hand_checked_leftover_goes_to_nearest_cluster() -> None:
    # seed-independent: the furthest record from anything is an end of the line
    ds = _numeric_dataset([0, 1, 2, 100, 101, 102, 50.5 + 50])
    labels = greedy_k_member(ds, 3, seed=0)
    _check_partition(labels, 7, 3)
    assert labels[6] == labels[3] == labels[4] == labels[5]
    assert labels[0] == labels[1] == labels[2] != labels[3]


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_match_plain_reference(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 45))
    k = int(rng.integers(1, 7))
    ds = _dataset(seed, n, int(rng.integers(1, 4)), numeric=bool(rng.integers(0, 2)))
    labels = greedy_k_member(ds, k, seed=seed)
    _check_partition(labels, n, k)
    np.testing.assert_array_equal(labels, _naive(ds, k, seed))


@pytest.mark.parametrize("seed", range(15))
def test_random_tables_partition_and_determinism(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 400))
    k = int(rng.integers(2, 12))
    ds = _dataset(seed, n, int(rng.integers(2, 5)))
    labels = greedy_k_member(ds, k, seed=seed)
    _check_partition(labels, n, k)
    np.testing.assert_array_equal(labels, greedy_k_member(ds, k, seed=seed))
    # information loss per cluster agrees with the definition
    attrs = _attributes(ds)
    per_cluster = cluster_information_loss(ds, labels)
    for c in range(len(per_cluster)):
        members = np.flatnonzero(labels == c).tolist()
        assert per_cluster[c] == pytest.approx(len(members) * _distortion(attrs, members))


@pytest.mark.parametrize("seed", range(10))
def test_better_than_random_partition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 400))
    k = int(rng.integers(2, 10))
    ds = _dataset(seed, n, int(rng.integers(2, 5)))
    greedy = information_loss(ds, greedy_k_member(ds, k, seed=seed))
    perm = rng.permutation(n)
    random_labels = np.empty(n, dtype=np.int64)
    random_labels[perm] = np.minimum(np.arange(n) // k, n // k - 1)
    assert greedy <= information_loss(ds, random_labels)


def test_duplicate_heavy_table() -> None:
    rng = np.random.default_rng(7)
    base, hierarchies = random_table(rng, 3, 3)
    table = base.iloc[rng.integers(0, 3, 500)].reset_index(drop=True)
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["x"] = {"role": "quasi", "type": "numeric"}
    ds = Dataset(table, attrs)
    for k in (1, 2, 5, 7, 50):
        labels = greedy_k_member(ds, k, seed=3)
        _check_partition(labels, 500, k)
        np.testing.assert_array_equal(labels, greedy_k_member(ds, k, seed=3))
        # three distinct rows: only clusters where one value runs out (and the leftovers) mix values
        assert (cluster_information_loss(ds, labels) > 0).sum() <= 3


def test_all_rows_identical() -> None:
    ds = _numeric_dataset([5.0] * 23)
    labels = greedy_k_member(ds, 4, seed=0)
    _check_partition(labels, 23, 4)
    assert information_loss(ds, labels) == 0.0
    # ties go to the lowest index: clusters are consecutive runs after the first record
    assert len(np.unique(labels)) == 5


@pytest.mark.parametrize("n,k", [(5, 3), (3, 3), (2, 3), (1, 1), (9, 5)])
def test_small_tables_form_one_cluster(n: int, k: int) -> None:
    ds = _dataset(n, n, 2)
    labels = greedy_k_member(ds, k, seed=1)
    np.testing.assert_array_equal(labels, np.zeros(n, dtype=np.int64))


def test_k_one_gives_singletons() -> None:
    ds = _dataset(3, 30, 3)
    labels = greedy_k_member(ds, 1)
    assert sorted(labels.tolist()) == list(range(30))
    assert information_loss(ds, labels) == 0.0


def test_rejects_bad_k() -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        greedy_k_member(_numeric_dataset([1, 2]), 0)


def test_seed_changes_start_but_not_validity() -> None:
    ds = _dataset(11, 300, 3)
    runs = [greedy_k_member(ds, 6, seed=s) for s in range(4)]
    for labels in runs:
        _check_partition(labels, 300, 6)
    assert any(not np.array_equal(runs[0], other) for other in runs[1:])


def test_k_member_release_through_the_anonymizer_is_verified() -> None:
    """End to end: k-member classes become a release whose own strings regroup into k-anonymous classes."""
    from pycanon import anonymity

    from anonset import Anonymizer, ConfigError, KAnonymity, Requirements
    from anonset.datasets import patient_register_dataset
    from anonset.privacy.ldiversity import l_diversity

    ds = patient_register_dataset(1500, seed=4)
    model = Anonymizer({}, Requirements([KAnonymity(5)]), method="k-member", seed=1).fit(ds)
    release = model.release_
    assert release.verified and release.levels is None and model.levels_ is None
    quasi = list(ds.quasi)
    sizes = release.table.groupby(quasi).size()
    assert sizes.min() >= 5
    assert anonymity.k_anonymity(release.table, quasi) >= 5
    assert release.partition.sizes.max() <= 2 * 5 - 1
    assert release.metrics["gcp"] < 1.0 and release.suppressed_rows == 0
    with pytest.raises(ConfigError, match="cannot enforce recursive"):
        Anonymizer({}, Requirements([KAnonymity(5), l_diversity("diagnosis", 2, "recursive", 3)]),
                   method="k-member").fit(ds)


def test_k_member_from_the_cli(tmp_path) -> None:
    import json

    from click.testing import CliRunner

    from anonset.cli import main
    from anonset.datasets import patient_register
    from anonset.io.tables import write_table

    # the columns the config names (an undeclared column that could single people out is refused)
    columns = ["patient_id", "age", "sex", "zip", "diagnosis"]
    write_table(patient_register(800, seed=2)[columns], tmp_path / "register.csv")
    config = tmp_path / "km.yaml"
    config.write_text("input: register.csv\n"
                      "attributes:\n"
                      "  patient_id: {role: identifier}\n"
                      "  age: {role: quasi, type: numeric}\n"
                      "  sex: {role: quasi}\n"
                      "  zip: {role: quasi, hierarchy: {builder: masking}}\n"
                      "  diagnosis: {role: sensitive}\n"
                      "privacy: {k: 4}\n"
                      "method: {name: k-member}\n"
                      "output: {path: out.csv}\n")
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output + result.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["verified"] is True and summary["min_class_size"] >= 4 and summary["levels"] is None
    assert summary["search"]["ranges_may_overlap"] is True
    assert "may overlap" in result.output


def test_total_il_metric_equals_byuns_information_loss() -> None:
    """The shared Total-IL (metric on the release's partition, and per cluster) equals Byun's definition."""
    from anonset.core.partition import partition_of_assignment
    from anonset.datasets import patient_register_dataset
    from anonset.metrics import TotalIL

    ds = patient_register_dataset(1200, seed=5)  # numeric, ordinal and hierarchy quasi-identifiers
    labels = greedy_k_member(ds, 6, seed=0)
    partition = partition_of_assignment(ds, labels)
    expected = total_il_by_definition(ds, labels)
    assert TotalIL().score(partition, ds) == pytest.approx(expected, rel=1e-12)
    assert information_loss(ds, labels) == pytest.approx(expected, rel=1e-12)
    weights = {"age": 3.0, "zip": 0.5, "sex": 0.0}
    expected = total_il_by_definition(ds, labels, weights)
    assert TotalIL(weights).score(partition, ds) == pytest.approx(expected, rel=1e-12)
    assert information_loss(ds, labels, weights) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_cluster_information_loss_by_definition(seed: int) -> None:
    """Per cluster, with weights and with cluster ids that have no rows (they cost 0)."""
    ds = clustering_dataset(seed, 150, 3)
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 20, 150) * 2  # odd ids are empty
    weights = {"x": float(rng.uniform(0, 4)), "q0": float(rng.uniform(0, 4))}
    per_cluster = cluster_information_loss(ds, labels, weights)
    assert len(per_cluster) == labels.max() + 1 and not per_cluster[1::2].any()
    for c, expected in il_by_definition(ds, labels, weights).items():
        assert per_cluster[c] == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert information_loss(ds, labels, weights) == pytest.approx(total_il_by_definition(ds, labels, weights),
                                                                  rel=1e-12)
    with pytest.raises(ValueError, match="one entry per row"):
        cluster_information_loss(ds, labels[:-1])


def test_classification_metric_by_hand() -> None:
    """Two classes: {y, y, n} costs 1 (one minority record), {n, n} costs 0, one suppressed record costs 1."""
    import pandas as pd

    from anonset.core.dataset import Dataset
    from anonset.core.partition import partition_of_assignment
    from anonset.metrics import ClassificationMetric

    table = pd.DataFrame({"q": ["a", "a", "a", "b", "b", "c"], "label": ["y", "y", "n", "n", "n", "y"]})
    ds = Dataset(table, {"q": {"role": "quasi"}, "label": {"role": "target"}})
    partition = partition_of_assignment(ds, np.array([0, 0, 0, 1, 1, -1]))
    assert ClassificationMetric().score(partition, ds) == pytest.approx(2 / 6)
    assert ClassificationMetric(target="label").score(partition, ds) == pytest.approx(2 / 6)
