"""Dates are ordered as the ``dates`` builder's ``format`` reads them, not as a guess would."""

from __future__ import annotations

import pandas as pd

from anonset.core.dataset import Dataset, row_values


def test_day_first_dates_are_ordered_by_the_builders_format() -> None:
    # 02/01/2020 is 2 January and 01/02/2020 is 1 February when the day comes first
    table = pd.DataFrame({"admitted": ["01/02/2020", "02/01/2020", "15/01/2020"]})
    spec = {"role": "quasi", "type": "date",
            "hierarchy": {"builder": "dates", "levels": ["month", "year"], "format": "%d/%m/%Y"}}
    days = row_values(Dataset(table, {"admitted": spec}), "admitted")
    assert days is not None
    expected = (pd.to_datetime(table["admitted"], format="%d/%m/%Y") - pd.Timestamp("1970-01-01")).dt.days
    assert list(days) == list(expected.astype(float))
    assert days[1] < days[2] < days[0]


def test_the_format_survives_a_second_encoding() -> None:
    """A dataset rebuilt from resolved specs (as transform and distributed fragments do) reads dates the same way."""
    table = pd.DataFrame({"admitted": ["01/02/2020", "02/01/2020", "15/01/2020"]})
    spec = {"role": "quasi", "type": "date",
            "hierarchy": {"builder": "dates", "levels": ["month", "year"], "format": "%d/%m/%Y"}}
    first = Dataset(table, {"admitted": spec})
    again = Dataset(table, first.resolved_specs())
    assert first.require_hierarchy("admitted").date_format == "%d/%m/%Y"
    assert list(row_values(again, "admitted")) == list(row_values(first, "admitted"))
