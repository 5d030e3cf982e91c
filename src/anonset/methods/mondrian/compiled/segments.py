"""Regions as segments of one row array, for the compiled Mondrian path (numba).

As in the Python reference (:func:`anonset.methods.mondrian.regions._grow`),
the records of a region are a contiguous segment ``rows[s:e]`` in
ascending row order, and a split divides the segment *stably* child by child,
so every segment stays in ascending row order.  For each numeric attribute
``order[c, s:e]`` holds the same records sorted by value, equal values by
row: the order every criterion scores cuts in
(:func:`anonset.methods.mondrian.criteria._sorted`).  It is sorted once for
the table and divided stably with the rows, so no region is ever sorted.
Beside each order the same records' values (``sorted``) and, when the
criterion asks for one, an integer per record (``keys``: InfoGain's class
vector) travel with it, so a pass over a region in value order reads memory
in sequence instead of looking each record up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

from anonset.methods.mondrian.compiled.kernel import KernelSpace

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Segments", "cut_labels", "describe", "hierarchy_children", "median_cuts", "new_segments", "partition",
           "smallest_child", "splittable"]


class Segments(NamedTuple):
    """The rows of every region, and the region being split.

    Attributes
    ----------
    rows : (n,) int64 every region a segment, ascending rows.
    order : (p, n) int64 per numeric column, each segment's rows by value (equal values by row).
    sorted : (p, n) float64 the values in that order: ``values[c, order[c, i]]``.
    keys : (p, n) int64 the criterion's integer per record in that order (or (0, n): none).
    label : (n,) int64 the child of each record of the region being split.
    dest, tmp : (n,) int64 where each record of a segment goes when it is divided; scatter buffer.
    spare : (n,) float64 scatter buffer.
    low, high : (p,) float64 the region's smallest and largest value of each numeric column.
    level, node : (q,) int64 the region's node (lowest common ancestor) of each categorical column.
    tally : (width,) int64 per hierarchy code, zero between uses.
    kids : (width,) int64 the child codes of the last hierarchy split, ascending.
    sizes : (width,) int64 the records of each of its children.
    cursor : (width,) int64 per child, where its next record goes when a segment is divided.
    """

    rows: NDArray[np.int64]
    order: NDArray[np.int64]
    sorted: NDArray[np.float64]
    keys: NDArray[np.int64]
    label: NDArray[np.int64]
    dest: NDArray[np.int64]
    tmp: NDArray[np.int64]
    spare: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    level: NDArray[np.int64]
    node: NDArray[np.int64]
    tally: NDArray[np.int64]
    kids: NDArray[np.int64]
    sizes: NDArray[np.int64]
    cursor: NDArray[np.int64]


@numba.njit(cache=True, nogil=True)
def new_segments(space: KernelSpace, order: NDArray[np.int64], keys: NDArray[np.int64],
                 n: int) -> Segments:  # pragma: no cover - compiled
    """The whole table as one region, with the table-wide value orders ``order`` and the ``keys`` in that order."""
    p = space.values.shape[0]
    q = space.codes.shape[0]
    width = max(space.maps.shape[2], 2)
    values = np.empty((p, n))
    for c in range(p):
        for i in range(n):
            values[c, i] = space.values[c, order[c, i]]
    return Segments(np.arange(n), order, values, keys, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                    np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(p),
                    np.zeros(p), np.zeros(q, dtype=np.int64), np.zeros(q, dtype=np.int64),
                    np.zeros(width, dtype=np.int64), np.zeros(width, dtype=np.int64), np.zeros(width, dtype=np.int64),
                    np.zeros(width, dtype=np.int64))


@numba.njit(cache=True, nogil=True)
def describe(space: KernelSpace, seg: Segments, s: int, e: int) -> None:  # pragma: no cover - compiled
    """The box of region ``rows[s:e]``: range of each numeric column, lowest common ancestor of each categorical one."""
    for c in range(space.values.shape[0]):
        seg.low[c] = seg.sorted[c, s]
        seg.high[c] = seg.sorted[c, e - 1]
    top_level = space.maps.shape[1] - 1
    for a in range(space.codes.shape[0]):
        ref = space.codes[a, seg.rows[s]]
        lv = 0
        for i in range(s + 1, e):
            x = space.codes[a, seg.rows[i]]
            while lv < top_level and space.maps[a, lv, x] != space.maps[a, lv, ref]:
                lv += 1
        seg.level[a] = lv
        seg.node[a] = space.maps[a, lv, ref]


@numba.njit(cache=True, nogil=True)
def splittable(space: KernelSpace, seg: Segments, j: int) -> bool:  # pragma: no cover - compiled
    """Attribute j may be split by a workload criterion: positive weight and more than one value in the region."""
    if space.weight[j] <= 0:
        return False
    c = space.column[j]
    if space.numeric[j]:
        return bool(seg.high[c] > seg.low[c])
    return bool(seg.level[c] > 0)


@numba.njit(cache=True, nogil=True)
def hierarchy_children(space: KernelSpace, seg: Segments, s: int, e: int, a: int) -> int:  # pragma: no cover
    """Split region ``rows[s:e]`` into the child nodes of its node of categorical column a.

    Returns the number of children; their codes (ascending) are in ``kids``, their sizes in ``sizes``
    and each record's child in ``label``.
    """
    lv = seg.level[a] - 1
    n_kids = 0
    for i in range(s, e):
        ch = space.maps[a, lv, space.codes[a, seg.rows[i]]]
        if seg.tally[ch] == 0:
            seg.kids[n_kids] = ch
            n_kids += 1
        seg.tally[ch] += 1
    if n_kids <= 32:  # few children: insertion sort; many: read them off in code order
        for u in range(1, n_kids):
            ch = seg.kids[u]
            t = u
            while t > 0 and seg.kids[t - 1] > ch:
                seg.kids[t] = seg.kids[t - 1]
                t -= 1
            seg.kids[t] = ch
    else:
        n_kids = 0
        for ch in range(len(seg.tally)):
            if seg.tally[ch]:
                seg.kids[n_kids] = ch
                n_kids += 1
    for u in range(n_kids):
        seg.sizes[u] = seg.tally[seg.kids[u]]
        seg.tally[seg.kids[u]] = u
    for i in range(s, e):
        r = seg.rows[i]
        seg.label[r] = seg.tally[space.maps[a, lv, space.codes[a, r]]]
    for u in range(n_kids):
        seg.tally[seg.kids[u]] = 0
    return n_kids


@numba.njit(cache=True, nogil=True)
def cut_labels(seg: Segments, c: int, s: int, e: int, position: int) -> None:  # pragma: no cover - compiled
    """Child 0 for the first ``position`` records of numeric column c's order, child 1 for the rest."""
    for i in range(s, e):
        seg.label[seg.order[c, i]] = 0 if i < s + position else 1


