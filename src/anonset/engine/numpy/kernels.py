"""Compiled (numba) kernels for the engine's hot loops.

``rollup_group`` maps every row of a class table to a coarser node, groups the
mapped keys with an open-addressing hash table and sums class sizes and one
histogram matrix in one pass; ``sum_rows_into`` sums any further statistics
matrix into the groups.  ``hash_groups`` numbers the distinct values of an
int64 array (first seen first) in a table that grows with the groups, and
``group_keys`` packs the rows of a code matrix into such keys.  All are
compiled once and cached on disk (``cache=True``), so a process pays the
compilation only the first time on a machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["group_keys", "hash_groups", "rollup_group", "sum_rows_into"]


@numba.njit(cache=True, nogil=True)
def hash_groups(keys: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover
    """Group ids in first-seen order for an int64 array, and the first row of each group.

    An open-addressing table that starts small and doubles (rehashing) when
    half full: its memory follows the number of groups, not of rows (a table
    sized for every row took 16 bytes per row times the next power of two
    above twice the rows).
    """
    n = keys.shape[0]
    cap = 1024
    mask = cap - 1
    table_keys = np.empty(cap, dtype=np.int64)
    table_ids = np.full(cap, -1, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    first = np.empty(512, dtype=np.int64)
    n_groups = 0
    for i in range(n):
        k = keys[i]
        slot = ((k * np.int64(-7046029254386353131)) >> np.int64(17)) & mask
        while True:
            g = table_ids[slot]
            if g == -1:
                if n_groups == first.shape[0]:
                    grown = np.empty(2 * n_groups, dtype=np.int64)
                    grown[:n_groups] = first
                    first = grown
                table_keys[slot] = k
                table_ids[slot] = n_groups
                first[n_groups] = i
                inverse[i] = n_groups
                n_groups += 1
                if 2 * n_groups > cap:  # half full: double and place every key again
                    cap *= 2
                    mask = cap - 1
                    old_keys, old_ids = table_keys, table_ids
                    table_keys = np.empty(cap, dtype=np.int64)
                    table_ids = np.full(cap, -1, dtype=np.int64)
                    for t in range(old_ids.shape[0]):
                        if old_ids[t] == -1:
                            continue
                        key = old_keys[t]
                        place = ((key * np.int64(-7046029254386353131)) >> np.int64(17)) & mask
                        while table_ids[place] != -1:
                            place = (place + 1) & mask
                        table_keys[place] = key
                        table_ids[place] = old_ids[t]
                break
            if table_keys[slot] == k:
                inverse[i] = g
                break
            slot = (slot + 1) & mask
    return inverse, first[:n_groups].copy()


@numba.njit(cache=True, nogil=True)
def rollup_group(
    keys: NDArray[np.int32], maps: NDArray[np.int32], offsets: NDArray[np.int64], radix: NDArray[np.int64],
    sizes: NDArray[np.int64], histogram: NDArray[np.int64],
) -> tuple[NDArray[np.int32], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:  # pragma: no cover
    """Map, combine and group a class table, summing sizes and one histogram matrix in the same pass.

    Parameters
    ----------
    keys : (c, d) int32 source codes.
    maps : flat int32 concatenation of one parent map per column.
    offsets : (d,) start of each column's map in ``maps``.
    radix : (d,) int64 size of each column's target level.
    sizes : (c,) int64 class sizes.
    histogram : (c, m) int64 per-class counts to sum into the groups (m may be 0).

    Returns
    -------
    new_keys : (g, d) int32, inverse : (c,) int64, new_sizes : (g,) int64, new_histogram : (g, m) int64
    """
    c, d = keys.shape
    combined = np.empty(c, dtype=np.int64)
    for i in range(c):
        acc = np.int64(0)
        for j in range(d):
            acc = acc * radix[j] + maps[offsets[j] + keys[i, j]]
        combined[i] = acc
    inverse, first = hash_groups(combined)
    g = first.shape[0]
    new_keys = np.empty((g, d), dtype=np.int32)
    for t in range(g):
        i = first[t]
        for j in range(d):
            new_keys[t, j] = maps[offsets[j] + keys[i, j]]
    m = histogram.shape[1]
    new_sizes = np.zeros(g, dtype=np.int64)
    new_histogram = np.zeros((g, m), dtype=np.int64)
    for i in range(c):
        t = inverse[i]
        new_sizes[t] += sizes[i]
        for j in range(m):
            new_histogram[t, j] += histogram[i, j]
    return new_keys, inverse, new_sizes, new_histogram


@numba.njit(cache=True, nogil=True)
def group_keys(
    keys: NDArray[np.int32], radix: NDArray[np.int64]
) -> tuple[NDArray[np.int32], NDArray[np.int64]]:  # pragma: no cover - compiled
    """Group the rows of a (r, d) int32 matrix whose mixed-radix code fits in int64."""
    r, d = keys.shape
    combined = np.empty(r, dtype=np.int64)
    for i in range(r):
        acc = np.int64(0)
        for j in range(d):
            acc = acc * radix[j] + keys[i, j]
        combined[i] = acc
    inverse, first = hash_groups(combined)
    g = first.shape[0]
    out = np.empty((g, d), dtype=np.int32)
    for t in range(g):
        for j in range(d):
            out[t, j] = keys[first[t], j]
    return out, inverse


@numba.njit(cache=True, nogil=True)
def sum_rows_into(
    inverse: NDArray[np.int64], n_groups: int, matrix: NDArray[np.int64]
) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Sum the rows of a (c, m) matrix (int64 class histograms) into ``n_groups`` groups."""
    c, m = matrix.shape
    out = np.zeros((n_groups, m), dtype=matrix.dtype)
    for i in range(c):
        g = inverse[i]
        for j in range(m):
            out[g, j] += matrix[i, j]
    return out
