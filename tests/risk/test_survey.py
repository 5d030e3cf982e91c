"""Survey risk (anonset.risk.survey) against sdcMicro's published tests, and against independent re-computations.

The expected figures of the first tests are those of sdcMicro's own test suite
(sdcTools/sdcMicro, tests/testthat/test_freqCalc.R and test_indivRisk.R): the
same tables, the same weights, the figures as printed there (sdcMicro compares
with testthat's default relative tolerance, 1.5e-8; ours is 1e-8 absolute on
figures printed to 8 or 9 digits).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from anonset.risk.survey import (
    KeyFrequencies,
    global_risk,
    individual_risk,
    k_anonymity_violations,
    key_codes,
    key_frequencies,
    records_above,
)

NA = np.nan
WEIGHTS = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])
A = [2, 3, 2, 2, 3, 3, 1, 2]
B = [3, 3, 3, 3, 3, 3, 4, 3]
C = [1, 3, 1, 2, 1, 1, 1, 1]


def _frequencies(columns: list[list[float]], weights: np.ndarray | None = None) -> KeyFrequencies:
    table = pd.DataFrame({f"v{i}": column for i, column in enumerate(columns)})
    return key_frequencies(key_codes(table, list(table.columns)), weights)


# --------------------------------------------------------------------------- sdcMicro's freqCalc tests
FREQ_CASES = {
    # name: (columns, weights?, Fk, fk, n1, n2) — test_freqCalc.R
    "no missing, weighted": ([A, B, C], True, [108.0, 45.5, 108.0, 17.0, 100.0, 100.0, 123.5, 108.0],
                             [3, 1, 3, 1, 2, 2, 1, 3], 3, 2),
    "no missing": ([A, B, C], False, [3, 1, 3, 1, 2, 2, 1, 3], [3, 1, 3, 1, 2, 2, 1, 3], 3, 2),
    "missing, weighted": ([A, B, [1, 3, NA, 2, 1, 1, NA, 1]], True,
                          [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0], [3, 1, 4, 2, 2, 2, 1, 3], 2, 3),
    "missing": ([A, B, [1, 3, NA, 2, 1, 1, NA, 1]], False, [3, 1, 4, 2, 2, 2, 1, 3], [3, 1, 4, 2, 2, 2, 1, 3], 2, 3),
    "a column and a row missing, weighted": (
        [[2, 3, NA, 2, 3, 3, 1, 2], [3, 3, NA, 3, 3, 3, 4, 3], [NA] * 8], True,
        [125.0, 184.5, 394.0, 125.0, 184.5, 184.5, 162.5, 125.0], [4, 4, 8, 4, 4, 4, 2, 4], 0, 1),
    "a column and a row missing": (
        [[2, 3, NA, 2, 3, 3, 1, 2], [3, 3, NA, 3, 3, 3, 4, 3], [NA] * 8], False,
        [4, 4, 8, 4, 4, 4, 2, 4], [4, 4, 8, 4, 4, 4, 2, 4], 0, 1),
    "one column, weighted": ([[2, 3, NA, 2, 1, NA, 1, 2]], True,
                             [133.0, 92.5, 394.0, 133.0, 262.5, 394.0, 262.5, 133.0], [5, 3, 8, 5, 4, 8, 4, 5], 0, 0),
    "one column": ([[2, 3, NA, 2, 1, NA, 1, 2]], False, [5, 3, 8, 5, 4, 8, 4, 5], [5, 3, 8, 5, 4, 8, 4, 5], 0, 0),
}


@pytest.mark.parametrize("name", list(FREQ_CASES))
def test_key_frequencies_equal_sdcmicros_published_figures(name: str) -> None:
    columns, weighted, big, small, n1, n2 = FREQ_CASES[name]
    result = _frequencies(columns, WEIGHTS if weighted else None)
    np.testing.assert_allclose(result.Fk, big, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(result.fk, small)
    assert (result.n1, result.n2) == (n1, n2)


@pytest.mark.parametrize("weighted", [True, False])
def test_more_columns_than_rows_as_sdcmicro(weighted: bool) -> None:
    """test_freqCalc.R's last case: 3 records, 8 key variables, missing values scattered."""
    values = np.array([2, 3, NA, 2, 3, 3, 1, NA, 3, 3, NA, 3, 3, 2, 2, 3, NA, NA, 1, 2, NA, NA, 4, 4])
    columns = [list(values[3 * j: 3 * j + 3]) for j in range(8)]  # R fills the (3, 8) array column by column
    result = _frequencies(columns, np.array([18.0, 45.5, 122]) if weighted else None)
    np.testing.assert_allclose(result.Fk, [18.0, 167.5, 167.5] if weighted else [1, 2, 2], atol=1e-9)
    np.testing.assert_array_equal(result.fk, [1, 2, 2])
    assert (result.n1, result.n2) == (1, 2)


