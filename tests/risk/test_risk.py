"""The risk measures: the ARX golden figures on Adult, the sample measures by definition, and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.errors import ConfigError
from anonset.risk.classes import ClassSizes
from anonset.risk.pitman import pitman_uniques
from anonset.risk.population import population_uniqueness
from anonset.risk.sample import sample_risk
from anonset.risk.snb import snb_uniques
from anonset.risk.zayatz import zayatz_uniques
from support import require_adult

#: ARX on adult.csv with all nine columns as quasi-identifiers.
ARX_AVERAGE_RISK = 0.6465751607983555
#: ARX, sampling fraction 0.01: Dankar et al.'s rule takes Pitman's model, population-uniqueness fraction.
ARX_PITMAN_AT_001 = 0.1446083531167384


@pytest.fixture(scope="module")
def adult_sizes() -> np.ndarray:
    path = require_adult() / "adult.csv"
    with path.open(encoding="utf-8") as fh:
        header = fh.readline()
    assert header.count(";") == 8, "adult.csv is read with ';' and nine columns"
    table = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    assert table.shape == (30162, 9)
    return table.groupby(list(table.columns)).size().to_numpy()


def test_golden_average_risk(adult_sizes: np.ndarray) -> None:
    risk = sample_risk(adult_sizes)
    assert risk.average_risk == pytest.approx(ARX_AVERAGE_RISK, abs=1e-9)


def test_golden_decision_rule_takes_pitman(adult_sizes: np.ndarray) -> None:
    pu = population_uniqueness(adult_sizes, sampling_fraction=0.01)
    assert pu.chosen == "pitman"
    assert pu.decision_rule is not None and pu.pitman is not None
    assert pu.decision_rule == pytest.approx(ARX_PITMAN_AT_001, abs=1e-9)
    assert pu.pitman == pu.decision_rule


def test_population_size_and_fraction_agree(adult_sizes: np.ndarray) -> None:
    a = population_uniqueness(adult_sizes, sampling_fraction=0.01)
    b = population_uniqueness(adult_sizes, population_size=3016200)
    assert a.pitman == pytest.approx(b.pitman, rel=1e-12)


def test_sample_measures_by_definition() -> None:
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 40, 500)
    sizes[:3] = 1
    risk = sample_risk(sizes, records_excluded=12, thresholds=(1.0, 0.5, 0.2, 0.05, 0.03))
    per_record = np.repeat(1.0 / sizes, sizes)
    n = sizes.sum()
    assert risk.records == n and risk.records_excluded == 12 and risk.classes == 500
    assert risk.highest_risk == per_record.max() == 1.0
    assert risk.average_risk == pytest.approx(per_record.mean(), rel=1e-12)
    assert risk.records_at_highest_risk == pytest.approx(np.mean(per_record == per_record.max()))
    assert risk.sample_uniques == pytest.approx(np.sum(sizes == 1) / n)
    for t, frac in risk.records_above.items():
        assert frac == pytest.approx(np.mean(per_record > t)), t
    assert risk.records_above[1.0] == 0.0
    assert risk.marketer == risk.prosecutor_average == risk.average_risk
    assert risk.journalist is None


def test_threshold_on_a_class_boundary() -> None:
    risk = sample_risk([5, 5, 4, 20], thresholds=(0.2, 0.05))
    assert risk.records_above[0.2] == pytest.approx(4 / 34)  # 1/5 is not above 0.2
    assert risk.records_above[0.05] == pytest.approx(14 / 34)  # 1/20 is not above 0.05


def test_journalist_risk() -> None:
    """1/F per record: 1/4, 1/2, 1/30; the average is ARX's, the larger of 3 classes / 36 and the mean of 1/F."""
    risk = sample_risk([1, 2, 3], population_sizes=[4, 2, 30])
    assert risk.journalist is not None
    assert risk.journalist.highest == 0.5
    assert risk.journalist.average == pytest.approx((1 / 4 + 2 / 2 + 3 / 30) / 6)
    assert risk.journalist.records_above == {0.5: 0.0, 0.2: 0.5, 0.1: 0.5, 0.05: 0.5}  # 1/2 is not above 0.5
    assert risk.marketer == pytest.approx((1 / 4 + 2 / 2 + 3 / 30) / 6)


