"""PRAM: each categorical value kept, or changed to another, by a known transition matrix (seeded).

The post-randomization method (Gouweleeuw, Kooiman, Willenborg and de Wolf,
"Post randomisation for statistical disclosure control: theory and
implementation", Journal of Official Statistics 14(4), 1998) replaces each
record's category i by category j with probability ``R[i, j]``.  A
released category may be true or not, so a match on it is uncertain; the
transition matrix is published, so analysts can correct their estimates.

By default the matrix is sdcMicro's *invariant* one (``pram``): a matrix P
keeps each category with a probability drawn uniformly in ``[pd, 1]`` and
spreads the rest evenly over the other categories; Q is the backward matrix
of P under the observed category shares p (``Q[k, j] = P[j, k] p[j] / (p P)[k]``),
and ``R = alpha P Q + (1 - alpha) I``.  ``p R = p``: the expected share of each
category in the release is its share in the data.  A matrix may be given
instead (rows summing to 1).  Missing values stay missing.  The draws come
from a numpy generator seeded by the caller: the same seed gives the same
release (sdcMicro draws with R's generator, so the two do not give the same
records).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["invariant_matrix", "pram"]


def invariant_matrix(shares: NDArray[np.float64], keep: NDArray[np.float64], alpha: float) -> NDArray[np.float64]:
    """sdcMicro's invariant transition matrix from the category ``shares``, each category's ``keep`` probability
    in P, and ``alpha`` (the weight of P Q against the identity)."""
    p = np.asarray(shares, dtype=np.float64)
    levels = len(p)
    if levels == 1:
        return np.ones((1, 1))
    keep = np.asarray(keep, dtype=np.float64)
    forward = np.repeat(((1 - keep) / (levels - 1))[:, None], levels, axis=1)
    np.fill_diagonal(forward, keep)
    reached = p @ forward  # (p P)[k]: the share of the records that P sends to category k
    backward = (forward * p[:, None]).T / reached[:, None]  # Q[k, j] = P[j, k] p[j] / (p P)[k]
    matrix: NDArray[np.float64] = alpha * (forward @ backward) + (1 - alpha) * np.eye(levels)
    return matrix


def pram(codes: NDArray[np.int64], rng: np.random.Generator, pd: float = 0.8, alpha: float = 0.5,
         matrix: NDArray[np.float64] | None = None) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """``codes`` (categories 0 .. L − 1, −1 missing) with each value drawn from its row of the transition matrix.

    Returns the released codes and the matrix.  ``pd`` in (0, 1]: the
    smallest probability of keeping a category in sdcMicro's P; ``alpha`` in
    [0, 1].  ``matrix``: an (L, L) transition matrix to use instead.

    Raises
    ------
    ValueError
        ``pd`` or ``alpha`` out of range, or a matrix of the wrong shape or
        whose rows do not sum to 1.
    """
    codes = np.asarray(codes, dtype=np.int64)
    held = codes >= 0
    levels = int(codes.max()) + 1 if held.any() else 0
    if matrix is None:
        if not 0 < pd <= 1 or not 0 <= alpha <= 1:
            raise ValueError(f"pd must be in (0, 1] and alpha in [0, 1]; got pd = {pd}, alpha = {alpha}")
        shares = np.bincount(codes[held], minlength=levels) / max(int(held.sum()), 1)
        matrix = invariant_matrix(shares, rng.uniform(pd, 1.0, levels), alpha)
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.shape != (levels, levels) or np.any(matrix < 0) or not np.allclose(matrix.sum(axis=1), 1.0,
                                                                                 rtol=0, atol=1e-9):
        raise ValueError(f"the transition matrix must be {levels} x {levels}, non-negative, with rows summing to 1")
    cumulative = np.cumsum(matrix, axis=1)
    cumulative[:, -1] = 1.0
    out = codes.copy()
    rows = np.flatnonzero(held)
    draws = rng.random(len(rows))
    out[rows] = (draws[:, None] >= cumulative[codes[rows]]).sum(axis=1)
    return out, matrix
