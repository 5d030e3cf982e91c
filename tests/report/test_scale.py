"""A number's distribution before and after on one scale: ranges that hold all the records, none below the floor."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.report.scale import shared_scale
from anonset.report.svg import range_chart


def test_the_original_values_are_counted_in_ranges_of_at_least_floor_records() -> None:
    rng = np.random.default_rng(0)
    ages = np.concatenate([rng.integers(0, 90, 995), [101, 102, 103, 104, 120]]).astype(float)
    scale = shared_scale(ages, pd.Series(["0-49"] * 500 + ["50-120"] * 500), floor=5)
    assert scale is not None
    before = scale["before"]
    assert sum(r[2] for r in before) == len(ages)  # every record is in one range
    assert all(r[2] >= 5 for r in before)  # no range holds fewer than the floor
    assert all(a[1] == b[0] for a, b in zip(before, before[1:], strict=False))  # ranges follow one another
    # the extremes are not shown: the last range ends at a round step past the 5th largest value (101), not 120
    ordered = np.sort(ages)
    assert before[-1][1] <= ordered[-5] + scale["width"] and before[-1][1] < 120
    assert before[0][0] >= 0


def test_released_ranges_spread_their_records_and_overlaps_add_up() -> None:
    numbers = np.arange(100, dtype=float)
    released = pd.Series(["0-19"] * 40 + ["10-29"] * 20 + ["*"] * 30 + ["rare 5"] * 7 + ["50"] * 3)
    scale = shared_scale(numbers, released, floor=5)
    assert scale is not None
    after = scale["after"]
    # the original ranges are 5 wide from 0; 0-19 (40 records over 20 units: 10 a range) and 10-29 (20 over 20:
    # 5 a range) overlap on 10-19
    assert scale["width"] == 5.0
    assert after == [[0.0, 5.0, pytest.approx(10.0)], [5.0, 10.0, pytest.approx(10.0)],
                     [10.0, 15.0, pytest.approx(15.0)], [15.0, 20.0, pytest.approx(15.0)],
                     [20.0, 25.0, pytest.approx(5.0)], [25.0, 30.0, pytest.approx(5.0)]]
    assert sum(r[2] for r in after) == pytest.approx(60)
    assert scale["unplaced"] == 30 + 7 + 3  # *, a value that reads otherwise, a value below the floor


def test_dates_are_read_as_the_spans_they_name() -> None:
    """Days since 1970-01-01: a month, a year, a decade, a range of years or of dates, a date."""
    from anonset.report.scale import shared_date_scale

    days = np.arange(0, 3650, 3, dtype=float)  # 1970-01-01 onwards, every third day, ten years
    released = pd.Series(["1970-03"] * 31 + ["1971"] * 365 + ["1970s"] * 100 + ["1970-1979"] * 50
                         + ["1972-01-01..1972-01-10"] * 20 + ["1973-05-05"] * 6 + ["*"] * 9 + ["soon"] * 5)
    scale = shared_date_scale(days, released, floor=5)
    assert scale is not None and scale["dates"] and scale["width"] == 365.0  # ten years in ranges of 365 days
    assert sum(r[2] for r in scale["before"]) == len(days)
    assert sum(r[2] for r in scale["after"]) == pytest.approx(31 + 365 + 100 + 50 + 20 + 6)
    assert scale["unplaced"] == 14
    # the decade and the range of years spread over ten years; the month, the year, the ten days and the date
    # fall inside the first four years: the grid's first year (1970) holds the month, a tenth of the spread ones
    first = scale["after"][0]
    assert first[0] == 0.0 and first[2] == pytest.approx(31 + 150 * 365 / 3652, rel=1e-3)


def test_too_few_records_or_nothing_placed_draws_nothing() -> None:
    assert shared_scale(np.arange(8, dtype=float), pd.Series(["1-4"] * 8), floor=5) is None
    assert shared_scale(np.arange(100, dtype=float), pd.Series(["*"] * 100), floor=5) is None


def test_the_chart_draws_each_range_on_one_axis() -> None:
    svg = range_chart("age", [("original", [[0, 10, 20], [10, 20, 40]]), ("released", [[0, 20, 60]])], per=10,
                      unit="age")
    assert svg.count("<rect") == 3 and "records per 10" in svg and "<script" not in svg