def test_journalist_average_takes_the_larger_of_arxs_two_figures() -> None:
    """f = 1, 50 of F = 2, 50: the mean of 1/F is (1/2 + 50/50)/51 = 0.0294, the classes over the population
    2/52 = 0.0385: ARX reports the larger."""
    risk = sample_risk([1, 50], population_sizes=[2, 50])
    assert risk.journalist is not None and risk.journalist.average == pytest.approx(2 / 52)
    assert risk.marketer == pytest.approx((1 / 2 + 1) / 51)


def test_no_sample_uniques_gives_zero() -> None:
    pu = population_uniqueness([2, 3, 2, 5], sampling_fraction=0.5)
    assert (pu.pitman, pu.zayatz, pu.snb, pu.decision_rule) == (0.0, 0.0, 0.0, 0.0)


def test_every_record_unique_in_a_census() -> None:
    cs = ClassSizes.of([1, 1, 1, 2])
    assert zayatz_uniques(cs, 5) == pytest.approx(3.0)


def test_non_convergence_is_none_not_zero() -> None:
    # A sample of two classes cannot fit the Pitman or SNB models: not available, never 0.
    cs = ClassSizes.of([1, 1])
    assert pitman_uniques(cs, 1000) is None
    assert snb_uniques(cs, 0.002, 1000) is None
    pu = population_uniqueness(cs, sampling_fraction=0.002)
    assert pu.pitman is None and pu.snb is None
    assert pu.chosen == "zayatz" and pu.decision_rule == pu.zayatz


def test_estimators_in_range_across_fractions() -> None:
    rng = np.random.default_rng(3)
    sizes = np.bincount(rng.zipf(1.6, 20000) % 5000)
    sizes = sizes[sizes > 0]
    for pi in (0.01, 0.05, 0.2, 0.5, 0.9):
        pu = population_uniqueness(sizes, sampling_fraction=pi)
        for value in (pu.pitman, pu.zayatz, pu.snb):
            assert value is None or 0.0 <= value <= 1.0
        assert pu.decision_rule is not None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sampling_fraction": 0.0}, "sampling fraction must be in (0, 1]"),
    ({"sampling_fraction": 1.5}, "sampling fraction must be in (0, 1]"),
    ({"population_size": 5}, "population size (5) is smaller than the table"),
    ({}, "exactly one of"),
    ({"sampling_fraction": 0.5, "population_size": 100}, "exactly one of"),
])
def test_bad_population(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError, match=None) as info:
        population_uniqueness([1, 2, 3], **kwargs)
    assert message in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.01])
def test_bad_threshold(threshold: float) -> None:
    with pytest.raises(ConfigError, match=r"risk threshold must be in \(0, 1\]"):
        sample_risk([1, 2], thresholds=(threshold,))


@pytest.mark.parametrize(("sizes", "message"), [
    ([], "non-empty"), ([[1, 2]], "non-empty 1-d"), ([0, 2], "at least 1"), ([1.5], "whole numbers"),
])
def test_bad_sizes(sizes: list[object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        sample_risk(sizes)  # type: ignore[arg-type]


def test_bad_population_sizes() -> None:
    with pytest.raises(ConfigError, match="smaller than its sample class size"):
        sample_risk([3, 2], population_sizes=[2, 10])
    with pytest.raises(ConfigError, match="align"):
        sample_risk([3, 2], population_sizes=[20])


def test_pitman_fit_zeroes_the_likelihood_equations_as_plain_sums(adult_sizes: np.ndarray) -> None:
    """An independent check of the digamma closed forms: Hoshino's equations summed term by term."""
    from anonset.risk.pitman import pitman_parameters

    cs = ClassSizes.of(adult_sizes)
    params = pitman_parameters(cs)
    assert params is not None
    t, a = params
    n, u = cs.n_records, cs.n_classes
    i = np.arange(1, u, dtype=float)
    g1 = np.sum(1 / (t + i * a)) - np.sum(1 / (t + np.arange(1, n, dtype=float)))
    g2 = np.sum(i / (t + i * a)) - sum(int(fk) * np.sum(1 / (np.arange(1, k, dtype=float) - a))
                                       for k, fk in zip(cs.size_values, cs.size_counts, strict=True) if k > 1)
    assert abs(g1) < 1e-9 and abs(g2) < 1e-6 * u
