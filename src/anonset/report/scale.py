"""A numeric quasi-identifier before and after on one number line, in the order of its values.

The bar charts of a distribution list values most frequent first; for a
number, the reader wants the shape: where the records lie, and how the
released ranges spread them.  :func:`shared_scale` gives both sides as ranges
of the value with their records, to be drawn on one axis as records per unit
of the value (a released range of 20 years holding 400 records is as tall as
20 one-year bins of 20 records each), so areas compare across the two:

* ``before``: the original values in ranges of a round width between the
  ``floor``-th smallest and the ``floor``-th largest value (the first and
  last ranges hold the values beyond them, so no range tells how far the
  extremes reach), neighbouring ranges joined until each holds at least
  ``floor`` records;
* ``after``: each released value that reads as a number or a range of
  numbers (``20-39``, ``[20, 40)``, ``34``), held by at least ``floor``
  records, spread evenly over its range and counted in the original ranges'
  grid (a wide range spreads over several steps, a local recoding's narrow
  and overlapping ranges add up in theirs); ``*`` and values that read
  otherwise are counted in ``unplaced``.

Dates (:func:`shared_date_scale`) go on the same kind of line, in days since
1970-01-01: the original dates in ranges of a day, a week, a month (30
days), a quarter, a year or several years, and each released value read as
the span it names: a date, a month (``2021-03``), a year (``2021``), a
decade (``2020s``), a range of years (``2000-2099``) or of dates
(``2021-03-04..2021-05-30``).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from anonset.report.svg import nice_step

__all__ = ["DATE_WIDTHS", "shared_date_scale", "shared_scale"]

#: About how many ranges the original values are counted in.
BINS = 20
_NUMBER = r"(-?\d+(?:\.\d+)?)"
_RANGE = re.compile(rf"^\s*[\[(]?\s*{_NUMBER}\s*(?:-|–|,|\.\.)\s*{_NUMBER}\s*[\])]?\s*$")
_SINGLE = re.compile(rf"^\s*{_NUMBER}\s*$")


def shared_scale(numbers: NDArray[np.float64], released: pd.Series, floor: int) -> dict[str, Any] | None:
    """The ranges of both sides (see the module docstring); None when either side has nothing to draw."""
    finite = numbers[np.isfinite(numbers)]
    if len(finite) < 2 * floor:
        return None
    whole = bool(np.all(np.mod(finite, 1) == 0))
    before, width = _before(finite, floor, whole)
    after, unplaced = _after(released, floor, whole, before[0][0] if before else 0.0, width)
    if not before or not after:
        return None
    return {"before": before, "after": after, "unplaced": unplaced, "width": width}


#: The widths of the original dates' ranges, in days, and their names (the chart's "records per ...").
DATE_WIDTHS = {1.0: "day", 7.0: "week", 30.0: "30 days", 91.0: "91 days", 365.0: "365 days", 730.0: "730 days",
               1826.0: "1,826 days (5 years)", 3652.0: "3,652 days (10 years)", 7305.0: "7,305 days (20 years)"}


def shared_date_scale(days: NDArray[np.float64], released: pd.Series, floor: int,
                      date_format: str | None = None) -> dict[str, Any] | None:
    """:func:`shared_scale` for dates, given as days since 1970-01-01 (see the module docstring)."""
    finite = days[np.isfinite(days)]
    if len(finite) < 2 * floor:
        return None
    ordered = np.partition(finite, [floor - 1, len(finite) - floor])
    spread = float(ordered[len(finite) - floor] - ordered[floor - 1])
    width = next((w for w in DATE_WIDTHS if spread / w <= BINS), max(DATE_WIDTHS))
    before, _ = _before(finite, floor, True, width)
    counts = released.astype(str).value_counts()
    labels = counts.index.to_numpy(dtype=object)
    records = counts.to_numpy(dtype=np.float64)
    lo, hi = _date_spans(labels, date_format)
    placed = np.isfinite(lo) & np.isfinite(hi) & (hi > lo) & (records >= floor)
    after = _steps(lo[placed], hi[placed], records[placed], before[0][0] if before else 0.0, width)
    if not before or not after:
        return None
    return {"before": before, "after": after, "unplaced": int(records[~placed].sum()), "width": width,
            "dates": True}


def _date_spans(labels: NDArray[np.object_],
                date_format: str | None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per released date value, the days it covers, from its first to the day after its last (NaN: reads otherwise).

    A month (``2021-03``), a year, a decade (``2020s``), a range of years (``2000-2099``), a date or a
    range of dates (``first..last``, read with ``date_format``, the hierarchy's): each pattern on all
    the distinct values at once, no value parsed alone.
    """
    text = pd.Series(labels, dtype=object).astype(str).str.strip()
    lo = np.full(len(text), np.nan)
    hi = np.full(len(text), np.nan)
    done = np.zeros(len(text), dtype=bool)
    month = text.str.fullmatch(r"\d{4}-\d{2}").to_numpy()
    if month.any():
        start = pd.to_datetime(text[month] + "-01", format="%Y-%m-%d", errors="coerce")
        lo[month], hi[month] = _days(start), _days(start + pd.offsets.MonthBegin(1))
        done |= month
    for pattern, span in ((r"\d{4}", 1), (r"\d{3}0s", 10)):
        found = text.str.fullmatch(pattern).to_numpy() & ~done
        if found.any():
            years = text[found].str.slice(0, 4).astype(int)
            lo[found], hi[found] = _year_starts(years), _year_starts(years + span)
            done |= found
    pair = text.str.extract(r"^(\d{4})\s*-\s*(\d{4})$")
    found = pair[0].notna().to_numpy() & ~done
    if found.any():
        lo[found] = _year_starts(pair.loc[found, 0].astype(int))
        hi[found] = _year_starts(pair.loc[found, 1].astype(int) + 1)
        done |= found
    rest = ~done
    if rest.any():
        parts = text[rest].str.partition("..")
        last = parts[2].where(parts[2] != "", parts[0])
        fmt = date_format or "ISO8601"
        lo[rest] = _days(pd.to_datetime(parts[0].str.strip(), format=fmt, errors="coerce"))
        hi[rest] = _days(pd.to_datetime(last.str.strip(), format=fmt, errors="coerce")) + 1.0
    return lo, hi


