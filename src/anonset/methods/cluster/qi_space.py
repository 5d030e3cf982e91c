"""The quasi-identifiers in the form the clustering kernels read, and the per-attribute cost tables.

Numeric, date and ordinal quasi-identifiers are compared by value (an ordinal
one by its rank, :func:`anonset.core.dataset.row_values`), normalized by their
range in the data; every other quasi-identifier by its hierarchy, through the
level of the lowest common ancestor (LCA) of a group's leaves.  A group's
per-record cost is

.. math::

    \\sum_N w_N \\frac{\\max_G N - \\min_G N}{|N|} + \\sum_C w_C\\, cost_C(\\Lambda_G C)

with two cost tables for a categorical attribute's LCA node:

* **height** (Byun et al.'s IL): the LCA's level over the hierarchy's height;
* **leaf share** (Xu et al.'s NCP): the leaves under the LCA over all leaves,
  0 for a single leaf (the convention ``size = 1 → 0``).

``w`` are the attribute weights (Xu's weighted certainty penalty; 1 without
weights), checked by :func:`anonset.core.weights.quasi_weights`.

The kernels read the records as :class:`Records` (values and leaf codes) and
the cost of a group as :class:`CostModel` (numeric weights, ancestor maps and
a categorical cost table): named tuples of arrays, one argument each.
:func:`lca_level` is the one lowest-common-ancestor walk they all use;
:class:`Meets` tables its answer for every pair of leaves of the attributes
with few leaves (:func:`meet_tables`).

Taxonomies of uneven depth (``Private;*`` beside ``Self-emp-inc;Self-employ;*``)
are read by :func:`anonset.hierarchy.files.read_taxonomy`, which repeats a
short branch's top node up to the common height.  A repeated node is never the
LCA of two different leaves, so LCA levels are the tree's own heights, the
height of the hierarchy is the tree's height, and leaf counts are those of the
tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from anonset.core.attribute_space import attribute_space
from anonset.core.dataset import Dataset

__all__ = ["CostModel", "Meets", "PreparedAttributes", "Records", "height_costs", "lca_level", "lca_table",
           "leaf_share_costs", "meet_row", "meet_tables", "prepare_attributes"]

# an attribute's leaves-by-leaves table of meeting levels is built when it has at most this many leaves, while
# all the tables together hold at most _MEETS_BUDGET entries (one byte each)
_MEETS_LEAVES = 2048
_MEETS_BUDGET = 1 << 24


class Records(NamedTuple):
    """Records as the kernels read them (a numba-compatible named tuple of arrays)."""

    values: NDArray[np.float64]  # (n, p) float64 values of the attributes compared by value
    codes: NDArray[np.int32]  # (n, q) int32 leaf codes of the attributes compared through their hierarchy


class Meets(NamedTuple):
    """The level where two leaves of a categorical attribute meet, tabled for the attributes with few leaves.

    A numba-compatible named tuple, built by :func:`meet_tables`.
    """

    maps: NDArray[np.int32]  # (q, levels, leaves) int32 ancestor code per level, as CostModel.maps
    leaves: NDArray[np.int64]  # (q,) int64 leaves of each attribute (its largest leaf code in the data + 1)
    offset: NDArray[np.int64]  # (q,) int64 where attribute a's table starts in `level`; -1: not tabled
    level: NDArray[np.int8]  # level[offset[a] + i * leaves[a] + j]: lca_level(maps, a, 0, i, j)


class CostModel(NamedTuple):
    """How the kernels price a group (a numba-compatible named tuple of arrays)."""

    num_w: NDArray[np.float64]  # (p,) weight / range of each numeric attribute (0 for a constant one)
    maps: NDArray[np.int32]  # (q, levels, leaves) int32 ancestor code per level, padded with the root
    cat_cost: NDArray[np.float64]  # (q, levels, leaves) cost of leaf x's level-lv ancestor (height or leaf share)


@dataclass(frozen=True)
class PreparedAttributes:
    """The quasi-identifiers of a dataset, split into numeric values and hierarchy-encoded codes."""

    values: NDArray[np.float64]  # (n, p) float64 values of the numeric attributes
    num_weight: NDArray[np.float64]  # (p,) weight / range (0 for a constant attribute)
    codes: NDArray[np.int32]  # (n, q) int32 leaf codes of the categorical attributes
    maps: NDArray[np.int32]  # (q, levels, leaves) int32 ancestor code per level, padded with the root
    cat_weight: NDArray[np.float64]  # (q,) attribute weight of each categorical attribute
    heights: NDArray[np.int64]  # (q,) int64 hierarchy height (max_level) of each categorical attribute
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]

    @property
    def records(self) -> Records:
        """The prepared records, as the kernels read them."""
        return Records(self.values, self.codes)

    def costs(self, cat_cost: NDArray[np.float64]) -> CostModel:
        """The cost model with categorical cost table ``cat_cost`` (:func:`height_costs`, :func:`leaf_share_costs`)."""
        return CostModel(self.num_weight, self.maps, cat_cost)


def prepare_attributes(dataset: Dataset, weights: Mapping[str, float] | None = None) -> PreparedAttributes:
    """Split the quasi-identifiers into numeric values and hierarchy-encoded categorical codes.

    A numeric, date or ordinal quasi-identifier is compared by value (its
    number, day or rank) unless one of its rows has none (a missing marker);
    then, like every other quasi-identifier, it is compared through its hierarchy.
    The arrays are those of :func:`anonset.core.attribute_space.attribute_space`
    (the one place the quasi-identifier space is built), laid out record by
    record as the kernels read them.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset.
    weights : mapping of str to float, optional
        Weight per quasi-identifier (missing ones weigh 1).

    Raises
    ------
    ConfigError
        Weights :func:`anonset.core.weights.quasi_weights` refuses: one for a column
        that is not a quasi-identifier, one that is not a finite number >= 0
        (booleans included), or all of them 0.
    """
    space = attribute_space(dataset, weights, who="weights")
    numeric = space.numeric
    span = space.span
    num_weight = np.zeros(len(span), dtype=np.float64)
    varies = span > 0
    num_weight[varies] = space.weight[numeric][varies] / span[varies]
    return PreparedAttributes(
        values=np.ascontiguousarray(space.values.T),
        num_weight=num_weight,
        codes=np.ascontiguousarray(space.codes.T, dtype=np.int32),
        maps=space.maps,
        cat_weight=np.ascontiguousarray(space.weight[~numeric]),
        heights=space.top,
        numeric=tuple(q for q, by_value in zip(space.quasi, numeric, strict=True) if by_value),
        categorical=tuple(q for q, by_value in zip(space.quasi, numeric, strict=True) if not by_value),
    )


def height_costs(prep: PreparedAttributes) -> NDArray[np.float64]:
    """``cost[a, lv, x]``: weight · LCA level / hierarchy height (Byun's IL); levels past the top count as the top."""
    q, n_levels, n_leaves = prep.maps.shape
    cost = np.zeros((q, n_levels, n_leaves), dtype=np.float64)
    for a in range(q):
        height = int(prep.heights[a])
        if height == 0:
            continue
        levels = np.minimum(np.arange(n_levels), height) / height
        cost[a] = prep.cat_weight[a] * levels[:, None]
    return cost


def leaf_share_costs(prep: PreparedAttributes, dataset: Dataset) -> NDArray[np.float64]:
    """``cost[a, lv, x]``: weight · leaves under leaf ``x``'s level-``lv`` ancestor / all leaves (Xu's NCP).

    0 when that ancestor covers one leaf; levels past an attribute's top and
    the kernel's top level count as its root.
    """
    q, n_levels, n_leaves = prep.maps.shape
    cost = np.zeros((q, n_levels, n_leaves), dtype=np.float64)
    for a, name in enumerate(prep.categorical):
        h = dataset.require_hierarchy(name)
        total = h.n_leaves
        for lv in range(n_levels):
            if lv < len(h.maps) and lv < n_levels - 1:
                anc = np.asarray(h.maps[lv], dtype=np.int64)
                counts = np.bincount(anc)[anc]
            else:
                counts = np.full(total, total)
            cost[a, lv, :total] = prep.cat_weight[a] * np.where(counts > 1, counts / total, 0.0)
    return cost


@numba.njit(cache=True, nogil=True)
def lca_level(maps: NDArray[np.int32], a: int, start: int, ref: int, leaf: int) -> int:  # pragma: no cover
    """Lowest level >= ``start`` at which leaves ``ref`` and ``leaf`` of attribute ``a`` meet (at most the top)."""
    lv = start
    top = maps.shape[1] - 1
    while lv < top and maps[a, lv, leaf] != maps[a, lv, ref]:
        lv += 1
    return lv


@numba.njit(cache=True, nogil=True)
def lca_table(maps: NDArray[np.int32], leaf_codes: NDArray[np.int32],
              out: NDArray[np.int32]) -> None:  # pragma: no cover
    """``out[a, x]``: level of the lowest common ancestor of leaf ``x`` and leaf ``leaf_codes[a]``."""
    for a in range(maps.shape[0]):
        for x in range(maps.shape[2]):
            out[a, x] = lca_level(maps, a, int(np.int64(0)), leaf_codes[a], x)


@numba.njit(cache=True, nogil=True)
def meet_row(maps: NDArray[np.int32], a: int, ref: int, out: NDArray[np.integer[Any]]) -> None:  # pragma: no cover
    """``out[leaf]``: ``lca_level(maps, a, 0, ref, leaf)`` for the first ``len(out)`` leaves of attribute ``a``.

    One pass per level, from the top down: the lowest level at which two
    leaves' ancestors are equal is where :func:`lca_level` stops.
    """
    top = maps.shape[1] - 1
    n = out.shape[0]
    for leaf in range(n):
        out[leaf] = top
    for lv in range(top - 1, -1, -1):
        anc = maps[a, lv, ref]
        for leaf in range(n):
            if maps[a, lv, leaf] == anc:
                out[leaf] = lv


@numba.njit(cache=True, nogil=True)
def _fill_meets(maps: NDArray[np.int32], leaves: NDArray[np.int64], offset: NDArray[np.int64],
                level: NDArray[np.int8]) -> None:  # pragma: no cover
    """Fill the tables of :class:`Meets`, a row (:func:`meet_row`) per leaf of each tabled attribute."""
    for a in range(maps.shape[0]):
        off = offset[a]
        if off < 0:
            continue
        n = leaves[a]
        for i in range(n):
            meet_row(maps, a, i, level[off + i * n: off + (i + 1) * n])


def meet_tables(maps: NDArray[np.int32], codes: NDArray[np.int32]) -> Meets:
    """The :class:`Meets` of the categorical attributes whose leaf codes are ``codes`` (n, q).

    The attributes are tabled from the fewest leaves up while each has at most
    ``_MEETS_LEAVES`` leaves and all the tables fit ``_MEETS_BUDGET`` bytes;
    the others are left to :func:`lca_level`.  No table is built for
    hierarchies taller than 127 levels (a level is kept in one byte).
    """
    q = maps.shape[0]
    leaves = (codes.max(axis=0).astype(np.int64) + 1) if len(codes) else np.ones(q, dtype=np.int64)
    offset = np.full(q, -1, dtype=np.int64)
    used = 0
    if maps.shape[1] <= 127:
        for a in np.argsort(leaves, kind="stable"):
            size = int(leaves[a]) ** 2
            if leaves[a] > _MEETS_LEAVES or used + size > _MEETS_BUDGET:
                break
            offset[a] = used
            used += size
    level = np.empty(used, dtype=np.int8)
    _fill_meets(maps, leaves, offset, level)
    return Meets(maps, leaves, offset, level)

