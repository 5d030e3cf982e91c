"""Tests of the workload-aware Mondrian criteria (anonset.methods.mondrian.criteria).

Hand-worked examples derive the expected splits in comments; imprecision and
the selection scores are checked against plain-Python implementations of the
definitions; every partition is rendered and re-checked by the independent
verifier.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonset.core.attribute_space import attribute_space
from anonset.core.dataset import Dataset
from anonset.core.partition import partition_of_assignment
from anonset.core.selections import compile_selections
from anonset.datasets import agrawal_dataset, function2_predicates
from anonset.errors import ConfigError, InfeasibleError
from anonset.hierarchy import Hierarchy
from anonset.methods.mondrian.criteria import InfoGainCriterion, LSDCriterion
from anonset.methods.mondrian.regions import CRITERIA, MondrianTree, mondrian
from anonset.methods.mondrian.selection import SelectionCriterion
from anonset.methods.mondrian.split import MedianCriterion, describe_region
from anonset.metrics.imprecision import imprecision
from anonset.privacy.base import Requirements
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity, EntropyLDiversity
from anonset.recheck.verify import verify_release
from anonset.release.release import render_partition
from support import clustering_dataset, require_adult

Classes = set[frozenset[int]]


# ---------------------------------------------------------------- helpers and independent references
def _verified(ds: Dataset, tree: MondrianTree, requirements: Requirements) -> None:
    """Render the tree's partition and re-check it with the independent verifier."""
    partition = partition_of_assignment(ds, tree.row_class)
    report = verify_release(render_partition(ds, partition), ds, requirements, ds.n_rows)
    assert report.ok, report.problems
    assert report.suppressed_rows == 0


def _classes(row_class: np.ndarray) -> Classes:
    return {frozenset(np.flatnonzero(row_class == c).tolist()) for c in np.unique(row_class)}


def _thresholds(criterion, ds: Dataset, rows: np.ndarray | None = None, strict: bool = True) -> list:
    """The candidate splits of a region in the order yielded: (attribute, threshold or child sizes)."""
    space = attribute_space(ds)
    region = describe_region(space, np.arange(ds.n_rows) if rows is None else rows)
    out = []
    for cand in criterion.candidates(space, region, strict):
        name = ds.quasi[cand.attribute]
        out.append((name, cand.threshold) if space.numeric[cand.attribute]
                   else (name, np.bincount(cand.labels).tolist()))
    return out


def _accepted(h: Hierarchy, labels: list[str]) -> set[int]:
    """Leaves under any node labelled one of ``labels``."""
    return {x for x in range(h.n_leaves)
            if any(str(h.labels[lv][h.maps[lv][x]]) in labels for lv in range(h.n_levels))}


def _reference_imprecision(ds: Dataset, groups: list[list[int]], predicates: list[dict]) -> int:
    """Equation 5 summed over the predicates, from the definitions, record by record.

    A group overlaps a predicate when, on every constrained attribute, its bounding box (numbers: [min, max];
    categories: the leaves under the lowest common ancestor) meets the predicate; it then costs its records
    outside the predicate.
    """
    total = 0
    for predicate in predicates:
        for group in groups:
            overlap, inside = True, 0
            for name, wanted in predicate.items():
                enc = ds.encoded[name]
                codes = [int(enc.row_codes()[r]) for r in group]
                if enc.numbers is not None and ds.specs[name].type.value == "numeric":
                    values = [float(enc.numbers[c]) for c in codes]
                    overlap &= min(values) <= wanted[1] and max(values) >= wanted[0]
                else:
                    h = ds.require_hierarchy(name)
                    lv = next(lv for lv in range(h.n_levels) if len({int(h.maps[lv][c]) for c in codes}) == 1)
                    under = {x for x in range(h.n_leaves) if h.maps[lv][x] == h.maps[lv][codes[0]]}
                    overlap &= bool(under & _accepted(h, wanted))
            for r in group:
                ok = True
                for name, wanted in predicate.items():
                    enc = ds.encoded[name]
                    code = int(enc.row_codes()[r])
                    if enc.numbers is not None and ds.specs[name].type.value == "numeric":
                        ok &= wanted[0] <= float(enc.numbers[code]) <= wanted[1]
                    else:
                        ok &= code in _accepted(ds.require_hierarchy(name), wanted)
                inside += ok
            if overlap:
                total += len(group) - inside
    return total


