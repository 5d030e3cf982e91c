"""Tests of median Mondrian (anonset.methods.mondrian.regions).

Every partition is re-checked independently: rendered as a release and judged
by :func:`anonset.recheck.verify.verify_release` (and, in places, by pycanon), and the
tree is compared with a plain-Python reference Mondrian written from the
definitions in the module docstrings.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonset.core.dataset import Dataset
from anonset.core.grouping import Grouping
from anonset.core.partition import HierarchyNodes, Intervals, partition_of_assignment
from anonset.core.stats import stats_from_assignment
from anonset.errors import ConfigError, InfeasibleError
from anonset.hierarchy import Hierarchy
from anonset.methods.mondrian import regions
from anonset.methods.mondrian.regions import MondrianTree, mondrian
from anonset.privacy.base import PrivacyModel, Requirements
from anonset.privacy.disclosure import DeltaDisclosure
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.kmap import KMap
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonset.privacy.likeness import BetaLikeness
from anonset.privacy.squared_error import SquaredErrorDiversity
from anonset.privacy.tcloseness import TCloseness
from anonset.recheck.verify import verify_release
from anonset.release.release import render_partition
from support import clustering_dataset, random_table, require_adult

Classes = set[frozenset[int]]


# ---------------------------------------------------------------- independent references
def _verified(ds: Dataset, tree: MondrianTree, requirements: Requirements) -> pd.DataFrame:
    """Render the tree's partition and re-check it; the released table."""
    assert tree.row_class.dtype == np.int64 and tree.row_class.shape == (ds.n_rows,)
    first_rows = [int(np.flatnonzero(tree.row_class == c)[0]) for c in range(tree.n_classes)]
    assert first_rows == sorted(first_rows), "classes are numbered by first row"
    partition = partition_of_assignment(ds, tree.row_class)
    table = render_partition(ds, partition)
    report = verify_release(table, ds, requirements, ds.n_rows)
    assert report.ok, report.problems
    assert report.suppressed_rows == 0
    return table


def _classes(row_class: np.ndarray) -> Classes:
    return {frozenset(np.flatnonzero(row_class == c).tolist()) for c in np.unique(row_class)}


def _by_value(ds: Dataset, q: str) -> bool:
    enc = ds.encoded[q]
    return ds.specs[q].type.value in ("numeric", "date") and enc.numbers is not None


def _value(ds: Dataset, q: str, r: int) -> float:
    enc = ds.encoded[q]
    assert enc.numbers is not None
    return float(enc.numbers[enc.row_codes()[r]])


def _lca(h: Hierarchy, leaves: set[int]) -> int:
    return next(lv for lv in range(h.n_levels) if len({int(h.maps[lv][x]) for x in leaves}) == 1)


def _width(ds: Dataset, q: str, members: list[int]) -> float:
    """Normalized range of attribute q over the records ``members``."""
    if _by_value(ds, q):
        values = [_value(ds, q, r) for r in members]
        every = [_value(ds, q, r) for r in range(ds.n_rows)]
        span = max(every) - min(every)
        return (max(values) - min(values)) / span if span > 0 else 0.0
    h = ds.require_hierarchy(q)
    leaves = {int(ds.encoded[q].row_codes()[r]) for r in members}
    lv = _lca(h, leaves)
    node = int(h.maps[lv][next(iter(leaves))])
    under = sum(1 for x in range(h.n_leaves) if h.maps[lv][x] == node)
    return (under - 1) / (h.n_leaves - 1) if h.n_leaves > 1 else 0.0


