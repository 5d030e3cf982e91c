"""Estimated k-map: the class-size floor derived as ARX derives it, figures worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonset import Anonymizer
from anonset.config import requirements_from_config
from anonset.core.dataset import Dataset
from anonset.errors import ConfigError
from anonset.privacy import KAnonymity, KMap, Requirements
from anonset.testing.released import recheck


def _dataset(n: int) -> Dataset:
    return Dataset(pd.DataFrame({"q": [str(i % 7) for i in range(n)]}), {"q": {"role": "quasi"}}, source="t.csv")


def test_the_floor_follows_arx_for_both_estimators() -> None:
    # f = 0.05, k = 10 -> λ = 0.5; P(X = c) = e^-0.5 0.5^c / c!: 0.606531, 0.303265, 0.075816, 0.012636
    # Poisson: P(X <= 0) = 0.6065, P(X <= 1) = 0.9098, P(X <= 2) = 0.985612 >= 0.95 at c = 2 -> k' = c + 2 = 4,
    #   type-I error 1 - 0.985612 = 0.014388
    # zero-truncated: divide by P(X >= 1) = 0.393469: c = 1 -> 0.770747, c = 2 -> 0.963436 >= 0.95 -> k' = c + 1 = 3,
    #   type-I error 0.036564
    poisson = KMap(10, sampling_fraction=0.05, significance=0.05)
    truncated = KMap(10, sampling_fraction=0.05, estimator="zero_truncated_poisson", significance=0.05)
    assert poisson.min_class_size == 4 and truncated.min_class_size == 3
    assert poisson.type1_error == pytest.approx(1 - math.exp(-0.5) * (1 + 0.5 + 0.125), abs=1e-12)
    assert truncated.type1_error == pytest.approx(1 - math.exp(-0.5) * (0.5 + 0.125) / (1 - math.exp(-0.5)), abs=1e-12)
    # a stricter significance needs more records: α = 0.01 -> Poisson P(X <= 3) = 0.998248 -> 5; truncated 0.99555 -> 4
    assert KMap(10, sampling_fraction=0.05).min_class_size == 5
    assert KMap(10, sampling_fraction=0.05, estimator="zero_truncated_poisson").min_class_size == 4


def test_the_floor_never_exceeds_k() -> None:
    # λ = 0.9 * 3 = 2.7: P(X <= 1) = 0.249 -> the search reaches c + 1 >= k before 0.99: k' = k, no type-I error
    model = KMap(3, sampling_fraction=0.9)
    assert model.min_class_size == 3 and model.type1_error == 0.0
    # a census (f = 1): every class of k records is k people
    assert KMap(5, sampling_fraction=1.0, estimator="zero_truncated_poisson").min_class_size == 5


def test_arx_derives_two_for_adult_in_the_us_population() -> None:
    # 30,162 records of 317,238,626 people, k = 5: λ = 4.75e-4, P(X = 0) = 0.99952 >= 0.99 -> 2 (Poisson);
    # zero-truncated: P(X = 1 | X >= 1) = 0.99976 -> 2.  ARX 3.9.2 releases this config as 2-anonymity.
    for estimator in ("poisson", "zero_truncated_poisson"):
        model = KMap(5, population_size=317_238_626, estimator=estimator)
        assert model.min_class_size == 1  # the fraction needs the sample's size: known once validated
        model.validate(_dataset(30_162))
        assert model.min_class_size == 2
        assert "estimated as 2-anonymity" in model.describe()


def test_a_population_smaller_than_the_sample_or_two_populations_are_refused() -> None:
    with pytest.raises(ConfigError, match="smaller than the sample"):
        KMap(5, population_size=10).validate(_dataset(20))
    for kwargs in ({}, {"population_size": 100, "sampling_fraction": 0.1}):
        with pytest.raises(ConfigError, match="population_size .* or sampling_fraction"):
            KMap(5, **kwargs)  # type: ignore[arg-type]
    for bad in ({"k": 1, "sampling_fraction": 0.1}, {"k": 5, "sampling_fraction": 0.0},
                {"k": 5, "sampling_fraction": 0.1, "estimator": "binomial"},
                {"k": 5, "sampling_fraction": 0.1, "significance": 1.0}):
        with pytest.raises(ConfigError) as caught:
            KMap(**bad)  # type: ignore[arg-type]
        assert "\n" not in str(caught.value)


def test_a_size_floor_keeps_requirements_monotone_with_a_budget() -> None:
    requirements = Requirements([KMap(5, sampling_fraction=0.05)], 0.02)
    assert requirements.monotonic and requirements.size_only
    requirements.validate(_dataset(100))
    assert requirements.k == 4  # λ = 0.25: P(X <= 0) = 0.7788, P(X <= 1) = 0.9735, P(X <= 2) = 0.9978 -> 2 + 2
    assert Requirements([KMap(5, sampling_fraction=0.05), KAnonymity(6)]).k == 6


def test_the_config_key_builds_the_model() -> None:
    requirements = requirements_from_config({"k_map": {"k": 5, "population_size": 317238626,
                                                       "estimator": "zero_truncated_poisson", "significance": 0.01},
                                             "max_suppression": 0.01})
    (model,) = requirements.models
    assert isinstance(model, KMap) and model.estimator == "zero_truncated_poisson"
    with pytest.raises(ConfigError, match=r"privacy.k_map.populaton_size"):
        requirements_from_config({"k_map": {"k": 5, "populaton_size": 1000}})


def test_a_release_under_k_map_holds_the_derived_floor_rechecked() -> None:
    rng = np.random.default_rng(3)
    table = pd.DataFrame({"age": rng.integers(20, 80, 600).astype(str),
                          "zip": rng.choice(["1301", "1302", "1410"], 600),
                          "diagnosis": rng.choice(["flu", "cold", "none"], 600)})
    attributes = {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals",
                                                                             "widths": [5, 10, 20, 40]}},
                  "zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 4}},
                  "diagnosis": {"role": "insensitive"}}
    model = KMap(12, population_size=6000, significance=0.05)
    requirements = Requirements([model], 0.02)
    fitted = Anonymizer(attributes, requirements, method="optimal").fit(table)
    release = fitted.release_
    floor = model.min_class_size
    # λ = 0.1 * 12 = 1.2: P(X <= c) = 0.3012, 0.6626, 0.8795, 0.9662 >= 0.95 at c = 3 -> 5
    assert floor == 5
    released = release.table
    kept = released[(released[["age", "zip"]] != "*").any(axis=1)]
    assert kept.groupby(["age", "zip"]).size().min() >= floor
    assert recheck(released, table, fitted.dataset_, requirements) == []
    summary = release.summary()
    assert "12-map (estimated as 5-anonymity, Poisson, significance 0.05)" in summary["requirements"]
    (recorded,) = summary["provenance"]["requirements"]
    assert recorded["derived_k"] == 5 and recorded["type1_error"] == pytest.approx(1 - 0.966231, abs=1e-6)
