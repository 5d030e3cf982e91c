"""Tests of distributed Mondrian's cut tree (anonset.methods.mondrian.cut_tree), without Spark.

Records are sent down a tree of cuts written by hand on a small table, and the expected fragment of
each record is worked out by hand in the comments; so is the renumbering when a cut is undone.
"""

from __future__ import annotations

import pandas as pd

from anonset.core.dataset import Dataset
from anonset.hierarchy import Hierarchy
from anonset.methods.mondrian.cut_tree import Cut, collapsed, fragments_of, unseen_branches

#: c: a1, a2 -> A; b1, b2 -> B; c1 -> C; -> *.  At level 1, A is 0, B is 1 and C is 2.
C_HIERARCHY = [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"], ["c1", "C", "*"]]
A, B, C = 0, 1, 2


def _table(ages: list[str], cs: list[str]) -> Dataset:
    h = Hierarchy.from_rows("c", C_HIERARCHY)
    return Dataset(pd.DataFrame({"age": ages, "c": cs}),
                   {"age": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h}})


def test_records_go_down_the_cuts_to_their_fragment() -> None:
    # age <= 40 left, then c at level 1: A -> fragment 0, B -> fragment 1, any other branch (C) -> child 1
    # (default); age > 40 -> fragment 2.
    #   row:  0   1   2   3   4   5   6   7   8
    #   age: 25  30  35  40  45  50  55  60  20
    #   c:   a1  a2  b1  b2  a1  b1  a2  b2  c1
    #   ->    0   0   1   1   2   2   2   2   1   (40 is <= 40; c1 is in branch C, sent to the default child)
    ds = _table(["25", "30", "35", "40", "45", "50", "55", "60", "20"],
                ["a1", "a2", "b1", "b2", "a1", "b1", "a2", "b2", "c1"])
    tree = Cut("age", threshold=40.0, children=(Cut("c", level=1, keys=(A, B), default=1, children=(Cut(), Cut())),
                                                Cut()))
    assert tree.n_fragments == 3
    assert fragments_of(tree, ds).tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 1]
    # the default child is the cut's: child 0 takes the unseen branch when told so
    tree = Cut("age", threshold=40.0, children=(Cut("c", level=1, keys=(A, B), default=0, children=(Cut(), Cut())),
                                                Cut()))
    assert fragments_of(tree, ds).tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 0]
    # a categorical cut at the root, a numeric one below its second child: depth-first numbering
    #   c in A -> 0; c in B: age <= 45 -> 1, else 2; C -> child 0 (default) -> 0
    tree = Cut("c", level=1, keys=(A, B), children=(Cut(), Cut("age", threshold=45.0, children=(Cut(), Cut()))))
    assert fragments_of(tree, ds).tolist() == [0, 0, 1, 1, 0, 2, 0, 2, 0]
    assert fragments_of(Cut(), ds).tolist() == [0] * 9


def test_the_levels_each_attribute_is_cut_at() -> None:
    tree = Cut("age", threshold=40.0, children=(Cut("c", level=1, keys=(A, B), children=(Cut(), Cut())),
                                                Cut("c", level=0, keys=(0, 1), children=(Cut(), Cut()))))
    assert tree.levels_used() == {"age": {-1}, "c": {0, 1}}
    assert Cut().levels_used() == {} and Cut().is_leaf and not tree.is_leaf


def test_collapsing_a_cut_renumbers_the_fragments() -> None:
    tree = Cut("a", threshold=1.0, children=(Cut("b", threshold=2.0, children=(Cut(), Cut())),
                                             Cut("c", level=0, keys=(0, 1, 2), children=(Cut(), Cut(), Cut()))))
    assert tree.n_fragments == 5
    merged, mapping = collapsed(tree, {3})
    assert merged.n_fragments == 3 and mapping.tolist() == [0, 1, 2, 2, 2]
    whole, mapping = collapsed(Cut(), {0})
    assert whole.is_leaf and mapping.tolist() == [0]


def test_collapsing_keeps_the_other_cuts() -> None:
    # fragments 0 and 1 under b, 2 under a's second child: undoing b's cut (fragment 1 fails) merges 0 and 1 only
    tree = Cut("a", threshold=1.0, children=(Cut("b", threshold=2.0, children=(Cut(), Cut())), Cut()))
    merged, mapping = collapsed(tree, {1})
    assert merged == Cut("a", threshold=1.0, children=(Cut(), Cut())) and mapping.tolist() == [0, 0, 1]
    # fragment 2's parent is the root: the whole tree becomes one fragment
    merged, mapping = collapsed(tree, {2})
    assert merged.is_leaf and mapping.tolist() == [0, 0, 0]


def test_a_branch_the_sample_did_not_hold_is_seen() -> None:
    tree = Cut("c", level=1, keys=(A, B), children=(Cut(), Cut()))
    # the table holds C as well: a record of C went to a child whose classes may cover a sibling's values
    with_c = _table(["25", "30", "35"], ["a1", "b1", "c1"])
    assert unseen_branches(tree, with_c)
    without_c = _table(["25", "30", "35"], ["a1", "b1", "b2"])
    assert not unseen_branches(tree, without_c)
    assert not unseen_branches(Cut("age", threshold=30.0, children=(Cut(), Cut())), with_c)
