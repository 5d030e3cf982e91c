"""Compiled (numba) kernel of the suppression lower bounds: small groups of a few attributes at every level tuple.

:func:`small_group_rows` takes the distinct leaf tuples of a few
quasi-identifiers (with how many records hold each) and, for every tuple of
their levels, counts the records whose generalized tuple occurs fewer than
``k`` times.  Groups are counted in a dense array when the level tuple's grid
is small, else grouped by the engine's hash kernel
(:func:`~anonset.engine.numpy.kernels.hash_groups`).  :func:`tiled_group_sums`
sums the sizes and histograms of those tuples into their groups at every
level tuple at once, for the floors of models that judge sensitive values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

from anonset.engine.numpy.kernels import hash_groups

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["small_group_rows", "tiled_group_sums"]

@numba.njit(cache=True, nogil=True)
def small_group_rows(cells: NDArray[np.int32], counts: NDArray[np.int64], maps: NDArray[np.int32],
                     offsets: NDArray[np.int64], sizes: NDArray[np.int64], n_levels: NDArray[np.int64],
                     k: int, dense_limit: int) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Records in groups smaller than ``k``, per level tuple (C order over ``n_levels``).

    Parameters
    ----------
    cells : (g, w) int32 distinct leaf tuples of the ``w`` attributes.
    counts : (g,) records holding each tuple.
    maps : flat int32 leaf-to-level maps of the attributes.
    offsets : (w, L) start in ``maps`` of attribute i's map to level l.
    sizes : (w, L) number of values of attribute i at level l.
    n_levels : (w,) levels of each attribute.
    k : the smallest allowed group.
    dense_limit : largest grid of generalized tuples counted in a dense array; larger ones are hashed.
    """
    g, w = cells.shape
    total = 1
    for i in range(w):
        total *= n_levels[i]
    out = np.zeros(total, dtype=np.int64)
    finest = 1
    for i in range(w):
        finest = min(finest * sizes[i, 0], dense_limit)
    dense = np.zeros(finest, dtype=np.int64)
    group = np.empty(g, dtype=np.int64)
    levels = np.zeros(w, dtype=np.int64)
    for t in range(total):
        rest = t
        for i in range(w - 1, -1, -1):
            levels[i] = rest % n_levels[i]
            rest //= n_levels[i]
        grid = 1
        for i in range(w):
            grid *= sizes[i, levels[i]]
        for r in range(g):
            acc = np.int64(0)
            for i in range(w):
                acc = acc * sizes[i, levels[i]] + maps[offsets[i, levels[i]] + cells[r, i]]
            group[r] = acc
        if grid <= dense_limit:
            slots, table = group, dense
        else:
            slots, first = hash_groups(group)
            table = np.zeros(first.shape[0], dtype=np.int64)
        for r in range(g):
            table[slots[r]] += counts[r]
        small = np.int64(0)
        for r in range(g):
            c = table[slots[r]]
            if c > 0:  # each group counted once, and the dense array left zeroed for the next level tuple
                if c < k:
                    small += c
                table[slots[r]] = 0
        out[t] = small
    return out


@numba.njit(cache=True, nogil=True)
def tiled_group_sums(group_of: NDArray[np.int64], n_groups: int,
                     matrix: NDArray[np.int64]) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Matrix rows summed into groups, row ``r`` of the tiling being row ``r % g`` of the ``g`` given.

    ``group_of`` holds the group of every (level tuple, leaf tuple) pair, level tuple by level tuple.
    """
    g, m = matrix.shape
    out = np.zeros((n_groups, m), dtype=np.int64)
    for r in range(group_of.shape[0]):
        i = r % g
        t = group_of[r]
        for j in range(m):
            out[t, j] += matrix[i, j]
    return out
