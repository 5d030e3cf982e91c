"""Workload-aware split criteria of Mondrian: InfoGain and LSD (LeFevre, DeWitt and Ramakrishnan, KDD 2006).

Each criterion is a :class:`~anonset.methods.mondrian.split.SplitCriterion`:
for a region it scores every candidate split at once (numpy over the
region's records) and yields the candidates best first; Mondrian's loop
applies the first whose children satisfy the privacy models.

Candidates (the same for InfoGain and LSD):

- A numeric attribute (split by value) is cut after position ``i`` of its
  records sorted by value (left ``value <= threshold``, the threshold being
  the largest value on the left).  Strict: cuts only between two distinct
  values.  Relaxed: any position, ties ordered by row.
- A categorical attribute is split along its hierarchy: one child per child
  node of the region's node (the lowest common ancestor of its records).
- Attributes of weight 0 are never split (other weights only steer ``median``).
- Cuts leaving a side smaller than ``min_size`` (k of k-anonymity) are not
  candidates, since no such split is allowable.
- Ties in the criterion: quasi-identifier order, then the more balanced cut,
  then the cut with more records on the left (as ``median`` tries ``<=
  median`` first).  Scores are rounded to 12 decimals (relative to the
  region's own score for LSD) so that ties are exact.

:class:`InfoGainCriterion` minimizes the weighted class entropy of the
children, ``Σ_children |P'|/|P| Σ_c −p(c|P') log p(c|P')`` (natural log),
summed over the targets (the paper's equation 3).  Numeric candidates are the
*boundary* cuts where the class changes in sorted order (strict: between two
distinct values unless every record on both sides of the cut has one and the
same class vector; relaxed: where the class vector changes between
neighbours); after all of those, as fallback, the strict or relaxed median
cuts of :class:`~anonset.methods.mondrian.split.MedianCriterion`.

:class:`LSDCriterion` minimizes the summed squared error
``Σ_children Σ_i (y_i − mean_child)²`` summed over the numeric targets
(equations 2 and 4); every distinct-value cut is a candidate (prefix sums:
``O(m log m)`` per region and attribute).

The Selection criterion (:mod:`anonset.methods.mondrian.selection`) and the
factories that build a criterion from a workload
(:mod:`anonset.methods.mondrian.workload`) share the candidate helpers below.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.attribute_space import AttributeSpace
from anonset.methods.mondrian.split import CandidateSplit, Region, _hierarchy_split

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["InfoGainCriterion", "LSDCriterion"]

#: A selection predicate: per quasi-identifier a numeric range ``[lo, hi]`` (closed; numeric and date

_DECIMALS = 12


# ---------------------------------------------------------------- ranking of candidates
@dataclass(frozen=True, eq=False)
class _Cuts:
    """The region's records sorted by one numeric attribute (candidate cuts refer to positions in it)."""

    attribute: int
    order: NDArray[np.int64]
    values: NDArray[np.float64]


def _sorted(space: AttributeSpace, region: Region, j: int) -> _Cuts:
    """The region's records by value of numeric attribute j, equal values by row (strict and relaxed alike)."""
    values = space.values[space.column[j], region.rows]
    order = np.lexsort((region.rows, values))
    return _Cuts(j, order, values[order])


def _cut_positions(cuts: _Cuts, strict: bool) -> NDArray[np.int64]:
    """Every cut: between distinct values (strict) or anywhere (relaxed)."""
    m = len(cuts.values)
    if strict:
        return np.flatnonzero(cuts.values[1:] != cuts.values[:-1]) + 1
    return np.arange(1, m)


