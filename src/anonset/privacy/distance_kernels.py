"""Compiled (numba) earth mover's distances of class histograms to the table's distribution.

The equal and ordered ground distances of t-closeness (Li, Li and
Venkatasubramanian), per class, without the (classes x values) temporaries
the numpy formulas allocate: the full-domain search judges thousands of
nodes, each with thousands of classes.  Same formulas and the same
definitions as :func:`anonset.privacy.tcloseness.emd`; sums run in value
order, so a distance may differ from numpy's pairwise sum in the last bits,
far below the tolerance the verdict allows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["equal_emd", "ordered_emd"]


@numba.njit(cache=True, nogil=True)
def equal_emd(histograms: NDArray[np.int64], reference: NDArray[np.float64]) -> NDArray[np.float64]:  # pragma: no cover
    """Half the L1 distance of each row's distribution (counts) to ``reference``."""
    c, m = histograms.shape
    out = np.empty(c, dtype=np.float64)
    for i in range(c):
        n = 0.0
        for j in range(m):
            n += histograms[i, j]
        n = max(n, 1.0)
        total = 0.0
        for j in range(m):
            total += abs(histograms[i, j] / n - reference[j])
        out[i] = 0.5 * total
    return out


@numba.njit(cache=True, nogil=True)
def ordered_emd(histograms: NDArray[np.int64],
                reference: NDArray[np.float64]) -> NDArray[np.float64]:  # pragma: no cover
    """Sum of the absolute cumulative differences over the first m - 1 values, divided by m - 1."""
    c, m = histograms.shape
    out = np.zeros(c, dtype=np.float64)
    if m <= 1:
        return out
    for i in range(c):
        n = 0.0
        for j in range(m):
            n += histograms[i, j]
        n = max(n, 1.0)
        running = 0.0
        total = 0.0
        for j in range(m - 1):
            running += histograms[i, j] / n - reference[j]
            total += abs(running)
        out[i] = total / (m - 1)
    return out