# --------------------------------------------------------------------------- sdcMicro's indivRisk tests
MISSING_A = [2, 3, 2, 2, 3, 3, 1, NA]
MISSING_C = [1, 3, NA, 2, 1, 1, NA, 1]
RISK_CASES = {
    # (columns, method, qual): rk with the weights — test_indivRisk.R (survey = TRUE)
    ("complete", "approx", 1): [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883,
                                0.03931625, 0.01369863],
    ("complete", "approx", 2): [0.02739726, 0.17158258, 0.02739726, 0.35415167, 0.03755767, 0.03755767,
                                0.07863251, 0.02739726],
    ("complete", "exact", 1): [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883,
                               0.03931625, 0.01355297],
    ("complete", "exact", 2): [0.02710594, 0.17158258, 0.02710594, 0.35415167, 0.03755767, 0.03755767,
                               0.07863251, 0.02710594],
    ("missing", "approx", 1): [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066, 0.009836066,
                               0.039316254, 0.005973716],
    ("missing", "approx", 2): [0.02739726, 0.17158258, 0.02110818, 0.06493222, 0.01967213, 0.01967213,
                               0.07863251, 0.01194743],
    ("missing", "exact", 1): [0.013552968, 0.085791288, 0.010504889, 0.032466112, 0.009756889, 0.009756889,
                              0.039316254, 0.005962551],
    ("missing", "exact", 2): [0.02710594, 0.17158258, 0.02100978, 0.06493222, 0.01951378, 0.01951378,
                              0.07863251, 0.01192510],
}
TABLES = {"complete": [A, B, C], "missing": [MISSING_A, B, MISSING_C]}
#: fk of each record: test_indivRisk.R prints 1/fk (survey = FALSE) and qual/fk (unweighted) rounded to 5 digits
FK = {"complete": [3, 1, 3, 1, 2, 2, 1, 3], "missing": [3, 1, 4, 2, 3, 3, 1, 5]}


@pytest.mark.parametrize(("table", "method", "qual"), list(RISK_CASES))
def test_individual_risk_equals_sdcmicros_published_figures(table: str, method: str, qual: int) -> None:
    risk = individual_risk(_frequencies(TABLES[table], WEIGHTS), method, qual)  # type: ignore[arg-type]
    np.testing.assert_allclose(risk, RISK_CASES[(table, method, qual)], rtol=0, atol=1e-8)


@pytest.mark.parametrize(("table", "method", "qual", "weighted", "survey"),
                         [case for case in itertools.product(TABLES, ["approx", "exact"], [1, 2], [True, False],
                                                             [True, False]) if not (case[3] and case[4])])
def test_the_inverse_frequency_cases_as_sdcmicro(table: str, method: str, qual: int, weighted: bool,
                                                  survey: bool) -> None:
    """Without survey, 1/fk (qual ignored); unweighted (fk = Fk), qual/fk (the weighted survey case: above)."""
    risk = individual_risk(_frequencies(TABLES[table], WEIGHTS if weighted else None), method,  # type: ignore[arg-type]
                           qual, survey)
    factor = qual if survey else 1
    np.testing.assert_allclose(np.round(risk, 5), np.round(factor / np.array(FK[table]), 5), atol=1e-12)


