"""Split criteria of Mondrian: which candidate splits of a region to try, in which order.

Mondrian (:mod:`anonset.methods.mondrian.regions`) grows its tree greedily: for a
region it asks a :class:`SplitCriterion` for candidate splits in order of
preference and applies the first one whose child regions all satisfy the
privacy models.  The criterion is the pluggable piece (median here; InfoGain,
LSD and selection in :mod:`anonset.methods.mondrian.criteria`), the rest of
the algorithm is shared.

The quasi-identifiers are read through
:class:`~anonset.core.attribute_space.AttributeSpace`: numeric, date and
ordinal ones by value, every other one through its hierarchy.

:class:`MedianCriterion` is LeFevre et al.'s Median Mondrian: attributes in
decreasing order of weighted normalized range, a numeric attribute cut at its
median, a categorical one split into the child nodes of the region's node.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from anonset.core.attribute_space import AttributeSpace

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "CandidateSplit",
    "MedianCriterion",
    "Region",
    "SplitCriterion",
    "describe_region",
]

@dataclass(frozen=True, eq=False)
class Region:
    """A region of the quasi-identifier space and the records in it.

    Attributes
    ----------
    rows : numpy.ndarray
        (m,) int64 rows of the records in the region.
    low, high : numpy.ndarray
        (p,) float64 smallest and largest value of each numeric attribute.
    level, node : numpy.ndarray
        (q,) int64 the region's node of each categorical attribute: the
        lowest common ancestor of its records' leaves (level and code).
    """

    rows: NDArray[np.int64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    level: NDArray[np.int64]
    node: NDArray[np.int64]


def describe_region(space: AttributeSpace, rows: NDArray[np.int64]) -> Region:
    """The bounding box of the records ``rows`` (at least one)."""
    values = space.values[:, rows]
    q = len(space.codes)
    level = np.zeros(q, dtype=np.int64)
    node = np.zeros(q, dtype=np.int64)
    for a in range(q):
        leaves = space.codes[a, rows]
        for lv in range(space.maps.shape[1]):
            ancestors = space.maps[a, lv, leaves]
            if (ancestors == ancestors[0]).all():
                level[a], node[a] = lv, ancestors[0]
                break
    return Region(rows=rows, low=values.min(axis=1), high=values.max(axis=1), level=level, node=node)


@dataclass(frozen=True, eq=False)
class CandidateSplit:
    """One way to split a region into child regions.

    Attributes
    ----------
    attribute : int
        Position of the split attribute in ``AttributeSpace.quasi``.
    labels : numpy.ndarray
        (m,) int64 child ``0 .. c - 1`` of each record of the region (in ``Region.rows`` order).
    keys : numpy.ndarray
        (c,) int64 what sends a record to each child: 0 (value <= threshold)
        and 1 (value > threshold) for a numeric split, the child node's code
        at ``level`` for a categorical one.
    threshold : float
        Numeric split: the left child takes values <= threshold (NaN for a categorical split).
    level : int
        Categorical split: the hierarchy level of the child nodes (−1 for a numeric split).
    """

    attribute: int
    labels: NDArray[np.int64]
    keys: NDArray[np.int64]
    threshold: float = float("nan")
    level: int = -1


class SplitCriterion(Protocol):
    """Chooses among the candidate splits of a region: yields them in order of preference.

    Mondrian applies the first candidate whose children all satisfy the
    privacy models; when none does, the region becomes an equivalence class.
    """

    name: str

    def candidates(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        """Candidate splits of ``region``, best first.

        With ``strict`` a numeric split sends all records with the same value
        to the same side.
        """
        ...


class MedianCriterion:
    """Median Mondrian (LeFevre, DeWitt and Ramakrishnan): widest attribute first, cut at the median.

    The attributes are tried in decreasing order of weighted normalized
    range within the region (ties: quasi-identifier order; attributes of
    range 0 are not split): for a numeric attribute ``(max − min) / (max −
    min over the table)``, for a categorical one ``(leaves under the region's
    node − 1) / (leaves of the hierarchy − 1)``, the region's node being the
    lowest common ancestor of its records.

    - Numeric, strict: the median is the lower median ``v[(m − 1) // 2]`` of
      the sorted values; two cuts keep its records together, ``<= median``
      and ``< median``; the more balanced is tried first (``<= median`` on a
      tie), then the other.  A cut leaving one side empty is no candidate.
    - Numeric, relaxed: the ``m // 2`` smallest values go left, records equal
      to the cut value divided by row order (lower rows left).
    - Categorical: one child per child node of the region's node that holds records.
    """

    name = "median"

    def ranges(self, space: AttributeSpace, region: Region) -> NDArray[np.float64]:
        """(d,) weighted normalized range of each quasi-identifier within the region."""
        out = np.zeros(len(space.quasi))
        for j in range(len(space.quasi)):
            c = int(space.column[j])
            if space.numeric[j]:
                span = space.span[c]
                out[j] = space.weight[j] * (region.high[c] - region.low[c]) / span if span > 0 else 0.0
            else:
                out[j] = space.weight[j] * space.share[c, region.level[c], region.node[c]]
        return out

    def candidates(self, space: AttributeSpace, region: Region, strict: bool) -> Iterator[CandidateSplit]:
        """The median split of each attribute, widest attribute first (see the class docstring)."""
        ranges = self.ranges(space, region)
        order = sorted((j for j in range(len(ranges)) if ranges[j] > 0), key=lambda j: -ranges[j])
        for j in order:
            c = int(space.column[j])
            if space.numeric[j]:
                values = space.values[c, region.rows]
                if strict:
                    yield from _strict_median_splits(j, values)
                else:
                    yield _relaxed_median_split(j, values, region.rows)
            else:
                yield _hierarchy_split(j, space.maps[c, region.level[c] - 1, space.codes[c, region.rows]],
                                       int(region.level[c]) - 1)


def _strict_median_splits(attribute: int, values: NDArray[np.float64]) -> Iterator[CandidateSplit]:
    """``<= median`` and ``< median``, the more balanced first; none with an empty side."""
    m = len(values)
    median = np.partition(values, (m - 1) // 2)[(m - 1) // 2]
    below = values < median
    n_below = int(below.sum())
    n_upto = int((values <= median).sum())
    options = []
    if n_upto < m:
        options.append((abs(2 * n_upto - m), 0, float(median)))
    if n_below > 0:
        options.append((abs(2 * n_below - m), 1, float(values[below].max())))
    for _, _, threshold in sorted(options):
        right = values > threshold
        yield CandidateSplit(attribute, right.astype(np.int64), np.array([0, 1]), threshold=threshold)


def _relaxed_median_split(attribute: int, values: NDArray[np.float64], rows: NDArray[np.int64]) -> CandidateSplit:
    """The ``m // 2`` smallest values left (ties by row), the rest right."""
    m = len(values)
    order = np.lexsort((rows, values))
    labels = np.ones(m, dtype=np.int64)
    labels[order[: m // 2]] = 0
    return CandidateSplit(attribute, labels, np.array([0, 1]), threshold=float(values[order[m // 2 - 1]]))


def _hierarchy_split(attribute: int, children: NDArray[np.int32], level: int) -> CandidateSplit:
    """One child per child node holding records (ascending codes)."""
    keys, labels = np.unique(children, return_inverse=True)
    return CandidateSplit(attribute, labels.astype(np.int64), keys.astype(np.int64), level=level)
