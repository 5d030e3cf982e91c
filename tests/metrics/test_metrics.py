"""Tests for the utility metrics (``anonset.metrics``) on hand-made datasets and partitions.

Every expected figure is derived by hand in a comment.  The dataset (6 records):

    row  sex  zip    age     hierarchies
    0    M    13053  2       sex: M, F -> *                                   (2 leaves, height 1)
    1    M    13058  3       zip: 13053, 13058 -> 1305*; 14850, 14853 -> 1485*; -> *   (4 leaves, height 2)
    2    F    13053  4       age: leaves 1..10 -> 1-2, 3-4, 5-6, 7-8, 9-10 -> 1-4, 5-10 -> *
    3    F    14850  7            (10 leaves, height 3; numeric, data range 2..10, span 8)
    4    F    14853  9
    5    M    14850  10

The hand partition: class 0 = rows {0, 1} as (M, 1305*, 1-4); class 1 = rows {2, 3, 4} as
(F, *, *); row 5 suppressed.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.lattice import Lattice
from anonset.core.partition import HierarchyNodes, Intervals, Partition
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.hierarchy import Hierarchy
from anonset.metrics import (
    GCP,
    GLM,
    NCP,
    AverageClassSize,
    CellMetric,
    Discernibility,
    Loss,
    NonUniformEntropy,
    Precision,
    TotalIL,
    make_metric,
    standard_metrics,
)
from anonset.privacy import KAnonymity, Requirements

SEX = Hierarchy.from_rows("sex", [["M", "*"], ["F", "*"]])
ZIP = Hierarchy.from_rows("zip", [
    ["13053", "1305*", "*"], ["13058", "1305*", "*"], ["14850", "1485*", "*"], ["14853", "1485*", "*"],
])


def _age_row(v: int) -> list[str]:
    pair = f"{v - (v + 1) % 2}-{v + v % 2}"  # 1-2, 3-4, ...
    return [str(v), pair, "1-4" if v <= 4 else "5-10", "*"]


AGE = Hierarchy.from_rows("age", [_age_row(v) for v in range(1, 11)])
LOG2_3 = math.log2(3)


def table() -> pd.DataFrame:
    return pd.DataFrame({
        "sex": ["M", "M", "F", "F", "F", "M"],
        "zip": ["13053", "13058", "13053", "14850", "14853", "14850"],
        "age": [2, 3, 4, 7, 9, 10],
        "disease": ["flu", "cold", "flu", "hiv", "flu", "cold"],
    })


def dataset(age_hierarchy: bool = True) -> Dataset:
    age = {"role": "quasi", "type": "numeric"}
    if age_hierarchy:
        age["hierarchy"] = AGE
    return Dataset(table(), {
        "sex": {"role": "quasi", "hierarchy": SEX},
        "zip": {"role": "quasi", "hierarchy": ZIP},
        "age": age,
        "disease": {"role": "sensitive"},
    })


def nodes(levels: list[int], codes: list[int]) -> HierarchyNodes:
    return HierarchyNodes(np.array(levels, dtype=np.int16), np.array(codes, dtype=np.int32))


def hand_partition() -> Partition:
    # codes are first-seen order in the hierarchy rows: M = 0, F = 1; 1305* = 0; 1-4 = 0; roots = 0
    return Partition(
        values={
            "sex": nodes([0, 0], [SEX.leaf_code("M"), SEX.leaf_code("F")]),
            "zip": nodes([1, 2], [0, 0]),
            "age": nodes([2, 3], [0, 0]),
        },
        sizes=np.array([2, 3], dtype=np.int64),
        n_suppressed=1,
        row_class=np.array([0, 0, 1, 1, 1, -1], dtype=np.int64),
    )


def interval_partition() -> Partition:
    # same classes, age as intervals [2, 3] and [4, 9] (dataset without an age hierarchy)
    p = hand_partition()
    values = dict(p.values)
    values["age"] = Intervals(np.array([2.0, 4.0]), np.array([3.0, 9.0]))
    return Partition(values=values, sizes=p.sizes, n_suppressed=1, row_class=p.row_class)


def test_fixture_is_what_the_docstring_says() -> None:
    ds = dataset()
    assert ds.quasi == ("sex", "zip", "age")
    assert AGE.rows()[4] == ["5", "5-6", "5-10", "*"]
    assert AGE.n_leaves == 10 and AGE.max_level == 3
    assert AGE.labels[2].tolist() == ["1-4", "5-10"]
    assert ZIP.labels[1].tolist() == ["1305*", "1485*"]
    assert hand_partition().n_rows == 6


# ============================================================================ Loss
def test_loss_by_hand() -> None:
    # share = leaves under the node / leaves of the hierarchy; a suppressed cell costs 1;
    # L_j = (Σ share - n/|D_j|) / (n - n/|D_j|), n = 6.
    # sex (|D| = 2): 2 * 1/2 + 3 * 1/2 + 1 = 3.5; floor 6/2 = 3 -> (3.5 - 3) / 3 = 1/6
    # zip (|D| = 4): 2 * 2/4 + 3 * 4/4 + 1 = 5; floor 1.5 -> 3.5 / 4.5 = 7/9
    # age (|D| = 10): 2 * 4/10 + 3 * 1 + 1 = 4.8; floor 0.6 -> 4.2 / 5.4 = 7/9
    # Loss = ((1 + 1/6)(1 + 7/9)(1 + 7/9))^(1/3) - 1
    ds = dataset()
    metric = Loss()
    p = hand_partition()
    sums = np.array([3.5, 5.0, 4.8])
    np.testing.assert_allclose(metric.per_attribute(ds, sums), [1 / 6, 7 / 9, 7 / 9])
    expected = (7 / 6 * 16 / 9 * 16 / 9) ** (1 / 3) - 1
    assert metric.score(p, ds) == pytest.approx(expected, abs=1e-12)
    assert metric.direction == "loss" and metric.objective(0.3) == 0.3


def test_loss_suppressed_row_costs_one() -> None:
    # release row 5 as its own class (M, 1485*, 5-10) instead of suppressing it:
    # sex 0.5 instead of 1 -> Σ 3 -> L 0;  zip 2/4 -> Σ 4.5 -> 3/4.5 = 2/3;  age 6/10 -> Σ 4.4 -> 3.8/5.4 = 19/27
    ds = dataset()
    p = Partition(
        values={"sex": nodes([0, 0, 0], [0, 1, 0]), "zip": nodes([1, 2, 1], [0, 0, 1]),
                "age": nodes([2, 3, 2], [0, 0, 1])},
        sizes=np.array([2, 3, 1]), n_suppressed=0, row_class=np.array([0, 0, 1, 1, 1, 2]))
    expected = (1 * (1 + 2 / 3) * (1 + 19 / 27)) ** (1 / 3) - 1
    assert Loss().score(p, ds) == pytest.approx(expected, abs=1e-12)
    assert Loss().score(p, ds) < Loss().score(hand_partition(), ds)


def test_loss_extremes() -> None:
    ds = dataset()
    leaves = Partition(
        values={"sex": nodes([0] * 6, [0, 0, 1, 1, 1, 0]),
                "zip": nodes([0] * 6, [0, 1, 0, 2, 3, 2]),
                "age": nodes([0] * 6, [AGE.leaf_code(str(a)) for a in (2, 3, 4, 7, 9, 10)])},
        sizes=np.ones(6, dtype=np.int64), n_suppressed=0)
    assert Loss().score(leaves, ds) == pytest.approx(0.0, abs=1e-12)  # every value at leaf level
    nothing = Partition(values={q: nodes([], []) for q in ds.quasi}, sizes=np.zeros(0, dtype=np.int64),
                        n_suppressed=6)
    assert Loss().score(nothing, ds) == pytest.approx(1.0)  # all suppressed: every L_j = 1, 2^1 - 1


def test_loss_weights() -> None:
    # weights normalized to sum 1: sex 2/4, zip 1/4, age 1/4 (unnamed attributes weigh 1)
    # (7/6)^(1/2) (16/9)^(1/4) (16/9)^(1/4) - 1 = sqrt(7/6) * 4/3 - 1
    ds = dataset()
    got = Loss(weights={"sex": 2}).score(hand_partition(), ds)
    assert got == pytest.approx(math.sqrt(7 / 6) * 4 / 3 - 1, abs=1e-12)
    # a weight of zero drops the attribute: zip and age weigh 1/2 each: (16/9)^(1/2) (16/9)^(1/2) - 1 = 7/9
    assert Loss(weights={"sex": 0}).score(hand_partition(), ds) == pytest.approx(7 / 9, abs=1e-12)


def test_loss_intervals() -> None:
    # age without a hierarchy: interval share (hi - lo) / (max - min) = 1/8 and 5/8, minimum 0:
    # age Σ = 2/8 + 15/8 + 1 = 25/8 -> L = 25/48 (sex and zip as above)
    ds = dataset(age_hierarchy=False)
    expected = (7 / 6 * 16 / 9 * (1 + 25 / 48)) ** (1 / 3) - 1
    assert Loss().score(interval_partition(), ds) == pytest.approx(expected, abs=1e-12)


# ============================================================================ GLM / NCP / GCP / Precision
def test_glm_by_hand() -> None:
    # (leaves - 1) / (|D| - 1) per cell, 1 per suppressed cell
    # sex: leaves -> 0, suppressed 1 -> 1
    # zip: 1305* (2-1)/3 * 2 + root 1 * 3 + 1 = 14/3
    # age: 1-4 (4-1)/9 * 2 + root 1 * 3 + 1 = 14/3
    ds = dataset()
    assert GLM().score(hand_partition(), ds) == pytest.approx(1 + 14 / 3 + 14 / 3, abs=1e-12)
    assert GLM(weights={"zip": 0}).score(hand_partition(), ds) == pytest.approx(1 + 14 / 3, abs=1e-12)
    # intervals: age Σ = 25/8 (as for Loss)
    ds2 = dataset(age_hierarchy=False)
    assert GLM().score(interval_partition(), ds2) == pytest.approx(1 + 14 / 3 + 25 / 8, abs=1e-12)


def test_ncp_by_hand() -> None:
    # categorical: leaves(u) / |A|, a single leaf costs 0; numeric: extent of the node / data range
    # sex: single leaves -> 0; suppressed 1 -> 1
    # zip: 1305* 2/4 * 2 + root 4/4 * 3 + 1 = 5
    # age: 1-4 covers numbers 1..4, extent 3, data range 10 - 2 = 8 -> 3/8 * 2;
    #      root covers 1..10, extent 9/8 capped at 1 -> 1 * 3; suppressed 1 -> 3/4 + 4 = 19/4
    ds = dataset()
    assert NCP().score(hand_partition(), ds) == pytest.approx(1 + 5 + 19 / 4, abs=1e-12)
    # GCP = NCP / (n * d) = (43/4) / 18 = 43/72
    assert GCP().score(hand_partition(), ds) == pytest.approx(43 / 72, abs=1e-12)
    # weights: sex 2, age 0.5 -> 2 * 1 + 5 + 0.5 * 19/4 = 75/8; GCP / (6 * 3.5) = 25/56
    w = {"sex": 2, "age": 0.5}
    assert NCP(weights=w).score(hand_partition(), ds) == pytest.approx(75 / 8, abs=1e-12)
    assert GCP(weights=w).score(hand_partition(), ds) == pytest.approx(25 / 56, abs=1e-12)


def test_ncp_cell_costs() -> None:
    ds = dataset()
    ncp = NCP()
    # a numeric leaf has extent 0; 1-2 extent 1/8; 5-10 extent 5/8; root capped at 1
    ages = nodes([0, 1, 2, 3], [AGE.leaf_code("7"), 0, 1, 0])
    np.testing.assert_allclose(ncp.class_costs(ds, "age", ages), [0, 1 / 8, 5 / 8, 1])
    # categorical: leaf 0, 1305* = 2/4, root 1
    np.testing.assert_allclose(ncp.class_costs(ds, "zip", nodes([0, 1, 2], [1, 0, 0])), [0, 0.5, 1])
    # intervals: share of the data range
    ds2 = dataset(age_hierarchy=False)
    np.testing.assert_allclose(
        ncp.class_costs(ds2, "age", Intervals(np.array([2.0, 2.0, 5.0]), np.array([2.0, 10.0, 7.0]))),
        [0, 1, 0.25])
    # NCP with intervals: age Σ = 25/8 -> 1 + 5 + 25/8
    assert ncp.score(interval_partition(), ds2) == pytest.approx(6 + 25 / 8, abs=1e-12)


def test_precision_by_hand() -> None:
    # cost level / height; suppressed cells count as fully generalized (1)
    # sex (height 1): 0 + 0 + 1 = 1;  zip (height 2): 1/2 * 2 + 1 * 3 + 1 = 5
    # age (height 3): 2/3 * 2 + 1 * 3 + 1 = 16/3;  Prec = 1 - (34/3) / 18 = 10/27
    ds = dataset()
    metric = Precision()
    assert metric.score(hand_partition(), ds) == pytest.approx(10 / 27, abs=1e-12)
    assert metric.direction == "value" and metric.objective(0.25) == -0.25
    # weights: age 3 -> (1 + 5 + 16) / (6 * 5) = 11/15 -> 4/15
    assert Precision(weights={"age": 3}).score(hand_partition(), ds) == pytest.approx(4 / 15, abs=1e-12)


# ============================================================================ class metrics
def test_discernibility_and_aecs() -> None:
    ds = dataset()
    p = hand_partition()
    # 2² + 3² + 1 suppressed * 6 records = 19
    assert Discernibility().score(p, ds) == 19.0
    # (5 released records / 2 classes) / k
    assert AverageClassSize(1).score(p, ds) == 2.5
    assert AverageClassSize(2).score(p, ds) == 1.25
    assert AverageClassSize(0).score(p, ds) == 2.5  # k is floored at 1
    nothing = Partition(values={}, sizes=np.zeros(0, dtype=np.int64), n_suppressed=6)
    assert AverageClassSize(2).score(nothing, ds) == math.inf
    assert Discernibility().score(nothing, ds) == 36.0  # 6 suppressed * 6


def test_non_uniform_entropy_by_hand() -> None:
    # Σ over cells of log2(count of input records under the generalized value / count of the original)
    # sex (M 3, F 3): released cells at leaves -> 0; suppressed row 5 (M) -> root: log2(6/3) = 1
    # zip (13053: 2, 13058: 1, 14850: 2, 14853: 1; 1305*: 3):
    #   row 0 log2(3/2), row 1 log2(3/1), rows 2, 3, 4 at root log2(6/2), log2(6/2), log2(6/1),
    #   row 5 suppressed log2(6/2): product 3/2 * 3 * 3 * 3 * 6 * 3 = 729 = 3^6 -> 6 log2 3
    # age (each value once; 1-4 holds ages 2, 3, 4): rows 0, 1 log2(3) each; rows 2-5 log2(6) each
    #   -> 2 log2 3 + 4 log2 6 = 4 + 6 log2 3
    # total 1 + 6 log2 3 + 4 + 6 log2 3 = 5 + 12 log2 3
    ds = dataset()
    metric = NonUniformEntropy()
    assert metric.needs_rows
    assert metric.score(hand_partition(), ds) == pytest.approx(5 + 12 * LOG2_3, abs=1e-12)
    # intervals: [2, 3] holds 2 records, [4, 9] holds 3 (ages 4, 7, 9)
    # age: 2 * log2(2) + 3 * log2(3) + log2(6) = 3 + 4 log2 3 -> total 1 + 6 log2 3 + 3 + 4 log2 3
    ds2 = dataset(age_hierarchy=False)
    assert metric.score(interval_partition(), ds2) == pytest.approx(4 + 10 * LOG2_3, abs=1e-12)
    p = hand_partition()
    with pytest.raises(ValueError, match="record-level detail"):
        metric.score(Partition(values=p.values, sizes=p.sizes, n_suppressed=1), ds)


def test_full_domain_node_from_engine_by_hand() -> None:
    # node (sex 1, zip 1, age 2): classes {rows 0,1,2} = (*, 1305*, 1-4), {rows 3,4,5} = (*, 1485*, 5-10)
    ds = dataset()
    engine = NumpyEngine(ds)
    row_class, stats = engine.row_classes((1, 1, 2))
    verdict = Requirements([KAnonymity(3)]).judge(stats)
    assert verdict.feasible and verdict.suppressed_rows == 0
    p = Partition.from_node(ds.quasi, stats, verdict.kept, row_class)
    assert sorted(p.sizes.tolist()) == [3, 3]
    assert p.row_class is not None
    assert p.row_class[0] == p.row_class[1] == p.row_class[2] != p.row_class[3] == p.row_class[5]
    # Loss: sex all at root -> (6 - 3)/3 = 1;  zip 2/4 each -> (3 - 1.5)/4.5 = 1/3;
    #       age 4/10 * 3 + 6/10 * 3 = 3 -> (3 - 0.6)/5.4 = 4/9 -> (2 * 4/3 * 13/9)^(1/3) - 1
    assert Loss().score(p, ds) == pytest.approx((2 * 4 / 3 * 13 / 9) ** (1 / 3) - 1, abs=1e-12)
    assert Discernibility().score(p, ds) == 18.0
    # NUE: sex 6 * log2(6/3) = 6; zip 4 * log2(3/2) + 2 * log2 3 = 6 log2 3 - 4; age 6 * log2 3
    assert NonUniformEntropy().score(p, ds) == pytest.approx(2 + 12 * LOG2_3, abs=1e-12)


# ============================================================================ weights and registry
@pytest.mark.parametrize("cls", [Loss, GLM, NCP, GCP, Precision, TotalIL])
def test_weight_for_non_quasi_attribute_is_rejected(cls: type[CellMetric]) -> None:
    """Metric weights follow the one rule of anonset.core.weights (the clustering and Mondrian methods' too)."""
    ds = dataset()
    message = (f"metric {cls.name}: 'disease' is not a quasi-identifier of <DataFrame>; weights apply to"
               " sex, zip, age")
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        cls(weights={"sex": 1, "disease": 2}).score(hand_partition(), ds)
    for bad, shown in (({"sex": -1}, "-1"), ({"sex": float("nan")}, "nan"), ({"sex": True}, "True"),
                       ({"sex": "2"}, "'2'")):
        message = f"metric {cls.name}: the weight of 'sex' must be a finite number >= 0; got {shown}"
        with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
            cls(weights=bad).score(hand_partition(), ds)
    message = (f"metric {cls.name}: every weight is 0, so every release would cost nothing; give at least one"
               " quasi-identifier a weight > 0")
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        cls(weights={"sex": 0, "zip": 0, "age": 0}).score(hand_partition(), ds)
    # a zero weight beside a positive one is allowed: that attribute just costs nothing
    assert cls(weights={"sex": 0, "zip": 1, "age": 1}).score(hand_partition(), ds) >= 0


def test_registry() -> None:
    assert isinstance(make_metric("loss", weights={"sex": 2}), Loss)
    assert make_metric("aecs", k=4).k == 4  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="unknown metric 'entropy'"):
        make_metric("entropy")
    with pytest.raises(ConfigError, match="metric 'discernibility' takes no attribute weights"):
        make_metric("discernibility", weights={"sex": 2})
    names = [m.name for m in standard_metrics(k=2)]
    assert names == ["loss", "glm", "ncp", "gcp", "precision", "discernibility", "aecs", "non_uniform_entropy",
                     "total_il", "ambiguity", "kl_divergence", "publisher_payout"]


