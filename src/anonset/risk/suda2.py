"""SUDA2: minimal sample uniques, SUDA scores, DIS-SUDA scores and each attribute's contribution.

A *minimal sample unique* (MSU) of a record is a set of quasi-identifiers on
whose values no other record agrees, while on every smaller part of the set
some other record does (Elliot, Manning and Ford, "A computational algorithm
for handling the special uniques problem", 2002; SUDA2: Manning, Haglin and
Keane, "A recursive search algorithm for statistical disclosure assessment",
2008).  The fewer attributes an MSU needs, the riskier the record: each MSU
of size k adds to the record's SUDA score

* ``(M − k)!`` (``original_scores=True``, sdcMicro's default; with a maximum
  size below M, the product of ``M − i`` for ``i`` from k to that size − 1), or
* ``(2^(M−k) − 1) · k! (M−k)! / M!`` (sdcMicro's other scores),

where M is the number of quasi-identifiers.  The DIS-SUDA score turns the
scores into probabilities of a correct match given a file-level disclosure
fraction, as sdcMicro computes them (its single-precision steps included).
Each attribute's contribution is the share of the scores its MSUs carry.

This search enumerates the sets of quasi-identifiers size by size (sample
uniqueness of every record in one grouping per set, minimality from the
uniqueness of the sets one smaller), which is exact and fast for the eight or
so quasi-identifiers of a survey file (sdcMicro searches recursively; on its
published examples the scores and contributions agree).  Like sdcMicro, fewer
than three quasi-identifiers are padded with constant columns to three (so the
scores are those of M = 3).  Differences: sdcMicro always searches MSUs of
every size; the maximum size and its weights (the product above) are
anonset's choice, equal to sdcMicro's when the maximum is M.

A missing value (a negative code) is what sdcMicro makes of it: it is never
part of an MSU and matches no value, so a record is unique on a set of
quasi-identifiers when it holds a value on each of them and no other record
holds the same values there.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.risk.survey import combination_keys

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Suda2", "suda2"]


@dataclass(frozen=True)
class Suda2:
    """SUDA2's figures for each record, and each attribute's share of the scores (percent)."""

    scores: NDArray[np.float64]
    dis_scores: NDArray[np.float64]
    msu_counts: NDArray[np.int64]  # (records, sizes): MSUs of each size 1..max_size
    contributions: NDArray[np.float64]  # (records, attributes): the share of a record's score per attribute
    attribute_contributions: NDArray[np.float64]  # (attributes,) percent of all scores


def _weights(m: int, max_size: int, original: bool) -> NDArray[np.float64]:
    """What an MSU of each size 1..max_size adds to a score."""
    if original:
        return np.array([math.prod(m - i for i in range(k, max_size)) for k in range(1, max_size + 1)], dtype=float)
    return np.array([(2.0 ** (m - k) - 1) * math.factorial(k) * math.factorial(m - k) / math.factorial(m)
                     for k in range(1, max_size + 1)])


def _unique_on(codes: NDArray[np.int64], columns: tuple[int, ...], missing: NDArray[np.bool_] | None,
               records: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Rows of one record holding a value on each of ``columns`` that no other record agrees with there."""
    inverse, _ = pd.factorize(combination_keys(codes, columns))  # a hash per key: no sort
    unique: NDArray[np.bool_] = np.bincount(inverse, weights=records)[inverse] == 1
    if missing is not None:
        unique &= ~missing[:, list(columns)].any(axis=1)
    return unique