def _random_predicates(rng: np.random.Generator, ds: Dataset) -> list[dict]:
    """One to three random rectangles: a range on x and/or hierarchy node labels on the other attributes."""
    predicates = []
    for _ in range(int(rng.integers(1, 4))):
        predicate: dict = {}
        if rng.random() < 0.7:
            lo, hi = np.sort(rng.integers(0, 50, 2))
            predicate["x"] = [int(lo), int(hi)]
        for q in ds.quasi:
            if q != "x" and rng.random() < 0.5:
                h = ds.require_hierarchy(q)
                lv = int(rng.integers(0, max(h.n_levels - 1, 1)))
                predicate[q] = [str(h.labels[lv][int(rng.integers(0, len(h.labels[lv])))])]
        predicates.append(predicate or {"x": [0, 10]})
    return predicates


def _numeric_table(columns: dict[str, list]) -> Dataset:
    """x (and any other column starting with x or z) numeric quasi-identifiers; y* categorical targets; v* numeric."""
    table = pd.DataFrame({c: [str(v) for v in values] for c, values in columns.items()})
    specs: dict = {}
    for c in columns:
        if c[0] in "xz":
            specs[c] = {"role": "quasi", "type": "numeric"}
        elif c[0] == "y":
            specs[c] = {"role": "target"}
        elif c[0] == "v":
            specs[c] = {"role": "target", "type": "numeric"}
    return Dataset(table, specs)


# ---------------------------------------------------------------- InfoGain
def test_infogain_splits_where_the_label_changes() -> None:
    # x = 1..16, class A for x <= 5, B above; k = 4.
    # InfoGain: the only boundary cut is 5 | 6, entropy 0 -> {1..5} | {6..16}.  {1..5} (5 < 2k) stops.
    #   {6..16} is pure: no boundary, so the median fallback: lower median of 6..16 is 11; "<= 11" (6 | 5) and
    #   "< 11" (5 | 6) are equally balanced, "<= 11" first -> {6..11} | {12..16}; both < 2k stop.
    # Median: 8 -> {1..8} | {9..16}, then 4 and 12 -> quarters; {5..8} mixes A and B.
    ds = _numeric_table({"x": list(range(1, 17)), "y": ["A"] * 5 + ["B"] * 11})
    requirements = Requirements([KAnonymity(4)])
    infogain = mondrian(ds, requirements, criterion="infogain")
    assert _classes(infogain.row_class) == {frozenset(range(5)), frozenset(range(5, 11)), frozenset(range(11, 16))}
    assert infogain.nodes.threshold[0] == 5 and infogain.criterion == "infogain"
    median = mondrian(ds, requirements)
    assert _classes(median.row_class) == {frozenset(range(i, i + 4)) for i in (0, 4, 8, 12)}
    _verified(ds, infogain, requirements)
    assert np.array_equal(infogain.assign(ds), infogain.row_class)


def test_infogain_candidate_order_by_hand() -> None:
    # x = 1..6, classes P P N P N N, c: a1 a1 a2 | b1 b2 b2 (A = rows 0-2, B = rows 3-5), k = 1.
    # Weighted entropy (natural log), H(1/4) = 0.5623, H(1/3) = 0.6365:
    #   x <= 2: 0 + 4/6 H(1/4) = 0.3749     x <= 3: 3/6 H(1/3) + 3/6 H(1/3) = 0.6365
    #   x <= 4: 4/6 H(1/4) + 0 = 0.3749     c into A | B: 0.6365 (tie with x <= 3; x comes first)
    # x <= 2 and x <= 4 tie and are equally balanced: more records on the left first.  Boundary cuts only
    # where the class changes (1|2 and 5|6 are not); the median cuts (3 and 2) are boundaries already.
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]])
    table = pd.DataFrame({"x": [str(v) for v in range(1, 7)], "c": ["a1", "a1", "a2", "b1", "b2", "b2"],
                          "y": list("PPNPNN")})
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h},
                         "y": {"role": "target"}})
    classes = np.unique(table["y"], return_inverse=True)[1].reshape(1, -1)
    assert _thresholds(InfoGainCriterion(classes), ds) == [("x", 4.0), ("x", 2.0), ("x", 3.0), ("c", [3, 3])]
    # k = 3 leaves only the balanced cuts
    assert _thresholds(InfoGainCriterion(classes, min_size=3), ds) == [("x", 3.0), ("c", [3, 3])]


