"""The candidate splits of a region under each criterion, for the compiled Mondrian path (numba).

:func:`fill` offers every candidate split of region ``rows[s:e]`` with its
key (:mod:`anonset.methods.mondrian.compiled.offers`), as the criterion object of
the Python reference would rank it.  Which criterion runs is told by the
type of the arrays given: :class:`MedianArrays` here,
:class:`~anonset.methods.mondrian.fill_workload.InfoGainArrays` and
:class:`~anonset.methods.mondrian.fill_workload.LSDArrays`,
:class:`~anonset.methods.mondrian.fill_selection.SelectionArrays`; numba
compiles :func:`fill` for each type separately (lazily, when a run first
needs it), so a run compiles only its own criterion.

A criterion may have *phases*: the selection criterion first offers the
splits that lower the selections' imprecision (phase 0) and, when none of
them is allowable, hands the region and all regions below it over to its
target criterion (phase 1).  :func:`phases` tells how many.

Median Mondrian (:class:`~anonset.methods.mondrian.split.MedianCriterion`):
the key of every candidate of attribute j has score ``−range_j`` (the widest
attribute first, ties by position), then the more balanced of the two strict
median cuts (``<= median`` first on a tie).  Candidates leaving a child below
k are not offered: Mondrian would skip them anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numba
from numba.extending import overload

from anonset.methods.mondrian.compiled.fill_selection import SelectionArrays, selection_fill
from anonset.methods.mondrian.compiled.fill_workload import InfoGainArrays, LSDArrays, infogain_fill, lsd_fill
from anonset.methods.mondrian.compiled.kernel import KernelSpace
from anonset.methods.mondrian.compiled.offers import Offers, offer_cut, offer_split
from anonset.methods.mondrian.compiled.segments import Segments, hierarchy_children, median_cuts, smallest_child

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["MedianArrays", "fill", "median_fill", "phases"]

#: How numba compiles each criterion's implementation of :func:`fill` and :func:`phases` (as the kernels).
_JIT_OPTIONS: Any = {"cache": True, "nogil": True}


class MedianArrays(NamedTuple):
    """Median Mondrian needs no arrays beyond the attribute space."""


def fill(criterion: Any, phase: int, space: KernelSpace, seg: Segments, offers: Offers, s: int, e: int, k: int,
         strict: bool) -> None:
    """Offer the candidate splits of region ``rows[s:e]`` in ``phase`` (compiled per criterion type)."""
    raise NotImplementedError("fill runs compiled only")


def phases(criterion: Any) -> int:
    """How many phases the criterion has (compiled per criterion type)."""
    raise NotImplementedError("phases runs compiled only")


@overload(fill, jit_options=_JIT_OPTIONS)
def _fill(criterion: Any, phase: Any, space: Any, seg: Any, offers: Any, s: Any, e: Any, k: Any,
          strict: Any) -> Callable[..., None] | None:  # pragma: no cover - compiled
    kind = getattr(criterion, "instance_class", None)
    if kind is MedianArrays:
        def median(criterion: Any, phase: Any, space: Any, seg: Any, offers: Any, s: Any, e: Any, k: Any,
                   strict: Any) -> None:
            median_fill(space, seg, offers, s, e, k, strict)
        return median
    if kind is InfoGainArrays:
        def infogain(criterion: Any, phase: Any, space: Any, seg: Any, offers: Any, s: Any, e: Any, k: Any,
                     strict: Any) -> None:
            infogain_fill(criterion, space, seg, offers, s, e, k, strict)
        return infogain
    if kind is LSDArrays:
        def lsd(criterion: Any, phase: Any, space: Any, seg: Any, offers: Any, s: Any, e: Any, k: Any,
                strict: Any) -> None:
            lsd_fill(criterion, space, seg, offers, s, e, k, strict)
        return lsd
    if kind is SelectionArrays:
        def selection(criterion: Any, phase: Any, space: Any, seg: Any, offers: Any, s: Any, e: Any, k: Any,
                      strict: Any) -> None:
            if phase == 0:
                selection_fill(criterion, space, seg, offers, s, e, k, strict)
            else:
                fill(criterion.then, 0, space, seg, offers, s, e, k, strict)
        return selection
    return None


@overload(phases, jit_options=_JIT_OPTIONS)
def _phases(criterion: Any) -> Callable[[Any], int]:  # pragma: no cover - compiled
    count = 2 if getattr(criterion, "instance_class", None) is SelectionArrays else 1

    def impl(criterion: Any) -> int:
        return count
    return impl


@numba.njit(cache=True, nogil=True)
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
