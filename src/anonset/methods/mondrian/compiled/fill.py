"""The candidate splits of a region under each criterion, for the compiled Mondrian path (numba).

:func:`fill` offers every candidate split of region ``rows[s:e]`` with its
key (:mod:`anonset.methods.mondrian.compiled.offers`), as the criterion object of
the Python reference would rank it.  Every built-in criterion reaches the
kernels as one type, :class:`CriterionArrays`: its ``kind`` says which
criterion runs (:data:`MEDIAN`, :data:`INFOGAIN`, :data:`LSD`,
:data:`SELECTION`), and it holds the arrays of each (empty for the
criteria not used).  So numba compiles :func:`fill` and the Mondrian loop
once for all criteria (and all models: :mod:`~anonset.methods.mondrian.compiled.grow`)
rather than once per criterion and per criterion a selection hands over to.

A criterion may have *phases*: the selection criterion first offers the
splits that lower the selections' imprecision (phase 0) and, when none of
them is allowable, hands the region and all regions below it over to its
target criterion (``then``, phase 1).  :func:`phases` tells how many.

Median Mondrian (:class:`~anonset.methods.mondrian.split.MedianCriterion`):
the key of every candidate of attribute j has score ``−range_j`` (the widest
attribute first, ties by position), then the more balanced of the two strict
median cuts (``<= median`` first on a tie).  Candidates leaving a child below
k are not offered: Mondrian would skip them anyway.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np

from anonset.methods.mondrian.compiled.fill_selection import SelectionArrays, selection_fill
from anonset.methods.mondrian.compiled.fill_workload import InfoGainArrays, LSDArrays, infogain_fill, lsd_fill
from anonset.methods.mondrian.compiled.kernel import KernelSpace
from anonset.methods.mondrian.compiled.offers import Offers, offer_cut, offer_split
from anonset.methods.mondrian.compiled.segments import Segments, hierarchy_children, median_cuts, smallest_child

__all__ = ["INFOGAIN", "LSD", "MEDIAN", "SELECTION", "CriterionArrays", "criterion", "fill", "median_fill",
           "phases"]

#: The criteria, as :attr:`CriterionArrays.kind` and :attr:`CriterionArrays.then` say them.
MEDIAN, INFOGAIN, LSD, SELECTION = 0, 1, 2, 3


class CriterionArrays(NamedTuple):
    """A built-in criterion: which one, and the arrays of every criterion (empty where unused).

    Attributes
    ----------
    kind : int the criterion (:data:`MEDIAN` .. :data:`SELECTION`).
    then : int the criterion the selection criterion hands a region over to (else ``kind``).
    infogain, lsd, selection : the arrays of InfoGain, LSD and the selection criterion.
    """

    kind: int
    then: int
    infogain: InfoGainArrays
    lsd: LSDArrays
    selection: SelectionArrays


def _empty(*shape: int, dtype: type = np.int64) -> Any:
    """A zero-size array of the criterion's type (the kernels never read it)."""
    return np.zeros(shape, dtype=dtype)


def criterion(kind: int, *, then: int | None = None, infogain: InfoGainArrays | None = None,
              lsd: LSDArrays | None = None, selection: SelectionArrays | None = None) -> CriterionArrays:
    """The criterion ``kind`` with the arrays it reads (``then``: the selection criterion's target criterion)."""
    f8 = np.float64
    return CriterionArrays(
        kind=kind, then=kind if then is None else then,
        infogain=infogain or InfoGainArrays(classes=_empty(0, 0), n_classes=_empty(0), first=_empty(0),
                                            joint=_empty(0), joint_class=_empty(0, 0), logs=_empty(0, dtype=f8),
                                            counts=_empty(0), totals=_empty(0), pending=_empty(0),
                                            child=_empty(0, 0), terms=_empty(0, dtype=f8)),
        lsd=lsd or LSDArrays(values=_empty(0, 0, dtype=f8), centred=_empty(0, 0, dtype=f8), flat=_empty(0, dtype=f8),
                             running=_empty(0, 0, dtype=f8), child=_empty(0, 0, dtype=f8),
                             terms=_empty(0, dtype=f8)),
        selection=selection or SelectionArrays(lo=_empty(0, 0, dtype=f8), hi=_empty(0, 0, dtype=f8),
                                               hit=_empty(0, 0, 0, 0, dtype=np.bool_),
                                               inside=_empty(0, 0, dtype=np.bool_), numeric=_empty(0),
                                               categorical=_empty(0), right=_empty(0),
                                               low=_empty(0, 0, dtype=f8), high=_empty(0, 0, dtype=f8),
                                               level=_empty(0, 0), leaf=_empty(0, 0), hits=_empty(0, 0)))


@numba.njit(cache=True, nogil=True)
def fill(crit: CriterionArrays, phase: int, space: KernelSpace, seg: Segments, offers: Offers, s: int, e: int, k: int,
         strict: bool) -> None:  # pragma: no cover - compiled
    """Offer the candidate splits of region ``rows[s:e]`` in ``phase``."""
    kind = crit.kind
    if kind == SELECTION:
        if phase == 0:
            selection_fill(crit.selection, space, seg, offers, s, e, k, strict)
            return
        kind = crit.then
    if kind == INFOGAIN:
        infogain_fill(crit.infogain, space, seg, offers, s, e, k, strict)
    elif kind == LSD:
        lsd_fill(crit.lsd, space, seg, offers, s, e, k, strict)
    else:
        median_fill(space, seg, offers, s, e, k, strict)


@numba.njit(cache=True, nogil=True)
def phases(crit: CriterionArrays) -> int:  # pragma: no cover - compiled
    """How many phases the criterion has."""
    return 2 if crit.kind == SELECTION else 1


@numba.njit(cache=True, nogil=True, inline='always')
def median_fill(space: KernelSpace, seg: Segments, offers: Offers, s: int, e: int, k: int,
                strict: bool) -> None:  # pragma: no cover - compiled
    """The median splits, widest attribute first (see the module docstring)."""
    m = e - s
    for j in range(len(space.numeric)):
        c = space.column[j]
        if space.numeric[j]:
            span = space.span[c]
            width = space.weight[j] * (seg.high[c] - seg.low[c]) / span if span > 0 else 0.0
        else:
            width = space.weight[j] * space.share[c, seg.level[c], seg.node[c]]
        if not width > 0:
            continue
        if not space.numeric[j]:
            n_kids = hierarchy_children(space, seg, s, e, c)
            if smallest_child(seg, n_kids) >= k:
                offer_split(offers, -width, j)
            continue
        if not strict:
            half = m // 2
            if k <= half <= m - k:
                offer_cut(offers, -width, j, half)
            continue
        upto, below = median_cuts(seg, c, s, e)
        if upto < m and k <= upto <= m - k:
            offer_cut(offers, -width, j, upto)
        if below > 0 and k <= below <= m - k:
            offer_cut(offers, -width, j, below)