def test_infogain_strict_boundaries_with_ties_and_relaxed_cuts() -> None:
    # x = 1 1 2 2 3 3, classes A A A B B B.  Strict: value groups {1: AA} {2: AB} {3: BB}; 1|2 is a boundary
    # (group 2 is mixed) and so is 2|3; a relaxed cut may divide x = 2 (A left, B right, rows in order): the
    # only change of class is after position 3, entropy 0.  Fallbacks: strict median 2 -> <= 2 and < 2, both
    # boundaries already; relaxed m // 2 = 3, the boundary itself.
    ds = _numeric_table({"x": [1, 1, 2, 2, 3, 3], "y": list("AAABBB")})
    classes = np.unique(ds.table["y"], return_inverse=True)[1].reshape(1, -1)
    # strict: x <= 1: 0 + 4/6 H(1/4) = 0.3749 = x <= 2: 4/6 H(1/4) + 0 -> more on the left first
    assert _thresholds(InfoGainCriterion(classes), ds) == [("x", 2.0), ("x", 1.0)]
    assert _thresholds(InfoGainCriterion(classes), ds, strict=False) == [("x", 2.0)]
    tree = mondrian(ds, Requirements([KAnonymity(3)]), criterion="infogain", strict=False)
    assert _classes(tree.row_class) == {frozenset({0, 1, 2}), frozenset({3, 4, 5})}


# ---------------------------------------------------------------- LSD
def test_lsd_on_a_step_function() -> None:
    # x = 1..12, v = 0 for x <= 4 and 10 above; k = 3.
    # LSD: only x <= 4 leaves squared error 0 -> {1..4} | {5..12}; {1..4} (< 2k) stops; in {5..12} v is
    #   constant, every cut scores 0, the most balanced (x <= 8) wins -> {5..8} | {9..12}.
    # Median: 6 -> {1..6} | {7..12} -> 3 and 9 -> {1,2,3} {4,5,6} {7,8,9} {10,11,12}; {4,5,6} mixes 0 and 10.
    ds = _numeric_table({"x": list(range(1, 13)), "v": [0] * 4 + [10] * 8})
    requirements = Requirements([KAnonymity(3)])
    lsd = mondrian(ds, requirements, criterion="lsd")
    assert _classes(lsd.row_class) == {frozenset(range(4)), frozenset(range(4, 8)), frozenset(range(8, 12))}
    median = mondrian(ds, requirements)
    assert _classes(median.row_class) == {frozenset(range(i, i + 3)) for i in (0, 3, 6, 9)}
    _verified(ds, lsd, requirements)


def test_lsd_candidate_order_by_hand() -> None:
    # x = 1..4, v = 1 2 10 11.  Squared error of the two sides:
    #   x <= 1: 0 + (2, 10, 11 around 7.667) 48.67;  x <= 2: 0.5 + 0.5 = 1;  x <= 3: 48.67 + 0.
    # x <= 3 and x <= 1 tie and are equally balanced: more records on the left first.
    ds = _numeric_table({"x": [1, 2, 3, 4], "v": [1, 2, 10, 11]})
    values = np.array([[1.0, 2.0, 10.0, 11.0]])
    assert _thresholds(LSDCriterion(values), ds) == [("x", 2.0), ("x", 3.0), ("x", 1.0)]


