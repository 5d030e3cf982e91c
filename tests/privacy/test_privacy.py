"""Tests for the privacy models and the suppression budget (``anonset.privacy``).

Every expected figure is derived by hand in a comment, taken from the paper
that defines the model, or computed by an independent implementation (pycanon
for k, distinct/entropy l and t; scipy's LP solver and 1-D Wasserstein
distance for the Earth Mover's Distances).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from pycanon import anonymity as pyc
from scipy.optimize import linprog
from scipy.stats import wasserstein_distance

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats, StatsRequest, stats_from_assignment
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError
from anonset.hierarchy import Hierarchy
from anonset.privacy import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    Requirements,
    SquaredErrorDiversity,
    TCloseness,
)
from anonset.privacy.tcloseness import emd


# ============================================================================ helpers
def sized(sizes: list[int]) -> ClassStats:
    """Class statistics with sizes only."""
    s = np.asarray(sizes, dtype=np.int64)
    return ClassStats(sizes=s, keys=np.zeros((len(s), 0), dtype=np.int32))


def hist_stats(rows: list[list[int]], attribute: str = "s") -> ClassStats:
    """Class statistics from per-class histograms of one sensitive attribute."""
    h = np.asarray(rows, dtype=np.int64)
    return ClassStats(sizes=h.sum(axis=1), keys=np.zeros((len(h), 0), dtype=np.int32),
                      histograms={attribute: h})


def moment_stats(classes: list[list[float]], attribute: str = "v") -> ClassStats:
    """Class statistics (sum, sum of squares) of a numeric sensitive attribute."""
    sizes = np.array([len(c) for c in classes], dtype=np.int64)
    sums = np.array([float(sum(c)) for c in classes])
    sumsq = np.array([float(sum(x * x for x in c)) for c in classes])
    return ClassStats(sizes=sizes, keys=np.zeros((len(classes), 0), dtype=np.int32),
                      sums={attribute: sums}, sumsq={attribute: sumsq})


def exact(message: str) -> str:
    """A regex matching exactly ``message``."""
    return "^" + re.escape(message) + "$"


def lp_emd(p: np.ndarray, q: np.ndarray, ground: np.ndarray) -> float:
    """Earth Mover's Distance by solving the transportation LP (independent of anonset)."""
    m = len(p)
    a_eq = np.zeros((2 * m, m * m))
    for i in range(m):
        a_eq[i, i * m:(i + 1) * m] = 1.0  # mass leaving i
        a_eq[m + i, i::m] = 1.0  # mass arriving at i
    res = linprog(ground.ravel(), A_eq=a_eq, b_eq=np.concatenate([p, q]), bounds=(0, None), method="highs")
    assert res.success
    return float(res.fun)


# ============================================================================ k-anonymity
def test_k_anonymity_boundaries() -> None:
    stats = sized([1, 2, 3, 5])
    # class size >= k, so a class of exactly k records passes and k - 1 fails
    assert KAnonymity(1).satisfied(stats).tolist() == [True, True, True, True]
    assert KAnonymity(3).satisfied(stats).tolist() == [False, False, True, True]
    assert KAnonymity(5).satisfied(stats).tolist() == [False, False, False, True]
    assert KAnonymity(6).satisfied(stats).tolist() == [False, False, False, False]
    assert KAnonymity(np.int64(2)).k == 2
    assert KAnonymity(5).describe() == "5-anonymity"


@pytest.mark.parametrize("k", [0, -3, 2.5, "5", True, None])
def test_k_anonymity_rejects_bad_k(k: object) -> None:
    with pytest.raises(ConfigError, match=exact(
            f"k-anonymity: the 'k' parameter must be an int >= 1; got {k!r}")):
        KAnonymity(k)  # type: ignore[arg-type]


def test_k_anonymity_validate_k_larger_than_table() -> None:
    ds = Dataset(pd.DataFrame({"q": ["a", "b", "c"]}), {"q": {"role": "quasi"}})
    KAnonymity(3).validate(ds)
    with pytest.raises(ConfigError, match=r"k = 4 is larger than the table \(3 records"):
        KAnonymity(4).validate(ds)


# ============================================================================ l-diversity
def test_distinct_l_diversity() -> None:
    stats = hist_stats([[3, 0, 0], [1, 1, 0], [1, 5, 1], [0, 0, 0]])
    # distinct values per class: 1, 2, 3, 0
    assert DistinctLDiversity("s", 1).satisfied(stats).tolist() == [True, True, True, False]
    assert DistinctLDiversity("s", 2).satisfied(stats).tolist() == [False, True, True, False]
    assert DistinctLDiversity("s", 3).satisfied(stats).tolist() == [False, False, True, False]
    # a fractional l needs ceil(l) distinct values
    assert DistinctLDiversity("s", 2.5).satisfied(stats).tolist() == [False, False, True, False]
    assert DistinctLDiversity("s", 2).request == StatsRequest(histograms=frozenset({"s"}))