def _median_splits(ds: Dataset, q: str, members: list[int], strict: bool) -> list[list[list[int]]]:
    """The median splits of attribute q of a region, as lists of child row lists, preferred first."""
    if _by_value(ds, q):
        value = {r: _value(ds, q, r) for r in members}
        ordered = sorted(members, key=lambda r: (value[r], r))
        m = len(ordered)
        if not strict:
            return [[ordered[: m // 2], ordered[m // 2:]]]
        median = value[ordered[(m - 1) // 2]]
        options = []
        cuts = ([r for r in members if value[r] <= median], [r for r in members if value[r] < median])
        for tag, left in enumerate(cuts):
            right = [r for r in members if r not in set(left)]
            if left and right:
                options.append((abs(len(left) - len(right)), tag, [left, right]))
        return [split for _, _, split in sorted(options, key=lambda o: o[:2])]
    h = ds.require_hierarchy(q)
    codes = ds.encoded[q].row_codes()
    lv = _lca(h, {int(codes[r]) for r in members})
    groups: dict[int, list[int]] = defaultdict(list)
    for r in members:
        groups[int(h.maps[lv - 1][codes[r]])].append(r)
    return [list(groups.values())]


def _allowable(ds: Dataset, requirements: Requirements, children: list[list[int]]) -> bool:
    """Every child satisfies every model (class statistics from the engine module, not from Mondrian)."""
    row_class = np.full(ds.n_rows, -1, dtype=np.int64)
    for i, child in enumerate(children):
        row_class[child] = i
    stats = stats_from_assignment(ds, row_class, requirements.request)
    return all(bool(m.satisfied(stats).all()) for m in requirements.models)


def _reference(ds: Dataset, requirements: Requirements, strict: bool) -> Classes:
    """Median Mondrian straight from the definitions: recursive, plain Python."""
    out: Classes = set()

    def grow(members: list[int]) -> None:
        widths = [(-_width(ds, q, members), j, q) for j, q in enumerate(ds.quasi)]
        for negative, _, q in sorted(widths):
            if negative == 0:
                break
            for children in _median_splits(ds, q, members, strict):
                if _allowable(ds, requirements, children):
                    for child in children:
                        grow(child)
                    return
        out.add(frozenset(members))

    grow(list(range(ds.n_rows)))
    return out


def _maximal(ds: Dataset, requirements: Requirements, tree: MondrianTree, strict: bool) -> bool:
    """No class has an allowable median split left."""
    for members in _classes(tree.row_class):
        rows = sorted(members)
        for q in ds.quasi:
            if _width(ds, q, rows) > 0 and any(_allowable(ds, requirements, s)
                                               for s in _median_splits(ds, q, rows, strict)):
                return False
    return True


def _boxes_disjoint(ds: Dataset, row_class: np.ndarray) -> bool:
    """No two classes' bounding boxes (value interval, or hierarchy node of the leaves) intersect."""
    boxes = []
    for members in _classes(row_class):
        rows = sorted(members)
        box = []
        for q in ds.quasi:
            if _by_value(ds, q):
                values = [_value(ds, q, r) for r in rows]
                box.append(("n", min(values), max(values)))
            else:
                h = ds.require_hierarchy(q)
                leaves = {int(ds.encoded[q].row_codes()[r]) for r in rows}
                lv = _lca(h, leaves)
                node = h.maps[lv][next(iter(leaves))]
                box.append(("c", frozenset(np.flatnonzero(h.maps[lv] == node).tolist()), None))
        boxes.append(box)
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            meet = all((a[1] <= b[2] and b[1] <= a[2]) if a[0] == "n" else bool(a[1] & b[1])
                       for a, b in zip(boxes[i], boxes[j], strict=True))
            if meet:
                return False
    return True


# ---------------------------------------------------------------- property test
MODELS = {
    "k": lambda k: [KAnonymity(k)],
    "k+distinct": lambda k: [KAnonymity(k), DistinctLDiversity("s", 2)],
    "entropy": lambda k: [EntropyLDiversity("s", 2)],
    "k+t": lambda k: [KAnonymity(k), TCloseness("s", 0.35)],
    "k+beta": lambda k: [KAnonymity(k), BetaLikeness("s", 1.5, "enhanced")],
    "k+delta": lambda k: [KAnonymity(k), DeltaDisclosure("s", 1.2)],
    "k-map": lambda k: [KMap(k + 2, sampling_fraction=0.3, estimator="zero_truncated_poisson")],
}


#: Hypothesis examples per privacy model in the property test.  The default keeps the suite fast; to explore
#: more, run e.g. ``ANONSET_HYPOTHESIS_EXAMPLES=500 ANONSET_HYPOTHESIS_RANDOM=1
#: pytest tests/methods/mondrian/test_mondrian.py -k random`` (``ANONSET_HYPOTHESIS_RANDOM=1`` draws fresh
#: examples instead of the fixed ones, see conftest.py).
EXAMPLES = int(os.environ.get("ANONSET_HYPOTHESIS_EXAMPLES", "10"))


@pytest.mark.parametrize("models", sorted(MODELS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10**6), n_rows=st.integers(12, 120), n_quasi=st.integers(1, 3),
       k=st.integers(1, 8), strict=st.booleans())
def test_random_tables_satisfy_models_and_match_the_reference(models: str, seed: int, n_rows: int, n_quasi: int,
                                                              k: int, strict: bool) -> None:
    """Random tables (12 to 120 rows, k up to 8) under each privacy model, strict and relaxed.

    Each partition is verified, equals the plain-Python reference Mondrian, and has no allowable split left.
    Every model is a case of its own (each always runs), with :data:`EXAMPLES` examples each.
    """
    ds = clustering_dataset(seed, n_rows, n_quasi)
    requirements = Requirements(MODELS[models](k))
    try:
        tree = mondrian(ds, requirements, strict=strict)
    except InfeasibleError:
        assert not _allowable(ds, requirements, [list(range(n_rows))])
        return
    _verified(ds, tree, requirements)
    assert _classes(tree.row_class) == _reference(ds, requirements, strict)
    assert _maximal(ds, requirements, tree, strict)
    if strict:
        assert _boxes_disjoint(ds, tree.row_class)
        assert np.array_equal(tree.assign(ds), tree.row_class)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("strict", [True, False])
def test_compiled_k_anonymity_path_equals_the_generic_path(seed: int, strict: bool,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # distinct 1-diversity holds for every non-empty class: it only routes Mondrian past the median kernel, and
    # with the general kernel switched off, to the Python loop over regions (test_mondrian_compiled.py holds the
    # general kernel to that loop)
    ds = clustering_dataset(seed, 800, 4)
    monkeypatch.setattr(regions, "compiled_grow", lambda *_: None)
    for k in (1, 3, 10, 40):
        compiled = mondrian(ds, Requirements([KAnonymity(k)]), strict=strict)
        generic = mondrian(ds, Requirements([KAnonymity(k), DistinctLDiversity("s", 1)]), strict=strict)
        assert np.array_equal(compiled.row_class, generic.row_class)
        for name in ("lower", "upper", "low", "high"):
            assert np.array_equal(getattr(compiled.boxes, name), getattr(generic.boxes, name), equal_nan=True)
        for name in ("node_level", "node_code", "lca_level", "lca_code"):
            assert np.array_equal(getattr(compiled.boxes, name), getattr(generic.boxes, name))
        assert np.bincount(compiled.row_class).min() >= k


@pytest.mark.parametrize("strict", [True, False])
def test_other_models_on_a_larger_table(strict: bool) -> None:
    from pycanon import anonymity

    rng = np.random.default_rng(5)
    table, hierarchies = random_table(rng, 600, 3, n_sensitive_values=6)
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["x"] = {"role": "sensitive", "type": "numeric"}
    ds = Dataset(table, attrs)
    models: list[PrivacyModel] = [KAnonymity(4), RecursiveCLDiversity("s", 2, 3.0), SquaredErrorDiversity("x", 500.0),
                                  TCloseness("s", 0.3)]
    requirements = Requirements(models)
    tree = mondrian(ds, requirements, strict=strict)
    released = _verified(ds, tree, requirements)
    assert tree.n_classes > 5
    assert _classes(tree.row_class) == _reference(ds, requirements, strict)
    assert anonymity.k_anonymity(released, list(ds.quasi)) >= 4


# ---------------------------------------------------------------- hand-worked examples
def test_hand_example() -> None:
    # age (numeric) and c (a1, a2 -> A; b1, b2 -> B; -> *), k = 2.
    # Root: age range 35/35 = 1, c at * covers 4 leaves -> 3/3 = 1; tie -> age (first column).
    #   Lower median of 25..60 is 40: "<= 40" gives 4 | 4, "< 40" 3 | 5 -> cut at 40.
    # Left {25, 30, 35, 40}: age 15/35 < 1 = c -> split c into A {rows 0, 1} and B {rows 2, 3}.
    # Right {45, 50, 55, 60}: likewise A {rows 4, 6} and B {rows 5, 7}.  Regions of 2 < 2k stop.
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]])
    table = pd.DataFrame({"age": ["25", "30", "35", "40", "45", "50", "55", "60"],
                          "c": ["a1", "a2", "b1", "b2", "a1", "b1", "a2", "b2"]})
    ds = Dataset(table, {"age": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h}})
    requirements = Requirements([KAnonymity(2)])
    tree = mondrian(ds, requirements)
    assert tree.row_class.tolist() == [0, 0, 1, 1, 2, 3, 2, 3]
    released = _verified(ds, tree, requirements)
    assert released["age"].tolist() == ["25-30", "25-30", "35-40", "35-40", "45-55", "50-60", "45-55", "50-60"]
    assert released["c"].tolist() == ["A", "A", "B", "B", "A", "B", "A", "B"]
    boxes = tree.boxes
    assert boxes.lower[:, 0].tolist() == [-np.inf, -np.inf, 40, 40]
    assert boxes.upper[:, 0].tolist() == [40, 40, np.inf, np.inf]
    assert boxes.low[:, 0].tolist() == [25, 35, 45, 50] and boxes.high[:, 0].tolist() == [30, 40, 55, 60]
    assert boxes.node_level[:, 1].tolist() == [1, 1, 1, 1] and boxes.node_code[:, 1].tolist() == [0, 1, 0, 1]
    assert boxes.lca_level[:, 1].tolist() == [1, 1, 1, 1] and boxes.lca_code[:, 1].tolist() == [0, 1, 0, 1]
    assert np.isnan(boxes.lower[:, 1]).all() and (boxes.node_level[:, 0] == -1).all()
    assert tree.nodes.n_nodes == 7 and isinstance(tree, Grouping)


def test_strict_and_relaxed_on_duplicates() -> None:
    # x = 2, 2, then thirty 1s; k = 5.
    # Strict: lower median 1; "<= 1" leaves 2 < k on the right, "< 1" an empty left -> one class.
    # Relaxed: the 16 smallest by (value, row) -> rows 2..17 left; right rows 18..31 and 0, 1 (16 >= 2k) splits
    #   again: rows 18..25 left, rows 26..31, 0, 1 right; 8 < 2k stops.  Classes by first row:
    #   {0, 1, 26..31} -> 0, {2..17} -> 1, {18..25} -> 2.
    ds = Dataset(pd.DataFrame({"x": ["2", "2"] + ["1"] * 30}), {"x": {"role": "quasi", "type": "numeric"}})
    requirements = Requirements([KAnonymity(5)])
    strict = mondrian(ds, requirements)
    assert strict.n_classes == 1
    relaxed = mondrian(ds, requirements, strict=False)
    expected = np.zeros(32, dtype=np.int64)
    expected[2:18] = 1
    expected[18:26] = 2
    assert relaxed.row_class.tolist() == expected.tolist()
    _verified(ds, relaxed, requirements)
    assert not _boxes_disjoint(ds, relaxed.row_class)  # relaxed classes share the value 1
    # new records equal to a threshold go left: 1 -> class 1 (root's left), 2 -> right, then right again
    new = Dataset(pd.DataFrame({"x": ["1", "2", "0", "7"]}), {"x": {"role": "quasi", "type": "numeric"}})
    assert relaxed.assign(new).tolist() == [1, 0, 1, 0]


def test_duplicate_heavy_table() -> None:
    # three distinct records: (1, a) x 50, (2, a) x 300, (3, b) x 50
    table = pd.DataFrame({"x": ["1"] * 50 + ["2"] * 300 + ["3"] * 50, "c": ["a"] * 350 + ["b"] * 50,
                          "s": [f"s{i % 4}" for i in range(400)]})
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi"},
                         "s": {"role": "sensitive"}})
    for models in ([KAnonymity(7)], [KAnonymity(3), EntropyLDiversity("s", 3)]):
        requirements = Requirements(models)
        for strict in (True, False):
            tree = mondrian(ds, requirements, strict=strict)
            _verified(ds, tree, requirements)
            assert _classes(tree.row_class) == _reference(ds, requirements, strict)
        # strict: equal records are never divided, so the three distinct records are the three classes
        strict_tree = mondrian(ds, requirements)
        assert _classes(strict_tree.row_class) == {frozenset(range(50)), frozenset(range(50, 350)),
                                                   frozenset(range(350, 400))}
        relaxed_tree = mondrian(ds, requirements, strict=False)
        assert relaxed_tree.n_classes > 3 and not _boxes_disjoint(ds, relaxed_tree.row_class)


