"""Population uniques under Pitman's sampling formula, fitted to the sample by maximum likelihood.

Hoshino, "Applying Pitman's sampling formula to microdata disclosure risk
assessment" (Journal of Official Statistics, 2001): the partition of the
sample into classes follows the Ewens-Pitman two-parameter model (theta,
alpha).  With u classes, n records and f_k classes of size k, the likelihood
equations are

    sum_{i=1}^{u-1} 1/(theta + i alpha) - sum_{i=1}^{n-1} 1/(theta + i) = 0
    sum_{i=1}^{u-1} i/(theta + i alpha) - sum_{k>=2} f_k sum_{j=1}^{k-1} 1/(j - alpha) = 0

written here in closed form with digamma functions (so the cost depends on
the number of distinct class sizes, not on n), solved by Newton's method
from the moment-type starting point Hoshino gives.  The expected number of
population uniques in a population of N records is then

    U = Gamma(theta + 1) / Gamma(theta + alpha) * N^alpha.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import digamma, gammaln, polygamma

from anonset.risk.classes import ClassSizes
from anonset.risk.newton import Matrix, Vector, solve2

__all__ = ["pitman_parameters", "pitman_uniques"]


def _start(cs: ClassSizes) -> Vector | None:
    """The moment estimates Newton's method starts from; None when they are undefined (a zero denominator)."""
    n, u = float(cs.n_records), float(cs.n_classes)
    c1 = float(cs.classes_of_size(1))
    c2 = float(cs.classes_of_size(2)) or 1.0  # no pairs: overestimate with one
    c = c1 * (c1 - 1.0) / c2
    denominator = 2.0 * c1 * u + c1 * c - n * c
    if denominator == 0.0:
        return None
    theta = (n * u * c - c1 * (n - 1.0) * (2.0 * u + c)) / denominator
    alpha = (theta * (c1 - n) + (n - 1.0) * c1) / (n * u)
    return theta, alpha


def pitman_parameters(cs: ClassSizes) -> Vector | None:
    """The maximum-likelihood (theta, alpha) of the sample's partition, or None when Newton's method fails."""
    n, u = float(cs.n_records), float(cs.n_classes)
    big = cs.size_values >= 2
    ks = cs.size_values[big].astype(np.float64)
    fk = cs.size_counts[big].astype(np.float64)

    def f(t: float, a: float) -> Vector:
        z = t / a
        s1 = float(digamma(z + u) - digamma(z + 1.0)) / a  # sum_{i<u} 1/(t + i a)
        g1 = s1 - float(digamma(t + n) - digamma(t + 1.0))
        g2 = ((u - 1.0) - t * s1) / a - float(np.sum(fk * (digamma(ks - a) - digamma(1.0 - a))))
        return g1, g2

    def jac(t: float, a: float) -> Matrix:
        z = t / a
        s1 = float(digamma(z + u) - digamma(z + 1.0)) / a
        s2 = float(polygamma(1, z + 1.0) - polygamma(1, z + u)) / (a * a)  # sum 1/(t + i a)^2
        si = (s1 - t * s2) / a  # sum i/(t + i a)^2
        sii = ((u - 1.0) - 2.0 * t * s1 + t * t * s2) / (a * a)  # sum i^2/(t + i a)^2
        dn = float(polygamma(1, t + 1.0) - polygamma(1, t + n))
        dk = float(np.sum(fk * (polygamma(1, 1.0 - a) - polygamma(1, ks - a))))
        return (dn - s2, -si), (-si, -sii - dk)

    def inside(t: float, a: float) -> bool:
        return 0.0 < a < 1.0 and t + a > 0.0

    start = _start(cs)
    return None if start is None else solve2(f, jac, start, inside=inside)


def pitman_uniques(cs: ClassSizes, population_size: float) -> float | None:
    """Estimated population uniques under the Pitman model; None when the fit fails or the result is meaningless.

    None: Newton's method did not converge, alpha is 0 or not below 1, theta + alpha <= 0,
    or the estimate is not a number of records between 0 and the population size.
    """
    if cs.classes_of_size(1) == 0:
        return 0.0
    params = pitman_parameters(cs)
    if params is None:
        return None
    t, a = params
    if not (0.0 < a < 1.0) or t + a <= 0.0:
        return None
    with np.errstate(all="ignore"):
        value = float(np.exp(gammaln(t + 1.0) - gammaln(t + a) + a * math.log(population_size)))
    return value if math.isfinite(value) and 0.0 <= value <= population_size else None
