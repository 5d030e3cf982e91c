"""Per-group state of the clustering kernels, and the merge step that completes l-diversity.

A group is summarized by the min and max of each numeric attribute
(``lo``/``hi``) and, per categorical attribute, the level of its lowest common
ancestor (``lvl``) and one member leaf (``ref``), so adding a record or merging
two groups is scored in O(attributes · hierarchy height) without looking at
the group's records.  Costs are per record, from the cost tables of
:mod:`anonset.core.qi_space`.
"""

from __future__ import annotations

import numba
import numpy as np

from anonset.core.qi_space import lca_level
from anonset.methods.cluster.constraints import diverse, union_diverse

__all__ = ["add_record", "cost_with", "merge_cost", "merge_into", "merge_until_diverse", "reset_group",
           "resolve_roots", "state_cost", "states_of"]


@numba.njit(cache=True, nogil=True)
def state_cost(lo, hi, lvl, ref, g, num_w, cat_cost):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Per-record cost of group ``g``."""
    d = 0.0
    for b in range(lo.shape[1]):
        d += (hi[g, b] - lo[g, b]) * num_w[b]
    for a in range(lvl.shape[1]):
        d += cat_cost[a, lvl[g, a], ref[g, a]]
    return d


@numba.njit(cache=True, nogil=True)
def cost_with(lo, hi, lvl, ref, g, values, codes, num_w, maps, cat_cost, x):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Per-record cost of group ``g`` after adding record ``x``."""
    d = 0.0
    for b in range(lo.shape[1]):
        v = values[x, b]
        d += (max(hi[g, b], v) - min(lo[g, b], v)) * num_w[b]
    for a in range(lvl.shape[1]):
        d += cat_cost[a, lca_level(maps, a, lvl[g, a], ref[g, a], codes[x, a]), ref[g, a]]
    return d


@numba.njit(cache=True, nogil=True)
def merge_cost(lo, hi, lvl, ref, g, h, num_w, maps, cat_cost):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Per-record cost of the union of groups ``g`` and ``h``."""
    d = 0.0
    for b in range(lo.shape[1]):
        d += (max(hi[g, b], hi[h, b]) - min(lo[g, b], lo[h, b])) * num_w[b]
    for a in range(lvl.shape[1]):
        lv = lca_level(maps, a, max(lvl[g, a], lvl[h, a]), ref[g, a], ref[h, a])
        d += cat_cost[a, lv, ref[g, a]]
    return d


@numba.njit(cache=True, nogil=True)
def add_record(lo, hi, lvl, ref, g, values, codes, maps, x):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Add record ``x`` to group ``g``'s state."""
    for b in range(lo.shape[1]):
        v = values[x, b]
        lo[g, b] = min(lo[g, b], v)
        hi[g, b] = max(hi[g, b], v)
    for a in range(lvl.shape[1]):
        lvl[g, a] = lca_level(maps, a, lvl[g, a], ref[g, a], codes[x, a])


@numba.njit(cache=True, nogil=True)
def reset_group(lo, hi, lvl, ref, g, values, codes, x):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Make group ``g``'s state that of the single record ``x``."""
    for b in range(lo.shape[1]):
        lo[g, b] = values[x, b]
        hi[g, b] = values[x, b]
    for a in range(lvl.shape[1]):
        lvl[g, a] = 0
        ref[g, a] = codes[x, a]


@numba.njit(cache=True, nogil=True)
def merge_into(lo, hi, lvl, ref, g, h, maps):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Group ``g``'s state becomes that of ``g ∪ h``."""
    for b in range(lo.shape[1]):
        lo[g, b] = min(lo[g, b], lo[h, b])
        hi[g, b] = max(hi[g, b], hi[h, b])
    for a in range(lvl.shape[1]):
        lvl[g, a] = lca_level(maps, a, max(lvl[g, a], lvl[h, a]), ref[g, a], ref[h, a])


@numba.njit(cache=True, nogil=True)
def states_of(labels, n_groups, values, codes, maps, extra):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``(lo, hi, lvl, ref, size)`` of every group of an assignment, with ``extra`` spare rows."""
    p = values.shape[1]
    q = codes.shape[1]
    m = n_groups + extra
    lo = np.zeros((m, p))
    hi = np.zeros((m, p))
    lvl = np.zeros((m, q), dtype=np.int64)
    ref = np.zeros((m, q), dtype=np.int64)
    size = np.zeros(m, dtype=np.int64)
    for x in range(labels.shape[0]):
        g = labels[x]
        if size[g] == 0:
            reset_group(lo, hi, lvl, ref, g, values, codes, x)
        else:
            add_record(lo, hi, lvl, ref, g, values, codes, maps, x)
        size[g] += 1
    return lo, hi, lvl, ref, size


@numba.njit(cache=True, nogil=True)
def merge_until_diverse(labels, n_groups, values, codes, num_w, maps, cat_cost, hist, offsets, kinds, lvals):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Merge every group that is not l-diverse into others until all are; returns the new labels.

    Groups are visited in id order.  A group that is not diverse merges with
    the group whose union raises the table's cost least among those whose
    union is diverse, or, when no union is, the cheapest union overall (and
    keeps merging).  Ends with every group diverse when the whole table is.
    ``hist`` holds the sensitive-value histogram of every group.
    """
    lo, hi, lvl, ref, size = states_of(labels, n_groups, values, codes, maps, 0)
    alive = size > 0
    parent = np.arange(n_groups)
    for g in range(n_groups):
        while alive[g] and not diverse(hist, g, offsets, kinds, lvals):
            base_g = size[g] * state_cost(lo, hi, lvl, ref, g, num_w, cat_cost)
            best = -1
            best_inc = np.inf
            best_ok = False
            for h in range(n_groups):
                if h == g or not alive[h]:
                    continue
                ok = union_diverse(hist, g, h, offsets, kinds, lvals)
                if best_ok and not ok:
                    continue
                inc = ((size[g] + size[h]) * merge_cost(lo, hi, lvl, ref, g, h, num_w, maps, cat_cost)
                       - base_g - size[h] * state_cost(lo, hi, lvl, ref, h, num_w, cat_cost))
                if (ok and not best_ok) or inc < best_inc:
                    best = h
                    best_inc = inc
                    best_ok = ok
            if best < 0:
                break  # a single group left
            merge_into(lo, hi, lvl, ref, g, best, maps)
            for v in range(hist.shape[1]):
                hist[g, v] += hist[best, v]
            size[g] += size[best]
            alive[best] = False
            parent[best] = g
    resolve_roots(parent)
    out = np.empty_like(labels)
    for x in range(labels.shape[0]):
        out[x] = parent[labels[x]]
    return out


@numba.njit(cache=True, nogil=True)
def resolve_roots(parent):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Point every merged group at the group that finally absorbed it (``parent`` in place; roots point at themselves)."""
    for g in range(parent.shape[0]):
        r = g
        while parent[r] != r:
            r = parent[r]
        parent[g] = r