# ---------------------------------------------------------------- assign
def test_assign_new_rows_lands_in_boxes() -> None:
    rng = np.random.default_rng(3)
    table, hierarchies = random_table(rng, 1000, 3)
    attrs: dict = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["x"] = {"role": "quasi", "type": "numeric"}
    train, test = Dataset(table.iloc[:700], attrs), Dataset(table.iloc[700:].reset_index(drop=True), attrs)
    tree = mondrian(train, Requirements([KAnonymity(8)]))
    placed = tree.assign(test)
    assert placed.dtype == np.int64 and placed.shape == (300,)
    assert (placed >= 0).mean() > 0.8
    boxes = tree.boxes
    for j, q in enumerate(test.quasi):
        codes = test.encoded[q].row_codes()
        inside = placed >= 0
        if tree.numeric[j]:
            numbers = test.encoded[q].numbers
            assert numbers is not None
            v = numbers[codes][inside]
            assert ((boxes.lower[placed[inside], j] < v) & (v <= boxes.upper[placed[inside], j])).all()
        else:
            h = test.require_hierarchy(q)
            for r in np.flatnonzero(inside):
                c = placed[r]
                assert h.maps[boxes.node_level[c, j]][codes[r]] == boxes.node_code[c, j]
    # a suppressed record lies in no class's cell
    for r in np.flatnonzero(placed < 0):
        hits = np.ones(tree.n_classes, dtype=np.bool_)
        for j, q in enumerate(test.quasi):
            code = test.encoded[q].row_codes()[r]
            if tree.numeric[j]:
                numbers = test.encoded[q].numbers
                assert numbers is not None
                hits &= (boxes.lower[:, j] < numbers[code]) & (numbers[code] <= boxes.upper[:, j])
            else:
                h = test.require_hierarchy(q)
                hits &= np.array([h.maps[lv][code] == cd for lv, cd in zip(boxes.node_level[:, j],
                                                                            boxes.node_code[:, j], strict=True)])
        assert not hits.any()