# ============================================================================ lower bounds on a lattice
@pytest.mark.parametrize("cls", [Loss, GLM, NCP, GCP, Precision])
@pytest.mark.parametrize("weights", [None, {"sex": 3, "age": 0.5}])
def test_node_bounds_are_lower_bounds_and_monotone(cls: type[CellMetric], weights: dict | None) -> None:
    ds = dataset()
    metric = cls(weights=weights)
    lattice = Lattice([h.max_level for h in ds.hierarchies], ds.quasi)
    assert lattice.size == 2 * 3 * 4
    bounds = metric.node_bounds(ds, lattice.nodes)
    assert bounds.shape == (lattice.size,)
    engine = NumpyEngine(ds)
    for k in (1, 2, 3, 4):
        req = Requirements([KAnonymity(k)], max_suppression=1.0)
        for i, node in enumerate(lattice.nodes):
            levels = tuple(int(v) for v in node)
            stats = engine.class_stats(levels)
            verdict = req.judge(stats)
            objective = metric.objective(metric.score(Partition.from_node(ds.quasi, stats, verdict.kept), ds))
            assert bounds[i] <= objective + 1e-12, (k, levels)
            if verdict.suppressed_rows == 0:  # generalization alone: the bound is exact
                assert bounds[i] == pytest.approx(objective, abs=1e-12), levels
    # non-decreasing along every lattice edge (one attribute one level up)
    for i, node in enumerate(lattice.nodes):
        for j in range(len(node)):
            if node[j] < lattice.max_levels[j]:
                up = node.copy()
                up[j] += 1
                assert bounds[lattice.index(up)] >= bounds[i] - 1e-12, (node, j)


