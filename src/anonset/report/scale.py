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
  records, spread evenly over its range (overlapping ranges of a local
  recoding add up); ``*`` and values that read otherwise are counted in
  ``unplaced``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from anonset.report.svg import nice_step

__all__ = ["shared_scale"]

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
    after, unplaced = _after(released, floor, whole, width)
    if not before or not after:
        return None
    return {"before": before, "after": after, "unplaced": unplaced, "width": width}


def _before(values: NDArray[np.float64], floor: int, whole: bool) -> tuple[list[list[float]], float]:
    """Ranges ``[lo, hi, records]`` of the original values, each of at least ``floor`` records; the round width."""
    n = len(values)
    ordered = np.partition(values, [floor - 1, n - floor])
    lo, hi = float(ordered[floor - 1]), float(ordered[n - floor])
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


def _after(released: pd.Series, floor: int, whole: bool, width: float) -> tuple[list[list[float]], int]:
    """The released values as ranges with their records, overlaps added up; the records not placed."""
    counts = released.astype(str).value_counts()
    spans: list[tuple[float, float, float]] = []
    unplaced = 0
    for label, records in counts.items():
        span = _span(str(label), whole, width)
        if span is None or records < floor:
            unplaced += int(records)
        else:
            spans.append((span[0], span[1], float(records)))
    if not spans:
        return [], unplaced
    edges = np.unique([e for lo, hi, _ in spans for e in (lo, hi)])
    density = np.zeros(len(edges) - 1)
    for lo, hi, records in spans:  # each range's records spread evenly over it
        inside = (edges[:-1] >= lo) & (edges[1:] <= hi)
        density[inside] += records / (hi - lo)
    steps = [[float(edges[i]), float(edges[i + 1]), float(density[i] * (edges[i + 1] - edges[i]))]
             for i in range(len(density)) if density[i] > 0]
    return steps, unplaced


def _span(label: str, whole: bool, width: float) -> tuple[float, float] | None:
    """The range a released value covers (a whole-number range ``20-39`` covers 20 up to 40), or None."""
    found = _RANGE.match(label)
    if found:
        lo, hi = float(found.group(1)), float(found.group(2))
    else:
        single = _SINGLE.match(label)
        if not single:
            return None
        lo = hi = float(single.group(1))
    if hi < lo:
        return None
    if whole:
        return lo, hi + 1.0
    return (lo, hi) if hi > lo else (lo - width / 20, hi + width / 20)