def test_assign_unseen_branch_is_suppressed() -> None:
    # Fitted: c in {a1, b1} only (x constant), k = 4.  The root's lowest common ancestor is *, split at
    # level 1 into A (8 records, all a1) and B (4 records, all b1); each child's extent is its leaf, its
    # cell the node A or B.  New records: a2 and b2 lie in those cells; c1 (branch C) has no child at the
    # root's split and is suppressed.
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"],
                                  ["c1", "C", "*"]])
    attrs = {"c": {"role": "quasi", "hierarchy": h}, "x": {"role": "quasi", "type": "numeric"}}
    fit = Dataset(pd.DataFrame({"c": ["a1", "a1", "b1"] * 4, "x": ["5"] * 12}), attrs)
    tree = mondrian(fit, Requirements([KAnonymity(4)]))
    assert tree.row_class.tolist() == [0, 0, 1] * 4
    assert tree.boxes.node_level[:, 0].tolist() == [1, 1] and tree.boxes.lca_level[:, 0].tolist() == [0, 0]
    new = Dataset(pd.DataFrame({"c": ["a2", "b2", "c1", "b1", "a1"], "x": ["100", "3", "5", "-5", "7"]}), attrs)
    assert tree.assign(new).tolist() == [0, 1, -1, 1, 0]