# ---------------------------------------------------------------- several targets
def test_several_targets_sum_their_criteria() -> None:
    # InfoGain, x = 1..8, y1 = P P N N N N N N (changes at 2), y2 = P P P P P N N N (changes at 5).
    #   x <= 2: y1 0, y2 0 + 6/8 H(1/2) = 0.5199 -> 0.5199
    #   x <= 5: y1 5/8 H(2/5) = 0.4206 + 0, y2 0 -> 0.4206   => the sum prefers 5; y1 alone prefers 2.
    # Then the median fallbacks (lower median 4): x <= 4: y1 4/8 H(1/2) = 0.3466, y2 4/8 H(1/4) = 0.2812 ->
    #   0.6277; x <= 3: y1 3/8 H(1/3) = 0.2387, y2 5/8 H(2/5) = 0.4206 -> 0.6593.
    ds = _numeric_table({"x": list(range(1, 9)), "y1": list("PPNNNNNN"), "y2": list("PPPPPNNN")})
    y1 = np.unique(ds.table["y1"], return_inverse=True)[1]
    y2 = np.unique(ds.table["y2"], return_inverse=True)[1]
    assert _thresholds(InfoGainCriterion(np.stack([y1, y2])), ds) == [("x", 5.0), ("x", 2.0), ("x", 4.0), ("x", 3.0)]
    assert _thresholds(InfoGainCriterion(y1.reshape(1, -1)), ds)[0] == ("x", 2.0)
    tree = mondrian(ds, Requirements([KAnonymity(2)]), criterion="infogain")  # both role-target columns
    assert tree.nodes.threshold[0] == 5
    assert mondrian(ds, Requirements([KAnonymity(2)]), criterion="infogain", targets=["y1"]).nodes.threshold[0] == 2
    # LSD, x = 1..4, v1 = 0 0 10 10, v2 = 0 30 30 30:
    #   x <= 1: v1 66.67 + v2 0 = 66.67;  x <= 2: 0 + 450 = 450;  x <= 3: 66.67 + 600 = 666.67
    two = _numeric_table({"x": [1, 2, 3, 4], "v1": [0, 0, 10, 10], "v2": [0, 30, 30, 30]})
    values = np.array([[0.0, 0, 10, 10], [0, 30, 30, 30]])
    assert _thresholds(LSDCriterion(values), two) == [("x", 1.0), ("x", 2.0), ("x", 3.0)]
    assert _thresholds(LSDCriterion(values[:1]), two)[0] == ("x", 2.0)
    assert mondrian(two, Requirements([KAnonymity(1)]), criterion="lsd").nodes.threshold[0] == 1


# ---------------------------------------------------------------- imprecision
def test_imprecision_hand_example() -> None:
    # Points (x, z); predicate x in [0, 5] and z in [0, 5]; inside: rows 0, 1, 2.
    #   class 0: rows 0, 1 (1,1) (2,2) -> box [1,2]x[1,2], inside, costs 0
    #   class 1: rows 2, 3 (4,4) (8,8) -> box [4,8]x[4,8] overlaps; 1 of 2 outside -> 1
    #   class 2: rows 4, 5 (6,1) (9,2) -> box [6,9]x[1,2], x misses [0, 5] -> 0
    #   class 3: rows 6, 7 (1,9) (7,0) -> box [1,7]x[0,9] overlaps though neither point is inside -> 2
    # Total 3.  Predicate 2, x in [6, 9] (z free): classes 1 (row 3 in, row 2 out), 2 (both in), 3 (row 7 in,
    # row 6 out) overlap -> 1 + 0 + 1 = 2.
    ds = _numeric_table({"x": [1, 2, 4, 8, 6, 9, 1, 7], "z": [1, 2, 4, 8, 1, 2, 9, 0]})
    row_class = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    predicates = [{"x": [0, 5], "z": [0, 5]}, {"x": [6, 9]}]
    assert imprecision(ds, row_class, predicates).tolist() == [3, 2]
    # a suppressed record (all *) overlaps every predicate: row 0 inside the first, outside the second
    suppressed = row_class.copy()
    suppressed[0] = -1
    assert imprecision(ds, suppressed, predicates).tolist() == [3, 3]


@pytest.mark.parametrize("seed", range(12))
def test_imprecision_matches_the_definition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ds = clustering_dataset(seed, 80, 3)
    predicates = _random_predicates(rng, ds)
    row_class = rng.integers(0, 9, ds.n_rows)
    groups = [np.flatnonzero(row_class == c).tolist() for c in np.unique(row_class)]
    assert int(imprecision(ds, row_class, predicates).sum()) == _reference_imprecision(ds, groups, predicates)