def test_entropy_l_diversity_uniform_three_values_is_exactly_3_diverse() -> None:
    # counts (1,1,1): H = -3 * (1/3) ln(1/3) = ln 3, so entropy-3-diverse with equality
    # (the boundary must pass despite rounding), and not l-diverse for any l > 3.
    stats = hist_stats([[1, 1, 1], [4, 4, 4]])
    assert EntropyLDiversity("s", 3).satisfied(stats).tolist() == [True, True]
    assert EntropyLDiversity("s", 3.001).satisfied(stats).tolist() == [False, False]


def test_entropy_l_diversity_skewed_counts() -> None:
    # counts (2,1,1): p = (1/2, 1/4, 1/4);
    # H = 1/2 ln 2 + 2 * 1/4 ln 4 = 1/2 ln 2 + ln 2 = 3/2 ln 2, so exp(H) = 2^1.5 = 2.828...
    # -> entropy-2-diverse and entropy-2.828-diverse, not entropy-3-diverse although it has 3 values.
    stats = hist_stats([[2, 1, 1], [0, 1, 3], [5, 0, 0]])
    # (0,1,3): H = 1/4 ln 4 + 3/4 ln(4/3) = 0.5623 < ln 2 = 0.6931 -> not 2-diverse, exp(H) = 1.755
    # (5,0,0): H = 0 -> only 1-diverse
    assert EntropyLDiversity("s", 2).satisfied(stats).tolist() == [True, False, False]
    assert EntropyLDiversity("s", 2 ** 1.5).satisfied(stats).tolist() == [True, False, False]
    assert EntropyLDiversity("s", 2.8285).satisfied(stats).tolist() == [False, False, False]
    assert EntropyLDiversity("s", 3).satisfied(stats).tolist() == [False, False, False]
    assert EntropyLDiversity("s", 1.75).satisfied(stats).tolist() == [True, True, False]
    assert EntropyLDiversity("s", 1.76).satisfied(stats).tolist() == [True, False, False]
    assert EntropyLDiversity("s", 1).satisfied(stats).tolist() == [True, True, True]
    # the distinct variant sees 3, 2 and 1 values
    assert DistinctLDiversity("s", 3).satisfied(stats).tolist() == [True, False, False]


def test_recursive_cl_diversity() -> None:
    # counts (5,3,2): r1 = 5; with l = 2 the tail is r2 + r3 = 5.
    #   c = 2: 5 < 2 * 5 = 10 -> True;  c = 1: 5 < 5 -> False (strict);  c = 1.01: 5 < 5.05 -> True
    # with l = 3 the tail is r3 = 2: c = 2: 5 < 4 False; c = 3: 5 < 6 True
    # columns need not be sorted: (2,5,3) is the same class.
    stats = hist_stats([[5, 3, 2], [2, 5, 3], [4, 0, 0]])
    assert RecursiveCLDiversity("s", 2, 2).satisfied(stats).tolist() == [True, True, False]
    assert RecursiveCLDiversity("s", 2, 1).satisfied(stats).tolist() == [False, False, False]
    assert RecursiveCLDiversity("s", 2, 1.01).satisfied(stats).tolist() == [True, True, False]
    assert RecursiveCLDiversity("s", 3, 2).satisfied(stats).tolist() == [False, False, False]
    assert RecursiveCLDiversity("s", 3, 3).satisfied(stats).tolist() == [True, True, False]
    # a histogram with fewer columns than l cannot be recursive (c, l)-diverse
    assert RecursiveCLDiversity("s", 4, 100).satisfied(stats).tolist() == [False, False, False]
    assert RecursiveCLDiversity("s", 2, 2).describe() == "recursive (2, 2)-diversity on s"


@pytest.mark.parametrize("l", [1, 2.5])
def test_recursive_cl_diversity_rejects_bad_l(l: float) -> None:
    with pytest.raises(ConfigError, match=exact(
            f"recursive (c, l)-diversity on 's': the 'l' parameter must be an int >= 2; got {l!r}")):
        RecursiveCLDiversity("s", l, 2)


def test_recursive_cl_diversity_rejects_bad_c() -> None:
    for c in (0, -1.5):
        with pytest.raises(ConfigError, match=exact(
                f"recursive (c, l)-diversity on 's': the 'c' parameter must be a number > 0; got {c!r}")):
            RecursiveCLDiversity("s", 2, c)
    assert RecursiveCLDiversity("s", 2, 1e-6).c == 1e-6


@pytest.mark.parametrize(("cls", "variant"), [(DistinctLDiversity, "distinct"), (EntropyLDiversity, "entropy")])
@pytest.mark.parametrize("l", [0.5, -1, "2", float("nan"), True])
def test_l_diversity_rejects_bad_l(cls: type, variant: str, l: object) -> None:
    with pytest.raises(ConfigError, match=exact(
            f"{variant} l-diversity on 's': the 'l' parameter must be a number >= 1; got {l!r}")):
        cls("s", l)