# --------------------------------------------------------------------------- independent re-computations
def _pairwise(codes: np.ndarray, weights: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """fk and Fk record by record: every pair compared, with the counting rules written out in the docstring."""
    n, d = codes.shape
    fk, big = np.zeros(n), np.zeros(n)
    for i in range(n):
        for j in range(n):
            a, b = codes[i], codes[j]
            both = (a >= 0) & (b >= 0)
            if np.any(a[both] != b[both]):
                continue
            if np.array_equal(a < 0, b < 0) or not np.any(b < 0):  # the same places missing, or none in b
                share = 1.0
            elif not np.any(a < 0) and np.all(b < 0) and d >= 2:
                share = 0.0
            else:
                share = alpha
            fk[i] += share
            big[i] += share * weights[j]
        if np.all(codes[i] < 0):
            fk[i], big[i] = n, weights.sum()
    return fk, big


@pytest.mark.parametrize(("seed", "alpha", "d"), [(0, 1.0, 3), (1, 0.5, 3), (2, 0.1, 4), (3, 1.0, 1), (4, 0.3, 2)])
def test_key_frequencies_equal_a_pairwise_count(seed: int, alpha: float, d: int) -> None:
    rng = np.random.default_rng(seed)
    n = 120
    codes = rng.integers(0, 3, size=(n, d))
    codes[rng.random((n, d)) < 0.2] = -1
    codes[:3] = -1  # records with no value at all
    weights = rng.uniform(1, 50, n)
    result = key_frequencies(codes, weights, alpha)
    fk, big = _pairwise(codes, weights, alpha)
    np.testing.assert_allclose(result.fk, fk, atol=1e-9)
    np.testing.assert_allclose(result.Fk, big, rtol=1e-12)


@pytest.mark.parametrize(("seed", "alpha"), [(5, 1.0), (6, 0.4)])
def test_distinct_keys_with_counts_give_the_records_frequencies(seed: int, alpha: float) -> None:
    """A table of distinct keys, each with its records and weight sum (as a database groups them), gives each
    key the fk and Fk of its records; the summaries weigh each key by its records."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, size=(400, 3))
    codes[rng.random(codes.shape) < 0.1] = -1
    codes[:2] = -1
    weights = rng.uniform(1, 30, len(codes))
    whole = key_frequencies(codes, weights, alpha)
    keys, inverse, counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    sums = np.bincount(inverse, weights=weights)
    grouped = key_frequencies(keys, sums, alpha, counts=counts)
    np.testing.assert_allclose(grouped.fk[inverse], whole.fk, atol=1e-9)
    np.testing.assert_allclose(grouped.Fk[inverse], whole.Fk, rtol=1e-12)
    risk, risk_keys = individual_risk(whole), individual_risk(grouped)
    assert global_risk(risk_keys, counts) == pytest.approx(global_risk(risk), rel=1e-12)
    assert records_above(risk_keys, [0.01, 0.1], counts) == pytest.approx(records_above(risk, [0.01, 0.1]))
    for k in (2, 3, 5):
        assert k_anonymity_violations(grouped, k, counts=counts) == k_anonymity_violations(whole, k)


def _expected_inverse_by_summing(f: int, p: float) -> float:
    """E[1/F], F = f + X, X negative binomial (f, p): the probabilities summed until the tail is below 1e-17."""
    upper = int(stats.nbinom.isf(1e-17, f, p)) + 10
    x = np.arange(upper + 1)
    return float(np.sum(stats.nbinom.pmf(x, f, p) / (f + x)))


@pytest.mark.parametrize("f", [1, 2, 3, 4, 7, 20, 60])
@pytest.mark.parametrize("p", [0.002, 0.05, 0.3, 0.49, 0.5, 0.51, 0.8, 0.99])
def test_exact_risk_is_the_expectation_of_one_over_the_population_count(f: int, p: float) -> None:
    frequencies = KeyFrequencies(np.array([float(f)]), np.array([f / p]))
    risk = individual_risk(frequencies, "exact")[0]
    assert risk == pytest.approx(_expected_inverse_by_summing(f, p), rel=1e-9)


def test_approximate_risk_is_sdcmicros_formula_above_two() -> None:
    fk = np.array([3.0, 5.0, 40.0])
    big = np.array([30.0, 17.0, 4000.0])
    p = fk / big
    np.testing.assert_allclose(individual_risk(KeyFrequencies(fk, big), "approx"), p / (fk - (1 - p)), rtol=1e-15)


def test_global_risk_is_the_sum_and_its_share() -> None:
    risk = individual_risk(_frequencies(TABLES["complete"], WEIGHTS))
    expected, share = global_risk(risk)
    assert expected == pytest.approx(sum(RISK_CASES[("complete", "approx", 1)]), abs=1e-7)
    assert share == pytest.approx(expected / 8)


def test_k_anonymity_violations_count_the_keys_below_k() -> None:
    """By hand from test_freqCalc.R's "missing, weighted": fk 3,1,4,2,2,2,1,3; Fk 108,45.5,125,56,100,100,123.5,108."""
    frequencies = _frequencies(FREQ_CASES["missing, weighted"][0], WEIGHTS)
    assert [k_anonymity_violations(frequencies, k) for k in (2, 3, 5)] == [2, 5, 8]
    assert k_anonymity_violations(frequencies, 2.4) == 2  # rounded, as sdcMicro rounds k
    assert k_anonymity_violations(frequencies, 100, weighted=True) == 2  # 45.5 and 56
    with pytest.raises(ValueError, match="positive"):
        k_anonymity_violations(frequencies, 0)


def test_records_above_thresholds() -> None:
    risk = np.array([0.05, 0.2, 0.5, 1.0])
    assert records_above(risk, [0.1, 0.2, 0.99]) == {0.1: 0.75, 0.2: 0.5, 0.99: 0.25}


def test_a_weight_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="weights must be >= 1"):
        individual_risk(_frequencies([A, B, C], np.full(8, 0.5)))


def test_key_codes_mark_missing_values() -> None:
    table = pd.DataFrame({"a": ["x", None, "y", "?"], "b": [1.0, 2.0, NA, 1.0]})
    codes = key_codes(table, ["a", "b"], missing=["?"])
    assert (codes[:, 0] < 0).tolist() == [False, True, False, True]
    assert (codes[:, 1] < 0).tolist() == [False, False, True, False]
    assert codes[0, 1] == codes[3, 1] != codes[1, 1]