@pytest.mark.parametrize("seed", range(16))
def test_selection_candidates_are_every_improving_split_best_first(seed: int) -> None:
    # For a random region: the selection phase yields exactly the splits (every strict or relaxed cut, every
    # hierarchy split) whose children's imprecision is below the region's, by the reference, lowest first.
    rng = np.random.default_rng(seed)
    ds = clustering_dataset(seed, int(rng.integers(15, 50)), 3)
    predicates = _random_predicates(rng, ds)
    strict = bool(seed % 2)
    space = attribute_space(ds)
    rows = np.flatnonzero(rng.random(ds.n_rows) < 0.8)
    region = describe_region(space, rows)
    current = _reference_imprecision(ds, [rows.tolist()], predicates)
    criterion = SelectionCriterion(compile_selections(ds, space, predicates), MedianCriterion())
    yielded = []
    for cand in criterion.candidates(space, region, strict):
        if criterion.handed_over[rows[0]]:
            break
        yielded.append(_reference_imprecision(ds, [rows[cand.labels == u].tolist() for u in range(len(cand.keys))],
                                              predicates))
    improving = []
    values = space.values[space.column[ds.quasi.index("x")], rows]
    ordered = rows[np.lexsort((rows, values))]
    cuts = range(1, len(rows)) if not strict else np.flatnonzero(np.diff(np.sort(values))) + 1
    for pos in cuts:
        improving.append(_reference_imprecision(ds, [ordered[:pos].tolist(), ordered[pos:].tolist()], predicates))
    for q in ds.quasi:
        if q == "x":
            continue
        h, codes = ds.require_hierarchy(q), ds.encoded[q].row_codes()[rows]
        lv = next(lv for lv in range(h.n_levels) if len(set(h.maps[lv][codes].tolist())) == 1)
        if lv > 0:
            parents = h.maps[lv - 1][codes]
            improving.append(_reference_imprecision(ds, [rows[parents == p].tolist() for p in np.unique(parents)],
                                                    predicates))
    assert yielded == sorted(v for v in improving if v < current)
    assert criterion.handed_over[rows].all() == criterion.handed_over[rows[0]]


# ---------------------------------------------------------------- Selection Mondrian
def test_selection_mondrian_hand_example() -> None:
    # x = 1..16, predicate x in [1, 5], k = 4.  The root costs 16 - 5 = 11.  Cutting after x = p costs
    # 11 (p < 5: the right side still overlaps), 0 (p = 5) or p - 5 (p > 5) -> x <= 5.  Both children cost 0:
    # handed over to the median -> {1..5} (< 2k) stays, {6..16} is cut at its lower median 11 (<= 11 first).
    # Median Mondrian: quarters; {5..8} overlaps with 3 records outside -> imprecision 3.
    ds = _numeric_table({"x": list(range(1, 17))})
    predicates = [{"x": [1, 5]}]
    requirements = Requirements([KAnonymity(4)])
    tree = mondrian(ds, requirements, criterion="selection", selections=predicates)
    assert _classes(tree.row_class) == {frozenset(range(5)), frozenset(range(5, 11)), frozenset(range(11, 16))}
    assert imprecision(ds, tree.row_class, predicates).tolist() == [0]
    assert imprecision(ds, mondrian(ds, requirements).row_class, predicates).tolist() == [3]
    _verified(ds, tree, requirements)


