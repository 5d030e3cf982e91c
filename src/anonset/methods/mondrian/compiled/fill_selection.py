"""Selection Mondrian's improving candidates of a region, for the compiled Mondrian path (numba).

The same candidates and scores as
:class:`~anonset.methods.mondrian.selection.SelectionCriterion` in its
selection phase: every cut (strict: between distinct values) and hierarchy
split whose children's summed imprecision is strictly below the region's.
A cut's children are scored in two passes over the attribute's value order:
backwards, the imprecision of every right side; forwards, of every left
side, each side's box (range of every constrained numeric column, lowest
common ancestor of every constrained categorical one) and its records
inside each predicate kept as running figures.  Imprecision is a count, so
no floating point is involved.

The hand-over to the target criterion is Mondrian's phase 1
(:func:`anonset.methods.mondrian.fill.phases`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

from anonset.methods.mondrian.compiled.kernel import KernelSpace
from anonset.methods.mondrian.compiled.offers import Offers, offer_cut, offer_split
from anonset.methods.mondrian.compiled.segments import Segments, hierarchy_children, smallest_child, splittable

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.selections import Selections

__all__ = ["SelectionArrays", "selection_arrays", "selection_fill"]


class SelectionArrays(NamedTuple):
    """Compiled selections (:class:`~anonset.core.selections.Selections`) and work arrays.

    Attributes
    ----------
    lo, hi : (P, p) float64 the predicates' ranges on the numeric columns.
    hit : (P, q, levels, width) bool the hierarchy nodes meeting each predicate.
    inside : (P, n) bool the records satisfying each predicate.
    numeric, categorical : the columns some predicate constrains.
    right : (n,) int64 imprecision of the right side of each cut.
    low, high : (width, numeric) float64 per side or child, its range of each constrained numeric column.
    level, leaf : (width, categorical) int64 per side or child, its lowest common ancestor's level and one leaf.
    hits : (width, P) int64 per side or child, its records inside each predicate.
    """

    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    hit: NDArray[np.bool_]
    inside: NDArray[np.bool_]
    numeric: NDArray[np.int64]
    categorical: NDArray[np.int64]
    right: NDArray[np.int64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    level: NDArray[np.int64]
    leaf: NDArray[np.int64]
    hits: NDArray[np.int64]


def selection_arrays(selections: Selections, width: int) -> SelectionArrays:
    """The arrays of a selection criterion with its compiled ``selections``, hierarchies ``width`` wide."""
    n_pred, n = selections.inside.shape
    wide = max(width, 2)
    numeric = np.asarray(selections.numeric_columns, dtype=np.int64)
    categorical = np.asarray(selections.categorical_columns, dtype=np.int64)
    return SelectionArrays(lo=np.ascontiguousarray(selections.lo), hi=np.ascontiguousarray(selections.hi),
                           hit=np.ascontiguousarray(selections.hit), inside=np.ascontiguousarray(selections.inside),
                           numeric=numeric, categorical=categorical, right=np.zeros(n, dtype=np.int64),
                           low=np.zeros((wide, len(numeric))), high=np.zeros((wide, len(numeric))),
                           level=np.zeros((wide, len(categorical)), dtype=np.int64),
                           leaf=np.zeros((wide, len(categorical)), dtype=np.int64),
                           hits=np.zeros((wide, n_pred), dtype=np.int64))


@numba.njit(cache=True, nogil=True)
def _start(crit: SelectionArrays, space: KernelSpace, u: int, r: int) -> None:  # pragma: no cover - compiled
    """Side or child u holds record r alone."""
    for x in range(len(crit.numeric)):
        v = space.values[crit.numeric[x], r]
        crit.low[u, x] = v
        crit.high[u, x] = v
    for x in range(len(crit.categorical)):
        crit.level[u, x] = 0
        crit.leaf[u, x] = space.codes[crit.categorical[x], r]
    for p in range(crit.inside.shape[0]):
        crit.hits[u, p] = 1 if crit.inside[p, r] else 0


@numba.njit(cache=True, nogil=True)
def _add(crit: SelectionArrays, space: KernelSpace, u: int, r: int) -> None:  # pragma: no cover - compiled
    """Record r joins side or child u (which holds records already)."""
    for x in range(len(crit.numeric)):
        v = space.values[crit.numeric[x], r]
        crit.low[u, x] = min(crit.low[u, x], v)
        crit.high[u, x] = max(crit.high[u, x], v)
    top_level = space.maps.shape[1] - 1
    for x in range(len(crit.categorical)):
        a = crit.categorical[x]
        leaf = space.codes[a, r]
        lv = crit.level[u, x]
        while lv < top_level and space.maps[a, lv, leaf] != space.maps[a, lv, crit.leaf[u, x]]:
            lv += 1
        crit.level[u, x] = lv
    for p in range(crit.inside.shape[0]):
        if crit.inside[p, r]:
            crit.hits[u, p] += 1


@numba.njit(cache=True, nogil=True)
def _imprecision(crit: SelectionArrays, space: KernelSpace, u: int, size: int) -> int:  # pragma: no cover - compiled
    """Summed imprecision of the predicates over side or child u of ``size`` records."""
    total = 0
    for p in range(crit.inside.shape[0]):
        overlap = True
        for x in range(len(crit.numeric)):
            c = crit.numeric[x]
            if not (crit.low[u, x] <= crit.hi[p, c] and crit.high[u, x] >= crit.lo[p, c]):
                overlap = False
                break
        if overlap:
            for x in range(len(crit.categorical)):
                a = crit.categorical[x]
                lv = crit.level[u, x]
                if not crit.hit[p, a, lv, space.maps[a, lv, crit.leaf[u, x]]]:
                    overlap = False
                    break
        if overlap:
            total += size - crit.hits[u, p]
    return total


@numba.njit(cache=True, nogil=True)
def _group(crit: SelectionArrays, space: KernelSpace, seg: Segments, s: int, e: int,
           n_groups: int) -> int:  # pragma: no cover - compiled
    """Summed imprecision of the groups ``seg.label`` (0 .. n_groups − 1) of region ``rows[s:e]``."""
    for u in range(n_groups):
        seg.sizes[u] = 0
    for i in range(s, e):
        r = seg.rows[i]
        u = seg.label[r]
        if seg.sizes[u] == 0:
            _start(crit, space, u, r)
        else:
            _add(crit, space, u, r)
        seg.sizes[u] += 1
    total = 0
    for u in range(n_groups):
        total += _imprecision(crit, space, u, seg.sizes[u])
    return total


@numba.njit(cache=True, nogil=True, inline='always')
def selection_fill(crit: SelectionArrays, space: KernelSpace, seg: Segments, offers: Offers, s: int, e: int, k: int,
                   strict: bool) -> None:  # pragma: no cover - compiled
    """Every cut and hierarchy split strictly lowering the region's imprecision (SelectionCriterion, phase 0)."""
    m = e - s
    for i in range(s, e):
        seg.label[seg.rows[i]] = 0
    current = _group(crit, space, seg, s, e, int(1))  # noqa: UP018 - typed: a literal would compile _group again
    if current == 0:
        return
    for j in range(len(space.numeric)):
        if not splittable(space, seg, j):
            continue
        c = space.column[j]
        if not space.numeric[j]:
            n_kids = hierarchy_children(space, seg, s, e, c)
            if smallest_child(seg, n_kids) >= k:
                score = _group(crit, space, seg, s, e, n_kids)
                if score < current:
                    offer_split(offers, float(score), j)
            continue
        order = seg.order[c]
        side = int(0)  # noqa: UP018 - the one side kept, typed: a literal would compile _start, _add... again
        _start(crit, space, side, order[e - 1])
        for i in range(m - 1, 0, -1):  # the right side of the cut after i records: order[s + i:e]
            if i < m - 1:
                _add(crit, space, side, order[s + i])
            crit.right[i] = _imprecision(crit, space, side, m - i)
        _start(crit, space, side, order[s])
        for i in range(1, m):  # the left side: order[s:s + i]
            if i > 1:
                _add(crit, space, side, order[s + i - 1])
            if i < k or m - i < k:
                continue
            if strict and seg.sorted[c, s + i] == seg.sorted[c, s + i - 1]:
                continue
            score = _imprecision(crit, space, side, i) + crit.right[i]
            if score < current:
                offer_cut(offers, float(score), j, i)