def suda2(codes: NDArray[np.int64], max_size: int | None = None, dis_fraction: float = 0.01,
          original_scores: bool = True, counts: NDArray[np.int64] | None = None) -> Suda2:
    """SUDA2 over the columns of ``codes`` (integer codes, one column per quasi-identifier, negative: missing).

    ``max_size`` bounds the MSUs' size (default: every quasi-identifier, as
    sdcMicro); ``dis_fraction`` is the file-level disclosure fraction of the
    DIS-SUDA score (sdcMicro's ``DisFraction``, default 0.01).  With
    ``counts`` each row stands for that many records (a table of distinct
    keys); the figures are per row.  The search runs on the distinct rows
    (records sharing their whole key have no MSU), their figures copied back.
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim != 2 or codes.shape[1] == 0:
        raise ValueError("SUDA2 needs at least one quasi-identifier")
    rows = np.ones(len(codes)) if counts is None else np.asarray(counts, dtype=np.float64)
    if rows.shape != (len(codes),):
        raise ValueError(f"{len(rows)} counts for {len(codes)} rows")
    _, first, row_of = np.unique(combination_keys(np.where(codes >= 0, codes + 1, 0)), return_index=True,
                                 return_inverse=True)
    row_of = np.asarray(row_of).reshape(-1)
    records = np.bincount(row_of, weights=rows).astype(np.float64)
    found = _suda2_distinct(codes[first], records, max_size, dis_fraction, original_scores)
    return Suda2(found.scores[row_of], found.dis_scores[row_of], found.msu_counts[row_of],
                 found.contributions[row_of], found.attribute_contributions)


def _suda2_distinct(codes: NDArray[np.int64], records: NDArray[np.float64], max_size: int | None,
                    dis_fraction: float, original_scores: bool) -> Suda2:
    """SUDA2 over distinct rows of ``codes``, each standing for ``records`` records."""
    absent = codes < 0
    missing = absent if absent.any() else None
    if missing is not None:  # a code of its own, which unique_on never counts as a value
        codes = np.where(absent, codes.max(axis=0, initial=0) + 1, codes)
    given = codes.shape[1]
    if given < 3:  # sdcMicro's padding: constant columns, which change M but no uniqueness
        codes = np.column_stack([codes, np.zeros((len(codes), 3 - given), dtype=np.int64)])
        if missing is not None:
            missing = np.column_stack([missing, np.zeros((len(codes), 3 - given), dtype=np.bool_)])
    n, m = codes.shape
    size_limit = m if max_size is None else min(int(max_size), m)
    if size_limit < 1:
        raise ValueError(f"max_size must be at least 1, not {max_size}")
    weights = _weights(m, size_limit, original_scores)
    msu_counts = np.zeros((n, size_limit), dtype=np.int64)
    raw = np.zeros((n, m))
    # a lone record is unique on no attribute at all
    previous: dict[tuple[int, ...], NDArray[np.bool_]] = {(): np.full(n, records.sum() == 1)}
    for size in range(1, size_limit + 1):
        current: dict[tuple[int, ...], NDArray[np.bool_]] = {}
        for columns in itertools.combinations(range(m), size):
            parts = [columns[:i] + columns[i + 1:] for i in range(size)]
            if any(previous[part].all() for part in parts):
                current[columns] = np.ones(n, dtype=np.bool_)  # every record unique already: no MSU here
                continue
            unique = _unique_on(codes, columns, missing, records)
            current[columns] = unique
            minimal = unique.copy()
            for part in parts:
                minimal &= ~previous[part]
            if minimal.any():
                msu_counts[minimal, size - 1] += 1
                for j in columns:
                    raw[minimal, j] += weights[size - 1]
        previous = current
    scores = msu_counts @ weights
    with np.errstate(invalid="ignore", divide="ignore"):
        contributions = np.where(scores[:, None] > 0, raw / scores[:, None], 0.0)
    total = scores.sum()
    attribute = 100 * raw.sum(axis=0) / total if total > 0 else np.zeros(m)
    dis = _dis_scores(records, scores, dis_fraction, m)
    return Suda2(scores, dis, msu_counts, contributions[:, :given], attribute[:given])


def _dis_scores(counts: NDArray[np.float64], scores: NDArray[np.float64], fraction: float,
                m: int) -> NDArray[np.float64]:
    """DIS-SUDA scores of distinct keys held by ``counts`` records each, with sdcMicro's single-precision steps."""
    scored = scores > 0
    out = np.zeros(len(scores))
    if not scored.any():
        return out
    uniques = np.float32(np.count_nonzero(counts == 1))  # at least one: a record with a score is unique
    pairs = np.float32(2 * np.count_nonzero(counts == 2))
    f = np.float32(fraction)
    dis = uniques * f / (uniques * f + pairs * (np.float32(1) - f))
    q = float(np.float32(1) + (np.float32(8) - np.float32(m)) / np.float32(20))
    adjust = float(np.sum(1.0 / scores[scored] ** q))
    spread = float(uniques / dis - uniques)
    out[scored] = 1.0 / (1.0 + spread / (scores[scored] ** q * adjust))
    return out