def _sensitive_dataset() -> Dataset:
    df = pd.DataFrame({
        "zip": ["1", "1", "2", "2", "3", "3"],
        "disease": ["flu", "flu", "cold", "flu", "hiv", "cold"],
        "salary": [1, 2, 3, 4, 5, 6],
        "other": ["x"] * 6,
    })
    return Dataset(df, {"zip": {"role": "quasi"}, "disease": {"role": "sensitive"},
                        "salary": {"role": "sensitive", "type": "numeric"}})


@pytest.mark.parametrize("cls", [DistinctLDiversity, EntropyLDiversity])
def test_l_diversity_validate(cls: type) -> None:
    ds = _sensitive_dataset()
    cls("disease", 3).validate(ds)  # flu, cold, hiv: 3 distinct values
    with pytest.raises(ConfigError, match=exact(
            f"{cls('disease', 3).owner}: l = 4 is larger than the number of distinct values of 'disease' (3);"
            " no class can be"
            " 4-diverse: lower l")):
        cls("disease", 4).validate(ds)
    with pytest.raises(ConfigError, match=f"^{re.escape(cls('other', 2).owner)}: 'other' must have role sensitive"):
        cls("other", 2).validate(ds)
    with pytest.raises(ConfigError, match=f"^{re.escape(cls('nope', 2).owner)}: 'nope' is not a column"):
        cls("nope", 2).validate(ds)


# ============================================================================ t-closeness
# Li, Li and Venkatasubramanian (ICDE 2007), section 4.3: salaries 3k..11k, one record each,
# classes {3k,4k,5k}, {6k,8k,11k}, {7k,9k,10k}; the paper gives D[P1,Q] = 0.375, D[P2,Q] = 0.167.
SALARIES = [3, 4, 5, 6, 8, 11, 7, 9, 10]
SALARY_CLASS = [0, 0, 0, 1, 1, 1, 2, 2, 2]


def _salary_dataset() -> Dataset:
    df = pd.DataFrame({"zip": [f"z{c}" for c in SALARY_CLASS], "salary": SALARIES})
    return Dataset(df, {"zip": {"role": "quasi"}, "salary": {"role": "sensitive", "type": "numeric"}})


def test_t_closeness_ordered_li_et_al_example() -> None:
    ds = _salary_dataset()
    model = TCloseness("salary", 0.375, distance="ordered")
    model.validate(ds)
    stats = stats_from_assignment(ds, np.array(SALARY_CLASS), model.request)
    # m = 9 values in order 3k..11k, Q = 1/9 each, ordered EMD = Σ_i |Σ_{j<=i} r_j| / (m - 1).
    # P1 = {3k,4k,5k}: r = (2,2,2,-1,-1,-1,-1,-1,-1)/9, prefix sums (2,4,6,5,4,3,2,1)/9 -> 27/9 / 8 = 0.375
    # P2 = {6k,8k,11k}: r = (-1,-1,-1,2,-1,2,-1,-1,2)/9, |prefix| (1,2,3,1,2,0,1,2)/9 -> 12/9 / 8 = 1/6
    # P3 = {7k,9k,10k}: r = (-1,-1,-1,-1,2,-1,2,2,-1)/9, |prefix| (1,2,3,4,2,3,1,1)/9 -> 17/9 / 8 = 17/72
    d = emd(stats.histograms["salary"], model._reference, "ordered")
    np.testing.assert_allclose(d, [0.375, 1 / 6, 17 / 72], atol=1e-12)
    assert round(d[1], 3) == 0.167  # the paper's rounded figure
    # independent: 1-D Wasserstein distance with values at positions i / (m - 1)
    pos = np.arange(9) / 8
    for c in range(3):
        p = stats.histograms["salary"][c] / 3
        assert d[c] == pytest.approx(wasserstein_distance(pos, pos, p, np.full(9, 1 / 9)), abs=1e-12)
    # thresholds: t = 0.375 admits P1 exactly (boundary), t = 0.374 does not
    assert model.satisfied(stats).tolist() == [True, True, True]
    tight = TCloseness("salary", 0.374, distance="ordered")
    tight.validate(ds)
    assert tight.satisfied(stats).tolist() == [False, True, True]
    mid = TCloseness("salary", 0.2, distance="ordered")
    mid.validate(ds)
    assert mid.satisfied(stats).tolist() == [False, True, False]  # 1/6 <= 0.2 < 17/72


