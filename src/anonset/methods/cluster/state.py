"""Per-group state of the clustering kernels, and the merge step that completes l-diversity.

A group is summarized by the min and max of each numeric attribute
(``lo``/``hi``) and, per categorical attribute, the level of its lowest common
ancestor (``lvl``) and one member leaf (``ref``), so adding a record or merging
two groups is scored in O(attributes · hierarchy height) without looking at
the group's records.  The four arrays travel together as one
:class:`GroupState` named tuple (row ``g`` is group ``g``); costs are per
record, from the :class:`~anonset.methods.cluster.qi_space.CostModel` of
:mod:`anonset.methods.cluster.qi_space`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray

from anonset.methods.cluster.constraints import Diversity, diverse, union_diverse
from anonset.methods.cluster.qi_space import CostModel, Records, lca_level

__all__ = ["GroupState", "add_record", "cost_with", "merge_cost", "merge_into", "merge_until_diverse", "reset_group",
           "resolve_roots", "state_cost", "states_of"]


class GroupState(NamedTuple):
    """Per-group state, one row per group (a numba-compatible named tuple of arrays)."""

    lo: NDArray[np.float64]  # (m, p) float64 min of each numeric attribute
    hi: NDArray[np.float64]  # (m, p) float64 max of each numeric attribute
    lvl: NDArray[np.int64]  # (m, q) int64 level of the lowest common ancestor of each categorical attribute
    ref: NDArray[np.int64]  # (m, q) int64 one member leaf of each categorical attribute


@numba.njit(cache=True, nogil=True)
def state_cost(state: GroupState, g: int, costs: CostModel) -> float:  # pragma: no cover
    """Per-record cost of group ``g``."""
    d = 0.0
    for b in range(state.lo.shape[1]):
        d += (state.hi[g, b] - state.lo[g, b]) * costs.num_w[b]
    for a in range(state.lvl.shape[1]):
        d += costs.cat_cost[a, state.lvl[g, a], state.ref[g, a]]
    return d


@numba.njit(cache=True, nogil=True)
def cost_with(state: GroupState, g: int, records: Records, costs: CostModel, x: int) -> float:  # pragma: no cover
    """Per-record cost of group ``g`` after adding record ``x``."""
    d = 0.0
    for b in range(state.lo.shape[1]):
        v = records.values[x, b]
        d += (max(state.hi[g, b], v) - min(state.lo[g, b], v)) * costs.num_w[b]
    for a in range(state.lvl.shape[1]):
        ref = state.ref[g, a]
        d += costs.cat_cost[a, lca_level(costs.maps, a, state.lvl[g, a], ref, records.codes[x, a]), ref]
    return d


@numba.njit(cache=True, nogil=True)
def merge_cost(state: GroupState, g: int, h: int, costs: CostModel) -> float:  # pragma: no cover
    """Per-record cost of the union of groups ``g`` and ``h``."""
    d = 0.0
    for b in range(state.lo.shape[1]):
        d += (max(state.hi[g, b], state.hi[h, b]) - min(state.lo[g, b], state.lo[h, b])) * costs.num_w[b]
    for a in range(state.lvl.shape[1]):
        lv = lca_level(costs.maps, a, max(state.lvl[g, a], state.lvl[h, a]), state.ref[g, a], state.ref[h, a])
        d += costs.cat_cost[a, lv, state.ref[g, a]]
    return d


@numba.njit(cache=True, nogil=True)
def add_record(state: GroupState, g: int, records: Records, maps: NDArray[np.int32],
               x: int) -> None:  # pragma: no cover
    """Add record ``x`` to group ``g``'s state."""
    for b in range(state.lo.shape[1]):
        v = records.values[x, b]
        state.lo[g, b] = min(state.lo[g, b], v)
        state.hi[g, b] = max(state.hi[g, b], v)
    for a in range(state.lvl.shape[1]):
        state.lvl[g, a] = lca_level(maps, a, state.lvl[g, a], state.ref[g, a], records.codes[x, a])


