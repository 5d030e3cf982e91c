"""MDAV microaggregation: groups of k nearby records, each record's values replaced by its group's mean.

MDAV (maximum distance to average vector; Domingo-Ferrer and Mateo-Sanz,
"Practical data-oriented microaggregation for statistical disclosure
control", IEEE TKDE 14(1), 2002) repeats, while at least 2k records are
left: the record farthest from the centroid of the records left (r), then
the record farthest from r (s); the k records nearest to r form a group, and
the k nearest to s (of those left) another.  When fewer than 3k but at least
2k records are left, only r's group is formed; the last records (k to 2k − 1)
form the last group.

This is the variant sdcMicro runs (``mdav``, its compiled ``Mdav``), rule for
rule, so its groups and means are sdcMicro's:

* distances are squared differences, each attribute divided by its variance
  (the population variance of its values), summed in single precision; a
  value missing on one side only adds the attribute's squared range (over
  its variance);
* r is the first record (in table order) strictly farthest from the
  centroid; s is the first strictly farthest from r, found in the same pass
  as the distances to r (before r's group leaves);
* the k nearest are taken in the order of a 65,536-bucket sort of the
  distances (records of one bucket in ascending distance, a record tied with
  the bucket's first placed before it), so ties go as sdcMicro's do;
* a group's mean is over the values it holds (a missing value stays
  missing in the release); the last group's sum is divided by its records.

Differences from sdcMicro: a missing value is NaN (sdcMicro codes it −999
and so also takes a real −999 for missing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Microaggregation", "mdav"]

_BUCKETS = 1 << 16


@dataclass(frozen=True)
class Microaggregation:
    """The groups (``group[i]``: record i's, numbered in the order they formed) and the released values."""

    group: NDArray[np.int64]
    values: NDArray[np.float64]

    @property
    def sizes(self) -> NDArray[np.int64]:
        """Records per group."""
        return np.bincount(self.group).astype(np.int64)


def mdav(values: NDArray[np.float64], k: int) -> Microaggregation:
    """MDAV over the columns of ``values`` ((n, p) numbers, NaN missing) with groups of ``k`` (the last up to 2k − 1).

    Raises
    ------
    ValueError
        ``k`` below 1 or above the records.
    """
    x = np.ascontiguousarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("mdav takes an (n, p) array of numbers")
    n = len(x)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the {n} records, not {k}")
    missing = np.isnan(x)
    weight, missing_distance = _weights(x, missing)
    group, out = _mdav(np.where(missing, 0.0, x), missing, weight, missing_distance, k)
    out[missing] = np.nan
    return Microaggregation(group, out)


@numba.njit(cache=True, nogil=True)
def _weights(x: NDArray[np.float64], missing: NDArray[np.bool_]) -> tuple[NDArray[np.float64],
                                                                            NDArray[np.float32]]:  # pragma: no cover
    """Per attribute: 1 / its population variance (1 when it is 0), and the squared range over it (single)."""
    n, p = x.shape
    weight = np.ones(p)
    span = np.zeros(p, dtype=np.float32)
    for j in range(p):
        mean = 0.0
        squares = 0.0
        count = 0
        low = 0.0
        high = 0.0
        for i in range(n):
            if missing[i, j]:
                continue
            v = x[i, j]
            if count == 0:
                low = v
                high = v
            else:
                low = min(low, v)
                high = max(high, v)
            count += 1
            mean += v
            squares += v * v
        if count:
            mean /= count
            squares /= count
        variance = squares - mean * mean
        if variance != 0.0:
            weight[j] /= variance
        span[j] = np.float32((high - low) * (high - low) * weight[j])
    return weight, span


@numba.njit(cache=True, nogil=True, inline="always")
def _distance(x: NDArray[np.float64], missing: NDArray[np.bool_], i: int, centre: NDArray[np.float64],
              centre_missing: NDArray[np.bool_], weight: NDArray[np.float64],
              span: NDArray[np.float32]) -> np.float32:  # pragma: no cover - compiled
    """Single-precision weighted squared distance of record i to ``centre``, sdcMicro's way."""
    d = np.float32(0.0)
    for j in range(x.shape[1]):
        if missing[i, j] != centre_missing[j]:
            d += span[j]
        else:
            diff = x[i, j] - centre[j]
            d += np.float32(diff * diff * weight[j])
    return d


@numba.njit(cache=True, nogil=True)
def _mdav(x: NDArray[np.float64], missing: NDArray[np.bool_], weight: NDArray[np.float64], span: NDArray[np.float32],
          k: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:  # pragma: no cover - compiled
    """The groups and the group means (missing cells filled later), as sdcMicro's compiled MDAV forms them."""
    n, p = x.shape
    group = np.full(n, -1, dtype=np.int64)
    out = np.zeros((n, p))
    nxt = np.empty(n, dtype=np.int64)  # the records left, as a doubly linked list in table order
    prv = np.empty(n, dtype=np.int64)
    for i in range(n):
        nxt[i] = i + 1 if i + 1 < n else -1
        prv[i] = i - 1
    first = int(0)  # noqa: UP018 - typed, not a literal (a literal compiles _centroid once more)
    left = n
    dist = np.zeros(n, dtype=np.float32)
    in_bucket = np.empty(n, dtype=np.int64)
    head = np.empty(_BUCKETS, dtype=np.int64)
    centre = np.zeros(p)
    centre_missing = np.zeros(p, dtype=np.bool_)
    held = np.zeros(p, dtype=np.int64)
    row = np.zeros(p)
    row_missing = np.zeros(p, dtype=np.bool_)
    groups = 0
    while left - k >= k:
        rounds = 1 if left - 2 * k < k else 2
        _centroid(x, missing, nxt, first, centre, centre_missing, held, int(-1))  # noqa: UP018 - typed, not a literal: one compilation
        far = first
        i = first
        while i >= 0:
            dist[i] = _distance(x, missing, i, centre, centre_missing, weight, span)
            if dist[i] > dist[far]:
                far = i
            i = nxt[i]
        for _ in range(rounds):
            for j in range(p):
                row[j] = x[far, j]
                row_missing[j] = missing[far, j]
            farthest = first
            closest = first
            i = first
            while i >= 0:
                dist[i] = _distance(x, missing, i, row, row_missing, weight, span)
                if dist[i] > dist[farthest]:
                    farthest = i
                elif dist[i] < dist[closest]:
                    closest = i
                i = nxt[i]
            far = farthest
            low = dist[closest]
            width = dist[farthest] - low
            if width == 0:
                width += np.float32(1.0)
            width = np.float32(np.float64(width) * ((_BUCKETS + 1.0) / _BUCKETS))
            head[:] = -1
            i = first
            while i >= 0:
                d = dist[i]
                b = int(np.float32(_BUCKETS) * (d - low) / width)
                at = head[b]
                if at >= 0 and dist[at] < d:
                    while in_bucket[at] >= 0 and dist[in_bucket[at]] < d:
                        at = in_bucket[at]
                    in_bucket[i] = in_bucket[at]
                    in_bucket[at] = i
                else:
                    in_bucket[i] = at
                    head[b] = i
                i = nxt[i]
            members = np.empty(k, dtype=np.int64)
            taken = 0
            for b in range(_BUCKETS):
                at = head[b]
                while at >= 0 and taken < k:
                    members[taken] = at
                    taken += 1
                    at = in_bucket[at]
                if taken >= k:
                    break
            centre[:] = 0.0
            held[:] = 0
            for m in members:
                for j in range(p):
                    if not missing[m, j]:
                        centre[j] += x[m, j]
                        held[j] += 1
            for m in members:
                for j in range(p):
                    out[m, j] = centre[j] / held[j] if held[j] else np.nan
                group[m] = groups
                if first == m:
                    first = nxt[m]
                if prv[m] >= 0:
                    nxt[prv[m]] = nxt[m]
                if nxt[m] >= 0:
                    prv[nxt[m]] = prv[m]
            groups += 1
        left -= k * rounds
    if left:
        _centroid(x, missing, nxt, first, centre, centre_missing, held, left)
        i = first
        while i >= 0:
            for j in range(p):
                out[i, j] = np.nan if centre_missing[j] else centre[j]
            group[i] = groups
            i = nxt[i]
    return group, out


@numba.njit(cache=True, nogil=True)
def _centroid(x: NDArray[np.float64], missing: NDArray[np.bool_], nxt: NDArray[np.int64], first: int,
              centre: NDArray[np.float64], centre_missing: NDArray[np.bool_], held: NDArray[np.int64],
              divide_by: int) -> None:  # pragma: no cover - compiled
    """The mean of the records left, per attribute over the values held (``divide_by`` > 0: over that many)."""
    p = x.shape[1]
    centre[:] = 0.0
    held[:] = 0
    i = first
    while i >= 0:
        for j in range(p):
            if not missing[i, j]:
                centre[j] += x[i, j]
                held[j] += 1
        i = nxt[i]
    for j in range(p):
        centre_missing[j] = held[j] == 0
        if held[j]:
            centre[j] /= divide_by if divide_by > 0 else held[j]
