"""Floating-point sums and rounding in numpy's order, for the compiled Mondrian path (numba).

The compiled path must take the same floating-point decisions as the numpy
reference (:mod:`anonset.methods.mondrian.criteria` and the privacy models),
so where the reference reduces an array with numpy, the kernel adds the same
numbers in the same order:

- ``ndarray.sum`` (and ``mean``) along a contiguous axis: numpy's pairwise
  summation (eight accumulators, halving above 128 values) over blocks of
  its buffer size, 8,192 values, the block sums added in order
  (:func:`numpy_sum`);
- ``cumsum``, ``bincount`` with weights and sums across rows: one value after
  the other (plain loops in the kernels);
- ``np.round(x, decimals)``: ``rint(x * 10**decimals) / 10**decimals``
  (:func:`numpy_round`).

The logarithm is the C library's in both (numpy calls it for float64 unless
the processor has AVX-512, where numpy uses its own; see
:mod:`anonset.methods.mondrian.compiled.paths`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["BUFFER", "numpy_round", "numpy_sum", "numpy_total"]

#: numpy's default buffer size: a reduction adds blocks of this many values, each pairwise.
BUFFER = 8192


@numba.njit(cache=True, nogil=True)
def _pairwise(a: NDArray[np.float64], lo: int, n: int) -> float:  # pragma: no cover - compiled
    """numpy's pairwise sum of ``a[lo:lo + n]`` (``pairwise_sum_DOUBLE``)."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = 8
        while i < n - n % 8:
            r0 += a[lo + i]
            r1 += a[lo + i + 1]
            r2 += a[lo + i + 2]
            r3 += a[lo + i + 3]
            r4 += a[lo + i + 4]
            r5 += a[lo + i + 5]
            r6 += a[lo + i + 6]
            r7 += a[lo + i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return float(res)
    half = n // 2
    half -= half % 8
    return float(_pairwise(a, lo, half) + _pairwise(a, lo + half, n - half))


@numba.njit(cache=True, nogil=True)
def numpy_sum(a: NDArray[np.float64], lo: int, n: int) -> float:  # pragma: no cover - compiled
    """``a[lo:lo + n].sum()`` exactly as numpy adds a contiguous float64 run."""
    total = 0.0
    done = 0
    while done < n:
        block = min(BUFFER, n - done)
        total += _pairwise(a, lo + done, block)
        done += block
    return total


@numba.njit(cache=True, nogil=True)
def numpy_total(a: NDArray[np.float64], n: int) -> float:  # pragma: no cover - compiled
    """``a[:n].sum()`` exactly as numpy adds it.

    (``numpy_sum`` from a typed zero: numba compiles a function once more for each literal argument.)
    """
    return float(numpy_sum(a, int(0), n))  # noqa: UP018 - a typed zero, not a literal


@numba.njit(cache=True, nogil=True)
def numpy_round(x: float, decimals: int) -> float:  # pragma: no cover - compiled
    """``np.round(x, decimals)`` for ``decimals`` >= 0."""
    scale = 10.0**decimals
    return float(np.rint(x * scale) / scale)