def test_selection_on_hierarchy_nodes_then_infogain() -> None:
    # c: a1 a2 (A), b1 b2 (B); x = 1..24; predicate c in node A.  Rows alternate A / B, so any cut of x
    # leaves both sides overlapping, and the hierarchy split into A | B costs 0: taken first.  Inside
    # each child (imprecision 0) InfoGain on y takes over: y = P for x <= 12, N above -> cut at 12 (or
    # the nearest value of the child) in both, never again the selection.
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]])
    table = pd.DataFrame({"x": [str(v) for v in range(1, 25)], "c": ["a1", "b1", "a2", "b2"] * 6,
                          "y": ["P"] * 12 + ["N"] * 12})
    ds = Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h},
                         "y": {"role": "target"}})
    requirements = Requirements([KAnonymity(3)])
    tree = mondrian(ds, requirements, criterion="selection", selections=[{"c": "A"}])
    assert tree.nodes.split_attr[0] == ds.quasi.index("c")
    assert imprecision(ds, tree.row_class, [{"c": ["A"]}]).tolist() == [0]
    y = (table["y"] == "P").to_numpy()
    assert all(len(set(y[list(members)])) == 1 for members in _classes(tree.row_class))  # InfoGain: pure classes
    _verified(ds, tree, requirements)


def test_selection_hands_over_once() -> None:
    # The candidate stream of a region: first the improving splits, then (records marked handed over) the
    # target criterion's; a handed-over region gets the target criterion's candidates straight away.
    ds = _numeric_table({"x": list(range(1, 17))})
    space = attribute_space(ds)
    criterion = SelectionCriterion(compile_selections(ds, space, [{"x": [1, 5]}]), MedianCriterion(), min_size=4)
    region = describe_region(space, np.arange(16))
    stream = criterion.candidates(space, region, True)
    first = next(stream)
    assert first.threshold == 5 and not criterion.handed_over.any()
    rest = [c.threshold for c in stream]
    assert criterion.handed_over.all()
    # improving cuts with both sides >= 4 after x <= 5: x <= 6 .. x <= 12 (costs 1 .. 7); then the median's
    assert rest == [6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 8.0, 7.0]
    assert [c.threshold for c in criterion.candidates(space, describe_region(space, np.arange(8)), True)] == [4.0, 3.0]


def test_selection_beats_median_on_random_tables() -> None:
    # Selection Mondrian is greedy, so on a few tables it ends with more imprecision than Median Mondrian
    # (a split that helps most at once can block a better one below it: about 4 % of such tables); over many
    # tables it is far lower and it is no worse on the vast majority.
    totals = np.zeros(2)
    no_worse = runs = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        ds = clustering_dataset(seed, int(rng.integers(30, 160)), int(rng.integers(1, 4)))
        predicates = _random_predicates(rng, ds)
        requirements = Requirements([KAnonymity(int(rng.integers(1, 8)))])
        strict = bool(seed % 2)
        median = imprecision(ds, mondrian(ds, requirements, strict=strict).row_class, predicates).sum()
        tree = mondrian(ds, requirements, strict=strict, criterion="selection", selections=predicates)
        selection = imprecision(ds, tree.row_class, predicates).sum()
        totals += [median, selection]
        no_worse += selection <= median
        runs += 1
    assert no_worse >= 0.9 * runs
    assert totals[1] < 0.6 * totals[0]


# ---------------------------------------------------------------- every criterion, every model, verified
MODELS = {
    "k": lambda k: [KAnonymity(k)],
    "k+distinct": lambda k: [KAnonymity(k), DistinctLDiversity("s", 2)],
    "entropy": lambda k: [EntropyLDiversity("s", 2)],
}


WORKLOADS = {  # criterion and targets: t, u categorical, r numeric
    "infogain": ("infogain", ["t"]),
    "infogain, two targets": ("infogain", ["t", "u"]),
    "lsd": ("lsd", ["r"]),
    "selection, then infogain": ("selection", ["t"]),
    "selection, then lsd": ("selection", ["r"]),
    "selection, then median": ("selection", []),
}


#: Hypothesis examples per workload in the property test.  The default keeps the suite fast; to explore more,
#: run e.g. ``ANONSET_HYPOTHESIS_EXAMPLES=500 ANONSET_HYPOTHESIS_RANDOM=1
#: pytest tests/methods/mondrian/test_mondrian_criteria.py -k random`` (``ANONSET_HYPOTHESIS_RANDOM=1`` draws fresh
#: examples instead of the fixed ones, see conftest.py).
EXAMPLES = int(os.environ.get("ANONSET_HYPOTHESIS_EXAMPLES", "10"))


@pytest.mark.parametrize("workload", sorted(WORKLOADS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10**6), n_rows=st.integers(12, 120), n_quasi=st.integers(1, 3), k=st.integers(1, 8),
       models=st.sampled_from(sorted(MODELS)), strict=st.booleans())