@numba.njit(cache=True, nogil=True)
def _divide(seg: Segments, line: NDArray[np.int64], s: int, e: int, bounds: NDArray[np.int64],
            n_children: int) -> None:  # pragma: no cover - compiled
    """Divide ``line[s:e]`` stably by the child of each record; ``dest[i]`` is where ``line[s + i]`` went."""
    for u in range(n_children):
        seg.cursor[u] = bounds[u] - s
    for i in range(e - s):
        u = seg.label[line[s + i]]
        seg.dest[i] = seg.cursor[u]
        seg.cursor[u] += 1
    for i in range(e - s):
        seg.tmp[seg.dest[i]] = line[s + i]
    for i in range(e - s):
        line[s + i] = seg.tmp[i]


@numba.njit(cache=True, nogil=True)
def partition(seg: Segments, s: int, e: int, n_children: int, bounds: NDArray[np.int64]) -> None:  # pragma: no cover
    """Divide the region stably by ``label``: the rows, and every value order with its values and keys.

    ``bounds[u]`` receives the segment start of child u (``bounds[n_children] = e``).
    """
    for u in range(n_children):
        seg.cursor[u] = 0
    for i in range(s, e):
        seg.cursor[seg.label[seg.rows[i]]] += 1
    pos = s
    for u in range(n_children):
        bounds[u] = pos
        pos += seg.cursor[u]
    bounds[n_children] = e
    _divide(seg, seg.rows, s, e, bounds, n_children)
    for c in range(seg.order.shape[0]):
        _divide(seg, seg.order[c], s, e, bounds, n_children)
        for i in range(e - s):
            seg.spare[seg.dest[i]] = seg.sorted[c, s + i]
        for i in range(e - s):
            seg.sorted[c, s + i] = seg.spare[i]
        if seg.keys.shape[0]:
            for i in range(e - s):
                seg.tmp[seg.dest[i]] = seg.keys[c, s + i]
            for i in range(e - s):
                seg.keys[c, s + i] = seg.tmp[i]


@numba.njit(cache=True, nogil=True)
def median_cuts(seg: Segments, c: int, s: int, e: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """The two strict median cuts of numeric column c: records ``<=`` and ``<`` the region's lower median."""
    values = seg.sorted[c]
    middle = s + (e - s - 1) // 2
    median = values[middle]
    lo, hi = middle, e  # the first record above the median lies in (middle, e]
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] <= median:
            lo = mid + 1
        else:
            hi = mid
    upto = lo
    lo, hi = s, middle  # the first record equal to it lies in [s, middle]
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < median:
            lo = mid + 1
        else:
            hi = mid
    return upto - s, lo - s


@numba.njit(cache=True, nogil=True)
def smallest_child(seg: Segments, n_kids: int) -> int:  # pragma: no cover - compiled
    """Records of the smallest child of the last hierarchy split."""
    least = seg.sizes[0]
    for u in range(1, n_kids):
        least = min(least, seg.sizes[u])
    return int(least)
