"""Disclosure risk of perturbed numeric data: interval disclosure and distance-based record linkage.

Perturbed values (noise, microaggregation) are not k-anonymous classes, so
their risk is measured against the original values, as sdcMicro and the SDC
literature do:

* :func:`interval_disclosure` — the share of records every original value
  of which lies within ``k`` standard deviations (of the perturbed
  attribute) of its perturbed value: an intruder who reads the release as
  "the truth is near this" is right about the whole record (sdcMicro's
  ``dRisk``, default ``k`` 0.05);
* :func:`record_linkage` — each perturbed record linked to its nearest
  original record (Euclidean distance with each attribute divided by its
  original standard deviation; Domingo-Ferrer and Torra's distance-based
  record linkage): the share linked to the right one, a tie counting as
  one chance among the tied records.  sdcMicro's ``dRiskRMD`` uses robust
  Mahalanobis distances instead; this is the plain form the literature
  compares methods by.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.spatial import cKDTree

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["interval_disclosure", "paired_values", "record_linkage"]


def paired_values(original: NDArray[np.float64], perturbed: NDArray[np.float64]) -> tuple[NDArray[np.float64],
                                                                                           NDArray[np.float64]]:
    """The original and perturbed values as (n, p) float arrays of one shape (a single column made (n, 1))."""
    x = np.asarray(original, dtype=np.float64)
    xm = np.asarray(perturbed, dtype=np.float64)
    if x.ndim == 1:
        x, xm = x[:, None], xm[:, None]
    if x.shape != xm.shape:
        raise ValueError(f"original {x.shape} and perturbed {xm.shape} values differ in shape")
    return x, xm


def interval_disclosure(original: NDArray[np.float64], perturbed: NDArray[np.float64], k: float = 0.05) -> float:
    """Share of records whose every original value is within ``k`` perturbed standard deviations of the released
    one (a missing value on either side does not count against it, as in sdcMicro)."""
    x, xm = paired_values(original, perturbed)
    spread = np.nanstd(xm, axis=0, ddof=1) * k
    with np.errstate(invalid="ignore"):
        outside = (x < xm - spread) | (x > xm + spread)
    return float(np.mean(~outside.any(axis=1)))


def record_linkage(original: NDArray[np.float64], perturbed: NDArray[np.float64]) -> float:
    """Expected share of perturbed records linked to their own original record by the nearest-record rule.

    Records with a missing value (on either side) are left out.
    """
    x, xm = paired_values(original, perturbed)
    complete = ~(np.isnan(x).any(axis=1) | np.isnan(xm).any(axis=1))
    x, xm = x[complete], xm[complete]
    if not len(x):
        return 0.0
    scale = np.std(x, axis=0, ddof=1) if len(x) > 1 else np.ones(x.shape[1])
    scale[~(scale > 0)] = 1.0
    tree = cKDTree(x / scale)
    scaled = xm / scale
    own = np.sqrt(((scaled - x / scale) ** 2).sum(axis=1))
    nearest, _ = tree.query(scaled, k=1)
    hits = own <= nearest * (1 + 1e-12)  # the own record is among the nearest
    if not hits.any():
        return 0.0
    rows = np.flatnonzero(hits)
    tied = np.asarray(tree.query_ball_point(scaled[rows], own[rows] * (1 + 1e-12) + 1e-300, return_length=True))
    return float(np.sum(1.0 / tied)) / len(x)
