"""Split criteria of Mondrian: which candidate splits of a region to try, in which order.

Mondrian (:mod:`anonset.methods.mondrian.regions`) grows its tree greedily: for a
region it asks a :class:`SplitCriterion` for candidate splits in order of
preference and applies the first one whose child regions all satisfy the
privacy models.  The criterion is the pluggable piece (median here; InfoGain,
LSD and selection in :mod:`anonset.methods.mondrian.criteria`), the rest of
the algorithm is shared.

:class:`AttributeSpace` holds the quasi-identifiers the way splits see them:
numeric, date and ordinal ones (with a number, date or rank on every row,
:func:`anonset.core.dataset.row_values`) by value, every other one
through its hierarchy, leaf codes mapped to ancestors level by level.

:class:`MedianCriterion` is LeFevre et al.'s Median Mondrian: attributes in
decreasing order of weighted normalized range, a numeric attribute cut at its
median, a categorical one split into the child nodes of the region's node.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from anonset.core.dataset import Dataset, row_values
from anonset.core.weights import weight_vector

__all__ = [
    "AttributeSpace",
    "CandidateSplit",
    "MedianCriterion",
    "Region",
    "SplitCriterion",
    "attribute_space",
    "describe_region",
]

@dataclass(frozen=True, eq=False)
class AttributeSpace:
    """The quasi-identifiers of a dataset as Mondrian splits them.

    Attributes
    ----------
    quasi : tuple of str
        The quasi-identifiers, in dataset order (the order that breaks ties).
    numeric : numpy.ndarray
        (d,) bool per quasi-identifier: split by value (True) or through its hierarchy.
    column : numpy.ndarray
        (d,) int64 row of the attribute in ``values`` (numeric) or ``codes`` (categorical).
    weight : numpy.ndarray
        (d,) float64 weight multiplying the attribute's normalized range.
    values : numpy.ndarray
        (p, n) float64 values of the numeric attributes.
    span : numpy.ndarray
        (p,) float64 range (max − min) of each numeric attribute over the table.
    codes : numpy.ndarray
        (q, n) int32 leaf codes of the categorical attributes.
    maps : numpy.ndarray
        (q, levels, width) int32 ancestor code of each leaf per level; levels
        above an attribute's root repeat the root (code 0).
    share : numpy.ndarray
        (q, levels, width) float64 normalized range of each node, indexed by
        its code at its level: (leaves under the node − 1) / (leaves − 1),
        0 for a leaf (and for a single-leaf hierarchy).
    top : numpy.ndarray
        (q,) int64 root level (``max_level``) of each categorical attribute's hierarchy.
    """

    quasi: tuple[str, ...]
    numeric: np.ndarray
    column: np.ndarray
    weight: np.ndarray
    values: np.ndarray
    span: np.ndarray
    codes: np.ndarray
    maps: np.ndarray
    share: np.ndarray
    top: np.ndarray

    @property
    def n_rows(self) -> int:
        """Records of the table."""
        return int(self.values.shape[1] if len(self.values) else self.codes.shape[1])


def attribute_space(dataset: Dataset, weights: Mapping[str, float] | None = None) -> AttributeSpace:
    """The quasi-identifiers of ``dataset`` in the form Mondrian splits them.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset.
    weights : mapping of str to float, optional
        Weight of a quasi-identifier's normalized range (default 1 each),
        checked by :func:`anonset.core.weights.weight_vector`.

    Raises
    ------
    ConfigError
        A weight for a column that is not a quasi-identifier, a weight that is
        not a finite number >= 0 (a boolean is not a number here), or every
        weight 0.
    """
    quasi = dataset.quasi
    weight = weight_vector(quasi, weights, dataset.source, who="mondrian")
    numeric = np.array([row_values(dataset, q) is not None for q in quasi], dtype=np.bool_)
    column = np.zeros(len(quasi), dtype=np.int64)
    values: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    hierarchies = []
    for j, q in enumerate(quasi):
        enc = dataset.encoded[q]
        if numeric[j]:
            column[j] = len(values)
            by_value = row_values(dataset, q)
            assert by_value is not None
            values.append(by_value)
        else:
            column[j] = len(codes)
            codes.append(np.asarray(enc.row_codes(), dtype=np.int32))
            hierarchies.append(dataset.require_hierarchy(q))
    n = dataset.n_rows
    levels = max((h.n_levels for h in hierarchies), default=1)
    width = max((h.n_leaves for h in hierarchies), default=1)
    maps = np.zeros((len(hierarchies), levels, width), dtype=np.int32)
    share = np.zeros((len(hierarchies), levels, width), dtype=np.float64)
    for a, h in enumerate(hierarchies):
        denominator = max(h.n_leaves - 1, 1)
        for lv in range(levels):
            top = min(lv, h.max_level)
            maps[a, lv, : h.n_leaves] = h.maps[top]
            under = h.leaf_counts[top]
            share[a, lv, : len(under)] = (under - 1) / denominator
    value_matrix = np.stack(values) if values else np.zeros((0, n))
    span = (value_matrix.max(axis=1) - value_matrix.min(axis=1)) if values else np.zeros(0)
    return AttributeSpace(
        quasi=quasi, numeric=numeric, column=column, weight=weight,
        values=np.ascontiguousarray(value_matrix), span=span,
        codes=np.ascontiguousarray(np.stack(codes) if codes else np.zeros((0, n), dtype=np.int32)),
        maps=maps, share=share,
        top=np.array([h.max_level for h in hierarchies], dtype=np.int64),
    )


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

    rows: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: np.ndarray
    node: np.ndarray


def describe_region(space: AttributeSpace, rows: np.ndarray) -> Region:
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
    labels: np.ndarray
    keys: np.ndarray
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

    def ranges(self, space: AttributeSpace, region: Region) -> np.ndarray:
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


def _strict_median_splits(attribute: int, values: np.ndarray) -> Iterator[CandidateSplit]:
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


def _relaxed_median_split(attribute: int, values: np.ndarray, rows: np.ndarray) -> CandidateSplit:
    """The ``m // 2`` smallest values left (ties by row), the rest right."""
    m = len(values)
    order = np.lexsort((rows, values))
    labels = np.ones(m, dtype=np.int64)
    labels[order[: m // 2]] = 0
    return CandidateSplit(attribute, labels, np.array([0, 1]), threshold=float(values[order[m // 2 - 1]]))


def _hierarchy_split(attribute: int, children: np.ndarray, level: int) -> CandidateSplit:
    """One child per child node holding records (ascending codes)."""
    keys, labels = np.unique(children, return_inverse=True)
    return CandidateSplit(attribute, labels.astype(np.int64), keys.astype(np.int64), level=level)
