"""The compiled Median Mondrian for k-anonymity alone (numba).

When k-anonymity is the only privacy model, whether a split is allowable
depends only on the sizes of its children, so the whole greedy recursion runs
in one kernel: the rows live in one index array, each region is a contiguous
segment of it, and a split partitions the segment in place (as quicksort
does).  Per region the kernel scans the segment once per quasi-identifier
(range, or lowest common ancestor), finds the median by quickselect, and
moves the rows; the Python-level cost is nil, the memory a few arrays of n.
The kernel reads the attribute space's arrays as one :class:`KernelSpace` and
returns the grown tree as a :class:`GrownKernel` (both named tuples of arrays).

It implements exactly :class:`~anonset.methods.mondrian.split.MedianCriterion`
(same candidate order, same medians, same tie-breaks), which the generic path
of :mod:`anonset.methods.mondrian.regions` runs for every other model; the tests
hold the two to the same result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["GrownKernel", "KernelSpace", "grow_k_anonymous"]


class KernelSpace(NamedTuple):
    """The arrays of an :class:`~anonset.methods.mondrian.split.AttributeSpace` the kernel reads (same meaning).

    Attributes
    ----------
    values : (p, n) float64 values of the numeric attributes (C order).
    span : (p,) float64 range of each numeric attribute over the table.
    codes : (q, n) int32 leaf codes of the categorical attributes (C order).
    maps : (q, levels, width) int32 ancestor code of each leaf per level.
    share : (q, levels, width) float64 normalized range of each hierarchy node.
    top : (q,) int64 root level of each categorical attribute's hierarchy.
    numeric : (d,) bool per quasi-identifier: split by value or through its hierarchy.
    column : (d,) int64 row of the attribute in ``values`` or ``codes``.
    weight : (d,) float64 weight of the attribute's normalized range.
    """

    values: NDArray[np.float64]
    span: NDArray[np.float64]
    codes: NDArray[np.int32]
    maps: NDArray[np.int32]
    share: NDArray[np.float64]
    top: NDArray[np.int64]
    numeric: NDArray[np.bool_]
    column: NDArray[np.int64]
    weight: NDArray[np.float64]


class GrownKernel(NamedTuple):
    """The tree the kernel grew; per-node arrays have room for ``2 * (n // k) + 1`` nodes, the first ``n_nodes`` used.

    Attributes
    ----------
    rows : (n,) int64 the rows, each leaf region a contiguous segment.
    n_nodes : int nodes grown (node 0 the root).
    parent, split_attr, split_level, key, start, end : (capacity,) int64 per node
        (``split_attr`` −1 for a leaf; ``key`` the node's key under its parent;
        ``rows[start:end]`` its records).
    threshold : (capacity,) float64 per node (NaN unless a numeric split).
    cut_low, cut_high : (capacity, p) float64 the numeric cuts bounding each node.
    node_level, node_code : (capacity, q) int64 each node's hierarchy node per categorical attribute
        (the root until a split on the attribute, then the child node the split sent it to).
    """

    rows: NDArray[np.int64]
    n_nodes: int
    parent: NDArray[np.int64]
    split_attr: NDArray[np.int64]
    split_level: NDArray[np.int64]
    key: NDArray[np.int64]
    start: NDArray[np.int64]
    end: NDArray[np.int64]
    threshold: NDArray[np.float64]
    cut_low: NDArray[np.float64]
    cut_high: NDArray[np.float64]
    node_level: NDArray[np.int64]
    node_code: NDArray[np.int64]


@numba.njit(cache=True, nogil=True)
def _select(buf: NDArray[np.float64], m: int, kth: int) -> float:  # pragma: no cover - compiled
    """The ``kth`` smallest of ``buf[:m]`` (0-based), reordering ``buf`` (Hoare's selection)."""
    lo = 0
    hi = m - 1
    while hi > lo:
        a = buf[lo]
        b = buf[(lo + hi) >> 1]
        c = buf[hi]
        pivot = max(min(a, b), min(max(a, b), c))  # median of three
        i = lo
        j = hi
        while i <= j:
            while buf[i] < pivot:
                i += 1
            while buf[j] > pivot:
                j -= 1
            if i <= j:
                t = buf[i]
                buf[i] = buf[j]
                buf[j] = t
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            return float(buf[kth])
    return float(buf[kth])


@numba.njit(cache=True, nogil=True)
def _numeric_split(values: NDArray[np.float64], c: int, rows: NDArray[np.int64], s: int, e: int,
                   buf: NDArray[np.float64], tmp: NDArray[np.int64], k: int,
                   strict: bool) -> tuple[int, float]:  # pragma: no cover
    """Median split of segment ``rows[s:e]`` on numeric column ``c``.

    Returns (records sent left, threshold) after reordering the segment left
    side first, or (0, nan) when no median split leaves ``k`` records on
    each side (the segment is then untouched).
    """
    m = e - s
    for i in range(m):
        buf[i] = values[c, rows[s + i]]
    if not strict:
        n_left = m // 2
        t = _select(buf, m, n_left - 1)
        # less | equal (by row) | greater, then the first n_left go left
        a = 0
        for i in range(s, e):
            if values[c, rows[i]] < t:
                tmp[a] = rows[i]
                a += 1
        eq = a
        for i in range(s, e):
            if values[c, rows[i]] == t:
                tmp[a] = rows[i]
                a += 1
        tmp[eq:a].sort()
        for i in range(s, e):
            if values[c, rows[i]] > t:
                tmp[a] = rows[i]
                a += 1
        for i in range(m):
            rows[s + i] = tmp[i]
        return n_left, t
    median = _select(buf, m, (m - 1) // 2)
    n_below = 0
    n_equal = 0
    below = -np.inf
    for i in range(s, e):
        v = values[c, rows[i]]
        if v < median:
            n_below += 1
            below = max(below, v)
        elif v == median:
            n_equal += 1
    n_above = m - n_below - n_equal
    upto_ok = n_below + n_equal >= k and n_above >= k  # cut "<= median"
    below_ok = n_below >= k and n_equal + n_above >= k  # cut "< median"
    if upto_ok and (not below_ok or abs(2 * (n_below + n_equal) - m) <= abs(2 * n_below - m)):
        t = median
        n_left = n_below + n_equal
    elif below_ok:
        t = below
        n_left = n_below
    else:
        return 0, np.nan
    i = s
    j = e - 1
    while i <= j:
        if values[c, rows[i]] <= t:
            i += 1
        else:
            r = rows[i]
            rows[i] = rows[j]
            rows[j] = r
            j -= 1
    return n_left, t


@numba.njit(cache=True, nogil=True)
def _hierarchy_split(maps: NDArray[np.int32], codes: NDArray[np.int32], c: int, level: int, rows: NDArray[np.int64],
                     s: int, e: int, tmp: NDArray[np.int64], count: NDArray[np.int64], kids: NDArray[np.int64],
                     k: int) -> int:  # pragma: no cover
    """Split segment ``rows[s:e]`` into the child nodes at ``level`` of categorical column ``c``.

    Returns the number of children (their codes ascending in ``kids``, their
    sizes in ``count[kids[t]]``, the segment reordered child by child), or 0
    when a child would hold fewer than ``k`` records (segment untouched).
    ``count`` must be all zero on entry and is left so when 0 is returned.
    """
    n_kids = 0
    for i in range(s, e):
        ch = maps[c, level, codes[c, rows[i]]]
        if count[ch] == 0:
            kids[n_kids] = ch
            n_kids += 1
        count[ch] += 1
    ok = True
    for t in range(n_kids):
        if count[kids[t]] < k:
            ok = False
    if not ok:
        for t in range(n_kids):
            count[kids[t]] = 0
        return 0
    kids[:n_kids].sort()
    # count -> first position of each child, then scatter
    pos = 0
    for t in range(n_kids):
        size = count[kids[t]]
        count[kids[t]] = pos
        pos += size
    for i in range(s, e):
        r = rows[i]
        ch = maps[c, level, codes[c, r]]
        tmp[count[ch]] = r
        count[ch] += 1
    for i in range(e - s):
        rows[s + i] = tmp[i]
    # sizes back, for the caller
    prev = 0
    for t in range(n_kids):
        end = count[kids[t]]
        count[kids[t]] = end - prev
        prev = end
    return n_kids


@numba.njit(cache=True, nogil=True)
def _inherit(cut_low: NDArray[np.float64], cut_high: NDArray[np.float64], node_level: NDArray[np.int64],
             node_code: NDArray[np.int64], node: int, child: int) -> None:  # pragma: no cover - compiled
    """A new child starts with its parent's cuts and hierarchy nodes.

    Element by element: a row-slice assignment costs numba seconds to compile, a loop almost nothing.
    """
    for c in range(cut_low.shape[1]):
        cut_low[child, c] = cut_low[node, c]
        cut_high[child, c] = cut_high[node, c]
    for a in range(node_level.shape[1]):
        node_level[child, a] = node_level[node, a]
        node_code[child, a] = node_code[node, a]


@numba.njit(cache=True, nogil=True)
def grow_k_anonymous(space: KernelSpace, n: int, k: int, strict: bool) -> GrownKernel:  # pragma: no cover - compiled
    """Grow the Median Mondrian tree of ``n`` rows under k-anonymity (``strict`` or relaxed median cuts).

    Returns the tree as a :class:`GrownKernel`.
    """
    values, span, codes, maps, share, top, numeric, column, weight = space
    d = len(numeric)
    p = values.shape[0]
    q = codes.shape[0]
    cap = 2 * (n // k) + 1
    parent = np.full(cap, -1, dtype=np.int64)
    split_attr = np.full(cap, -1, dtype=np.int64)
    split_level = np.full(cap, -1, dtype=np.int64)
    key = np.zeros(cap, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    threshold = np.full(cap, np.nan)
    cut_low = np.full((cap, p), -np.inf)
    cut_high = np.full((cap, p), np.inf)
    node_level = np.zeros((cap, q), dtype=np.int64)
    node_code = np.zeros((cap, q), dtype=np.int64)
    for a in range(q):
        node_level[0, a] = top[a]
    rows = np.arange(n)
    tmp = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=np.float64)
    width = maps.shape[2] if q else 1
    count = np.zeros(width, dtype=np.int64)
    kids = np.zeros(width, dtype=np.int64)
    top_level = maps.shape[1] - 1 if q else 0
    score = np.zeros(d)
    order = np.zeros(d, dtype=np.int64)
    lvl = np.zeros(q, dtype=np.int64)
    stack = np.zeros(cap, dtype=np.int64)
    end[0] = n
    n_nodes = int(np.int64(1))  # a bare 1 would compile _inherit a second time, for the literal 1
    depth = 1
    while depth > 0:
        depth -= 1
        node = stack[depth]
        s = start[node]
        e = end[node]
        if e - s < 2 * k:
            continue
        for j in range(d):
            c = column[j]
            if numeric[j]:
                a_lo = np.inf
                a_hi = -np.inf
                for i in range(s, e):
                    v = values[c, rows[i]]
                    a_lo = min(a_lo, v)
                    a_hi = max(a_hi, v)
                score[j] = weight[j] * (a_hi - a_lo) / span[c] if span[c] > 0 else 0.0
            else:
                ref = codes[c, rows[s]]
                lv = 0
                for i in range(s + 1, e):
                    x = codes[c, rows[i]]
                    while lv < top_level and maps[c, lv, x] != maps[c, lv, ref]:
                        lv += 1
                lvl[c] = lv
                score[j] = weight[j] * share[c, lv, maps[c, lv, ref]]
        # candidates: positive score, decreasing, ties by position (stable insertion)
        n_cand = 0
        for j in range(d):
            if score[j] > 0:
                t = n_cand
                while t > 0 and score[order[t - 1]] < score[j]:
                    order[t] = order[t - 1]
                    t -= 1
                order[t] = j
                n_cand += 1
        for t in range(n_cand):
            j = order[t]
            c = column[j]
            if numeric[j]:
                n_left, thr = _numeric_split(values, c, rows, s, e, buf, tmp, k, strict)
                if n_left == 0:
                    continue
                split_attr[node] = j
                threshold[node] = thr
                for side in range(2):
                    child = n_nodes
                    n_nodes += 1
                    parent[child] = node
                    key[child] = side
                    start[child] = s if side == 0 else s + n_left
                    end[child] = s + n_left if side == 0 else e
                    _inherit(cut_low, cut_high, node_level, node_code, node, child)
                    if side == 0:
                        cut_high[child, c] = thr
                    else:
                        cut_low[child, c] = thr
                    stack[depth] = child
                    depth += 1
                break
            n_kids = _hierarchy_split(maps, codes, c, lvl[c] - 1, rows, s, e, tmp, count, kids, k)
            if n_kids == 0:
                continue
            split_attr[node] = j
            split_level[node] = lvl[c] - 1
            pos = s
            for u in range(n_kids):
                child = n_nodes
                n_nodes += 1
                parent[child] = node
                key[child] = kids[u]
                start[child] = pos
                pos += count[kids[u]]
                count[kids[u]] = 0
                end[child] = pos
                _inherit(cut_low, cut_high, node_level, node_code, node, child)
                node_level[child, c] = lvl[c] - 1
                node_code[child, c] = kids[u]
                stack[depth] = child
                depth += 1
            break
    return GrownKernel(rows, n_nodes, parent, split_attr, split_level, key, start, end, threshold, cut_low, cut_high,
                       node_level, node_code)
