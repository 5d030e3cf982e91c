"""Every privacy model passes anonset.testing's model checks, and a model that breaks what it declares is caught."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.core.stats import ClassStats, StatsRequest
from anonset.privacy import (
    AverageRisk,
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DifferentialPrivacy,
    DistinctLDiversity,
    EntropyLDiversity,
    HighestRisk,
    KAnonymity,
    KMap,
    PopulationKMap,
    PopulationUniqueness,
    PrivacyModel,
    RecursiveCLDiversity,
    SampleUniqueness,
    SquaredErrorDiversity,
    TCloseness,
)
from anonset.testing import Check, CheckFailure, parametrize_with_checks, privacy_model_checks
from anonset.testing.models import register_table

_REGISTER = register_table()

#: A population the checks' register is a sample of: the register, and a third of its records again.
REGISTER_POPULATION = pd.concat([_REGISTER, _REGISTER.iloc[::3]], ignore_index=True)

#: One instance of every model, with each t-closeness distance (on the register the checks use).
MODELS: list[PrivacyModel] = [
    KAnonymity(4), HighestRisk(0.2), DistinctLDiversity("diagnosis", 3), EntropyLDiversity("diagnosis", 2.5),
    RecursiveCLDiversity("diagnosis", 3, 2.0), TCloseness("diagnosis", 0.4),
    TCloseness("length_of_stay", 0.3, "ordered"), TCloseness("diagnosis", 0.3, "hierarchical"),
    SquaredErrorDiversity("length_of_stay", 20.0), AverageRisk(0.1), SampleUniqueness(0.05),
    PopulationUniqueness(0.05, sampling_fraction=0.1), KMap(10, population_size=3000),
    KMap(10, sampling_fraction=0.2, estimator="zero_truncated_poisson"), BetaLikeness("diagnosis", 1.0),
    BetaLikeness("diagnosis", 3.0, "enhanced"), DeltaDisclosure("diagnosis", 1.2), DifferentialPrivacy(3.0, 0.01),
    PopulationKMap(6, REGISTER_POPULATION), DeltaPresence(0.4, 0.9, REGISTER_POPULATION),
    DeltaPresence(0.0, 0.8, REGISTER_POPULATION),
]


@parametrize_with_checks(MODELS)
def test_privacy_model_checks(check: Check) -> None:
    check()


class AtMostFive(PrivacyModel):
    """Declared monotone, but a class grows out of it."""

    def satisfied(self, stats: ClassStats) -> Any:
        return stats.sizes <= 5

    def describe(self) -> str:
        return "at most 5 per class"


class Unrequested(PrivacyModel):
    """Reads a histogram it never requests."""

    def satisfied(self, stats: ClassStats) -> Any:
        return (stats.histograms["diagnosis"] > 0).sum(axis=1) >= 2

    def describe(self) -> str:
        return "two diagnoses, unrequested"


class LooksAround(PrivacyModel):
    """Judges a class by the others (per class, it says): the largest class only."""

    @property
    def request(self) -> StatsRequest:
        return StatsRequest()

    def satisfied(self, stats: ClassStats) -> Any:
        return stats.sizes == stats.sizes.max() if stats.n_classes else np.ones(0, dtype=np.bool_)

    def describe(self) -> str:
        return "the largest class"


class SizeAndSex(PrivacyModel):
    """Declares a class-size floor of 4, but also refuses classes of four or five records."""

    size_only = True
    min_class_size = 4  # type: ignore[assignment]  # a class attribute where the base has a property

    def satisfied(self, stats: ClassStats) -> Any:
        return (stats.sizes >= 4) & ~np.isin(stats.sizes, (4, 5))

    def describe(self) -> str:
        return "at least 4, not 4 or 5"


class FirstRecords(PrivacyModel):
    """Keeps the classes that hold one of the first 100 records: a verdict that follows the order of the records."""

    release_level = True

    def validate(self, dataset: Any) -> None:
        self.first = dataset.encoded["zip"].row_codes()[:100]

    def satisfied(self, stats: ClassStats) -> Any:
        zip_column = 2  # age, sex, zip, marital status
        return np.isin(stats.keys[:, zip_column], self.first)

    def describe(self) -> str:
        return "holds one of the first records"


class FloorTooHigh(PrivacyModel):
    """Gives every group of fewer than 50 records as its violation floor, but refuses only classes of one record."""

    @property
    def gives_violation_floor(self) -> bool:
        return True

    def satisfied(self, stats: ClassStats) -> Any:
        return stats.sizes >= 2

    def violation_floor(self, stats: ClassStats) -> Any:
        return np.where(stats.sizes < 50, stats.sizes, 0)

    def describe(self) -> str:
        return "no class of one, a floor of fifty"


class PassesThenFails(PrivacyModel):
    """Declares its passing records pass above, but refuses classes of more than 20 records."""

    monotonic = False

    @property
    def monotonic_with_suppression(self) -> bool:
        return True

    def satisfied(self, stats: ClassStats) -> Any:
        return stats.sizes <= 20

    def describe(self) -> str:
        return "at most 20 per class"


@pytest.mark.parametrize(("model", "check", "says"), [
    (FloorTooHigh(), "its_violation_floor_holds_below", "yet only"),
    (PassesThenFails(), "a_passing_record_passes_above", "declares monotonic_with_suppression = True"),
    (SizeAndSex(), "judges_by_its_class_size_floor", "its verdict differs from 'at least 4 records'"),
    (FirstRecords(), "independent_of_the_order_of_the_records", "records get another verdict"),
    (AtMostFive(), "monotone_as_declared", "declares monotonic = True, yet it holds at node"),
    (Unrequested(), "one_verdict_per_class_from_what_it_requests", "KeyError"),
    (LooksAround(), "judges_each_class_alone", "must judge each class alone"),
])
def test_a_model_that_breaks_its_declaration_is_caught(model: PrivacyModel, check: str, says: str) -> None:
    checks = dict(privacy_model_checks(model))
    with pytest.raises(CheckFailure) as caught:
        checks[check]()
    assert f"privacy model {model.describe()!r} fails check {check!r}" in str(caught.value)
    assert says in str(caught.value)
