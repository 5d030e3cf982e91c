"""Information loss of perturbed numeric data: IL1s, the eigenvalue difference, and the change in means and covariances.

What sdcMicro's ``dUtility`` reports for a masked file, computed from the
original and the released values:

* ``il1s`` — the sum over cells of ``|x − x'| / (sd(x) √2)`` (sd: the
  original attribute's sample standard deviation; a missing cell is left out);
* ``eigen`` — ``Σ |e − e'| / e`` over the eigenvalues (largest first) of
  the covariance matrices of the standardized original and released data
  (each attribute centred and divided by its standard deviation over the
  values it holds; covariances over the pairwise complete records);
* ``means``, ``covariances`` — the largest relative change of a mean, and of
  a covariance, from the original to the release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.risk.perturbed import paired_values

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["perturbation_loss"]


def perturbation_loss(original: NDArray[np.float64], released: NDArray[np.float64]) -> dict[str, float]:
    """``il1s``, ``eigen``, ``means`` and ``covariances`` of a release against the original (both (n, p))."""
    x, xm = paired_values(original, released)
    spread = np.nanstd(x, axis=0, ddof=1) * np.sqrt(2)
    il1s = float(np.nansum(np.abs(x - xm) / spread))
    before, after = pd.DataFrame(x), pd.DataFrame(xm)
    e1 = np.linalg.eigvalsh(_standardized(before).cov().to_numpy())[::-1]
    e2 = np.linalg.eigvalsh(_standardized(after).cov().to_numpy())[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        eigen = float(np.sum(np.abs(e1 - e2) / e1))
        means = float(np.nanmax(np.abs(after.mean().to_numpy() / before.mean().to_numpy() - 1)))
        cov_before, cov_after = before.cov().to_numpy(), after.cov().to_numpy()
        covariances = float(np.nanmax(np.abs(cov_after - cov_before) / np.abs(cov_before)))
    return {"il1s": il1s, "eigen": eigen, "means": means, "covariances": covariances}


def _standardized(frame: pd.DataFrame) -> pd.DataFrame:
    """Each column centred and divided by its sample standard deviation, over the values it holds."""
    return (frame - frame.mean()) / frame.std(ddof=1)
