"""Compiled (numba) population counts of a full-domain node's classes.

Each distinct population tuple of leaf codes is generalized to the node's
levels, looked up among the classes' keys (a hash table of their
mixed-radix codes) and, when found, adds its records to that class: one
pass over the population's distinct tuples per node, without the (tuples x
attributes) temporaries of the numpy formulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["population_counts_at"]


@numba.njit(cache=True, nogil=True)
def population_counts_at(cells: NDArray[np.int32], held: NDArray[np.int64], maps: NDArray[np.int32],
                         offsets: NDArray[np.int64], radix: NDArray[np.int64],
                         keys: NDArray[np.int32]) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """(c,) population records generalizing to each class.

    Parameters
    ----------
    cells : (p, d) int32 distinct leaf-code tuples of the population.
    held : (p,) records holding each.
    maps : flat int32 leaf-to-level maps, one per attribute at the node's level.
    offsets : (d,) start of each attribute's map in ``maps``.
    radix : (d,) number of values of each attribute at the node's level (codes fit in int64).
    keys : (c, d) int32 the classes' generalized codes (distinct rows).
    """
    c, d = keys.shape
    cap = 16
    while cap < 2 * c:
        cap *= 2
    mask = cap - 1
    table_keys = np.empty(cap, dtype=np.int64)
    table_ids = np.full(cap, -1, dtype=np.int64)
    for i in range(c):
        code = np.int64(0)
        for j in range(d):
            code = code * radix[j] + keys[i, j]
        slot = ((code * np.int64(-7046029254386353131)) >> np.int64(17)) & mask
        while table_ids[slot] != -1:
            slot = (slot + 1) & mask
        table_keys[slot] = code
        table_ids[slot] = i
    out = np.zeros(c, dtype=np.int64)
    for r in range(cells.shape[0]):
        code = np.int64(0)
        for j in range(d):
            code = code * radix[j] + maps[offsets[j] + cells[r, j]]
        slot = ((code * np.int64(-7046029254386353131)) >> np.int64(17)) & mask
        while True:
            found = table_ids[slot]
            if found == -1:
                break
            if table_keys[slot] == code:
                out[found] += held[r]
                break
            slot = (slot + 1) & mask
    return out
