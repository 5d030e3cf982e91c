"""Local suppression: blank single quasi-identifier values until every record's key is shared by k records.

A key is a record's values of the quasi-identifiers; a blanked (missing)
value matches any value, so a record's key is shared by every record that
agrees with it wherever both hold a value (``fk`` of
:func:`anonset.risk.survey.key_frequencies`, with sdcMicro's counting of
matches through missing values, ``alpha``).  The heuristic is sdcMicro's
``localSuppression`` (Templ, Kowarik and Meindl, "Statistical Disclosure
Control for Micro-Data Using the R Package sdcMicro", Journal of Statistical
Software 67(4), 2015), step for step:

1. Records whose key more than k records hold exactly (a missing value read
   as the column's first value for this step only) are set aside but for k
   of them (the first k in table order): they need no blanking, and the
   rest of the search is faster without them.
2. On the records left, every record whose key fewer than k records share is
   a problem; the problems are taken riskiest first (the smallest ``fk``,
   ties in table order).  For each, the records nearest to it are found: the
   fewest attributes on which both hold a value and the values differ (at
   least one).  The least important attribute on which the problem differs
   from one of those nearest records is blanked in the problem record.
3. Once every problem of the pass has one more blank, ``fk`` is counted
   again, and the passes go on until every record's key is shared by k.

The importance order ranks the quasi-identifiers from the one to keep most
to the one to blank first; sdcMicro's default keeps the attributes with
fewer distinct values (ties: the earlier attribute is kept longer).  With
strata, each stratum is made k-anonymous on its own.

The nearest-record step is compiled (numba): one pass over the records per
problem, the blanks of the pass already in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np

from anonset.risk.survey import combination_keys, key_frequencies

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Blanking", "blank_to_k", "default_importance"]


@dataclass(frozen=True)
class Blanking:
    """What local suppression did: the blanked cells and the passes it took.

    ``blanked[i, j]``: record i's value of quasi-identifier j was blanked (a
    value missing before is not counted).  ``fk``: each record's matched
    count afterwards (records set aside in step 1 included).
    """

    blanked: NDArray[np.bool_]
    fk: NDArray[np.float64]
    passes: int

    @property
    def cells(self) -> NDArray[np.int64]:
        """Blanked cells per quasi-identifier."""
        return np.asarray(self.blanked.sum(axis=0), dtype=np.int64)


def default_importance(codes: NDArray[np.int64]) -> NDArray[np.int64]:
    """sdcMicro's default importance (1 = keep longest): fewer distinct values, more important; ties by column."""
    distinct = np.array([len(np.unique(c[c >= 0])) for c in np.asarray(codes).T], dtype=np.int64)
    order = np.argsort(distinct, kind="stable")
    importance = np.empty(len(distinct), dtype=np.int64)
    importance[order] = np.arange(1, len(distinct) + 1)
    return importance


def blank_to_k(codes: NDArray[np.int64], k: int, importance: Sequence[int] | None = None,
               strata: NDArray[np.int64] | None = None, alpha: float = 1.0) -> Blanking:
    """Blank values of ``codes`` ((n, d) integer codes, negative: missing) until every key is shared by ``k``.

    Parameters
    ----------
    codes : array of int
        One column per quasi-identifier; a negative code is a missing value
        (it matches any value, and is never blanked again).
    k : int
        Records that must share each record's key (within its stratum).
    importance : sequence of int, optional
        Per quasi-identifier, 1 .. d: 1 is kept longest, the largest blanked
        first (ties: the earlier column first, as sdcMicro).  Default
        :func:`default_importance` of the whole table.
    strata : array of int, optional
        A stratum per record; each stratum is made k-anonymous on its own.
    alpha : float
        How much a match through a missing value counts (sdcMicro's alpha).

    Raises
    ------
    ValueError
        ``k`` larger than a stratum, or an importance that is not one number
        in 1 .. d per quasi-identifier.
    """
    codes = np.where(np.asarray(codes, dtype=np.int64) < 0, -1, np.asarray(codes, dtype=np.int64))
    n, d = codes.shape
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    rank = default_importance(codes) if importance is None else np.asarray(importance, dtype=np.int64)
    if rank.shape != (d,) or rank.min(initial=1) < 1 or rank.max(initial=1) > d:
        raise ValueError(f"importance must give each of the {d} quasi-identifiers a number from 1 to {d}")
    # the columns in the order they are blanked: least important first, ties in column order (sdcMicro's order)
    blank_order = np.argsort((d + 1) - rank, kind="stable").astype(np.int64)
    groups = np.zeros(n, dtype=np.int64) if strata is None else np.unique(strata, return_inverse=True)[1].reshape(-1)
    out = codes.copy()
    fk = np.zeros(n)
    passes = 0
    for g in range(int(groups.max()) + 1 if n else 0):
        rows = np.flatnonzero(groups == g)
        if len(rows) < k:
            raise ValueError(f"a stratum has {len(rows)} records, fewer than k = {k}")
        blanked, stratum_fk, stratum_passes = _blank_stratum(codes[rows], k, blank_order, alpha)
        out[rows] = blanked
        fk[rows] = stratum_fk
        passes = max(passes, stratum_passes)
    return Blanking((out < 0) & (codes >= 0), fk, passes)