def test_t_closeness_equal_distance() -> None:
    ds = _salary_dataset()
    model = TCloseness("salary", 2 / 3, distance="equal")
    model.validate(ds)
    stats = stats_from_assignment(ds, np.array(SALARY_CLASS), model.request)
    # every class holds 3 of the 9 values at 1/3 each: ½ Σ|p - q| = ½ (3 * (1/3 - 1/9) + 6 * 1/9) = 2/3
    d = emd(stats.histograms["salary"], model._reference, "equal")
    np.testing.assert_allclose(d, [2 / 3] * 3, atol=1e-12)
    assert model.satisfied(stats).all()
    low = TCloseness("salary", 0.66, distance="equal")
    low.validate(ds)
    assert not low.satisfied(stats).any()
    # one class equal to the whole table is at distance 0
    whole = stats_from_assignment(ds, np.zeros(9, dtype=np.int64), model.request)
    assert emd(whole.histograms["salary"], model._reference, "equal").tolist() == [0.0]


TWO_LEVEL = Hierarchy.from_rows("s", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]])


def test_t_closeness_hierarchical_two_level_by_hand() -> None:
    # table: a1,a1,a2,a2,b1,b1,b2,b2 -> Q = 1/4 each; hierarchy of height 2 (a* under A, b* under B).
    df = pd.DataFrame({"q": ["x", "x", "y", "y", "z", "z", "w", "w"],
                       "s": ["a1", "a1", "a2", "a2", "b1", "b1", "b2", "b2"]})
    ds = Dataset(df, {"q": {"role": "quasi"}, "s": {"role": "sensitive", "hierarchy": TWO_LEVEL}})
    model = TCloseness("s", 0.5, distance="hierarchical")
    model.validate(ds)
    np.testing.assert_allclose(model._reference, [0.25] * 4)
    # classes given directly as histograms over (a1, a2, b1, b2):
    stats = hist_stats([[2, 0, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]])
    # {a1,a1}: P = (1,0,0,0); move 1/4 a1->a2 (LCA A, cost 1/2) and 1/2 a1->B (LCA root, cost 1):
    #          1/8 + 1/2 = 0.625
    # {a1,b1}: move 1/4 a1->a2 and 1/4 b1->b2, both at cost 1/2: 0.25
    # {a1,a2}: move 1/2 from A to B at cost 1: 0.5
    # uniform: 0
    d = emd(stats.histograms["s"], model._reference, "hierarchical", model._levels)
    np.testing.assert_allclose(d, [0.625, 0.25, 0.5, 0.0], atol=1e-12)
    assert model.satisfied(stats).tolist() == [False, True, True, True]
    # equal distance on the same classes: ½ Σ |p - q| = 0.75, 0.5, 0.5, 0
    np.testing.assert_allclose(emd(stats.histograms["s"], model._reference, "equal"),
                               [0.75, 0.5, 0.5, 0.0], atol=1e-12)


def _ground(distance: str, m: int, h: Hierarchy | None = None) -> np.ndarray:
    i, j = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    if distance == "equal":
        return (i != j).astype(float)
    if distance == "ordered":
        return np.abs(i - j) / (m - 1)
    assert h is not None
    g = np.zeros((m, m))
    for a in range(m):
        for b in range(m):
            # height of the lowest common ancestor / height of the hierarchy
            g[a, b] = min(lv for lv in range(h.n_levels) if h.maps[lv][a] == h.maps[lv][b]) / h.max_level
    return g


THREE_LEVEL = Hierarchy.from_rows("s", [
    ["v0", "g0", "G0", "*"], ["v1", "g0", "G0", "*"], ["v2", "g1", "G0", "*"],
    ["v3", "g1", "G0", "*"], ["v4", "g1", "G0", "*"], ["v5", "g2", "G1", "*"], ["v6", "g3", "G1", "*"],
])


@pytest.mark.parametrize("distance", ["equal", "ordered", "hierarchical"])
def test_emd_matches_transportation_lp(distance: str) -> None:
    rng = np.random.default_rng(7)
    m = THREE_LEVEL.n_leaves
    steps = [THREE_LEVEL.parent_map(j, j + 1) for j in range(THREE_LEVEL.n_levels - 1)]
    ground = _ground(distance, m, THREE_LEVEL)
    for _ in range(25):
        ref = rng.integers(1, 9, size=m).astype(float)
        ref /= ref.sum()
        hist = rng.integers(0, 5, size=(1, m)) * (rng.random((1, m)) < 0.6)
        hist[0, rng.integers(m)] += 1
        got = emd(hist, ref, distance, steps if distance == "hierarchical" else None)[0]
        assert got == pytest.approx(lp_emd(hist[0] / hist.sum(), ref, ground), abs=1e-9)


