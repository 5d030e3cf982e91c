"""Newton-Raphson for the two-parameter likelihood and moment equations of the uniqueness models.

One small solver shared by the Pitman and SNB models: it stops when a step
is below ``rtol`` relative to the point, and reports failure (None) on a
singular Jacobian, a non-finite value, or no convergence within
``max_iterations``: a model that does not converge is *not available*, never 0.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["solve2"]

Vector = tuple[float, float]
Matrix = tuple[tuple[float, float], tuple[float, float]]


def solve2(f: Callable[[float, float], Vector], jac: Callable[[float, float], Matrix], start: Vector, *,
           rtol: float = 1e-13, max_iterations: int = 300) -> Vector | None:
    """A root of ``f`` near ``start`` by Newton's method with the Jacobian ``jac``, or None."""
    x, y = start
    with np.errstate(all="ignore"):
        for _ in range(max_iterations):
            fx, fy = f(x, y)
            (a, b), (c, d) = jac(x, y)
            det = a * d - b * c
            if not np.isfinite([fx, fy, a, b, c, d, det]).all() or det == 0.0:
                return None
            dx = (d * fx - b * fy) / det
            dy = (a * fy - c * fx) / det
            x, y = x - dx, y - dy
            if not (np.isfinite(x) and np.isfinite(y)):
                return None
            if abs(dx) <= rtol * (1.0 + abs(x)) and abs(dy) <= rtol * (1.0 + abs(y)):
                return x, y
    return None