def test_assign_needs_the_fitted_attributes() -> None:
    ds = clustering_dataset(1, 60, 2)
    tree = mondrian(ds, Requirements([KAnonymity(5)]))
    other = Dataset(ds.table[["q0", "s"]], {"q0": {"role": "quasi", "hierarchy": ds.require_hierarchy("q0")}})
    with pytest.raises(ConfigError, match="missing"):
        tree.assign(other)


# ---------------------------------------------------------------- options and errors
def test_boxes_match_the_released_values() -> None:
    ds = clustering_dataset(9, 400, 3)
    tree = mondrian(ds, Requirements([KAnonymity(6)]))
    partition = partition_of_assignment(ds, tree.row_class)
    for j, q in enumerate(ds.quasi):
        values = partition.values[q]
        if tree.numeric[j]:
            assert isinstance(values, Intervals)
            assert np.array_equal(values.lo, tree.boxes.low[:, j]) and np.array_equal(values.hi, tree.boxes.high[:, j])
        else:
            assert isinstance(values, HierarchyNodes)
            assert np.array_equal(values.levels, tree.boxes.lca_level[:, j])
            assert np.array_equal(values.codes, tree.boxes.lca_code[:, j])
            # the cell's node is an ancestor of the extent's
            h = ds.require_hierarchy(q)
            leaf = np.array([int(np.flatnonzero(h.maps[lv] == cd)[0])
                             for lv, cd in zip(values.levels, values.codes, strict=True)])
            ancestors = np.array([h.maps[lv][x] for lv, x in zip(tree.boxes.node_level[:, j], leaf, strict=True)])
            assert (tree.boxes.node_level[:, j] >= values.levels).all()
            assert np.array_equal(ancestors, tree.boxes.node_code[:, j])


