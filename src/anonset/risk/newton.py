"""Newton-Raphson for the two-parameter likelihood and moment equations of the uniqueness models.

One small solver shared by the Pitman and SNB models.  Each Newton step is
damped: halved until the new point lies in the model's parameter domain
(``inside``) and the squared residual does not grow (past ten halvings,
any finite point inside the domain is taken), so a far starting point
does not jump to a root outside the model.  It stops when a step is below
``rtol`` relative to the point, and reports failure (None) on a singular
Jacobian, a non-finite value, a step that cannot be damped into the domain,
or no convergence within ``max_iterations``: a model that does not converge
is *not available*, never 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["solve2"]

Vector = tuple[float, float]
Matrix = tuple[tuple[float, float], tuple[float, float]]

#: Halvings of one Newton step before giving up.
_MAX_HALVINGS = 60


def _everywhere(x: float, y: float) -> bool:
    return True


def solve2(f: Callable[[float, float], Vector], jac: Callable[[float, float], Matrix], start: Vector, *,
           inside: Callable[[float, float], bool] = _everywhere, rtol: float = 1e-13,
           max_iterations: int = 300) -> Vector | None:
    """A root of ``f`` near ``start`` (inside the domain) by damped Newton steps with the Jacobian ``jac``, or None."""
    x, y = start
    if not inside(x, y):
        return None
    with np.errstate(all="ignore"):
        fx, fy = f(x, y)
        for _ in range(max_iterations):
            (a, b), (c, d) = jac(x, y)
            det = a * d - b * c
            if not np.isfinite([fx, fy, a, b, c, d, det]).all() or det == 0.0:
                return None
            dx = (d * fx - b * fy) / det
            dy = (a * fy - c * fx) / det
            merit = fx * fx + fy * fy
            step = 1.0
            for _ in range(_MAX_HALVINGS):
                nx, ny = x - step * dx, y - step * dy
                if math.isfinite(nx) and math.isfinite(ny) and inside(nx, ny):
                    gx, gy = f(nx, ny)
                    if math.isfinite(gx) and math.isfinite(gy) and (gx * gx + gy * gy <= merit or step < 1e-3):
                        break
                step /= 2.0
            else:
                return None
            x, y, fx, fy = nx, ny, gx, gy
            if abs(step * dx) <= rtol * (1.0 + abs(x)) and abs(step * dy) <= rtol * (1.0 + abs(y)):
                return x, y
    return None