def test_t_closeness_parameter_validation() -> None:
    with pytest.raises(ConfigError, match=exact(
            "t-closeness on 's': the 't' parameter must be a number in [0, 1]; got 1.5")):
        TCloseness("s", 1.5)
    with pytest.raises(ConfigError, match=exact(
            "t-closeness on 's': the 't' parameter must be a number in [0, 1]; got -0.1")):
        TCloseness("s", -0.1)
    with pytest.raises(ConfigError, match=exact(
            "t-closeness on 's': the 'distance' parameter must be one of equal | ordered | hierarchical;"
            " got 'manhattan'")):
        TCloseness("s", 0.2, distance="manhattan")
    ds = _sensitive_dataset()
    with pytest.raises(ConfigError, match="^t-closeness on 'disease': the hierarchical distance needs a hierarchy on"):
        TCloseness("disease", 0.2, distance="hierarchical").validate(ds)
    with pytest.raises(ConfigError, match="^t-closeness on 'disease': the ordered distance needs an order on"):
        TCloseness("disease", 0.2, distance="ordered").validate(ds)
    TCloseness("salary", 0.2, distance="ordered").validate(ds)  # numeric: ordered by value
    with pytest.raises(RuntimeError, match="validate"):
        TCloseness("disease", 0.2).satisfied(hist_stats([[1, 1, 1]], "disease"))


# A sensitive attribute with a hierarchy is encoded by hierarchy leaf code even when it also
# declares an `order` (hierarchical EMD works in leaf-code space).
def test_t_closeness_hierarchical_with_declared_order() -> None:
    df = pd.DataFrame({"q": ["x"] * 4 + ["y"] * 4, "s": ["a1", "b1", "a2", "b2", "a1", "a1", "b1", "b2"]})
    ds = Dataset(df, {"q": {"role": "quasi"},
                      "s": {"role": "sensitive", "hierarchy": TWO_LEVEL, "order": ("a1", "b1", "a2", "b2")}})
    model = TCloseness("s", 0.0625, distance="hierarchical")
    model.validate(ds)
    stats = stats_from_assignment(ds, np.array([0, 0, 0, 0, 1, 1, 1, 1]), model.request)
    # Q = (a1 3/8, a2 1/8, b1 2/8, b2 2/8).
    # class x = {a1,b1,a2,b2}: r = (a1 -1/8, a2 +1/8, b1 0, b2 0): move 1/8 inside A at cost 1/2 -> 1/16
    # class y = {a1,a1,b1,b2}: r = (a1 +1/8, a2 -1/8, 0, 0) -> 1/16
    d = emd(stats.histograms["s"], model._reference, "hierarchical", model._levels)
    np.testing.assert_allclose(d, [0.0625, 0.0625], atol=1e-12)


def test_t_closeness_hierarchical_numeric_with_unused_leaf() -> None:
    h = Hierarchy.from_rows("s", [["1", "lo", "*"], ["2", "lo", "*"], ["3", "hi", "*"], ["4", "hi", "*"]])
    df = pd.DataFrame({"q": ["x"] * 3 + ["y"] * 3, "s": ["1", "2", "3", "1", "2", "3"]})
    ds = Dataset(df, {"q": {"role": "quasi"}, "s": {"role": "sensitive", "type": "numeric", "hierarchy": h}})
    model = TCloseness("s", 0.0, distance="hierarchical")
    model.validate(ds)
    stats = stats_from_assignment(ds, np.array([0, 0, 0, 1, 1, 1]), model.request)
    ok = model.satisfied(stats)
    # both classes have the table's distribution (1/3 each of 1, 2, 3): distance 0
    assert ok.tolist() == [True, True]


@pytest.mark.parametrize(("spec_extra", "labels"), [
    pytest.param({"type": "numeric"}, ("1", "2", "3"), id="numeric"),
    pytest.param({"type": "ordinal", "order": ("low", "mid", "high")}, ("low", "mid", "high"), id="ordinal"),
])
def test_t_closeness_ordered_ignores_hierarchy_row_order(spec_extra: dict, labels: tuple) -> None:
    # the hierarchy lists the leaves out of order (3rd value first); the ordered distance must still
    # follow the values' own order.  Q = 1/3 each (m = 3, ground distance |i - j| / 2):
    # class x = {v1, v1}: r = (2/3, -1/3, -1/3), |prefix sums| 2/3 + 1/3 = 1 -> 1/2
    # class y = {v2, v3, v3, v2}: r = (-1/3, 1/6, 1/6), |prefix sums| 1/3 + 1/6 = 1/2 -> 1/4
    v1, v2, v3 = labels
    h = Hierarchy.from_rows("s", [[v3, "B", "*"], [v1, "A", "*"], [v2, "A", "*"]])
    df = pd.DataFrame({"q": ["x", "x", "y", "y", "y", "y"], "s": [v1, v1, v2, v3, v3, v2]})
    ds = Dataset(df, {"q": {"role": "quasi"}, "s": {"role": "sensitive", "hierarchy": h, **spec_extra}})
    model = TCloseness("s", 0.3, distance="ordered")
    model.validate(ds)
    stats = stats_from_assignment(ds, np.array([0, 0, 1, 1, 1, 1]), model.request)
    np.testing.assert_allclose(model.distances(stats), [0.5, 0.25], atol=1e-12)
    # the same attribute without a hierarchy gives the same figures
    plain = Dataset(df, {"q": {"role": "quasi"}, "s": {"role": "sensitive", **spec_extra}})
    model.validate(plain)
    stats = stats_from_assignment(plain, np.array([0, 0, 1, 1, 1, 1]), model.request)
    np.testing.assert_allclose(model.distances(stats), [0.5, 0.25], atol=1e-12)


