"""Compiled (numba) kernel of the suppression lower bounds: small groups of a few attributes at every level tuple.

:func:`small_group_rows` takes the distinct leaf tuples of a few
quasi-identifiers (with how many records hold each) and, for every tuple of
their levels, counts the records whose generalized tuple occurs fewer than
``k`` times.  Groups are counted in a dense array when the level tuple's grid
is small, else in an open-addressing hash table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["small_group_rows"]

_DENSE = 1 << 20


@numba.njit(cache=True, nogil=True)
def small_group_rows(cells: NDArray[np.int32], counts: NDArray[np.int64], maps: NDArray[np.int32],
                     offsets: NDArray[np.int64], sizes: NDArray[np.int64], n_levels: NDArray[np.int64],
                     k: int) -> NDArray[np.int64]:  # pragma: no cover - compiled
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
    """
    g, w = cells.shape
    total = 1
    for i in range(w):
        total *= n_levels[i]
    out = np.zeros(total, dtype=np.int64)
    finest = 1
    for i in range(w):
        finest = min(finest * sizes[i, 0], _DENSE)
    dense = np.zeros(finest, dtype=np.int64)
    group = np.empty(g, dtype=np.int64)
    levels = np.zeros(w, dtype=np.int64)
    cap = 16
    while cap < 2 * g:
        cap *= 2
    table_keys = np.empty(cap, dtype=np.int64)
    table_counts = np.zeros(cap, dtype=np.int64)
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
        small = np.int64(0)
        if grid <= _DENSE:
            for r in range(g):
                dense[group[r]] += counts[r]
            for r in range(g):
                c = dense[group[r]]
                if c > 0:
                    if c < k:
                        small += c
                    dense[group[r]] = 0
        else:
            mask = cap - 1
            table_counts[:] = 0
            slots = np.empty(g, dtype=np.int64)
            for r in range(g):
                key = group[r]
                slot = ((key * np.int64(-7046029254386353131)) >> np.int64(17)) & mask
                while table_counts[slot] != 0 and table_keys[slot] != key:
                    slot = (slot + 1) & mask
                table_keys[slot] = key
                table_counts[slot] += counts[r]
                slots[r] = slot
            for r in range(g):
                c = table_counts[slots[r]]
                if c > 0:
                    if c < k:
                        small += c
                    table_counts[slots[r]] = 0
        out[t] = small
    return out