def test_weights_steer_the_splits() -> None:
    ds = clustering_dataset(2, 300, 3)
    x = ds.quasi.index("x")
    plain = mondrian(ds, Requirements([KAnonymity(5)]))
    assert (plain.nodes.split_attr == x).any()
    never_x = mondrian(ds, Requirements([KAnonymity(5)]), weights={"x": 0.0})
    assert not (never_x.nodes.split_attr == x).any()
    _verified(ds, never_x, Requirements([KAnonymity(5)]))


@pytest.mark.parametrize(("weights", "message"), [
    ({"s": 1.0}, "mondrian: 's' is not a quasi-identifier of"),
    ({"x": -1.0}, "mondrian: the weight of 'x' must be a finite number >= 0; got -1.0"),
    ({"x": float("inf")}, "mondrian: the weight of 'x' must be a finite number >= 0; got inf"),
    ({"x": True}, "mondrian: the weight of 'x' must be a finite number >= 0; got True"),
    ({"x": "2"}, "mondrian: the weight of 'x' must be a finite number >= 0; got '2'"),
])
def test_bad_weights_are_refused(weights: dict, message: str) -> None:
    # the shared rule of anonset.core.weights: booleans and strings are no numbers
    ds = clustering_dataset(2, 60, 3)
    with pytest.raises(ConfigError, match=re.escape(message)):
        mondrian(ds, Requirements([KAnonymity(5)]), weights=weights)


def test_all_zero_weights_are_refused() -> None:
    # every quasi-identifier of weight 0 would leave nothing to split (and one class): refused, not run
    ds = clustering_dataset(2, 60, 3)
    zero = dict.fromkeys(ds.quasi, 0.0)
    with pytest.raises(ConfigError, match="mondrian: every weight is 0"):
        mondrian(ds, Requirements([KAnonymity(5)]), weights=zero)
    # all but one at 0 is accepted: the remaining attribute alone is split
    x = ds.quasi.index("x")
    tree = mondrian(ds, Requirements([KAnonymity(5)]), weights={**zero, "x": 1.0})
    assert set(tree.nodes.split_attr[tree.nodes.split_attr >= 0].tolist()) == {x}


def test_k_larger_than_the_table_is_infeasible() -> None:
    ds = clustering_dataset(0, 30, 2)
    with pytest.raises(InfeasibleError, match="31-anonymity"):
        mondrian(ds, Requirements([KAnonymity(31)]))
    assert mondrian(ds, Requirements([KAnonymity(30)])).n_classes == 1


def test_whole_table_failing_a_model_is_infeasible() -> None:
    table = pd.DataFrame({"q": ["a", "b"] * 10, "s": ["x"] * 19 + ["y"]})
    ds = Dataset(table, {"q": {"role": "quasi"}, "s": {"role": "sensitive"}})
    with pytest.raises(InfeasibleError, match="entropy 2-diversity on s"):
        mondrian(ds, Requirements([KAnonymity(2), EntropyLDiversity("s", 2)]))


def test_suppression_budget_is_refused() -> None:
    ds = clustering_dataset(0, 30, 2)
    with pytest.raises(ConfigError, match="max_suppression to 0"):
        mondrian(ds, Requirements([KAnonymity(3)], max_suppression=0.05))


def test_unknown_criterion_is_refused() -> None:
    ds = clustering_dataset(0, 30, 2)
    with pytest.raises(ConfigError, match="unknown Mondrian criterion 'gini'"):
        mondrian(ds, Requirements([KAnonymity(3)]), criterion="gini")


def test_adult_release_is_verified() -> None:
    from pycanon import anonymity

    from anonset.datasets import adult_morton
    from anonset.metrics import GCP

    ds = adult_morton(require_adult())
    requirements = Requirements([KAnonymity(10)])
    gcp = {}
    for strict in (True, False):
        tree = mondrian(ds, requirements, strict=strict)
        released = _verified(ds, tree, requirements)
        assert anonymity.k_anonymity(released, list(ds.quasi)) >= 10
        gcp[strict] = GCP().score(partition_of_assignment(ds, tree.row_class), ds)
        assert tree.n_classes > ds.n_rows // 40
        if strict:
            assert np.array_equal(tree.assign(ds), tree.row_class)
    assert 0.0 < gcp[True] < 0.4 and 0.0 < gcp[False] < 0.4