# ============================================================================ squared-error diversity
def test_squared_error_diversity() -> None:
    # {1,2,3,6}: mean 3, SSE = 4 + 1 + 0 + 9 = 14 (= sumsq 50 - sum² 144 / 4)
    # {5,5}: SSE 0;  {0,10}: mean 5, SSE 25 + 25 = 50;  {7}: 0
    stats = moment_stats([[1, 2, 3, 6], [5, 5], [0, 10], [7]])
    assert SquaredErrorDiversity("v", 0).satisfied(stats).tolist() == [True, True, True, True]
    assert SquaredErrorDiversity("v", 14).satisfied(stats).tolist() == [True, False, True, False]
    assert SquaredErrorDiversity("v", 14.001).satisfied(stats).tolist() == [False, False, True, False]
    assert SquaredErrorDiversity("v", 50).satisfied(stats).tolist() == [False, False, True, False]
    assert SquaredErrorDiversity("v", 50.01).satisfied(stats).tolist() == [False, False, False, False]
    assert SquaredErrorDiversity("v", 1).request == StatsRequest(moments=frozenset({"v"}))


def test_squared_error_diversity_from_dataset() -> None:
    ds = _sensitive_dataset()
    model = SquaredErrorDiversity("salary", 0.5)
    model.validate(ds)
    stats = stats_from_assignment(ds, np.array([0, 0, 1, 1, 1, 1]), model.request)
    # class 0 = {1, 2}: SSE = 0.25 + 0.25 = 0.5;  class 1 = {3,4,5,6}: mean 4.5, SSE = 2.25+0.25+0.25+2.25 = 5
    np.testing.assert_allclose(stats.sumsq["salary"] - stats.sums["salary"] ** 2 / stats.sizes, [0.5, 5.0])
    assert model.satisfied(stats).tolist() == [True, True]
    strict = SquaredErrorDiversity("salary", 0.6)
    assert strict.satisfied(stats).tolist() == [False, True]
    with pytest.raises(ConfigError, match="^squared-error diversity on 'disease': 'disease' must be numeric"):
        SquaredErrorDiversity("disease", 1).validate(ds)
    with pytest.raises(ConfigError, match=exact(
            "squared-error diversity on 'salary': the 'error' parameter must be a number >= 0; got -1")):
        SquaredErrorDiversity("salary", -1)


# ============================================================================ monotonicity
def test_models_declare_monotonic() -> None:
    for model in (KAnonymity(2), DistinctLDiversity("s", 2), EntropyLDiversity("s", 2),
                  RecursiveCLDiversity("s", 2, 3), TCloseness("s", 0.3), SquaredErrorDiversity("v", 1)):
        assert model.monotonic is True


@pytest.mark.parametrize("make", [
    lambda: DistinctLDiversity("s", 2),
    lambda: EntropyLDiversity("s", 2.2),
    lambda: RecursiveCLDiversity("s", 2, 1.5),
    lambda: RecursiveCLDiversity("s", 3, 2),
])
def test_monotone_models_hold_after_merging(make: object) -> None:
    # "monotonic": if two classes satisfy the model, so does their union (that is what a more
    # general full-domain node does to classes).  Random pairs of histograms.
    model = make()  # type: ignore[operator]
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(3000):
        a, b = rng.integers(0, 6, size=(2, 5))
        if a.sum() == 0 or b.sum() == 0:
            continue
        ok = model.satisfied(hist_stats([a.tolist(), b.tolist(), (a + b).tolist()]))
        if ok[0] and ok[1]:
            checked += 1
            assert ok[2], (a, b)
    assert checked > 50


@pytest.mark.parametrize("distance", ["equal", "ordered", "hierarchical"])
def test_t_closeness_monotone_after_merging(distance: str) -> None:
    # Li et al.'s generalization property: D[P1 ∪ P2, Q] <= max(D[P1, Q], D[P2, Q]) for EMD.
    rng = np.random.default_rng(4)
    ref = np.array([0.1, 0.2, 0.05, 0.15, 0.25, 0.1, 0.15])
    steps = [THREE_LEVEL.parent_map(j, j + 1) for j in range(THREE_LEVEL.n_levels - 1)]
    for _ in range(500):
        a, b = rng.integers(0, 6, size=(2, 7))
        if a.sum() == 0 or b.sum() == 0:
            continue
        da, db, dab = emd(np.vstack([a, b, a + b]), ref, distance, steps)
        assert dab <= max(da, db) + 1e-12


