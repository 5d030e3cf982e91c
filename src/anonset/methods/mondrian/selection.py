"""Selection Mondrian (LeFevre et al., equations 5 and 6): predicates, their imprecision, and the criterion.

A query over a release returns every record whose released region overlaps
the query's hyper-rectangle; the *imprecision* of a predicate over a
partition is the number of records returned that do not satisfy it (summed
over overlapping classes: ``|class| − |class ∩ predicate|``), and the
workload's imprecision is the sum over its predicates (the metric
:func:`anonset.metrics.imprecision.imprecision` measures it for any partition).

:class:`SelectionCriterion` minimizes that sum.  While a region has an
allowable split that strictly lowers the region's imprecision, it yields only
such splits (best first); once none of them is allowable it hands the region
over to the target criterion (InfoGain, LSD, or median without targets): it
records the region's records as handed over and yields the target
criterion's candidates, and every region below it keeps using the target
criterion.  The object therefore holds per-record state and serves a single
Mondrian run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.attribute_space import AttributeSpace
from anonset.core.selections import Selections
from anonset.methods.mondrian.criteria import (
    _cut_positions,
    _hierarchy_candidate,
    _Ranking,
    _sorted,
    _splittable,
)
from anonset.methods.mondrian.split import CandidateSplit, Region, SplitCriterion

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["SelectionCriterion"]


def _cut_imprecision(selections: Selections, space: AttributeSpace, region: Region, order: NDArray[np.int64],
                     positions: NDArray[np.int64]) -> NDArray[np.int64]:
    """Summed imprecision of the two children of each cut (left: the first ``positions`` of ``order``)."""
    rows = region.rows[order]
    m = len(rows)
    left_overlap = np.ones((len(selections.lo), len(positions)), dtype=np.bool_)
    right_overlap = left_overlap.copy()
    before, after = positions - 1, positions
    for c in selections.numeric_columns:
        v = space.values[c, rows]
        lo, hi = selections.lo[:, c, None], selections.hi[:, c, None]
        left_overlap &= ((np.minimum.accumulate(v)[before] <= hi) & (np.maximum.accumulate(v)[before] >= lo))
        right_overlap &= ((np.minimum.accumulate(v[::-1])[::-1][after] <= hi)
                          & (np.maximum.accumulate(v[::-1])[::-1][after] >= lo))
    for a in selections.categorical_columns:
        leaves = space.codes[a, rows]
        left_level = np.zeros(len(positions), dtype=np.int64)
        right_level = np.zeros(len(positions), dtype=np.int64)
        for lv in range(int(region.level[a])):  # the children's lowest common ancestors lie below the region's
            ancestors = space.maps[a, lv, leaves]
            left_level += ~np.logical_and.accumulate(ancestors == ancestors[0])[before]
            right_level += ~np.logical_and.accumulate((ancestors == ancestors[-1])[::-1])[::-1][after]
        left_overlap &= selections.hit[:, a, left_level, space.maps[a, left_level, leaves[0]]]
        right_overlap &= selections.hit[:, a, right_level, space.maps[a, right_level, leaves[-1]]]
    inside = np.cumsum(selections.inside[:, rows], axis=1)
    in_left = inside[:, before]
    in_right = inside[:, -1:] - in_left
    out = np.where(left_overlap, positions - in_left, 0) + np.where(right_overlap, m - positions - in_right, 0)
    return cast("NDArray[np.int64]", out.sum(axis=0))


class SelectionCriterion:
    """Selection Mondrian: splits lowering the predicates' summed imprecision, then the target criterion.

    Candidates while a region is in the selection phase: every strict (or
    relaxed) cut of every numeric attribute and the hierarchy split of every
    categorical one whose children's summed imprecision is strictly below
    the region's, lowest first.  See the module docstring for the hand-over.

    Parameters
    ----------
    selections : Selections
        The compiled predicates.
    then : SplitCriterion
        The criterion for regions no allowable split improves.
    min_size : int
        Smallest allowable child (k).
    """

    name = "selection"

    def __init__(self, selections: Selections, then: SplitCriterion, min_size: int = 1):
        self.selections = selections
        self.then = then
        self.min_size = max(int(min_size), 1)
        self.handed_over = np.zeros(selections.inside.shape[1], dtype=np.bool_)

    def candidates(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        """Improving splits best first, then (region handed over) the target criterion's candidates."""
        if not self.handed_over[region.rows[0]]:
            yield from self._improving(space, region, strict)
            self.handed_over[region.rows] = True
        yield from self.then.candidates(space, region, strict)

    def _improving(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        m = len(region.rows)
        current = int(self.selections.segments(space, region.rows, np.zeros(1, dtype=np.int64)).sum())
        if current == 0:
            return
        ranking = _Ranking(m, self.min_size)
        for j in range(len(space.quasi)):
            if not _splittable(space, region, j):
                continue
            if space.numeric[j]:
                cuts = _sorted(space, region, j)
                positions = ranking.sized(_cut_positions(cuts, strict))
                scores = _cut_imprecision(self.selections, space, region, cuts.order, positions)
                ranking.add_cuts(cuts, positions[scores < current], scores[scores < current].astype(np.float64))
                continue
            cand = _hierarchy_candidate(space, region, j, self.min_size)
            if cand is None:
                continue
            order = np.argsort(cand.labels, kind="stable")
            starts = np.flatnonzero(np.diff(cand.labels[order], prepend=-1))
            score = int(self.selections.segments(space, region.rows[order], starts).sum())
            if score < current:
                ranking.add_split(cand, float(score))
        yield from ranking
