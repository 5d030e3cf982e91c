"""Population uniques under the slide negative binomial (SNB) model, fitted by the method of moments.

Chen and McNulty, "Estimation of the number of population uniques from sample
data" (and the slide negative binomial model it uses): each of the K
non-empty population classes has size 1 + G with G negative binomial (a, b),
so a class is unique with probability b^a and the population holds K b^a
uniques.  Sampling each record with probability pi (a binomial thinning), a
class appears in the sample with one record with probability

    P1 = pi (b/W)^a (1 + a D / W)

and with two with probability

    P2 = pi^2 a (1 - b) b^a (2 - (1 - a) D) / (2 W^(a + 2)),

where D = (1 - pi)(1 - b) and W = 1 - D.  K is estimated by Shlosser's
estimator of the number of distinct values (Haas, Naughton, Seshadri and
Stokes, "Sampling-based estimation of the number of distinct values of an
attribute"); (a, b) solve K P1 = f_1 and K P2 = f_2 by Newton's method.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from anonset.risk.classes import ClassSizes
from anonset.risk.newton import Matrix, Vector, solve2

__all__ = ["shlosser_classes", "snb_parameters", "snb_uniques"]

#: Starting points for Newton's method, tried in turn.
_STARTS: tuple[Vector, ...] = ((1.0, 0.5), (0.5, 0.2), (2.0, 0.8), (0.1, 0.05), (5.0, 0.95))


def shlosser_classes(cs: ClassSizes, sampling_fraction: float) -> float:
    """Shlosser's estimate of the number of non-empty population classes K."""
    q = sampling_fraction
    j = cs.size_values.astype(np.float64)
    fj = cs.size_counts.astype(np.float64)
    f1 = float(cs.classes_of_size(1))
    if q >= 1.0 or f1 == 0.0:
        return float(cs.n_classes)
    num1 = np.sum(j * q * q * (1.0 - q * q) ** (j - 1.0) * fj)
    den1 = np.sum(((1.0 - q * q) ** j - (1.0 - q) ** j) * fj)  # (1-q)^j ((1+q)^j - 1), without overflow
    num2 = np.sum((1.0 - q) ** j * fj)
    den2 = np.sum(j * q * (1.0 - q) ** (j - 1.0) * fj)
    return float(cs.n_classes + f1 * (num1 / den1) * (num2 / den2) ** 2)


def _equations(k: float, pi: float, c1: float, c2: float) -> tuple[Callable[[float, float], Vector],
                                                                   Callable[[float, float], Matrix]]:
    def f(a: float, b: float) -> Vector:
        if not (a > 0.0 and 0.0 < b < 1.0):  # outside the model: Newton's method stops there
            return math.nan, math.nan
        d = (1.0 - pi) * (1.0 - b)
        w = 1.0 - d
        p1 = pi * (b / w) ** a * (1.0 + a * d / w)
        p2 = pi * pi * a * (1.0 - b) * b ** a * (2.0 - (1.0 - a) * d) / (2.0 * w ** (a + 2.0))
        return k * p1 - c1, k * p2 - c2

    def jac(a: float, b: float) -> Matrix:
        # central differences: the functions are smooth and cheap, and two parameters need four calls
        ha, hb = 1e-7 * max(1.0, abs(a)), 1e-7 * max(1e-3, abs(b))
        fa1, fa2 = f(a + ha, b)
        fa3, fa4 = f(a - ha, b)
        fb1, fb2 = f(a, b + hb)
        fb3, fb4 = f(a, b - hb)
        return ((fa1 - fa3) / (2 * ha), (fb1 - fb3) / (2 * hb)), ((fa2 - fa4) / (2 * ha), (fb2 - fb4) / (2 * hb))

    return f, jac


def snb_parameters(cs: ClassSizes, sampling_fraction: float) -> tuple[float, float, float] | None:
    """(K, a, b) of the SNB fit, or None when no starting point converges to a > 0, 0 < b < 1."""
    k = shlosser_classes(cs, sampling_fraction)
    f, jac = _equations(k, sampling_fraction, float(cs.classes_of_size(1)), float(cs.classes_of_size(2)))
    for start in _STARTS:
        root = solve2(f, jac, start, inside=lambda a, b: a > 0.0 and 0.0 < b < 1.0, rtol=1e-12)
        if root is not None and root[0] > 0.0 and 0.0 < root[1] < 1.0:
            return k, root[0], root[1]
    return None


def snb_uniques(cs: ClassSizes, sampling_fraction: float, population_size: float) -> float | None:
    """Estimated population uniques K b^a under the SNB model; None when the fit fails."""
    if cs.classes_of_size(1) == 0:
        return 0.0
    params = snb_parameters(cs, sampling_fraction)
    if params is None:
        return None
    k, a, b = params
    value = k * b ** a
    return value if math.isfinite(value) and 0.0 <= value <= population_size else None
