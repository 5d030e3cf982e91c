"""The populations the uniqueness models compute with, and class sizes of very many quasi-identifiers."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from anonset.errors import ConfigError
from anonset.risk.population import MAX_POPULATION, check_population, population_uniqueness
from anonset.risk.report import class_sizes_of_codes

SIZES = [1, 1, 2, 3, 1, 5, 2]   # 15 records, 3 sample uniques


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"population_size": math.inf}, "finite number"),
    ({"population_size": math.nan}, "finite number"),
    ({"population_size": 1e20}, "larger than 9,007,199,254,740,992"),
    ({"sampling_fraction": 1e-17}, "larger than 9,007,199,254,740,992"),
    ({"sampling_fraction": 5e-324}, "larger than 9,007,199,254,740,992"),
    ({"sampling_fraction": math.nan}, "sampling fraction must be in (0, 1]"),
])
def test_a_population_the_models_cannot_compute_with_is_a_config_error(kwargs: dict[str, float],
                                                                        message: str) -> None:
    """Each was a traceback (OverflowError, TypeError from scipy) or a wrong message before."""
    with pytest.raises(ConfigError) as info:
        population_uniqueness(SIZES, **kwargs)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("kwargs", [{"population_size": MAX_POPULATION}, {"population_size": 15},
                                    {"sampling_fraction": 15 / MAX_POPULATION}, {"population_size": 15.5}])
def test_populations_up_to_the_limit_are_estimated(kwargs: dict[str, float]) -> None:
    estimate = population_uniqueness(SIZES, **kwargs)
    for value in (estimate.pitman, estimate.zayatz, estimate.snb, estimate.decision_rule):
        assert value is None or 0.0 <= value <= 1.0
    assert estimate.zayatz is not None


def test_the_command_asks_for_a_whole_population_and_the_library_does_not() -> None:
    assert check_population(15, None, 15.5) == (15.5, 15 / 15.5)
    with pytest.raises(ConfigError, match=r"^--population-size 15\.5: the population size must be a finite whole"):
        check_population(15, None, 15.5, size_name="--population-size", whole=True)
    with pytest.raises(ConfigError, match=r"at least 1 / 1e-17 = 1e\+17 records"):
        check_population(None, 1e-17, None)   # before the table is read: what any table refuses


@pytest.mark.parametrize(("rows", "columns", "span"), [(300, 10_000, 3), (500, 64, 2 ** 31 - 1), (200, 1, 5)])
def test_class_sizes_of_many_columns_without_overflow(rows: int, columns: int, span: int) -> None:
    """10,000 quasi-identifiers made ``np.prod`` of the spans overflow (a raw numpy RuntimeWarning)."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, span, (rows, columns)).astype(np.int32)
    codes[: rows // 3] = codes[0]          # one large class
    codes[rows // 3: rows // 2] = codes[rows // 3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sizes = class_sizes_of_codes(codes)
    expected = np.unique(codes, axis=0, return_counts=True)[1]
    assert sorted(sizes.tolist()) == sorted(expected.tolist()) and sizes.sum() == rows
