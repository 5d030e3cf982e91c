"""Additive noise and top/bottom coding of numeric attributes (seeded noise; sdcMicro's definitions).

* :func:`add_noise` — ``"additive"``: each attribute gets independent normal
  noise whose standard deviation is ``noise`` percent of the attribute's
  (sdcMicro's ``addNoise(method = "additive")``, default 150);
  ``"correlated"``: multivariate normal noise whose covariance is ``noise``
  percent of the attributes' covariance over the complete records, so the
  correlations are kept in expectation (``method = "correlated"``).  A
  missing value stays missing.  The draws come from a numpy generator seeded
  by the caller (sdcMicro draws with R's, so the two give different records).
* :func:`top_code` / :func:`bottom_code` — values above (below) a bound
  replaced by a given value (``topBotCoding``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["add_noise", "bottom_code", "top_code"]


def add_noise(values: NDArray[np.float64], rng: np.random.Generator, noise: float = 150.0,
              method: Literal["additive", "correlated"] = "additive") -> NDArray[np.float64]:
    """``values`` ((n, p), NaN missing) plus normal noise of ``noise`` percent of each attribute's spread.

    Raises
    ------
    ValueError
        A negative ``noise``, an unknown method, or fewer than two complete records for "correlated".
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("add_noise takes an (n, p) array of numbers")
    if noise < 0:
        raise ValueError(f"noise is a percentage of the spread, at least 0; got {noise}")
    n, p = x.shape
    if method == "additive":
        spread = np.nanstd(x, axis=0, ddof=1) * noise / 100
        noisy: NDArray[np.float64] = x + rng.normal(size=(n, p)) * spread
        return noisy
    if method == "correlated":
        complete = x[~np.isnan(x).any(axis=1)]
        if len(complete) < 2:
            raise ValueError("correlated noise needs at least two records holding every attribute")
        covariance = np.atleast_2d(np.cov(complete, rowvar=False)) * noise / 100
        return x + rng.multivariate_normal(np.zeros(p), covariance, size=n, method="eigh")
    raise ValueError(f"method must be 'additive' or 'correlated', not {method!r}")


def top_code(values: NDArray[np.float64], bound: float, replacement: float) -> NDArray[np.float64]:
    """``values`` with every value above ``bound`` replaced by ``replacement``."""
    x = np.array(values, dtype=np.float64)
    x[x > bound] = replacement
    return x


def bottom_code(values: NDArray[np.float64], bound: float, replacement: float) -> NDArray[np.float64]:
    """``values`` with every value below ``bound`` replaced by ``replacement``."""
    x = np.array(values, dtype=np.float64)
    x[x < bound] = replacement
    return x