def _median_positions(cuts: _Cuts, strict: bool) -> NDArray[np.int64]:
    """The median cuts of MedianCriterion: ``<= median`` and ``< median`` (strict) or ``m // 2`` (relaxed)."""
    m = len(cuts.values)
    if not strict:
        return np.array([m // 2])
    median = cuts.values[(m - 1) // 2]
    below = int(np.searchsorted(cuts.values, median, side="left"))
    upto = int(np.searchsorted(cuts.values, median, side="right"))
    return np.array([p for p in (upto, below) if 0 < p < m])


class _Ranking:
    """Scored candidates of one region, yielded best first (lowest tier, score, attribute, imbalance, −position)."""

    def __init__(self, m: int, min_size: int):
        self.m = m
        self.min_size = min_size
        self.sources: list[_Cuts | CandidateSplit] = []
        self.keys: list[NDArray[np.float64]] = []

    def sized(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        """The cut positions leaving at least ``min_size`` records on each side."""
        return positions[(positions >= self.min_size) & (positions <= self.m - self.min_size)]

    def add_cuts(self, cuts: _Cuts, positions: NDArray[np.int64], scores: NDArray[np.float64], tier: int = 0) -> None:
        """Cuts (``sized`` positions) of one attribute with their scores."""
        if len(positions):
            self._add(cuts, tier, scores, cuts.attribute, np.abs(2 * positions - self.m), positions)

    def add_split(self, cand: CandidateSplit, score: float) -> None:
        """A hierarchy split with its score."""
        self._add(cand, 0, np.array([score]), cand.attribute, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))

    def _add(self, source: _Cuts | CandidateSplit, tier: int, scores: NDArray[np.float64], attribute: int,
             imbalance: NDArray[np.int64], positions: NDArray[np.int64]) -> None:
        n = len(scores)
        self.keys.append(np.stack([np.full(n, tier, dtype=np.float64), scores, np.full(n, float(attribute)),
                                   imbalance.astype(np.float64), -positions.astype(np.float64),
                                   np.full(n, float(len(self.sources)))]))
        self.sources.append(source)

    def __iter__(self) -> Iterator[CandidateSplit]:
        if not self.keys:
            return
        keys = np.concatenate(self.keys, axis=1)
        for i in np.lexsort(keys[4::-1]):
            source = self.sources[int(keys[5, i])]
            if isinstance(source, CandidateSplit):
                yield source
                continue
            pos = -int(keys[4, i])
            labels = np.zeros(self.m, dtype=np.int64)
            labels[source.order[pos:]] = 1
            yield CandidateSplit(source.attribute, labels, np.array([0, 1]), threshold=float(source.values[pos - 1]))


def _hierarchy_candidate(space: AttributeSpace, region: Region, j: int, min_size: int) -> CandidateSplit | None:
    """The hierarchy split of splittable categorical attribute j, or None when a child is below min_size."""
    a = int(space.column[j])
    level = int(region.level[a])
    cand = _hierarchy_split(j, space.maps[a, level - 1, space.codes[a, region.rows]], level - 1)
    if np.bincount(cand.labels).min() < min_size:
        return None
    return cand


def _splittable(space: AttributeSpace, region: Region, j: int) -> bool:
    """Attribute j may be split in the region: positive weight and more than one value there."""
    if space.weight[j] <= 0:
        return False
    c = int(space.column[j])
    return bool(region.high[c] > region.low[c]) if space.numeric[j] else bool(region.level[c] > 0)


# ---------------------------------------------------------------- InfoGain and LSD
def _plogp(count: NDArray[np.float64], size: NDArray[np.float64]) -> NDArray[np.float64]:
    """``count · log(count / size)``, 0 where count is 0."""
    return np.where(count > 0, count * np.log(np.maximum(count, 1) / size), 0.0)


class InfoGainCriterion:
    """InfoGain Mondrian: minimize the weighted class entropy of the children, summed over the targets.

    Parameters
    ----------
    classes : numpy.ndarray
        (t, n) int64 class code (``0 ..``) of every record for each categorical target.
    min_size : int
        Smallest allowable child (k); smaller cuts are no candidates.
    """

    name = "infogain"

    def __init__(self, classes: NDArray[np.int64], min_size: int = 1):
        self.classes = np.atleast_2d(np.asarray(classes, dtype=np.int64))
        self.n_classes = self.classes.max(axis=1) + 1
        _, joint = np.unique(self.classes, axis=1, return_inverse=True)
        self.joint = joint.reshape(-1).astype(np.int64)
        self.min_size = max(int(min_size), 1)

    def candidates(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        """Boundary cuts and hierarchy splits by weighted entropy, then the median cuts (see the module docstring)."""
        m = len(region.rows)
        ranking = _Ranking(m, self.min_size)
        classes = self.classes[:, region.rows]
        for j in range(len(space.quasi)):
            if not _splittable(space, region, j):
                continue
            if not space.numeric[j]:
                cand = _hierarchy_candidate(space, region, j, self.min_size)
                if cand is not None:
                    ranking.add_split(cand, self._child_entropy(classes, cand.labels, len(cand.keys)))
                continue
            cuts = _sorted(space, region, j)
            joint = self.joint[region.rows][cuts.order]
            if strict:
                positions = _cut_positions(cuts, strict)
                starts = np.concatenate([[0], positions])
                low, high = np.minimum.reduceat(joint, starts), np.maximum.reduceat(joint, starts)
                pure = low == high
                same = pure[:-1] & pure[1:] & (low[:-1] == low[1:])
                boundary = positions[~same]
            else:
                boundary = np.flatnonzero(joint[1:] != joint[:-1]) + 1
            fallback = np.setdiff1d(_median_positions(cuts, strict), boundary)
            sorted_classes = classes[:, cuts.order]
            for tier, positions in ((0, ranking.sized(boundary)), (1, ranking.sized(fallback))):
                ranking.add_cuts(cuts, positions, self._cut_entropy(sorted_classes, positions), tier)
        yield from ranking

    def _cut_entropy(self, sorted_classes: NDArray[np.int64], positions: NDArray[np.int64]) -> NDArray[np.float64]:
        m = sorted_classes.shape[1]
        sizes = np.stack([positions, m - positions]).astype(np.float64)
        total = np.zeros(len(positions))
        for y, n_classes in zip(sorted_classes, self.n_classes, strict=True):
            for c in range(n_classes):
                cum = np.cumsum(y == c)
                in_left = cum[positions - 1]
                total -= _plogp(np.stack([in_left, cum[-1] - in_left]).astype(np.float64), sizes).sum(axis=0)
        return np.round(total / m, _DECIMALS)

    def _child_entropy(self, classes: NDArray[np.int64], labels: NDArray[np.int64], n_children: int) -> float:
        m = len(labels)
        sizes = np.bincount(labels, minlength=n_children).astype(np.float64)
        total = 0.0
        for y, n_classes in zip(classes, self.n_classes, strict=True):
            counts = np.bincount(labels * n_classes + y, minlength=n_children * n_classes).reshape(n_children, -1)
            total -= float(_plogp(counts.astype(np.float64), sizes[:, None]).sum())
        return float(np.round(total / m, _DECIMALS))


class LSDCriterion:
    """LSD Mondrian: minimize the summed squared error of the numeric targets within the children.

    Parameters
    ----------
    values : numpy.ndarray
        (t, n) float64 value of every record for each numeric target.
    min_size : int
        Smallest allowable child (k); smaller cuts are no candidates.
    """

    name = "lsd"

    def __init__(self, values: NDArray[np.float64], min_size: int = 1):
        self.values = np.atleast_2d(np.asarray(values, dtype=np.float64))
        self.min_size = max(int(min_size), 1)

    def candidates(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        """Every distinct-value cut and every hierarchy split, by summed squared error."""
        m = len(region.rows)
        ranking = _Ranking(m, self.min_size)
        y = self.values[:, region.rows]
        y = y - y.mean(axis=1, keepdims=True)  # centred: prefix sums without cancellation
        scale = max(float((y * y).sum()), float(np.finfo(np.float64).tiny))
        for j in range(len(space.quasi)):
            if not _splittable(space, region, j):
                continue
            if not space.numeric[j]:
                cand = _hierarchy_candidate(space, region, j, self.min_size)
                if cand is not None:
                    ranking.add_split(cand, float(np.round(self._child_error(y, cand.labels, len(cand.keys)) / scale,
                                                           _DECIMALS)))
                continue
            cuts = _sorted(space, region, j)
            positions = ranking.sized(_cut_positions(cuts, strict))
            ranking.add_cuts(cuts, positions, np.round(self._cut_error(y[:, cuts.order], positions) / scale,
                                                       _DECIMALS))
        yield from ranking

    @staticmethod
    def _cut_error(y: NDArray[np.float64], positions: NDArray[np.int64]) -> NDArray[np.float64]:
        m = y.shape[1]
        left = positions.astype(np.float64)
        s1, s2 = np.cumsum(y, axis=1), np.cumsum(y * y, axis=1)
        l1, l2 = s1[:, positions - 1], s2[:, positions - 1]
        r1, r2 = s1[:, -1:] - l1, s2[:, -1:] - l2
        return cast("NDArray[np.float64]", (l2 - l1 * l1 / left + r2 - r1 * r1 / (m - left)).sum(axis=0))

    @staticmethod
    def _child_error(y: NDArray[np.float64], labels: NDArray[np.int64], n_children: int) -> float:
        sizes = np.bincount(labels, minlength=n_children).astype(np.float64)
        total = 0.0
        for row in y:
            s1 = np.bincount(labels, weights=row, minlength=n_children)
            s2 = np.bincount(labels, weights=row * row, minlength=n_children)
            total += float((s2 - s1 * s1 / sizes).sum())
        return total