def test_mondrian_through_the_anonymizer_and_the_cli(tmp_path) -> None:
    """Config `method: {name: mondrian, strict: false}` with entropy l-diversity: released, verified, pycanon agrees."""
    import json

    from click.testing import CliRunner
    from pycanon import anonymity

    from anonset import Anonymizer, KAnonymity, Requirements
    from anonset.cli import main
    from anonset.core.hierarchy_builders import masking_hierarchy
    from anonset.datasets import patient_register
    from anonset.io.tables import write_table
    from anonset.privacy.ldiversity import l_diversity

    table = patient_register(1200, seed=3)[["patient_id", "age", "sex", "zip", "diagnosis"]]
    attrs = {"patient_id": {"role": "identifier"}, "age": {"role": "quasi", "type": "numeric"},
             "sex": {"role": "quasi"}, "zip": {"role": "quasi", "hierarchy": masking_hierarchy("zip", table["zip"])},
             "diagnosis": {"role": "sensitive"}}
    reqs = Requirements([KAnonymity(6), l_diversity("diagnosis", 2, "entropy")])
    model = Anonymizer(attrs, reqs, method="mondrian", method_options={"strict": False},
                       on_violation="warn").fit(table)
    release = model.release_
    assert release.verified and release.suppressed_rows == 0
    assert anonymity.k_anonymity(release.table, ["age", "sex", "zip"]) >= 6
    # entropy by hand (pycanon truncates exp(H) to an int, so a class at exactly log 2 reads as 1 there)
    def exp_entropy(v: pd.Series) -> float:
        p = v.value_counts(normalize=True).to_numpy()
        return float(np.exp(-(p * np.log(p)).sum()))

    assert release.table.groupby(["age", "sex", "zip"])["diagnosis"].apply(exp_entropy).min() >= 2 - 1e-9
    # new rows: placed by the tree and re-checked; verified exactly when the new release is k-anonymous
    # (ages the fitted hierarchy lacks are refused by the dataset, so new rows come from the fitted table)
    import warnings

    new = table.sample(900, random_state=1).reset_index(drop=True)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        placed = model.transform(new, return_release=True)
    kept = placed.table[placed.table["age"] != "*"]
    sizes = kept.groupby(["age", "sex", "zip"]).size()
    assert placed.verified == bool(sizes.min() >= 6 and len(kept) == 900)

    write_table(table, tmp_path / "register.csv")
    config = tmp_path / "m.yaml"
    config.write_text("input: register.csv\n"
                      "attributes:\n"
                      "  patient_id: {role: identifier}\n"
                      "  age: {role: quasi, type: numeric}\n"
                      "  sex: {role: quasi}\n"
                      "  zip: {role: quasi, hierarchy: {builder: masking}}\n"
                      "  diagnosis: {role: sensitive}\n"
                      "privacy: {k: 6}\n"
                      "method: {name: mondrian, strict: false}\n"
                      "output: {path: out.csv}\n")
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output + result.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["verified"] is True and summary["min_class_size"] >= 6
    bad = tmp_path / "bad.yaml"
    bad.write_text(config.read_text().replace("strict: false", "rounds: 2"))
    result = CliRunner().invoke(main, ["anonymize", str(bad)])
    assert result.exit_code == 2
    assert "unknown key method.rounds; allowed here: criterion" in result.output + result.stderr


@pytest.mark.parametrize("seed", range(3))
def test_beta_likeness_and_delta_disclosure_releases_pass_pycanon(seed: int) -> None:
    """pycanon's basic β and δ (natural log) of the released table stay within the models' bounds.

    Mondrian suppresses nothing and passes the sensitive column through, so the release's distribution of it,
    from which pycanon takes p, is the input's.
    """
    from pycanon import anonymity

    ds = clustering_dataset(seed, 400, 3)
    beta, delta = 1.0, 1.0
    requirements = Requirements([KAnonymity(4), BetaLikeness("s", beta), DeltaDisclosure("s", delta)])
    released = _verified(ds, mondrian(ds, requirements), requirements)
    quasi = list(ds.quasi)
    assert anonymity.basic_beta_likeness(released, quasi, ["s"]) <= beta + 1e-12
    assert anonymity.delta_disclosure(released, quasi, ["s"]) < delta * np.log(2)
    assert anonymity.k_anonymity(released, quasi) >= 4