# ============================================================================ requirements and budget
def test_requirements_judge_with_budget() -> None:
    stats = sized([1, 2, 3, 4, 10])  # 20 records
    # k = 3: classes of 1 and 2 violate -> 3 records suppressed
    req = Requirements([KAnonymity(3)], max_suppression=0.15)  # budget floor(0.15 * 20) = 3
    v = req.judge(stats)
    assert v.violating.tolist() == [True, True, False, False, False]
    assert v.kept.tolist() == [False, False, True, True, True]
    assert (v.suppressed_rows, v.budget_rows, v.feasible) == (3, 3, True)
    v = Requirements([KAnonymity(3)], max_suppression=0.1).judge(stats)  # budget floor(2.0) = 2 < 3
    assert (v.suppressed_rows, v.budget_rows, v.feasible) == (3, 2, False)
    # the budget is taken of n_rows when given (e.g. records already outside these classes)
    v = Requirements([KAnonymity(3)], max_suppression=0.1).judge(stats, n_rows=30)  # floor(3.0) = 3
    assert (v.suppressed_rows, v.budget_rows, v.feasible) == (3, 3, True)
    # no budget: feasible only without violations
    assert not Requirements([KAnonymity(3)]).judge(stats).feasible
    assert Requirements([KAnonymity(1)]).judge(stats).feasible
    assert Requirements([KAnonymity(1)]).judge(stats).suppressed_rows == 0


def test_requirements_budget_is_floored() -> None:
    # floor(0.1 * 25) = floor(2.5) = 2; 0.29 * 100 is 28.999999999999996 in floating point but is
    # 29 records (the 1e-9 guard); 0.07 * 100 = 7.000000000000001 -> 7; 1.0 -> every record
    assert Requirements([KAnonymity(2)], 0.1).budget_rows(25) == 2
    assert Requirements([KAnonymity(2)], 0.29).budget_rows(100) == 29
    assert Requirements([KAnonymity(2)], 0.07).budget_rows(100) == 7
    assert Requirements([KAnonymity(2)], 0.0).budget_rows(100) == 0
    assert Requirements([KAnonymity(2)], 1).budget_rows(17) == 17
    assert Requirements([KAnonymity(2)], 0.01).budget_rows(99) == 0


def test_requirements_combine_models() -> None:
    stats = hist_stats([[1, 1], [3, 0], [1, 0], [2, 2]])  # sizes 2, 3, 1, 4
    req = Requirements([KAnonymity(2), DistinctLDiversity("s", 2)], max_suppression=0.4)
    # class 1 fails l (one value), class 2 fails k and l: 4 of 10 records, budget floor(4.0) = 4
    v = req.judge(stats)
    assert v.violating.tolist() == [False, True, True, False]
    assert (v.suppressed_rows, v.budget_rows, v.feasible) == (4, 4, True)
    assert req.k == 2
    assert Requirements([DistinctLDiversity("s", 2)]).k == 1
    assert req.request == StatsRequest(histograms=frozenset({"s"}))
    assert (Requirements([SquaredErrorDiversity("v", 1), TCloseness("s", 0.2)]).request
            == StatsRequest(histograms=frozenset({"s"}), moments=frozenset({"v"})))
    assert req.describe() == "2-anonymity, distinct 2-diversity on s, suppression <= 0.4 of records"


@pytest.mark.parametrize("value", [-0.1, 1.5, True, "0.1", float("nan")])
def test_requirements_rejects_bad_budget(value: object) -> None:
    with pytest.raises(ConfigError, match=exact(
            f"The 'max_suppression' parameter must be a fraction in [0, 1]. Got {value!r} instead"
            " (write 0.01 for 1%).")):
        Requirements([KAnonymity(2)], max_suppression=value)  # type: ignore[arg-type]


def test_requirements_needs_a_model() -> None:
    with pytest.raises(ConfigError, match="no privacy model given"):
        Requirements([])


def test_requirements_monotonic() -> None:
    k = KAnonymity(5)
    ldiv = EntropyLDiversity("s", 2)
    # k-anonymity alone is monotone with and without a budget
    assert Requirements([k]).monotonic is True
    assert Requirements([k], max_suppression=0.05).monotonic is True
    assert Requirements([k, KAnonymity(3)], max_suppression=0.05).monotonic is True
    # l-diversity / t-closeness: monotone without a budget only
    assert Requirements([ldiv]).monotonic is True
    assert Requirements([k, ldiv]).monotonic is True
    assert Requirements([ldiv], max_suppression=0.05).monotonic is False
    assert Requirements([k, ldiv], max_suppression=0.05).monotonic is False
    assert Requirements([RecursiveCLDiversity("s", 2, 2)], max_suppression=0.1).monotonic is False
    assert Requirements([TCloseness("s", 0.2)], max_suppression=0.1).monotonic is False
    assert Requirements([TCloseness("s", 0.2)]).monotonic is True


