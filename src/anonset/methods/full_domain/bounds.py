"""Sound lower bounds on the records a node must suppress, from one, two or three attributes.

A record whose generalized value of one quasi-identifier occurs fewer than
``k`` times in the table sits in a class smaller than ``k`` at every node
using that level, whatever the other attributes do: classes only refine the
single-attribute groups.  The same holds for the pair of generalized values
of two quasi-identifiers.  So, at node ``(l_1, .., l_d)``, the records of
such small single or pair groups are suppressed, and their count is a lower
bound of the node's suppressed records; a node whose bound exceeds the budget
is infeasible without computing its classes.  The pair bound is the stronger
one, the triple bound stronger still (on Adult with k = 5 and 1% suppressed
they rule out 936 and 2,243 of the 3,254 infeasible nodes of the 8-attribute
lattice, the single bound none).

The set tables are counted from the bottom node's classes (distinct leaf
tuples with their sizes), which the in-memory engine holds already: far fewer
than the records on a large table.  Both bounds are read from per-level tables: ``single[j][l]`` and
``pairs[(a, b)][la, lb]`` count the records in small groups, and a node's
bound is the maximum of its entries (the union of the groups is at least as
large as the largest).

Models that judge more than a class's size give their own floor of a group
(:meth:`~anonset.privacy.base.PrivacyModel.violation_floor`: β-likeness and
δ-disclosure bound how much of a value a group can hold without some of its
records violating, l-diversity a group with too few values);
:func:`floor_suppression` sums those floors over the groups of one or two
attributes at every tuple of their levels, from the bottom node's classes
with their histograms.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.hierarchy import Hierarchy
from anonset.core.stats import ClassStats
from anonset.engine.numpy.kernels import group_keys, hash_groups, sum_rows_into
from anonset.methods.full_domain.bound_kernels import small_group_rows, tiled_group_sums

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["floor_suppression", "single_attribute_suppression", "subset_suppression", "suppression_lower_bound"]

#: Largest grid of leaf tuples counted densely; larger ones are grouped by hashing.
_DENSE_TUPLES = 1 << 22

def single_attribute_suppression(dataset: Dataset, k: int) -> list[NDArray[np.int64]]:
    """Per quasi-identifier and level: records whose generalized value occurs fewer than k times."""
    out = []
    for q in dataset.quasi:
        h = dataset.require_hierarchy(q)
        counts = dataset.encoded[q].counts()
        per_level = np.empty(h.n_levels, dtype=np.int64)
        for level in range(h.n_levels):
            value_counts = np.bincount(h.maps[level], weights=counts, minlength=h.size(level))
            per_level[level] = int(value_counts[value_counts < k].sum())
        out.append(per_level)
    return out


def subset_suppression(hierarchies: tuple[Hierarchy, ...], cells: NDArray[np.int32], counts: NDArray[np.int64],
                       k: int, width: int, dense_limit: int = 1 << 20) -> dict[tuple[int, ...], NDArray[np.int64]]:
    """Per set of ``width`` quasi-identifiers: records in groups smaller than k, per tuple of their levels.

    ``cells`` holds distinct leaf-code tuples of all quasi-identifiers (the
    most specific classes, or the records themselves) and ``counts`` how many
    records hold each.  Keys are increasing index tuples; each value is an
    array with one axis per attribute (its levels).  One pass over the cells
    per set groups them by the set's leaf tuple; every level tuple then
    regroups those, in a dense array when their grid has at most
    ``dense_limit`` cells, else by hashing.
    """
    if k <= 1 or width > len(hierarchies) or len(cells) == 0:
        return {}
    height = max(h.n_levels for h in hierarchies)
    maps, offsets, sizes = _flat_level_maps(hierarchies, height)
    columns_of = cells.T.astype(np.int64)  # contiguous columns: every set reads two or three of them
    out: dict[tuple[int, ...], NDArray[np.int64]] = {}
    for subset in combinations(range(len(hierarchies)), width):
        columns = list(subset)
        # an attribute at its top level is fully generalized: the smaller sets' bounds cover those entries
        below_top = np.array([hierarchies[j].max_level for j in columns], dtype=np.int64)
        if (below_top == 0).any():
            continue
        tuples, held = _leaf_tuples(cells, columns_of, columns, [hierarchies[j].n_leaves for j in columns], counts)
        table = small_group_rows(tuples, held, maps, np.ascontiguousarray(offsets[columns]),
                                 np.ascontiguousarray(sizes[columns]), below_top, k, dense_limit)
        full = np.zeros(tuple(int(v) + 1 for v in below_top), dtype=np.int64)
        full[tuple(slice(0, int(v)) for v in below_top)] = table.reshape(tuple(int(v) for v in below_top))
        out[subset] = full
    return out


def floor_suppression(hierarchies: tuple[Hierarchy, ...], bottom: ClassStats,
                      floor: Callable[[ClassStats], NDArray[np.int64] | None],
                      width: int) -> dict[tuple[int, ...], NDArray[np.int64]]:
    """Per set of ``width`` quasi-identifiers: the summed ``floor`` of its groups, per tuple of their levels.

    ``bottom`` holds the bottom node's classes (their leaf tuples as keys)
    with the statistics ``floor`` reads; ``floor`` gives, per group, the
    fewest of its records suppressed however the group is divided (see the
    module), or None when it gives none (no tables then); it reads class
    sizes and histograms.  Tables are shaped as :func:`subset_suppression`'s
    (0 where an attribute is at its top level).  All level tuples of a set are grouped at
    once: the set's distinct leaf tuples, generalized to every level tuple,
    grouped by (level tuple, generalized tuple).
    """
    if width > len(hierarchies) or bottom.n_classes == 0:
        return {}
    out: dict[tuple[int, ...], NDArray[np.int64]] = {}
    for subset in combinations(range(len(hierarchies)), width):
        own = [hierarchies[j] for j in subset]
        below_top = tuple(h.max_level for h in own)
        if 0 in below_top:
            continue
        leaves = np.array([h.n_leaves for h in own], dtype=np.int64)
        tuples, inverse = group_keys(np.ascontiguousarray(bottom.keys[:, list(subset)]), leaves)
        inverse = inverse.astype(np.int64)
        held = ClassStats(np.bincount(inverse, weights=bottom.sizes, minlength=len(tuples)).astype(np.int64), tuples,
                          histograms={a: sum_rows_into(inverse, len(tuples), h) for a, h in bottom.histograms.items()},
                          population={name: np.bincount(inverse, weights=c, minlength=len(tuples)).astype(np.int64)
                                      for name, c in bottom.population.items()})
        grid = np.indices(below_top).reshape(width, -1).T  # (T, w): every level tuple below the tops
        code = np.zeros((len(grid), len(tuples)), dtype=np.int64)
        for i, h in enumerate(own):
            generalized = np.stack([h.maps[level][tuples[:, i]] for level in range(h.max_level)])  # (levels, g)
            sizes = np.array([h.size(level) for level in range(h.max_level)], dtype=np.int64)
            code = code * sizes[grid[:, i]][:, None] + generalized[grid[:, i]]
        span = int(np.prod([h.size(0) for h in own], dtype=np.int64))  # no generalized tuple's code reaches it
        keyed = (np.arange(len(grid), dtype=np.int64)[:, None] * span + code).ravel()
        group_of, first = hash_groups(keyed)
        sizes_of = np.bincount(group_of, weights=np.tile(held.sizes, len(grid)), minlength=len(first))
        groups = ClassStats(sizes_of.astype(np.int64), np.zeros((len(first), 0), dtype=np.int32),
                            histograms={a: tiled_group_sums(group_of, len(first), matrix)
                                        for a, matrix in held.histograms.items()},
                            population={name: np.bincount(group_of, weights=np.tile(c, len(grid)),
                                                          minlength=len(first)).astype(np.int64)
                                        for name, c in held.population.items()})
        floors = floor(groups)
        if floors is None:
            return {}
        per_tuple = np.bincount(first // len(tuples), weights=floors, minlength=len(grid)).astype(np.int64)
        full = np.zeros(tuple(v + 1 for v in below_top), dtype=np.int64)
        full[tuple(slice(0, v) for v in below_top)] = per_tuple.reshape(below_top)
        out[subset] = full
    return out


def suppression_lower_bound(nodes: NDArray[np.int64], single: list[NDArray[np.int64]],
                            subsets: dict[tuple[int, ...], NDArray[np.int64]]) -> NDArray[np.int64]:
    """The largest single-attribute or attribute-set bound of every node (rows of ``nodes`` are level vectors)."""
    lower = np.zeros(len(nodes), dtype=np.int64)
    for j, per_level in enumerate(single):
        np.maximum(lower, per_level[nodes[:, j]], out=lower)
    for subset, table in subsets.items():
        np.maximum(lower, table[tuple(nodes[:, j] for j in subset)], out=lower)
    return lower


def _leaf_tuples(cells: NDArray[np.int32], columns_of: NDArray[np.int64], columns: list[int], n_leaves: list[int],
                 counts: NDArray[np.int64]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """The distinct leaf tuples of ``columns`` (at least two) over the cells, and how many records hold each.

    ``columns_of`` is the transpose of ``cells`` as int64.
    """
    grid = 1
    for n in n_leaves:
        grid *= n
    if grid > _DENSE_TUPLES:
        tuples, inverse = group_keys(np.ascontiguousarray(cells[:, columns]), np.array(n_leaves, dtype=np.int64))
        return tuples, np.bincount(inverse, weights=counts, minlength=len(tuples)).astype(np.int64)
    combined = columns_of[columns[0]] * n_leaves[1] + columns_of[columns[1]]
    for j, n in zip(columns[2:], n_leaves[2:], strict=True):
        combined *= n
        combined += columns_of[j]
    held = np.bincount(combined, weights=counts, minlength=grid).astype(np.int64)
    present = np.flatnonzero(held)
    tuples = np.empty((len(present), len(columns)), dtype=np.int32)
    rest = present.copy()
    for i in range(len(columns) - 1, -1, -1):
        tuples[:, i] = rest % n_leaves[i]
        rest //= n_leaves[i]
    return tuples, held[present]


def _flat_level_maps(hierarchies: tuple[Hierarchy, ...],
                     height: int) -> tuple[NDArray[np.int32], NDArray[np.int64], NDArray[np.int64]]:
    """Every hierarchy's leaf-to-level maps in one array, with offsets and level sizes, both (d, height)."""
    offsets = np.zeros((len(hierarchies), height), dtype=np.int64)
    sizes = np.ones((len(hierarchies), height), dtype=np.int64)
    chunks: list[NDArray[np.int32]] = []
    pos = 0
    for j, h in enumerate(hierarchies):
        for level in range(h.n_levels):
            offsets[j, level] = pos
            sizes[j, level] = h.size(level)
            chunks.append(h.maps[level])
            pos += len(h.maps[level])
    return np.concatenate(chunks).astype(np.int32), offsets, sizes