def test_node_bounds_by_hand() -> None:
    # bottom node: Loss 0 (every value a leaf); top node: every share 1 -> Loss 1
    # GLM at the top: every cell costs 1 -> 6 * 3 = 18; Precision at the top: 0 -> objective -0
    ds = dataset()
    levels = np.array([[0, 0, 0], [1, 2, 3], [1, 1, 2]])
    np.testing.assert_allclose(Loss().node_bounds(ds, levels),
                               [0, 1, (2 * 4 / 3 * 13 / 9) ** (1 / 3) - 1], atol=1e-12)
    np.testing.assert_allclose(GLM().node_bounds(ds, levels)[:2], [0, 18], atol=1e-12)
    np.testing.assert_allclose(Precision().node_bounds(ds, levels)[:2], [-1, 0], atol=1e-12)


# ============================================================================ classification metric target
def _labelled_dataset(targets: tuple[str, ...]) -> Dataset:
    frame = pd.DataFrame({"q": ["a", "a", "a", "b", "b", "c"], "y": ["1", "1", "0", "0", "0", "1"],
                          "z": ["u", "v", "v", "v", "u", "u"]})
    attrs: dict = {"q": {"role": "quasi"}}
    for name in ("y", "z"):
        attrs[name] = {"role": "target" if name in targets else "insensitive"}
    return Dataset(frame, attrs)


