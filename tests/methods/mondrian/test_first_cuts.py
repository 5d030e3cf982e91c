"""Tests of distributed Mondrian's first cuts (anonset.methods.mondrian.first_cuts), without Spark.

The cuts taken are worked out by hand from the rule of the module docstring: a region's Mondrian cut
is taken only when every child keeps ``4 × k`` records, estimated low from the sample.  With the whole
table as the sample, the fragments are unions of the classes Mondrian makes on the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.hierarchy_builders import masking_hierarchy
from anonset.datasets.synthetic import patient_register
from anonset.hierarchy import Hierarchy
from anonset.methods.mondrian.cut_tree import Cut, fragments_of
from anonset.methods.mondrian.first_cuts import first_cuts, smallest_class, table_scales
from anonset.methods.mondrian.regions import mondrian
from anonset.privacy.base import Requirements
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity


def _ages(n: int) -> Dataset:
    return Dataset(pd.DataFrame({"age": [str(a) for a in range(n)]}), {"age": {"role": "quasi", "type": "numeric"}})


def _cuts(ds: Dataset, k: int, n_rows: int, fragments: int = 4) -> Cut:
    by_value, spans = table_scales(ds)
    return first_cuts(ds, Requirements([KAnonymity(k)]), n_rows=n_rows, fragments=fragments, spans=spans,
                      by_value=by_value)


def test_a_cut_is_taken_only_when_every_child_keeps_the_margin() -> None:
    # ages 0..39, the whole table.  k = 2: a fragment keeps 4 × 2 = 8 records.  The median cut of 40 records
    # (at 19) leaves 20 | 20, of 20 records 10 | 10: both kept -> 4 fragments of 10 (0-9, 10-19, 20-29, 30-39).
    ds = _ages(40)
    tree = _cuts(ds, 2, 40)
    assert tree == Cut("age", threshold=19.0, children=(Cut("age", threshold=9.0, children=(Cut(), Cut())),
                                                        Cut("age", threshold=29.0, children=(Cut(), Cut()))))
    assert fragments_of(tree, ds).tolist() == [0] * 10 + [1] * 10 + [2] * 10 + [3] * 10
    # k = 3: 12 records a fragment; 10 | 10 is refused (the worker makes that cut itself) -> 2 fragments
    assert _cuts(ds, 3, 40) == Cut("age", threshold=19.0, children=(Cut(), Cut()))
    # it stops at the fragments asked for, cutting the largest leaf first
    assert _cuts(ds, 2, 40, fragments=2) == Cut("age", threshold=19.0, children=(Cut(), Cut()))
    assert _cuts(ds, 2, 40, fragments=1) == Cut()
    # 2 × 20 records < 2k: no child may hold fewer than k, so no cut at all
    assert _cuts(ds, 21, 40) == Cut()


def test_a_sample_counts_each_child_low() -> None:
    # the same 40 ages as a sample of a table of 80 (f = 1/2), k = 2 (8 records a fragment).  A child of c
    # sample records is estimated at (c − 3·√(c·(1 − f))) / f: 20 -> (20 − 3·√10) · 2 = 21.0 >= 8, cut;
    # 10 -> (10 − 3·√5) · 2 = 6.6 < 8, not cut (on the table it would be 20 records: the estimate is low).
    assert _cuts(_ages(40), 2, 80) == Cut("age", threshold=19.0, children=(Cut(), Cut()))
    # a sample of 1/4: 20 -> (20 − 3·√15) · 4 = 33.5, 10 -> (10 − 3·√7.5) · 4 = 7.1 < 8
    assert _cuts(_ages(40), 2, 160) == Cut("age", threshold=19.0, children=(Cut(), Cut()))
    # k counts the table's records: 100 sample records of 1000 (f = 1/10), k = 60 (240 records a fragment).  A
    # child of 50 sample records holds fewer than k of them, but stands for 500 >= k records, estimated low at
    # (50 − 3·√45) · 10 = 298.8 >= 240: cut
    assert _cuts(_ages(100), 60, 1000, fragments=2) == Cut("age", threshold=49.0, children=(Cut(), Cut()))
    # k = 80: 320 records a fragment, 298.8 < 320: not cut
    assert _cuts(_ages(100), 80, 1000, fragments=2) == Cut()


def test_the_smallest_class_is_k_or_l() -> None:
    assert smallest_class(Requirements([KAnonymity(3)])) == 3
    assert smallest_class(Requirements([KAnonymity(3), DistinctLDiversity("s", 5)])) == 5


def test_table_scales() -> None:
    # age is compared by value (span 60 − 25 = 35); c, by its hierarchy, is not
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["b1", "B", "*"]])
    ds = Dataset(pd.DataFrame({"age": ["25", "60", "40"], "c": ["a1", "b1", "a1"]}),
                 {"age": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h}})
    assert table_scales(ds) == (frozenset({"age"}), {"age": 35.0})


def test_fragments_of_the_whole_table_are_unions_of_mondrians_classes() -> None:
    table = patient_register(1500, seed=7)[["age", "sex", "zip", "race"]]
    ds = Dataset(table, {"age": {"role": "quasi", "type": "numeric"}, "sex": {"role": "quasi"},
                         "zip": {"role": "quasi", "hierarchy": masking_hierarchy("zip", table["zip"])},
                         "race": {"role": "quasi"}})
    requirements = Requirements([KAnonymity(5)])
    by_value, spans = table_scales(ds)
    tree = first_cuts(ds, requirements, n_rows=ds.n_rows, fragments=8, spans=spans, by_value=by_value)
    assert tree.n_fragments >= 4
    fragment = fragments_of(tree, ds)
    assert np.bincount(fragment).min() >= 4 * 5  # every fragment keeps the margin
    classes = mondrian(ds, requirements).row_class
    # every class of Mondrian on the table lies in one fragment: the first cuts are the top of its tree
    per_class = pd.Series(fragment).groupby(classes).nunique()
    assert (per_class == 1).all()
