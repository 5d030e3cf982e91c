"""Bottom-up local recoding (Xu, Wang, Pei, Wang, Shi and Fu, KDD 2006, Section 4.1).

Groups are merged greedily until every group has at least ``k`` records.  The
cost is the normalized certainty penalty of :mod:`anonset.cluster.topdown`

.. math::

    NCP(G) = |G| \\cdot \\Big(\\sum_{N} \\frac{\\max_G N - \\min_G N}{|N|}
             + \\sum_{C} \\frac{size(\\Lambda_G C)}{|C|}\\Big)

(a single leaf costs 0: ``size = 1 → 0``), with numeric and date
quasi-identifiers compared by value and the others through their hierarchy,
as :func:`anonset.cluster.kmember.prepare_attributes` splits them.

Start: one group per distinct quasi-identifier row (identical rows merge at
no cost, so this is what the paper's one-tuple-per-group start reaches after
its free merges).  Each round then visits the live groups with fewer than
``k`` records in group order (distinct rows sorted lexicographically by their
encoded quasi-identifiers); a visited group that is still live and still small
merges with the live group whose merge raises the table NCP least,
``NCP(G ∪ H) - NCP(G) - NCP(H)`` (ties: the lowest group id).  A group merged
into another this round is not visited; a merged group still smaller than
``k`` waits for the next round.  Rounds repeat until no group is small (or
only one group is left, when ``n < k``).

Not implemented: the paper's splitting of groups with ``2k`` or more records,
so groups may exceed ``2k - 1`` records (always when one distinct row occurs
``2k`` or more times; such groups cost nothing).

Each group keeps the min and max of each numeric attribute and, per
categorical attribute, its LCA level and one member leaf, so a merge is scored
in O(attributes · hierarchy height).  The best-partner search for one group
is one numba pass over the live groups (parallel over the groups, then a
serial argmin).  The result depends only on the data and ``k``; ``seed`` is
accepted for interface compatibility and not used.
"""

from __future__ import annotations

import numba
import numpy as np

from anonset.cluster.kmember import lca_level, prepare_attributes
from anonset.cluster.topdown import leaf_share_table
from anonset.dataset import Dataset

__all__ = ["xu_bottom_up"]


@numba.njit(cache=True, nogil=True, parallel=True)
def _merge_costs(g, live, n_live, alive, size, cost, lo, hi, lvl, ref, num_w, maps, share, out):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``out[i]``: NCP increase of merging group ``g`` with ``live[i]`` (inf if dead or ``g`` itself)."""
    p = lo.shape[1]
    q = lvl.shape[1]
    base_g = size[g] * cost[g]
    for i in numba.prange(n_live):
        h = live[i]
        if h == g or not alive[h]:
            out[i] = np.inf
            continue
        d = 0.0
        for b in range(p):
            d += (max(hi[g, b], hi[h, b]) - min(lo[g, b], lo[h, b])) * num_w[b]
        for a in range(q):
            lv = lca_level(maps, a, max(lvl[g, a], lvl[h, a]), ref[g, a], ref[h, a])
            d += share[a, lv, ref[g, a]]
        out[i] = (size[g] + size[h]) * d - base_g - size[h] * cost[h]


@numba.njit(cache=True, nogil=True)
def _bottomup_kernel(values, codes, counts, num_w, maps, share, k):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Root group (a distinct-row index) of every distinct row; see the module docstring."""
    m = values.shape[0]
    p = values.shape[1]
    q = codes.shape[1]
    lo = values.copy()
    hi = values.copy()
    lvl = np.zeros((m, q), dtype=np.int64)
    ref = np.zeros((m, q), dtype=np.int64)
    for g in range(m):
        for a in range(q):
            ref[g, a] = codes[g, a]
    size = counts.copy()
    cost = np.zeros(m)  # per-record NCP of each group (0 for identical rows)
    alive = np.ones(m, dtype=np.bool_)
    parent = np.arange(m)
    live = np.arange(m)
    n_live = m
    out = np.empty(m)
    while n_live > 1:
        # compact the live list, keeping group order
        j = 0
        n_small = 0
        for i in range(n_live):
            g = live[i]
            if alive[g]:
                live[j] = g
                j += 1
                if size[g] < k:
                    n_small += 1
        n_live = j
        if n_small == 0 or n_live <= 1:
            break
        for i in range(n_live):
            g = live[i]
            if not alive[g] or size[g] >= k:
                continue
            _merge_costs(
                g, live, n_live, alive, size, cost, lo, hi, lvl, ref, num_w, maps, share, out
            )
            best = -1
            best_inc = np.inf
            for t in range(n_live):
                if out[t] < best_inc:
                    best_inc = out[t]
                    best = t
            h = live[best]
            d = 0.0
            for b in range(p):
                lo[g, b] = min(lo[g, b], lo[h, b])
                hi[g, b] = max(hi[g, b], hi[h, b])
                d += (hi[g, b] - lo[g, b]) * num_w[b]
            for a in range(q):
                lvl[g, a] = lca_level(maps, a, max(lvl[g, a], lvl[h, a]), ref[g, a], ref[h, a])
                d += share[a, lvl[g, a], ref[g, a]]
            cost[g] = d
            size[g] += size[h]
            alive[h] = False
            parent[h] = g
    # resolve merge chains to the surviving group
    for g in range(m):
        r = g
        while parent[r] != r:
            r = parent[r]
        parent[g] = r
    return parent


def xu_bottom_up(dataset: Dataset, k: int, seed: int = 0) -> np.ndarray:
    """Partition the records by Xu et al.'s bottom-up merging, minimizing NCP.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset; its quasi-identifiers are clustered (numeric and
        date ones by value over their range, the others by hierarchy).
    k : int
        Minimum class size (>= 1).
    seed : int
        Unused (the method is deterministic); kept so the clustering methods
        share one signature.

    Returns
    -------
    numpy.ndarray
        int64 class id per row, ids ``0 .. c - 1`` numbered by first row.
        Every class has at least ``k`` records when ``n >= k``; when ``n < k``
        all rows form class 0.  Classes are not split, so one may have
        ``2k`` or more records.

    Raises
    ------
    ValueError
        If ``k < 1``.
    anonset.errors.DataError
        If the rows are not in memory.
    """
    del seed
    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}")
    n = dataset.n_rows
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    prep = prepare_attributes(dataset)
    share = leaf_share_table(dataset, prep.categorical, prep.maps)
    key = (
        np.column_stack([prep.values, prep.codes.astype(np.float64)])
        if prep.values.shape[1] + prep.codes.shape[1]
        else np.zeros((n, 1))
    )
    _, first, inverse, counts = np.unique(
        key, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    inverse = np.asarray(inverse).reshape(-1)
    root = _bottomup_kernel(
        np.ascontiguousarray(prep.values[first]),
        np.ascontiguousarray(prep.codes[first]),
        counts.astype(np.int64),
        prep.num_weight,
        prep.maps,
        share,
        int(k),
    )
    raw = root[inverse]
    # renumber by first occurrence in row order
    _, first_row, inv = np.unique(raw, return_index=True, return_inverse=True)
    rank = np.empty(len(first_row), dtype=np.int64)
    rank[np.argsort(first_row, kind="stable")] = np.arange(len(first_row))
    return np.asarray(rank[np.asarray(inv).reshape(-1)], dtype=np.int64)
