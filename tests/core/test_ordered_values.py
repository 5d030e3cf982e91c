"""Quasi-identifiers compared by value: ordinal attributes by their rank, dates by day — split, clustered and
released as ranges by the partitioning methods; every release re-verified, ranges checked against the order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset import Anonymizer, ConfigError, KAnonymity, Requirements
from anonset.core.dataset import Dataset, row_values
from anonset.methods import registry
from anonset.methods.base import Family
from anonset.methods.mondrian.regions import mondrian
from anonset.metrics.imprecision import imprecision
from support import registered

LEVELS = ("none", "primary", "secondary", "bachelor", "master", "doctorate")


def _table(n: int, seed: int) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({
        "edu": rng.choice(LEVELS, n),
        "visit": (pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D")).strftime(
            "%Y-%m-%d"),
        "x": rng.integers(0, 100, n).astype(str),
    })
    attrs = {"edu": {"role": "quasi", "type": "ordinal", "order": list(LEVELS)},
             "visit": {"role": "quasi", "type": "date"},
             "x": {"role": "quasi", "type": "numeric"}}
    return table, attrs


def test_ordinal_rank_follows_the_declared_order() -> None:
    table, attrs = _table(50, 0)
    ds = Dataset(table, attrs)
    ranks = row_values(ds, "edu")
    assert ranks is not None
    assert (ranks == table["edu"].map({v: i for i, v in enumerate(LEVELS)}).to_numpy()).all()
    days = row_values(ds, "visit")
    assert days is not None
    expected = (pd.to_datetime(table["visit"]) - pd.Timestamp("1970-01-01")).dt.days.to_numpy()
    assert (days == expected).all()


# the grouping methods that release ranges (local suppression releases each value as it is, or blanked)
@pytest.mark.parametrize("method", [m for m in registered(Family.GROUPING) if not registry.get(m).blanks_match_any])
def test_ranges_are_released_in_the_attribute_order(method: str) -> None:
    table, attrs = _table(300, 1)
    release = Anonymizer(attrs, Requirements([KAnonymity(6)]), method=method).fit(table).release_
    assert release.verified and release.table.groupby(["edu", "visit", "x"]).size().min() >= 6
    rank = {v: i for i, v in enumerate(LEVELS)}
    for released, original in zip(release.table["edu"], table["edu"], strict=True):
        first, _, last = released.partition("..")
        last = last or first
        # a range reads first..last in the declared order and contains the record's own value
        assert rank[first] <= rank[original] <= rank[last]
        assert rank[first] < rank[last] or released == first
    for released, original in zip(release.table["visit"], table["visit"], strict=True):
        first, _, last = released.partition("..")
        assert first <= original <= (last or first)  # ISO dates compare as text


def test_mondrian_splits_an_ordinal_attribute_at_a_threshold() -> None:
    """Ranks 0..5 with 4 records each, one attribute, k = 4: strict median splits down to single values."""
    table = pd.DataFrame({"edu": [v for v in LEVELS for _ in range(4)]})
    ds = Dataset(table, {"edu": {"role": "quasi", "type": "ordinal", "order": list(LEVELS)}})
    tree = mondrian(ds, Requirements([KAnonymity(4)]))
    assert tree.n_classes == 6
    assert (np.bincount(tree.row_class) == 4).all()
    # without `order` the hierarchy's leaf order (here: sorted text for a flat hierarchy) is the order
    plain = Dataset(table, {"edu": {"role": "quasi", "type": "ordinal"}})
    assert row_values(plain, "edu") is not None


def test_an_ordinal_selection_is_a_run_of_the_order() -> None:
    table, attrs = _table(200, 2)
    ds = Dataset(table, attrs)
    reqs = Requirements([KAnonymity(5)])
    run = [{"edu": ["secondary", "bachelor", "master"]}]
    tree = mondrian(ds, reqs, criterion="selection", selections=run)
    inside = table["edu"].isin(run[0]["edu"]).to_numpy()
    # imprecision by hand: records of classes that overlap the predicate but do not satisfy it
    overlapping = np.isin(tree.row_class, np.unique(tree.row_class[inside]))
    assert imprecision(ds, tree.row_class, run).sum() == int((overlapping & ~inside).sum())
    with pytest.raises(ConfigError, match="not one run"):
        mondrian(ds, reqs, criterion="selection", selections=[{"edu": ["none", "master"]}])


def test_a_value_outside_the_declared_order_is_refused() -> None:
    table, attrs = _table(30, 3)
    table.loc[0, "edu"] = "kindergarten"
    with pytest.raises(ConfigError, match="column 'edu': value 'kindergarten' is not in the declared `order`"):
        Dataset(table, attrs)
