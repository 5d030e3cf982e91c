"""``PrivacyModel.protects``: whether a model can refuse any table, on every built-in model.

A model protects nothing when every table satisfies it (1-anonymity,
1-diversity, t = 1, a risk bound of 1); requirements made of such models
only would release the input itself, and the Anonymizer refuses them unless
asked by name.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonset.core.stats import ClassStats
from anonset.privacy import (
    AverageRisk,
    DistinctLDiversity,
    EntropyLDiversity,
    HighestRisk,
    KAnonymity,
    PopulationUniqueness,
    PrivacyModel,
    RecursiveCLDiversity,
    Requirements,
    SampleUniqueness,
    SquaredErrorDiversity,
    TCloseness,
)


@pytest.mark.parametrize(("model", "protects"), [
    (KAnonymity(1), False),
    (KAnonymity(2), True),
    (KAnonymity(50), True),
    (DistinctLDiversity("s", 1), False),
    (DistinctLDiversity("s", 1.5), True),
    (DistinctLDiversity("s", 2), True),
    (EntropyLDiversity("s", 1), False),
    (EntropyLDiversity("s", 1.2), True),
    (RecursiveCLDiversity("s", 2, 3), True),  # l >= 2 is required of it
    (TCloseness("s", 1), False),
    (TCloseness("s", 0.99), True),
    (TCloseness("s", 0), True),
    (SquaredErrorDiversity("s", 4.0), True),  # no parameter value is said to protect nothing: the default
    (HighestRisk(1), False),  # 1-anonymity
    (HighestRisk(0.99), True),  # 2-anonymity
    (HighestRisk(0.2), True),
    (AverageRisk(1), False),
    (AverageRisk(0.5), True),
    (SampleUniqueness(1), False),
    (SampleUniqueness(0.05), True),
    (PopulationUniqueness(1, sampling_fraction=0.1), False),
    (PopulationUniqueness(0.01, sampling_fraction=0.1), True),
    (PopulationUniqueness(0.01, population_size=1e6), True),
], ids=lambda v: v.describe() if isinstance(v, PrivacyModel) else str(v))
def test_each_built_in_model_says_whether_it_protects_anything(model: PrivacyModel, protects: bool) -> None:
    assert model.protects is protects


def test_a_model_that_does_not_say_protects_something() -> None:
    class EveryClassOfThree(PrivacyModel):
        def satisfied(self, stats: ClassStats) -> np.ndarray:
            return stats.sizes == 3

        def describe(self) -> str:
            return "classes of three"

    assert EveryClassOfThree().protects


def test_requirements_protect_when_any_model_does() -> None:
    assert not Requirements([KAnonymity(1)]).protects
    assert not Requirements([KAnonymity(1), TCloseness("s", 1), AverageRisk(1)], 0.5).protects
    assert Requirements([KAnonymity(1), DistinctLDiversity("s", 2)]).protects
    assert Requirements([SampleUniqueness(1), KAnonymity(3)]).protects


def test_the_anonymizer_wrapper_reads_the_requirements() -> None:
    from anonset.anonymizer import protects

    for requirements in (Requirements([KAnonymity(1)]), Requirements([KAnonymity(2)]),
                         Requirements([AverageRisk(1), EntropyLDiversity("s", 1)])):
        assert protects(requirements) is requirements.protects