def test_random_tables_are_verified(workload: str, seed: int, n_rows: int, n_quasi: int, k: int, models: str,
                                    strict: bool) -> None:
    """Random tables (12 to 120 rows, k up to 8) under each workload criterion, with a drawn model, verified.

    Every workload is a case of its own (each always runs), with :data:`EXAMPLES` examples each.
    """
    rng = np.random.default_rng(seed)
    base = clustering_dataset(seed, n_rows, n_quasi)
    assert base.table is not None
    t, u = rng.choice(["a", "b", "c"], n_rows), rng.choice(["a", "b"], n_rows)
    t[:2] = u[:2] = ["a", "b"]  # every target has two classes (a single class is refused, as tested below)
    table = base.table.assign(t=t, u=u, r=rng.normal(size=n_rows).round(3).astype(str))
    specs = dict(base.specs)
    specs.update(t={"role": "target"}, u={"role": "target"}, r={"role": "target", "type": "numeric"})
    ds = Dataset(table, specs)
    requirements = Requirements(MODELS[models](k))
    criterion, targets = WORKLOADS[workload]
    selections = _random_predicates(rng, ds) if criterion == "selection" else None
    try:
        tree = mondrian(ds, requirements, strict=strict, criterion=criterion, targets=targets, selections=selections)
    except InfeasibleError:  # only when the whole table, as one class, fails a model
        p = table["s"].value_counts(normalize=True).to_numpy()
        fails = {"k": n_rows < k, "k+distinct": n_rows < k or len(p) < 2,
                 "entropy": -(p * np.log(p)).sum() < np.log(2) - 1e-9}
        assert fails[models]
        return
    _verified(ds, tree, requirements)
    assert tree.criterion == criterion and np.bincount(tree.row_class).min() >= requirements.k
    if strict:
        assert np.array_equal(tree.assign(ds), tree.row_class)


def test_infogain_on_agrawal_function_2_beats_median() -> None:
    ds = agrawal_dataset(1000, 2, seed=4)
    requirements = Requirements([KAnonymity(25)])
    y = (ds.table["group"] == "A").to_numpy().astype(np.int64)

    def conditional_entropy(row_class: np.ndarray) -> float:
        counts = np.bincount(row_class * 2 + y, minlength=2 * (row_class.max() + 1)).reshape(-1, 2).astype(float)
        p = counts / counts.sum(axis=1, keepdims=True)
        return float(-(counts * np.log(np.where(p > 0, p, 1))).sum() / len(y))

    median = mondrian(ds, requirements)
    infogain = mondrian(ds, requirements, criterion="infogain")
    _verified(ds, infogain, requirements)
    assert conditional_entropy(infogain.row_class) < 0.5 * conditional_entropy(median.row_class)
    predicates = function2_predicates()
    selection = mondrian(ds, requirements, criterion="selection", selections=predicates)
    _verified(ds, selection, requirements)
    assert imprecision(ds, selection.row_class, predicates).sum() < imprecision(ds, median.row_class, predicates).sum()


def test_date_predicates() -> None:
    days = pd.date_range("2020-01-01", periods=40, freq="7D").strftime("%Y-%m-%d")
    ds = Dataset(pd.DataFrame({"d": list(days)}), {"d": {"role": "quasi", "type": "date"}})
    predicates = [{"d": ["2020-02-01", "2020-03-31"]}]  # 2020-02-05 .. 2020-03-25: rows 5..12
    tree = mondrian(ds, Requirements([KAnonymity(4)]), criterion="selection", selections=predicates)
    assert imprecision(ds, tree.row_class, predicates).tolist() == [0]
    assert {frozenset(range(5, 9)), frozenset(range(9, 13))} <= _classes(tree.row_class)


def test_adult_infogain_is_verified() -> None:
    from anonset.datasets import adult_morton

    base = adult_morton(require_adult())
    specs = dict(base.specs)
    specs["income"] = {"role": "target"}
    assert base.table is not None
    ds = Dataset(base.table, specs)
    requirements = Requirements([KAnonymity(10)])
    tree = mondrian(ds, requirements, criterion="infogain")
    _verified(ds, tree, requirements)
    assert tree.n_classes > ds.n_rows // 40


