"""Candidate splits of one region and their order of preference, for the compiled Mondrian path (numba).

A criterion's fill function (:mod:`anonset.methods.mondrian.compiled.fill`) *offers*
each candidate split of a region with its key ``(tier, score, attribute,
imbalance, −position)``, compared lexicographically exactly as the Python
reference ranks candidates (:class:`anonset.methods.mondrian.criteria._Ranking`):
the imbalance of a cut at ``position`` of a region of ``m`` records is
``|2 · position − m|``; a hierarchy split has position 0 (it is the only
candidate of its attribute, so its imbalance never decides).

:class:`Offers` keeps either the best candidate only (``state[MODE] == BEST``,
no memory per candidate: what Mondrian needs when the first candidate is
allowable, always so under k-anonymity alone) or every candidate
(``EVERY``), which :func:`heapify` and :func:`pop` then hand out best first
(:func:`before` compares two).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["BEST", "COUNT", "EVERY", "MODE", "SIZE", "Offers", "before", "heapify", "keep_best", "keep_every",
           "new_offers", "offer", "offer_cut", "offer_split", "pop"]

#: Slots of :attr:`Offers.state`: candidates offered, mode, records of the region.
COUNT, MODE, SIZE = 0, 1, 2
#: Modes: keep the best candidate only, or every candidate.
BEST, EVERY = 0, 1


class Offers(NamedTuple):
    """Candidates of one region.

    Attributes
    ----------
    tier, attribute, position : (capacity,) int64 per candidate.
    score : (capacity,) float64 per candidate.
    heap : (capacity,) int64 candidate indices, a binary heap after :func:`heapify`.
    state : (4,) int64 ``COUNT`` (candidates offered, possibly more than the capacity), ``MODE``,
        ``SIZE`` (records of the region), and the heap's length.
    """

    tier: NDArray[np.int64]
    score: NDArray[np.float64]
    attribute: NDArray[np.int64]
    position: NDArray[np.int64]
    heap: NDArray[np.int64]
    state: NDArray[np.int64]


@numba.njit(cache=True, nogil=True)
def new_offers(capacity: int) -> Offers:  # pragma: no cover - compiled
    """Room for ``capacity`` candidates."""
    return Offers(np.zeros(capacity, dtype=np.int64), np.zeros(capacity), np.zeros(capacity, dtype=np.int64),
                  np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.int64),
                  np.zeros(4, dtype=np.int64))


@numba.njit(cache=True, nogil=True)
def keep_best(offers: Offers, m: int) -> None:  # pragma: no cover - compiled
    """Forget the candidates and keep the best one only, for a region of m records."""
    offers.state[COUNT] = 0
    offers.state[MODE] = BEST
    offers.state[SIZE] = m
    offers.state[3] = 0


@numba.njit(cache=True, nogil=True)
def keep_every(offers: Offers, m: int) -> None:  # pragma: no cover - compiled
    """Forget the candidates and keep every one, for a region of m records."""
    offers.state[COUNT] = 0
    offers.state[MODE] = EVERY
    offers.state[SIZE] = m
    offers.state[3] = 0


@numba.njit(cache=True, nogil=True)
def before(offers: Offers, a: int, b: int) -> bool:  # pragma: no cover - compiled
    """Is candidate a preferred to candidate b?"""
    if offers.tier[a] != offers.tier[b]:
        return bool(offers.tier[a] < offers.tier[b])
    if offers.score[a] != offers.score[b]:
        return bool(offers.score[a] < offers.score[b])
    if offers.attribute[a] != offers.attribute[b]:
        return bool(offers.attribute[a] < offers.attribute[b])
    m = offers.state[SIZE]
    imbalance_a = abs(2 * offers.position[a] - m)
    imbalance_b = abs(2 * offers.position[b] - m)
    if imbalance_a != imbalance_b:
        return bool(imbalance_a < imbalance_b)
    return bool(offers.position[a] > offers.position[b])


@numba.njit(cache=True, nogil=True)
def offer(offers: Offers, tier: int, score: float, attribute: int, position: int) -> None:  # pragma: no cover
    """One candidate: a cut after ``position`` records of ``attribute``'s order, or its hierarchy split (0)."""
    count = offers.state[COUNT]
    capacity = len(offers.tier)
    slot = count
    if offers.state[MODE] == BEST:
        slot = 1 if count else 0  # slot 1 holds the newcomer, slot 0 the best so far
    elif count >= capacity:
        offers.state[COUNT] = count + 1  # counted only: the caller makes room and offers again
        return
    offers.tier[slot] = tier
    offers.score[slot] = score
    offers.attribute[slot] = attribute
    offers.position[slot] = position
    if offers.state[MODE] == BEST:
        if slot == 1 and before(offers, slot, slot - 1):  # variables: a literal would compile before() again
            offers.tier[0] = tier
            offers.score[0] = score
            offers.attribute[0] = attribute
            offers.position[0] = position
        offers.state[COUNT] = 1
        return
    offers.state[COUNT] = count + 1


@numba.njit(cache=True, nogil=True)
def _sift_down(offers: Offers, i: int, n: int) -> None:  # pragma: no cover - compiled
    heap = offers.heap
    while True:
        best = i
        left = 2 * i + 1
        right = left + 1
        if left < n and before(offers, heap[left], heap[best]):
            best = left
        if right < n and before(offers, heap[right], heap[best]):
            best = right
        if best == i:
            return
        heap[i], heap[best] = heap[best], heap[i]
        i = best


@numba.njit(cache=True, nogil=True)
def heapify(offers: Offers) -> None:  # pragma: no cover - compiled
    """Order every offered candidate (``EVERY`` mode, all within capacity) for :func:`pop`."""
    n = offers.state[COUNT]
    for i in range(n):
        offers.heap[i] = i
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(offers, i, n)
    offers.state[3] = n


@numba.njit(cache=True, nogil=True)
def pop(offers: Offers) -> int:  # pragma: no cover - compiled
    """The best candidate not yet popped (its index), or −1 when none is left."""
    n = offers.state[3]
    if n == 0:
        return -1
    top = offers.heap[0]
    n -= 1
    offers.heap[0] = offers.heap[n]
    offers.state[3] = n
    _sift_down(offers, n - n, n)  # a typed zero: a literal would compile _sift_down again
    return int(top)


@numba.njit(cache=True, nogil=True)
def offer_cut(offers: Offers, score: float, attribute: int, position: int) -> None:  # pragma: no cover - compiled
    """A cut in the first tier (every criterion's cuts but InfoGain's median fallback)."""
    offer(offers, int(0), score, attribute, position)  # noqa: UP018 - see offer_split


@numba.njit(cache=True, nogil=True)
def offer_split(offers: Offers, score: float, attribute: int) -> None:  # pragma: no cover - compiled
    """The hierarchy split of a categorical attribute (first tier, position 0).

    These wrappers call :func:`offer` with typed zeros: for a literal argument numba would compile it again.
    """
    offer(offers, int(0), score, attribute, int(0))  # noqa: UP018 - a typed zero, not a literal