def _blank_stratum(codes: NDArray[np.int64], k: int, blank_order: NDArray[np.int64],
                   alpha: float) -> tuple[NDArray[np.int64], NDArray[np.float64], int]:
    """One stratum: its codes with the blanks (-1), each record's fk after, and the passes taken."""
    searched = _searched_rows(codes, k)
    mat = codes[searched].copy()
    passes = 0
    fk = key_frequencies(mat, alpha=alpha).fk
    while np.any(fk < k):
        problems = np.flatnonzero(fk < k)
        problems = problems[np.argsort(fk[problems], kind="stable")]  # riskiest (1/fk largest) first
        if not _blank_pass(mat, problems.astype(np.int64), blank_order, alpha):
            raise ValueError("local suppression found no value to blank for a record; the table cannot be made"
                             f" {k}-anonymous by blanking")
        passes += 1
        fk = key_frequencies(mat, alpha=alpha).fk
    out = codes.copy()
    out[searched] = mat
    all_fk = key_frequencies(out, alpha=alpha).fk
    return out, all_fk, passes


def _searched_rows(codes: NDArray[np.int64], k: int) -> NDArray[np.int64]:
    """The records the search works on: all but the (k+1)-th and later record of each key held more than k times.

    For this step a missing value reads as its column's first value in table
    order (sdcMicro's shortcut; the first value may itself be missing).
    """
    filled = codes.copy()
    for j in range(codes.shape[1]):
        missing = filled[:, j] < 0
        if missing.any():
            filled[missing, j] = codes[0, j]
    key = combination_keys(filled + 1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
    position = np.arange(len(key)) - np.repeat(starts, np.diff(np.r_[starts, len(key)]))
    keep = np.empty(len(key), dtype=np.bool_)
    keep[order] = position < k
    return np.flatnonzero(keep)


@numba.njit(cache=True, nogil=True)
def _blank_pass(mat: NDArray[np.int64], problems: NDArray[np.int64], blank_order: NDArray[np.int64],
                alpha: float) -> bool:  # pragma: no cover - compiled
    """One pass: for each problem record, blank the least important value it does not share with a nearest record.

    Distance to a record: the attributes on which both hold a value and the
    values differ.  The nearest records are those at the smallest positive
    distance (at most d); the blanked attribute is the first in
    ``blank_order`` on which the problem holds a value and differs from a
    nearest record that holds one.  When every record matches the problem
    (possible only when ``alpha`` < 1), the problem's own first value in that
    order is blanked.  False when some problem had nothing to blank.
    """
    n, d = mat.shape
    distance = np.empty(n, dtype=np.int64)
    for p in problems:
        nearest = d
        total = 0
        for r in range(n):
            count = 0
            for j in range(d):
                a = mat[r, j]
                b = mat[p, j]
                if a >= 0 and b >= 0 and a != b:
                    count += 1
            distance[r] = count
            total += count
            if 0 < count < nearest:
                nearest = count
        column = -1
        if total == 0 and alpha < 1.0:
            for c in blank_order:
                if mat[p, c] >= 0:
                    column = c
                    break
        else:
            for c in blank_order:
                if mat[p, c] < 0:
                    continue
                for r in range(n):
                    if distance[r] == nearest and mat[r, c] >= 0 and mat[r, c] != mat[p, c]:
                        column = c
                        break
                if column >= 0:
                    break
        if column < 0:
            return False
        mat[p, column] = -1
    return True
