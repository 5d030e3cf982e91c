"""Survey microdata risk: key frequencies with sampling weights and missing values, and individual risk.

A statistical office's microdata are a sample; each record carries a
sampling weight (how many people of the population it stands for).  The
figures here are those of sdcMicro (Templ, Kowarik and Meindl, "Statistical
Disclosure Control for Micro-Data Using the R Package sdcMicro", Journal of
Statistical Software 67(4), 2015), checked against its published tests:

* :func:`key_frequencies` — per record, ``fk``: the records of the sample
  sharing its key (its values of the quasi-identifiers), and ``Fk``: the sum
  of their weights, an estimate of the people in the population who share it
  (sdcMicro's ``freqCalc``).  A missing value matches any value.  How much a
  match through a missing value counts is sdcMicro's ``alpha`` (1: fully),
  with sdcMicro's rules spelled out in :func:`key_frequencies`.
* :func:`individual_risk` — the Benedetti–Franconi risk of re-identification
  of each record (sdcMicro's ``indivRisk``): the expected value of ``1/F``
  for a key seen ``fk`` times in the sample when the population count ``F``
  follows the negative binomial model with success probability
  ``pk = fk / Fk``.  ``"exact"`` evaluates it exactly; ``"approx"`` uses
  sdcMicro's approximation ``pk / (fk − (1 − pk))`` for keys seen three
  times or more.
* :func:`global_risk` — the expected number of re-identifications (the sum of
  the individual risks) and its share of the records (sdcMicro's
  ``measure_risk``); :func:`records_above` the share of records above risk
  thresholds; :func:`k_anonymity_violations` the records whose key fewer than
  k records (or, weighted, people) share (sdcMicro's ``kAnon_violations``).

Keys are given as integer codes, one column per quasi-identifier, with a
negative code for a missing value (:func:`key_codes` makes them from a table).

Differences from sdcMicro: the exact risk is evaluated by a formula that stays
accurate for large ``fk`` (sdcMicro's recursion, evaluated in double
precision, is 4% off at ``fk`` = 10, ``pk`` = 0.95 and far off beyond; on its
published cases the two agree to the printed precision), and a weight below 1
(which would make ``pk`` above 1) is refused instead of giving a negative risk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numba
import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["KeyFrequencies", "combination_keys", "global_risk", "individual_risk", "k_anonymity_violations",
           "key_codes", "key_frequencies", "records_above"]


@dataclass(frozen=True)
class KeyFrequencies:
    """Per record: ``fk`` (records of the sample sharing its key) and ``Fk`` (the sum of their weights)."""

    fk: NDArray[np.float64]
    Fk: NDArray[np.float64]  # the name every SDC text gives it

    @property
    def n1(self) -> int:
        """Records whose key no other record shares (sample uniques)."""
        return int(np.count_nonzero(self.fk == 1))

    @property
    def n2(self) -> int:
        """Records whose key exactly one other record shares."""
        return int(np.count_nonzero(self.fk == 2))


def key_codes(table: pd.DataFrame, columns: Sequence[str], missing: Sequence[object] = ()) -> NDArray[np.int64]:
    """(n, d) codes of ``columns``: equal values equal codes, -1 for a missing value (NaN, None or in ``missing``)."""
    codes = np.empty((len(table), len(columns)), dtype=np.int64)
    for j, column in enumerate(columns):
        values = table[column]
        absent = values.isna().to_numpy() | values.isin(list(missing)).to_numpy()
        codes[:, j] = pd.factorize(values.where(~absent), use_na_sentinel=True)[0]
    return codes


def key_frequencies(codes: NDArray[np.int64], weights: NDArray[np.float64] | None = None,
                    alpha: float = 1.0, counts: NDArray[np.int64] | None = None) -> KeyFrequencies:
    """``fk`` and ``Fk`` of each record, a missing value matching any value (sdcMicro's ``freqCalc``).

    Two records match when they agree on every quasi-identifier both hold.
    What a match counts, as sdcMicro counts it:

    * records with the same key (missing values in the same places): 1;
    * for a record with a missing value, a match without one: 1;
    * for a record without a missing value, a match with one, and between
      two records that both miss values: ``alpha``;
    * with two or more quasi-identifiers, a record with no value at all
      matches everyone (``fk`` = the records, ``Fk`` = every weight) but is
      not counted by the records that miss no value.

    Without ``weights`` every weight is 1 (``Fk`` = ``fk``).  With ``counts``
    each row stands for that many records (a table of distinct keys, as a
    database groups them) and ``weights`` holds their sum.  The records are
    first gathered into their distinct keys; without missing values that is
    all.  Otherwise the keys of each pair of missing-value patterns are matched
    in one compiled pass (a hash table of one pattern's keys on the values both
    patterns hold, probed by the other's).
    """
    codes = np.asarray(codes, dtype=np.int64)
    n, d = codes.shape
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], not {alpha}")
    rows = np.ones(n) if counts is None else np.asarray(counts, dtype=np.float64)
    w = rows if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (n,) or rows.shape != (n,):
        raise ValueError(f"{len(w)} weights and {len(rows)} counts for {n} rows")
    keys, key_of = _distinct_keys(np.where(codes >= 0, codes, -1))
    records = np.bincount(key_of, weights=rows, minlength=len(keys)).astype(np.float64)
    sums = np.bincount(key_of, weights=w, minlength=len(keys)).astype(np.float64)
    bits = (keys >= 0).astype(np.int64) @ (np.int64(1) << np.arange(d, dtype=np.int64))
    order = np.argsort(bits, kind="stable")
    keys, records, sums, bits = keys[order], records[order], sums[order], bits[order]
    patterns, starts = np.unique(bits, return_index=True)
    complete = (1 << d) - 1
    share = np.full((len(patterns), len(patterns)), alpha)
    share[:, patterns == complete] = 1.0
    np.fill_diagonal(share, 1.0)
    if d >= 2:
        share[np.ix_(patterns == complete, patterns == 0)] = 0.0
    bounds = np.append(starts, len(keys)).astype(np.int64)
    fk_keys, big_keys = _matched(keys, patterns.astype(np.int64), bounds, share, records, sums)
    empty = bits == 0
    fk_keys[empty] = rows.sum()
    big_keys[empty] = w.sum()
    back = np.empty(len(order), dtype=np.int64)
    back[order] = np.arange(len(order))
    return KeyFrequencies(fk_keys[back][key_of], big_keys[back][key_of])


def combination_keys(codes: NDArray[np.int64], columns: Sequence[int] | None = None) -> NDArray[np.int64]:
    """(n,) one integer per row naming its values in ``columns`` (default: all): equal values, equal integers.

    ``codes`` are non-negative.  The columns are packed into one integer, the
    combinations so far renumbered (densely) whenever the next column could
    overflow 62 bits.
    """
    key = np.zeros(len(codes), dtype=np.int64)
    bound = 1
    for j in range(codes.shape[1]) if columns is None else columns:
        radix = int(codes[:, j].max()) + 1 if len(codes) else 1
        if bound * radix >= 2**62:
            key = np.unique(key, return_inverse=True)[1].astype(np.int64).reshape(-1)
            bound = int(key.max()) + 1
        key = key * radix + codes[:, j]
        bound *= radix
    return key


def _distinct_keys(codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The distinct rows of ``codes`` (-1 for a missing value) and each row's index among them."""
    _, first, inverse = np.unique(combination_keys(codes + 1), return_index=True, return_inverse=True)
    return codes[first], np.asarray(inverse, dtype=np.int64).reshape(-1)


@numba.njit(cache=True, nogil=True, inline="always")
def _slot(slot_row: NDArray[np.int64], keys: NDArray[np.int64], columns: NDArray[np.int64], width: int, r: int,
          mask: int) -> np.int64:  # pragma: no cover - compiled
    """The slot of key ``r``'s projection on ``columns[:width]``: one holding a key equal there, or an empty one."""
    h = np.uint64(1469598103934665603)
    for c in range(width):
        h = (h ^ np.uint64(keys[r, columns[c]])) * np.uint64(1099511628211)
    slot = np.int64(h >> np.uint64(11)) & mask
    while True:
        at = slot_row[slot]
        if at == -1:
            return slot
        same = True
        for c in range(width):
            if keys[at, columns[c]] != keys[r, columns[c]]:
                same = False
                break
        if same:
            return slot
        slot = (slot + 1) & mask


@numba.njit(cache=True, nogil=True)
def _matched(keys: NDArray[np.int64], patterns: NDArray[np.int64], bounds: NDArray[np.int64],
             share: NDArray[np.float64], counts: NDArray[np.float64],
             sums: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:  # pragma: no cover
    """Per distinct key (sorted by pattern, pattern i's keys in ``bounds[i]:bounds[i+1]``): matched counts and weights.

    For each pair of patterns (own, other) with a share above 0: the keys of
    the smaller of the two go into a hash table on the columns both patterns
    hold, the other's keys are looked up in it (the other pattern's counts
    and weights summed per projection), and each key of the own pattern adds
    ``share`` times what its projection gathered.
    """
    m = len(patterns)
    d = keys.shape[1]
    fk = np.zeros(len(keys))
    big = np.zeros(len(keys))
    columns = np.empty(d, dtype=np.int64)
    for a in range(m):
        for b in range(m):
            s = share[a, b]
            if s == 0.0:
                continue
            common = patterns[a] & patterns[b]
            width = 0
            for j in range(d):
                if (common >> j) & 1:
                    columns[width] = j
                    width += 1
            # the table holds the smaller side's projections; the other side is streamed through it
            own_table = bounds[a + 1] - bounds[a] < bounds[b + 1] - bounds[b]
            lo, hi = (bounds[a], bounds[a + 1]) if own_table else (bounds[b], bounds[b + 1])
            cap = 16
            while cap < 2 * (hi - lo):
                cap *= 2
            mask = cap - 1
            slot_row = np.full(cap, -1, dtype=np.int64)
            slot_count = np.zeros(cap)
            slot_sum = np.zeros(cap)
            if own_table:
                for r in range(lo, hi):
                    slot_row[_slot(slot_row, keys, columns, width, r, mask)] = r
                for r in range(bounds[b], bounds[b + 1]):
                    slot = _slot(slot_row, keys, columns, width, r, mask)
                    if slot_row[slot] != -1:
                        slot_count[slot] += counts[r]
                        slot_sum[slot] += sums[r]
            else:
                for r in range(lo, hi):
                    slot = _slot(slot_row, keys, columns, width, r, mask)
                    slot_row[slot] = r
                    slot_count[slot] += counts[r]
                    slot_sum[slot] += sums[r]
            for r in range(bounds[a], bounds[a + 1]):
                slot = _slot(slot_row, keys, columns, width, r, mask)
                if slot_row[slot] != -1:
                    fk[r] += s * slot_count[slot]
                    big[r] += s * slot_sum[slot]
    return fk, big


def individual_risk(frequencies: KeyFrequencies, method: Literal["approx", "exact"] = "approx", qual: float = 1.0,
                    survey: bool = True) -> NDArray[np.float64]:
    """Each record's Benedetti–Franconi risk of re-identification (sdcMicro's ``indivRisk``).

    With ``survey=False`` (the table is the whole population) it is ``1/fk``.
    Otherwise ``pk = fk/Fk``; keys held by one or two records have closed
    forms, larger ones the exact expectation or sdcMicro's approximation;
    where ``fk = Fk`` (weights of 1) it is ``1/fk``; every risk is then
    multiplied by ``qual`` (sdcMicro's correction factor).
    """
    fk = np.asarray(frequencies.fk, dtype=np.float64)
    if not survey:
        return 1.0 / fk
    Fk = np.asarray(frequencies.Fk, dtype=np.float64)
    if np.any(Fk < fk * (1 - 1e-12)):
        raise ValueError("a key's weights sum to less than its records (a weight below 1): weights must be >= 1")
    pk = np.minimum(fk / Fk, 1.0)
    risk = np.empty(len(fk))
    whole = fk == Fk
    if method == "exact":
        risk[:] = _exact_risks(fk, pk)
    elif method == "approx":
        with np.errstate(divide="ignore", invalid="ignore"):
            odds = pk / (1 - pk)
            one = odds * np.log(1 / pk)
            two = odds - odds**2 * np.log(1 / pk)
            larger = pk / (fk - (1 - pk))
        risk[:] = np.where(fk == 1, one, np.where(fk == 2, two, larger))
    else:
        raise ValueError(f"method must be 'approx' or 'exact', not {method!r}")
    risk[whole] = 1.0 / fk[whole]
    return risk * qual


def global_risk(risk: NDArray[np.float64], counts: NDArray[np.int64] | None = None) -> tuple[float, float]:
    """The expected number of re-identifications (the sum of the risks) and its share of the records.

    ``counts``: the records each row stands for (default 1).
    """
    rows = np.ones(len(risk)) if counts is None else np.asarray(counts, dtype=np.float64)
    expected = float(np.dot(risk, rows))
    total = float(rows.sum())
    return expected, expected / total if total else 0.0


def k_anonymity_violations(frequencies: KeyFrequencies, k: float, weighted: bool = False,
                           counts: NDArray[np.int64] | None = None) -> int:
    """Records whose key fewer than ``k`` records share (``fk < k``); ``weighted``: fewer than ``k`` people (``Fk``).

    As sdcMicro's ``kAnon_violations`` (``k`` rounded to a whole number;
    missing values matching any value, as in :func:`key_frequencies`).  ``counts``: the records each row
    stands for (default 1).
    """
    if not k > 0:
        raise ValueError(f"k must be positive, not {k}")
    shared = frequencies.Fk if weighted else frequencies.fk
    below = shared < round(k)
    return int(np.count_nonzero(below) if counts is None else np.asarray(counts)[below].sum())


def records_above(risk: NDArray[np.float64], thresholds: Sequence[float],
                  counts: NDArray[np.int64] | None = None) -> dict[float, float]:
    """For each threshold, the share of the records whose risk exceeds it (``counts``: records per row)."""
    rows = np.ones(len(risk)) if counts is None else np.asarray(counts, dtype=np.float64)
    n = max(float(rows.sum()), 1.0)
    return {float(t): float(rows[risk > t].sum()) / n for t in thresholds}


def _exact_risks(fk: NDArray[np.float64], pk: NDArray[np.float64]) -> NDArray[np.float64]:
    """E[1/F] for each (fk, pk), computed once per distinct pair (the records of a key share theirs)."""
    order = np.lexsort((pk, fk))
    f, p = fk[order], pk[order]
    first = np.ones(len(order), dtype=np.bool_)
    first[1:] = (f[1:] != f[:-1]) | (p[1:] != p[:-1])
    values = _expected_inverse(f[first].astype(np.int64), p[first])
    out = np.empty(len(order))
    out[order] = values[np.cumsum(first) - 1]
    return out


@numba.njit(cache=True, nogil=True)
def _expected_inverse(f: NDArray[np.int64], p: NDArray[np.float64]) -> NDArray[np.float64]:  # pragma: no cover
    """E[1/F] where F − f is negative binomial (f successes, probability p): the integral of u^(f−1)/(1 + Wu) on [0, 1].

    W = (1 − p)/p.  For p < 1/2 the integral's closed form, an alternating sum
    of f − 1 terms that shrink (the error grows only as p nears 1/2, as
    1/(1 − 2p) times the rounding); for p >= 1/2 the series
    Σ (−W)^k/(f + k), summed by the acceleration of Cohen, Rodriguez Villegas
    and Zagier (exact to rounding in 40 terms: the terms are moments of a
    positive measure on [0, 1]).
    """
    out = np.empty(len(f))
    for i in range(len(f)):
        fi = f[i]
        pi = p[i]
        if pi >= 1.0:
            out[i] = 1.0 / fi
        elif pi < 0.5:
            x = pi / (1.0 - pi)
            total = 0.0
            term = 1.0
            for j in range(1, fi):  # the term of m = f − j: (−1)^(j−1) x^j / (f − j)
                term *= x
                total += (term if j % 2 == 1 else -term) / (fi - j)
            tail = term * x * np.log(1.0 / pi)  # x^f log(1/p), sign (−1)^(f−1)
            out[i] = total + (tail if fi % 2 == 1 else -tail)
        else:
            w = (1.0 - pi) / pi
            n = 40
            d = (3.0 + np.sqrt(8.0)) ** n
            d = (d + 1.0 / d) / 2.0
            b = -1.0
            c = -d
            s = 0.0
            power = 1.0
            for k in range(n):
                c = b - c
                s += c * power / (fi + k)
                power *= w
                b = (k + n) * (k - n) * b / ((k + 0.5) * (k + 1.0))
            out[i] = s / d
    return out
