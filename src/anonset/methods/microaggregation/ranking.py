"""Individual ranking: univariate microaggregation, each attribute grouped on its own.

For each attribute the records are sorted by its value (ties in table order)
and cut into consecutive groups of k; when k does not divide the records,
the last group takes the remainder (k + 1 to 2k − 1 records).  Each value is
replaced by its group's mean (or median).  This is sdcMicro's
``microaggregation(method = "onedims")``; its groups need not coincide across
attributes, so the release is k-anonymous on each attribute alone, not on
their combination.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["individual_ranking"]


def individual_ranking(values: NDArray[np.float64], k: int,
                       measure: Literal["mean", "median"] = "mean") -> NDArray[np.float64]:
    """Each column of ``values`` ((n, p) numbers, none missing) replaced by the mean or median of its rank group.

    Raises
    ------
    ValueError
        A missing value, ``k`` below 1, or fewer than 2k records (sdcMicro's rule).
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("individual ranking takes an (n, p) array of numbers")
    n = len(x)
    if np.isnan(x).any():
        raise ValueError("individual ranking takes no missing values")
    if k < 1 or n < 2 * k:
        raise ValueError(f"individual ranking needs k >= 1 and at least 2k records; got k = {k}, {n} records")
    groups = n // k
    out = np.empty_like(x)
    rank_group = np.minimum(np.arange(n) // k, groups - 1)
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        ordered = x[order, j]
        if measure == "mean":
            centre = np.bincount(rank_group, weights=ordered) / np.bincount(rank_group)
        elif measure == "median":
            starts = np.flatnonzero(np.r_[True, rank_group[1:] != rank_group[:-1]])
            centre = np.array([np.median(part) for part in np.split(ordered, starts[1:])])
        else:
            raise ValueError(f"measure must be 'mean' or 'median', not {measure!r}")
        out[order, j] = centre[rank_group]
    return out