def test_entropy_l_diversity_with_budget_is_not_monotone() -> None:
    # Why Requirements.monotonic must be False above: node N has classes {x,y} (H = ln 2: entropy-2-
    # diverse) and {x,x} (violates; 2 of 4 records, budget 50% -> feasible).  Merging them gives
    # {x,x,x,y}: H = -(3/4 ln 3/4 + 1/4 ln 1/4) = 0.562 < ln 2, so all 4 records would be suppressed.
    req = Requirements([EntropyLDiversity("s", 2)], max_suppression=0.5)
    assert req.judge(hist_stats([[1, 1], [2, 0]])).feasible
    assert not req.judge(hist_stats([[3, 1]])).feasible


# ============================================================================ cross-check with pycanon
def _random_table(seed: int) -> tuple[pd.DataFrame, list[str]]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 301))
    n_qi = int(rng.integers(2, 4))
    qi = [f"q{j}" for j in range(n_qi)]
    data = {q: rng.integers(0, int(rng.integers(2, 5)), size=n).astype(str) for q in qi}
    values = np.array(list("abcdef"))
    p = rng.dirichlet(np.full(6, 0.7))
    data["s"] = rng.choice(values, size=n, p=p)
    data["num"] = rng.integers(1, 8, size=n)
    return pd.DataFrame(data), qi


@pytest.mark.parametrize("seed", range(10))
def test_against_pycanon(seed: int) -> None:
    df, qi = _random_table(seed)
    ds = Dataset(df, {**{q: {"role": "quasi"} for q in qi}, "s": {"role": "sensitive"},
                      "num": {"role": "sensitive", "type": "numeric"}})
    row_class = df.groupby(qi).ngroup().to_numpy()
    request = StatsRequest(histograms=frozenset({"s", "num"}))
    stats = stats_from_assignment(ds, row_class, request)
    assert stats.n_rows == len(df)

    # k: pycanon returns the smallest class size
    k = pyc.k_anonymity(df, qi)
    assert int(stats.sizes.min()) == k
    assert KAnonymity(k).satisfied(stats).all()
    assert not KAnonymity(k + 1).satisfied(stats).all()
    # the engine's bottom node has the same classes
    assert sorted(NumpyEngine(ds, request).class_stats((0,) * len(qi)).sizes.tolist()) == sorted(
        stats.sizes.tolist())

    # distinct l: pycanon returns the smallest number of distinct sensitive values in a class
    l_distinct = pyc.l_diversity(df, qi, ["s"])
    assert DistinctLDiversity("s", l_distinct).satisfied(stats).all()
    assert not DistinctLDiversity("s", l_distinct + 1).satisfied(stats).all()

    # entropy l: pycanon returns int(min over classes of exp(H)) (natural log, floored to an int).
    # Our model holds for l iff log l <= min H, i.e. for every l <= exp(min H); so the largest
    # integer l it accepts is pycanon's figure.
    l_entropy = pyc.entropy_l_diversity(df, qi, ["s"])
    assert isinstance(l_entropy, int) and l_entropy >= 1
    assert EntropyLDiversity("s", l_entropy).satisfied(stats).all()
    assert not EntropyLDiversity("s", l_entropy + 1).satisfied(stats).all()
    assert EntropyLDiversity("s", 1).satisfied(stats).all()

    # t-closeness: pycanon uses the equal-distance EMD ½ Σ |p - q| for string attributes and the
    # ordered EMD over the table's distinct values (m of them, distance |i-j|/(m-1)) for numeric
    # ones, with the whole table as reference, and returns the largest class distance.
    for attribute, distance in (("s", "equal"), ("num", "ordered")):
        t = pyc.t_closeness(df, qi, [attribute])
        model = TCloseness(attribute, min(t, 1.0), distance=distance)
        model.validate(ds)
        d = emd(stats.histograms[attribute], model._reference, distance)
        assert d.max() == pytest.approx(t, abs=1e-12)
        assert model.satisfied(stats).all()
        if t > 1e-6:
            below = TCloseness(attribute, t - 1e-6, distance=distance)
            below.validate(ds)
            assert not below.satisfied(stats).all()


def test_pycanon_entropy_matches_exp_entropy_on_a_known_table() -> None:
    # a hand-made table: class A has counts (2,1,1) -> exp(H) = 2^1.5 = 2.83; class B = (1,1,1) -> 3.
    # pycanon floors the minimum: 2.  Our model: 2 and 2.828 hold, 2.83 and 3 do not.
    df = pd.DataFrame({"q": ["A"] * 4 + ["B"] * 3, "s": ["x", "x", "y", "z", "x", "y", "z"]})
    ds = Dataset(df, {"q": {"role": "quasi"}, "s": {"role": "sensitive"}})
    stats = stats_from_assignment(ds, df.groupby("q").ngroup().to_numpy(), StatsRequest(frozenset({"s"})))
    assert pyc.entropy_l_diversity(df, ["q"], ["s"]) == 2
    assert EntropyLDiversity("s", 2.828).satisfied(stats).all()
    assert EntropyLDiversity("s", 2.83).satisfied(stats).tolist() == [False, True]
    assert EntropyLDiversity("s", 3).satisfied(stats).tolist() == [False, True]