@numba.njit(cache=True, nogil=True)
def reset_group(state: GroupState, g: int, records: Records, x: int) -> None:  # pragma: no cover
    """Make group ``g``'s state that of the single record ``x``."""
    for b in range(state.lo.shape[1]):
        state.lo[g, b] = records.values[x, b]
        state.hi[g, b] = records.values[x, b]
    for a in range(state.lvl.shape[1]):
        state.lvl[g, a] = 0
        state.ref[g, a] = records.codes[x, a]


@numba.njit(cache=True, nogil=True)
def merge_into(state: GroupState, g: int, h: int, maps: NDArray[np.int32]) -> None:  # pragma: no cover
    """Group ``g``'s state becomes that of ``g ∪ h``."""
    for b in range(state.lo.shape[1]):
        state.lo[g, b] = min(state.lo[g, b], state.lo[h, b])
        state.hi[g, b] = max(state.hi[g, b], state.hi[h, b])
    for a in range(state.lvl.shape[1]):
        state.lvl[g, a] = lca_level(maps, a, max(state.lvl[g, a], state.lvl[h, a]), state.ref[g, a], state.ref[h, a])


@numba.njit(cache=True, nogil=True)
def states_of(labels: NDArray[np.int64], n_groups: int, records: Records, maps: NDArray[np.int32],
              extra: int) -> tuple[GroupState, NDArray[np.int64]]:  # pragma: no cover
    """The :class:`GroupState` and the size of every group of an assignment, with ``extra`` spare rows."""
    p = records.values.shape[1]
    q = records.codes.shape[1]
    m = n_groups + extra
    state = GroupState(np.zeros((m, p)), np.zeros((m, p)), np.zeros((m, q), dtype=np.int64),
                       np.zeros((m, q), dtype=np.int64))
    size = np.zeros(m, dtype=np.int64)
    for x in range(labels.shape[0]):
        g = labels[x]
        if size[g] == 0:
            reset_group(state, g, records, x)
        else:
            add_record(state, g, records, maps, x)
        size[g] += 1
    return state, size


@numba.njit(cache=True, nogil=True)
def merge_until_diverse(labels: NDArray[np.int64], n_groups: int, records: Records, costs: CostModel,
                        hist: NDArray[np.int64], div: Diversity) -> NDArray[np.int64]:  # pragma: no cover
    """Merge every group that is not l-diverse into others until all are; returns the new labels.

    Groups are visited in id order.  A group that is not diverse merges with
    the group whose union raises the table's cost least among those whose
    union is diverse, or, when no union is, the cheapest union overall (and
    keeps merging).  Ends with every group diverse when the whole table is.
    ``hist`` holds the sensitive-value histogram of every group.
    """
    state, size = states_of(labels, n_groups, records, costs.maps, int(np.int64(0)))
    alive = size > 0
    parent = np.arange(n_groups)
    for g in range(n_groups):
        while alive[g] and not diverse(hist, g, div):
            base_g = size[g] * state_cost(state, g, costs)
            best = int(np.int64(-1))
            best_inc = np.inf
            best_ok = False
            for h in range(n_groups):
                if h == g or not alive[h]:
                    continue
                ok = union_diverse(hist, g, h, div)
                if best_ok and not ok:
                    continue
                inc = ((size[g] + size[h]) * merge_cost(state, g, h, costs)
                       - base_g - size[h] * state_cost(state, h, costs))
                if (ok and not best_ok) or inc < best_inc:
                    best = h
                    best_inc = inc
                    best_ok = ok
            if best < 0:
                break  # a single group left
            merge_into(state, g, best, costs.maps)
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
def resolve_roots(parent: NDArray[np.int64]) -> None:  # pragma: no cover
    """Point every merged group at the group that finally absorbed it (``parent`` in place; roots at themselves)."""
    for g in range(parent.shape[0]):
        r = g
        while parent[r] != r:
            r = parent[r]
        parent[g] = r