# ---------------------------------------------------------------- bad input
def _bad_input_dataset() -> Dataset:
    table = pd.DataFrame({"x": [str(v) for v in range(20)], "c": ["a", "b"] * 10, "s": ["s1", "s2"] * 10,
                          "y": ["P", "N"] * 10, "one": ["z"] * 20, "v": [str(v) for v in range(20)],
                          "w": ["1"] * 19 + ["n/a"]})
    return Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi"},
                           "s": {"role": "sensitive"}, "y": {"role": "target"}, "v": {"type": "numeric"},
                           "w": {"type": "numeric"}})


@pytest.mark.parametrize(("options", "message"), [
    ({"criterion": "infogain", "targets": ["nope"]}, "target 'nope' is not a column"),
    ({"criterion": "infogain", "targets": ["c"]}, "'c' is a quasi attribute"),
    ({"criterion": "infogain", "targets": ["s"]}, "'s' is a sensitive attribute"),
    ({"criterion": "infogain", "targets": ["v"]}, "infogain needs categorical targets; 'v' is numeric"),
    ({"criterion": "infogain", "targets": ["one"]}, "'one' has a single class"),
    ({"criterion": "infogain", "targets": []}, "needs a categorical target"),
    ({"criterion": "lsd"}, "lsd needs numeric targets; 'y' is categorical"),
    ({"criterion": "lsd", "targets": ["w"]}, "non-numeric value 'n/a' \\(row 19\\)"),
    ({"criterion": "lsd", "targets": ["y", "v"]}, "'y' is categorical"),
    ({"criterion": "selection"}, "needs at least one predicate"),
    ({"criterion": "selection", "selections": []}, "needs at least one predicate"),
    ({"criterion": "selection", "selections": [{}]}, "selection #1 constrains no attribute"),
    ({"criterion": "selection", "selections": {"x": [1, 2]}}, "non-empty list of predicates"),
    ({"criterion": "selection", "selections": [{"y": ["P"]}]}, "'y': not a quasi-identifier"),
    ({"criterion": "selection", "selections": [{"x": [5, 1]}]}, "'x': the range \\[5, 1\\] is empty"),
    ({"criterion": "selection", "selections": [{"x": [1, "a"]}]}, "is not two numbers"),
    ({"criterion": "selection", "selections": [{"x": 3}]}, "give a range \\[lo, hi\\]"),
    ({"criterion": "selection", "selections": [{"c": ["q"]}]}, "'q' is no value or hierarchy node of 'c'"),
    ({"criterion": "selection", "selections": [{"c": []}]}, "no values"),
    ({"criterion": "selection", "selections": [{"x": [1, 2]}], "targets": ["y", "v"]}, "mix numeric and categorical"),
    ({"criterion": "median", "targets": ["y"]}, "criterion median uses no targets"),
    ({"criterion": "infogain", "selections": [{"x": [1, 2]}]}, "criterion infogain uses no selections"),
    ({"criterion": MedianCriterion(), "targets": ["y"]}, "a criterion object carries its own"),
    ({"criterion": "gini"}, "unknown Mondrian criterion 'gini'; use median \\| infogain \\| lsd \\| selection"),
])
def test_bad_input(options: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        mondrian(_bad_input_dataset(), Requirements([KAnonymity(2)]), **options)


def test_registry_and_defaults() -> None:
    assert list(CRITERIA) == ["median", "infogain", "lsd", "selection"]
    ds = _bad_input_dataset()
    # the role-target column y is the default target; a single name is accepted for targets
    by_default = mondrian(ds, Requirements([KAnonymity(2)]), criterion="infogain")
    by_name = mondrian(ds, Requirements([KAnonymity(2)]), criterion="infogain", targets="y")
    assert np.array_equal(by_default.row_class, by_name.row_class)
    # LSD on an insensitive numeric column named as the target
    assert mondrian(ds, Requirements([KAnonymity(2)]), criterion="lsd", targets=["v"]).n_classes >= 5
