"""Population uniques by Zayatz's method: how likely a sample unique is a population unique.

Zayatz, "Estimation of the percent of unique population elements on a
microdata file using the sample" (US Census Bureau, 1991).  The distribution
of population class sizes is estimated by that of the sample (a class has
size j with probability f_j / u); a class of population size j yields a
sample unique with the hypergeometric probability h_j = P(1 of j drawn) when
n of N records are sampled.  The probability that a sample unique is a
population unique is

    P = (f_1/u) h_1 / sum_j (f_j/u) h_j,

and the population uniques are estimated as f_1 P / pi, with pi = n / N.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import hypergeom

from anonset.risk.classes import ClassSizes

__all__ = ["zayatz_uniques"]


def zayatz_uniques(cs: ClassSizes, population_size: float) -> float | None:
    """Estimated population uniques by Zayatz's method; None when it is not a finite number."""
    f1 = cs.classes_of_size(1)
    if f1 == 0:
        return 0.0
    n = cs.n_records
    big_n = round(population_size)
    with np.errstate(all="ignore"):
        logh = hypergeom.logpmf(1, big_n, cs.size_values, n)
        weights = cs.size_counts * np.exp(logh - logh[0])  # relative to h_1 (size_values[0] == 1 here)
        p_unique = f1 / float(np.sum(weights))
    value = f1 * p_unique * population_size / n
    return value if math.isfinite(value) and 0.0 <= value <= population_size else None