def test_cm_resolves_its_target_by_the_shared_rule() -> None:
    """cm scores the named target or the only one; none, or several and none named, is a one-line ConfigError."""
    from anonset.core.partition import partition_of_assignment
    from anonset.metrics import ClassificationMetric

    row_class = np.array([0, 0, 0, 1, 1, -1])
    one = _labelled_dataset(("y",))
    assert ClassificationMetric().score(partition_of_assignment(one, row_class), one) == pytest.approx(2 / 6)
    two = _labelled_dataset(("y", "z"))
    partition = partition_of_assignment(two, row_class)
    assert ClassificationMetric(target="y").score(partition, two) == pytest.approx(2 / 6)
    assert ClassificationMetric(target="z").score(partition, two) == pytest.approx(3 / 6)
    message = ("<DataFrame>: metric cm needs one class label column and 2 have role target (y, z); name the one"
               " to use (option target)")
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        ClassificationMetric().score(partition, two)
    none = _labelled_dataset(())
    message = "<DataFrame>: metric cm needs a class label column and no column has role target; set role: target on one"
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        ClassificationMetric().score(partition_of_assignment(none, row_class), none)
    message = ("<DataFrame>: metric cm needs a class label column; 'q' is a quasi column: give it role target"
               " (targets: y)")
    with pytest.raises(ConfigError, match="^" + re.escape(message) + "$"):
        ClassificationMetric(target="q").score(partition_of_assignment(one, row_class), one)


def test_cm_is_reported_only_with_exactly_one_target() -> None:
    from anonset.metrics import reported_metrics

    def names(targets: tuple[str, ...]) -> list[str]:
        return [m.name for m in reported_metrics(_labelled_dataset(targets))]

    assert "cm" in names(("y",))
    assert "cm" not in names(())
    assert "cm" not in names(("y", "z"))