def _days(stamps: pd.Series) -> NDArray[np.float64]:
    """Days since 1970-01-01 of timestamps (NaN where missing)."""
    out: NDArray[np.float64] = ((stamps - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)).to_numpy(
        dtype=np.float64, na_value=np.nan)
    return out


def _year_starts(years: pd.Series) -> NDArray[np.float64]:
    """Days since 1970-01-01 of the first of January of each year."""
    return _days(pd.to_datetime(years.astype(str) + "-01-01", format="%Y-%m-%d", errors="coerce"))


def _before(values: NDArray[np.float64], floor: int, whole: bool,
            width: float | None = None) -> tuple[list[list[float]], float]:
    """Ranges ``[lo, hi, records]`` of the original values, each of at least ``floor`` records; the round width."""
    n = len(values)
    ordered = np.partition(values, [floor - 1, n - floor])
    lo, hi = float(ordered[floor - 1]), float(ordered[n - floor])
    if width is None:
        width = nice_step((hi - lo) / BINS) if hi > lo else 1.0
    if whole:
        width = max(width, 1.0)
    start = float(np.floor(lo / width) * width)
    count = int((hi - start) // width) + 1
    counts = np.bincount(np.clip(((values - start) // width).astype(np.int64), 0, count - 1), minlength=count)
    ranges: list[list[float]] = []
    left, held = start, 0
    for i, c in enumerate(counts):  # join neighbours until each range holds at least floor records
        held += int(c)
        right = start + (i + 1) * width
        if held >= floor:
            ranges.append([left, right, float(held)])
            left, held = right, 0
    if held and ranges:  # the last few records go with the range before them
        ranges[-1][1] = start + count * width
        ranges[-1][2] += held
    return ranges, width


def _after(released: pd.Series, floor: int, whole: bool, start: float,
           width: float) -> tuple[list[list[float]], int]:
    """The released values as ranges with their records, counted in the grid; the records not placed."""
    counts = released.astype(str).value_counts()
    records = counts.to_numpy(dtype=np.float64)
    lo, hi = _spans(pd.Series(counts.index, dtype=object).astype(str), whole, width)
    placed = np.isfinite(lo) & np.isfinite(hi) & (records >= floor)
    return _steps(lo[placed], hi[placed], records[placed], start, width), int(records[~placed].sum())


def _steps(lo: NDArray[np.float64], hi: NDArray[np.float64], records: NDArray[np.float64], start: float,
           width: float) -> list[list[float]]:
    """Ranges ``[lo, hi)`` of ``records`` spread evenly over themselves, counted in the grid ``start + i * width``.

    On the original values' grid the two panels compare range by range: a released range wider than a
    step spreads its records over several, narrow ones (a local recoding's) add up in theirs.  The
    records up to each edge are the sum over the ranges begun of ``d (x - lo)`` less that over the
    ranges ended of ``d (x - hi)`` (``d`` a range's records per unit): read off sorted running sums.
    """
    if not len(lo):
        return []
    first = np.floor((lo.min() - start) / width)
    last = np.ceil((hi.max() - start) / width)
    edges = start + width * np.arange(first, last + 1)
    density = records / (hi - lo)

    def ramp(at: NDArray[np.float64]) -> NDArray[np.float64]:
        """Σ over the ranges with ``at`` < edge of density · (edge − at)."""
        order = np.argsort(at, kind="stable")
        slope = np.concatenate([[0.0], np.cumsum(density[order])])
        offset = np.concatenate([[0.0], np.cumsum(density[order] * at[order])])
        begun = np.searchsorted(at[order], edges, side="left")
        out: NDArray[np.float64] = slope[begun] * edges - offset[begun]
        return out

    counts = np.diff(ramp(lo) - ramp(hi))
    return [[float(edges[i]), float(edges[i + 1]), float(counts[i])] for i in range(len(counts)) if counts[i] > 1e-9]


def _spans(labels: pd.Series, whole: bool, width: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The range each released value covers (a whole-number range ``20-39`` covers 20 up to 40); NaN otherwise.

    Every value is read at once (the patterns run over all the distinct values together).
    """
    pair = labels.str.extract(_RANGE.pattern).astype(float)
    single = labels.str.extract(_SINGLE.pattern)[0].astype(float)
    lo = pair[0].fillna(single).to_numpy(dtype=np.float64)
    hi = pair[1].fillna(single).to_numpy(dtype=np.float64)
    bad = ~(hi >= lo)
    lo[bad], hi[bad] = np.nan, np.nan
    if whole:
        return lo, hi + 1.0
    point = hi == lo  # a single value: a sliver of the width, so it has an area
    lo[point] -= width / 20
    hi[point] += width / 20
    return lo, hi
