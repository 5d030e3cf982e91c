"""InfoGain and LSD candidates of a region, for the compiled Mondrian path (numba).

The same candidates, scores and keys as
:class:`~anonset.methods.mondrian.criteria.InfoGainCriterion` and
:class:`~anonset.methods.mondrian.criteria.LSDCriterion`, computed in one
pass over each attribute's value order instead of numpy arrays per region:

- InfoGain scores a cut from the class counts left of it (the running
  counts of the pass) and the region's totals: ``Σ_targets Σ_classes
  −(L log(L/|left|) + R log(R/|right|))``, accumulated in the reference's
  order, divided by m and rounded to 12 decimals.  Strict boundary cuts are
  decided one value group late (when the group after the cut is complete),
  from a copy of the counts taken at the cut.
- LSD centres each target on the region's mean (numpy's pairwise sum),
  takes prefix sums of the centred values and their squares in the value
  order (sequentially, as ``cumsum``), and scores
  ``l2 − l1²/|left| + r2 − r1²/|right|`` summed over the targets, divided by
  the region's summed squares and rounded.

Hierarchy splits are scored from per-child sums taken in row order (as
``bincount``) and added over the children pairwise (as ``ndarray.sum``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

from anonset.methods.mondrian.compiled.floats import numpy_round, numpy_sum, numpy_total
from anonset.methods.mondrian.compiled.kernel import KernelSpace
from anonset.methods.mondrian.compiled.offers import BEST, COUNT, MODE, Offers, offer, offer_cut, offer_split
from anonset.methods.mondrian.compiled.segments import (
    Segments,
    hierarchy_children,
    median_cuts,
    smallest_child,
    splittable,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["DECIMALS", "InfoGainArrays", "LSDArrays", "infogain_arrays", "infogain_fill", "lsd_arrays", "lsd_fill"]

#: Scores are rounded to this many decimals, as the reference rounds them (so that ties are exact).
DECIMALS = 12
#: How far a quick InfoGain score may exceed the best exact one and still win: two rounding steps (the quick
#: and the exact score agree to about 1e-14).
_MARGIN = 2e-12
#: The smallest positive normal float64: the least scale of an LSD score.
_TINY = float(np.finfo(np.float64).tiny)


class InfoGainArrays(NamedTuple):
    """The class targets of InfoGain and its work arrays.

    Attributes
    ----------
    classes : (t, n) int64 class of every record per target.
    n_classes : (t,) int64 classes per target.
    first : (t,) int64 where the target's classes start in a flat class vector (of C entries).
    joint : (n,) int64 the record's class vector, as one code (:attr:`Segments.keys` in value order).
    joint_class : (J, t) int64 the class per target of each class vector.
    logs : (n + 1,) float64 ``log(i)`` (0 for i = 0): a quick bound on a cut's score (see :func:`_may_win`).
    counts, totals, pending : (C,) int64 running counts, the region's totals, the counts at a pending cut.
    child : (width, C) int64 class counts per child of a hierarchy split.
    terms : (width · max classes,) float64 the terms of a hierarchy split's entropy.
    """

    classes: NDArray[np.int64]
    n_classes: NDArray[np.int64]
    first: NDArray[np.int64]
    joint: NDArray[np.int64]
    joint_class: NDArray[np.int64]
    logs: NDArray[np.float64]
    counts: NDArray[np.int64]
    totals: NDArray[np.int64]
    pending: NDArray[np.int64]
    child: NDArray[np.int64]
    terms: NDArray[np.float64]


def infogain_arrays(classes: NDArray[np.int64], n_classes: NDArray[np.int64], joint: NDArray[np.int64],
                    width: int) -> InfoGainArrays:
    """The arrays of InfoGain for its ``classes``, ``n_classes`` and ``joint``, hierarchies ``width`` wide."""
    first = np.concatenate([[0], np.cumsum(n_classes)[:-1]]).astype(np.int64)
    total = int(n_classes.sum())
    joint_class = np.zeros((int(joint.max()) + 1, len(n_classes)), dtype=np.int64)
    joint_class[joint] = classes.T
    logs = np.zeros(len(joint) + 1)
    logs[1:] = np.log(np.arange(1, len(joint) + 1))
    wide = max(width, 2)
    return InfoGainArrays(classes=np.ascontiguousarray(classes, dtype=np.int64),
                          n_classes=np.asarray(n_classes, dtype=np.int64), first=first,
                          joint=np.ascontiguousarray(joint, dtype=np.int64),
                          joint_class=joint_class, logs=logs, counts=np.zeros(total, dtype=np.int64),
                          totals=np.zeros(total, dtype=np.int64), pending=np.zeros(total, dtype=np.int64),
                          child=np.zeros((wide, total), dtype=np.int64),
                          terms=np.zeros(wide * int(n_classes.max())))


@numba.njit(cache=True, nogil=True)
def _cut_entropy(crit: InfoGainArrays, counts: NDArray[np.int64], position: int,
                 m: int) -> float:  # pragma: no cover - compiled
    """Weighted class entropy of the cut leaving ``counts`` (per class) in its first ``position`` records."""
    total = 0.0
    right = m - position
    for t in range(len(crit.n_classes)):
        for cls in range(crit.n_classes[t]):
            x = crit.first[t] + cls
            n_left = counts[x]
            n_right = crit.totals[x] - n_left
            left_term = n_left * np.log(n_left / position) if n_left > 0 else 0.0
            right_term = n_right * np.log(n_right / right) if n_right > 0 else 0.0
            total -= left_term + right_term
    return numpy_round(total / m, DECIMALS)


@numba.njit(cache=True, nogil=True)
def _child_entropy(crit: InfoGainArrays, seg: Segments, s: int, e: int, n_kids: int) -> float:  # pragma: no cover
    """Weighted class entropy of the hierarchy split whose children are in ``seg.label`` and ``seg.sizes``."""
    for u in range(n_kids):
        crit.child[u, :] = 0
    for i in range(s, e):
        r = seg.rows[i]
        u = seg.label[r]
        for t in range(len(crit.n_classes)):
            crit.child[u, crit.first[t] + crit.classes[t, r]] += 1
    total = 0.0
    for t in range(len(crit.n_classes)):
        used = int(0)  # noqa: UP018 - typed: numba would compile numpy_total once more for a literal
        for u in range(n_kids):
            size = seg.sizes[u]
            for cls in range(crit.n_classes[t]):
                count = crit.child[u, crit.first[t] + cls]
                crit.terms[used] = count * np.log(count / size) if count > 0 else 0.0
                used += 1
        total -= numpy_total(crit.terms, used)
    return numpy_round(total / (e - s), DECIMALS)


@numba.njit(cache=True, nogil=True, inline="always")
def _may_win(crit: InfoGainArrays, offers: Offers, counts: NDArray[np.int64], position: int,
             m: int) -> bool:  # pragma: no cover - compiled
    """Can this boundary cut be preferred to the best candidate kept so far (``BEST`` mode)?

    The score from the table of logarithms, ``L (log L − log |left|)``, differs from the exact one by far
    less than ``_MARGIN``; a cut whose quick score exceeds the best's by more has an exactly rounded score
    above the best's, and cannot win.  Every other cut is scored exactly.
    """
    if offers.state[MODE] != BEST or offers.state[COUNT] == 0 or offers.tier[0] != 0:
        return True
    logs = crit.logs
    right = m - position
    total = 0.0
    for t in range(len(crit.n_classes)):
        for cls in range(crit.n_classes[t]):
            x = crit.first[t] + cls
            n_left = counts[x]
            n_right = crit.totals[x] - n_left
            total -= n_left * (logs[n_left] - logs[position]) + n_right * (logs[n_right] - logs[right])
    return bool(total / m <= offers.score[0] + _MARGIN)


@numba.njit(cache=True, nogil=True)
def _offer_cut(crit: InfoGainArrays, offers: Offers, j: int, counts: NDArray[np.int64], position: int, m: int,
               tier: int) -> None:  # pragma: no cover - compiled
    """Offer the cut after ``position`` records (``counts`` of each class left of it) in ``tier``."""
    offer(offers, tier, _cut_entropy(crit, counts, position, m), j, position)


@numba.njit(cache=True, nogil=True, inline="always")
def _tier(boundary: bool, position: int, medians: tuple[int, int], m: int, k: int) -> int:  # pragma: no cover
    """0 for a boundary cut, 1 for a median cut that is none, −1 for no candidate (or a side below k)."""
    if position < k or m - position < k:
        return -1
    if boundary:
        return 0
    return 1 if position == medians[0] or position == medians[1] else -1


@numba.njit(cache=True, nogil=True, inline="always")
def _count(crit: InfoGainArrays, counts: NDArray[np.int64], joint: int) -> None:  # pragma: no cover - compiled
    """Count a record of class vector ``joint`` in ``counts`` (per target and class)."""
    for t in range(len(crit.n_classes)):
        counts[crit.first[t] + crit.joint_class[joint, t]] += 1


@numba.njit(cache=True, nogil=True, inline='always')
def infogain_fill(crit: InfoGainArrays, space: KernelSpace, seg: Segments, offers: Offers, s: int, e: int, k: int,
                  strict: bool) -> None:  # pragma: no cover - compiled
    """Boundary cuts and hierarchy splits by weighted entropy, then the median cuts (InfoGainCriterion)."""
    m = e - s
    crit.totals[:] = 0
    for i in range(s, e):
        _count(crit, crit.totals, crit.joint[seg.rows[i]])
    for j in range(len(space.numeric)):
        if not splittable(space, seg, j):
            continue
        c = space.column[j]
        if not space.numeric[j]:
            n_kids = hierarchy_children(space, seg, s, e, c)
            if smallest_child(seg, n_kids) >= k:
                offer_split(offers, _child_entropy(crit, seg, s, e, n_kids), j)
            continue
        crit.counts[:] = 0
        keys = seg.keys[c]
        if not strict:
            medians = (m // 2, m // 2)
            for i in range(m):
                x = keys[s + i]
                if i > 0:
                    tier = _tier(x != keys[s + i - 1], i, medians, m, k)
                    if tier == 1 or tier == 0 and _may_win(crit, offers, crit.counts, i, m):
                        _offer_cut(crit, offers, j, crit.counts, i, m, int(tier))
                _count(crit, crit.counts, x)
            continue
        medians = median_cuts(seg, c, s, e)
        # value groups: the one before the current (purity, class vector) and the current (start, purity, class)
        before_pure = False
        before_class = -1
        start = int(0)  # noqa: UP018 - typed: numba would compile _offer_cut once more for a literal
        pure = True
        joint = keys[s]
        for i in range(m):
            key = keys[s + i]
            if i > 0 and seg.sorted[c, s + i] != seg.sorted[c, s + i - 1]:
                if start > 0:
                    tier = _tier(not (before_pure and pure and before_class == joint), start, medians, m, k)
                    if tier == 1 or tier == 0 and _may_win(crit, offers, crit.pending, start, m):
                        _offer_cut(crit, offers, j, crit.pending, start, m, int(tier))
                before_pure, before_class = pure, joint
                start, pure, joint = i, True, key
                for x in range(len(crit.counts)):
                    crit.pending[x] = crit.counts[x]
            elif key != joint:
                pure = False
            _count(crit, crit.counts, key)
        if start > 0:
            tier = _tier(not (before_pure and pure and before_class == joint), start, medians, m, k)
            if tier == 1 or tier == 0 and _may_win(crit, offers, crit.pending, start, m):
                _offer_cut(crit, offers, j, crit.pending, start, m, int(tier))


class LSDArrays(NamedTuple):
    """The numeric targets of LSD and its work arrays.

    Attributes
    ----------
    values : (t, n) float64 value of every record per target.
    centred : (t, n) float64 per record, its value minus the region's mean.
    flat : (t · n,) float64 a region's values, target by target, for numpy's sums.
    running : (4, t) float64 prefix sums of the centred values and squares, and their totals.
    child : (2, width) float64 per child sums of the centred values and squares.
    terms : (width,) float64 the children's squared errors.
    """

    values: NDArray[np.float64]
    centred: NDArray[np.float64]
    flat: NDArray[np.float64]
    running: NDArray[np.float64]
    child: NDArray[np.float64]
    terms: NDArray[np.float64]


def lsd_arrays(values: NDArray[np.float64], width: int) -> LSDArrays:
    """The arrays of an LSD criterion (its ``values``) for hierarchies ``width`` wide."""
    t, n = values.shape
    wide = max(width, 2)
    return LSDArrays(values=np.ascontiguousarray(values, dtype=np.float64), centred=np.zeros((t, n)),
                     flat=np.zeros(t * n), running=np.zeros((4, t)), child=np.zeros((2, wide)), terms=np.zeros(wide))


@numba.njit(cache=True, nogil=True)
def _centre(crit: LSDArrays, seg: Segments, s: int, e: int) -> float:  # pragma: no cover - compiled
    """Centre the targets on the region's means; the region's summed squares (at least the tiniest float)."""
    m = e - s
    t_count = crit.values.shape[0]
    for t in range(t_count):
        for i in range(m):
            crit.flat[t * m + i] = crit.values[t, seg.rows[s + i]]
        mean = numpy_sum(crit.flat, t * m, m) / m
        for i in range(m):
            r = seg.rows[s + i]
            y = crit.values[t, r] - mean
            crit.centred[t, r] = y
            crit.flat[t * m + i] = y * y
    return max(numpy_total(crit.flat, t_count * m), _TINY)


@numba.njit(cache=True, nogil=True)
def _child_error(crit: LSDArrays, seg: Segments, s: int, e: int, n_kids: int) -> float:  # pragma: no cover - compiled
    """Summed squared error of the hierarchy split whose children are in ``seg.label`` and ``seg.sizes``."""
    total = 0.0
    for t in range(crit.values.shape[0]):
        for u in range(n_kids):
            crit.child[0, u] = 0.0
            crit.child[1, u] = 0.0
        for i in range(s, e):
            r = seg.rows[i]
            y = crit.centred[t, r]
            crit.child[0, seg.label[r]] += y
            crit.child[1, seg.label[r]] += y * y
        for u in range(n_kids):
            s1 = crit.child[0, u]
            crit.terms[u] = crit.child[1, u] - s1 * s1 / float(seg.sizes[u])
        total += numpy_total(crit.terms, n_kids)
    return total


@numba.njit(cache=True, nogil=True, inline='always')
def lsd_fill(crit: LSDArrays, space: KernelSpace, seg: Segments, offers: Offers, s: int, e: int, k: int,
             strict: bool) -> None:  # pragma: no cover - compiled
    """Every distinct-value cut (any cut, relaxed) and every hierarchy split by summed squared error (LSDCriterion)."""
    m = e - s
    t_count = crit.values.shape[0]
    scale = _centre(crit, seg, s, e)
    run = crit.running
    for j in range(len(space.numeric)):
        if not splittable(space, seg, j):
            continue
        c = space.column[j]
        if not space.numeric[j]:
            n_kids = hierarchy_children(space, seg, s, e, c)
            if smallest_child(seg, n_kids) >= k:
                offer_split(offers, numpy_round(_child_error(crit, seg, s, e, n_kids) / scale, DECIMALS), j)
            continue
        run[:, :] = 0.0
        for i in range(m):
            r = seg.order[c, s + i]
            for t in range(t_count):
                y = crit.centred[t, r]
                run[2, t] += y
                run[3, t] += y * y
        for i in range(m):
            r = seg.order[c, s + i]
            sized = i >= k and m - i >= k
            if sized and (not strict or seg.sorted[c, s + i] != seg.sorted[c, s + i - 1]):
                total = 0.0
                for t in range(t_count):
                    l1 = run[0, t]
                    l2 = run[1, t]
                    r1 = run[2, t] - l1
                    r2 = run[3, t] - l2
                    total += l2 - l1 * l1 / float(i) + r2 - r1 * r1 / float(m - i)
                offer_cut(offers, numpy_round(total / scale, DECIMALS), j, i)
            for t in range(t_count):
                y = crit.centred[t, r]
                run[0, t] += y
                run[1, t] += y * y
