"""Compiled (numba) floor of violating records of groups whose share of a sensitive value is too high.

One pass over each group's histogram, without the (groups x values)
temporaries of the numpy formula: the full-domain search asks for it at
every node it checks.  The formula is
:meth:`anonset.privacy.frequencies.ValueFrequencyModel.excess_floor`'s.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["excess_floor_rows"]


@numba.njit(cache=True, nogil=True)
def excess_floor_rows(histograms: NDArray[np.int64],
                      limits: NDArray[np.float64]) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Per row: the largest ``(A − t·N) / (1 − t)`` over single values and over the set of the values held above
    their limit (A and t summed over it), where ``t < 1``; rounded up past 1e-6, >= 0.

    ``histograms`` holds each group's count ``A`` of every value (``N`` is
    the row's sum); ``limits`` each value's largest share ``t``, widened
    already.
    """
    c, m = histograms.shape
    out = np.zeros(c, dtype=np.int64)
    for i in range(c):
        n = 0.0
        for j in range(m):
            n += histograms[i, j]
        best = 0.0
        over = 0.0  # the values held above their limit, taken together: their excess and their limits
        over_limit = 0.0
        for j in range(m):
            t = limits[j]
            if t < 1.0:
                excess = (histograms[i, j] - t * n) / (1.0 - t)
                if excess > best:
                    best = excess
            if histograms[i, j] > t * n:
                over += histograms[i, j] - t * n
                over_limit += t
        if over_limit < 1.0:
            together = over / (1.0 - over_limit)
            if together > best:
                best = together
        if best > 0.0:
            out[i] = max(math.ceil(best - 1e-6), 0)
    return out
