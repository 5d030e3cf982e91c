"""β-likeness and δ-disclosure privacy: figures derived by hand, ARX's comparisons, pycanon's second opinion.

pycanon computes basic β as the largest relative gain ``(q − p) / p`` over
all classes and values, and δ as the largest ``|ln(q / p)|`` over the values
a class holds (natural logarithm; ARX and anonset take log2), both with the
table's frequencies from the table it is given.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from pycanon import anonymity as pyc

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats, StatsRequest, stats_from_assignment
from anonset.errors import ConfigError
from anonset.privacy import BetaLikeness, DeltaDisclosure


def _classes(groups: dict[str, str]) -> tuple[Dataset, ClassStats]:
    """A table whose class ``name`` holds the sensitive values ``groups[name]`` (one letter per record)."""
    rows = [(name, value) for name, values in groups.items() for value in values]
    table = pd.DataFrame(rows, columns=["q", "s"])
    dataset = Dataset(table, {"q": {"role": "quasi"}, "s": {"role": "sensitive"}})
    stats = stats_from_assignment(dataset, table.groupby("q", sort=False).ngroup().to_numpy(),
                                  StatsRequest(frozenset({"s"})))
    return dataset, stats


# a x4, b x3, c x1 of 8 -> p = (1/2, 3/8, 1/8)
#   A = aabc: q = (1/2, 1/4, 1/4): gains 0, -1/3, (1/4 - 1/8) / (1/8) = 1
#   B = bbaa: q = (1/2, 1/2, 0):   gains 0, (1/2 - 3/8) / (3/8) = 1/3, c absent (not judged)
GROUPS = {"A": "aabc", "B": "bbaa"}


def _judged(model: BetaLikeness | DeltaDisclosure, groups: dict[str, str]) -> list[bool]:
    dataset, stats = _classes(groups)
    model.validate(dataset)
    return model.satisfied(stats).tolist()


def test_basic_beta_likeness_bounds_the_relative_gain_strictly_above_beta() -> None:
    assert _judged(BetaLikeness("s", 1.0), GROUPS) == [True, True]  # a gain of exactly β holds (ARX: > β fails)
    assert _judged(BetaLikeness("s", 0.99), GROUPS) == [False, True]
    assert _judged(BetaLikeness("s", 0.33), GROUPS) == [False, False]


def test_enhanced_beta_likeness_also_bounds_frequent_values_by_minus_ln_p() -> None:
    # A = aaab, B = bbbb, C = cccc: a x3, b x5, c x4 of 12 -> p = (1/4, 5/12, 1/3)
    #   B: q_b = 1, gain (1 - 5/12) / (5/12) = 7/5 = 1.4; -ln(5/12) = 0.8755
    #   C: q_c = 1, gain (1 - 1/3) / (1/3) = 2;          -ln(1/3)  = 1.0986
    #   A: q_a = 3/4, gain 2;                            -ln(1/4)  = 1.3863
    groups = {"A": "aaab", "B": "bbbb", "C": "cccc"}
    assert _judged(BetaLikeness("s", 2.01), groups) == [True, True, True]
    assert _judged(BetaLikeness("s", 2.01, "enhanced"), groups) == [False, False, False]
    assert _judged(BetaLikeness("s", 1.5), groups) == [False, True, False]
    # enhanced with β = 1.5: bounds (1.3863, 0.8755, 1.0986): A's 2 > 1.39, B's 1.4 > 0.88, C's 2 > 1.10
    assert _judged(BetaLikeness("s", 1.5, "enhanced"), groups) == [False, False, False]
    # the enhanced bound never exceeds β: with a large β it is -ln p alone, still failing all three
    assert _judged(BetaLikeness("s", 100.0, "enhanced"), groups) == [False, False, False]


def test_delta_disclosure_bounds_both_directions_in_log2() -> None:
    # A = aaaa, B = abbb: a x5, b x3 of 8 -> p = (5/8, 3/8)
    #   A: q_a = 1: log2(8/5) = 0.678; b absent (not judged)
    #   B: q_a = 1/4: |log2(2/5)| = 1.3219; q_b = 3/4: log2(2) = 1
    groups = {"A": "aaaa", "B": "abbb"}
    assert _judged(DeltaDisclosure("s", 1.33), groups) == [True, True]
    assert _judged(DeltaDisclosure("s", 1.32), groups) == [True, False]  # the drop of a, not b's rise
    assert _judged(DeltaDisclosure("s", 0.68), groups) == [True, False]
    assert _judged(DeltaDisclosure("s", 0.67), groups) == [False, False]


def test_delta_disclosure_fails_at_exactly_delta_as_arx_does() -> None:
    # A = ab, B = aaab? keep it exact: A = aa, B = bb: p = (1/2, 1/2), each class doubles a value: log2 2 = 1
    assert _judged(DeltaDisclosure("s", 1.0), {"A": "aa", "B": "bb"}) == [False, False]
    assert _judged(DeltaDisclosure("s", 1.0 + 1e-12), {"A": "aa", "B": "bb"}) == [True, True]


def test_delta_disclosure_is_not_monotone() -> None:
    # K = ab, L = bbbbbb, M = aaaa: a x5, b x7 of 12 -> p = (5/12, 7/12)
    #   K: log2((1/2) / (5/12)) = 0.263, |log2((1/2) / (7/12))| = 0.222; L: log2(12/7) = 0.778; M: log2(12/5) = 1.263
    # K and L merged (a more general node): a at 1/8 -> |log2(3/10)| = 1.737, above δ = 1.3
    assert DeltaDisclosure("s", 1.3).monotonic is False
    assert _judged(DeltaDisclosure("s", 1.3), {"K": "ab", "L": "bbbbbb", "M": "aaaa"}) == [True, True, True]
    assert _judged(DeltaDisclosure("s", 1.3), {"KL": "abbbbbbb", "M": "aaaa"}) == [False, True]


@pytest.mark.parametrize("make", [lambda: BetaLikeness("s", 0), lambda: BetaLikeness("s", -1),
                                  lambda: BetaLikeness("s", 1, "strong"), lambda: DeltaDisclosure("s", 0),
                                  lambda: DeltaDisclosure("s", float("nan"))])
def test_bad_parameters_are_one_line_errors(make: object) -> None:
    with pytest.raises(ConfigError) as caught:
        make()  # type: ignore[operator]
    assert "\n" not in str(caught.value)


def test_the_attribute_must_be_sensitive() -> None:
    table = pd.DataFrame({"q": list("aabb"), "s": list("xyxy")})
    dataset = Dataset(table, {"q": {"role": "quasi"}, "s": {"role": "insensitive"}})
    with pytest.raises(ConfigError, match="must have role sensitive"):
        BetaLikeness("s", 1.0).validate(dataset)
    with pytest.raises(ConfigError, match="must have role sensitive"):
        DeltaDisclosure("s", 1.0).validate(dataset)


def _random_table(seed: int) -> tuple[pd.DataFrame, list[str]]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 301))
    qi = [f"q{j}" for j in range(int(rng.integers(2, 4)))]
    data = {q: rng.integers(0, int(rng.integers(2, 5)), size=n).astype(str) for q in qi}
    data["s"] = rng.choice(np.array(list("abcdef")), size=n, p=rng.dirichlet(np.full(6, 0.7)))
    return pd.DataFrame(data), qi


@pytest.mark.parametrize("seed", range(8))
def test_against_pycanon(seed: int) -> None:
    table, qi = _random_table(seed)
    dataset = Dataset(table, {**{q: {"role": "quasi"} for q in qi}, "s": {"role": "sensitive"}})
    stats = stats_from_assignment(dataset, table.groupby(qi).ngroup().to_numpy(), StatsRequest(frozenset({"s"})))
    beta = pyc.basic_beta_likeness(table, qi, ["s"])
    holds, below = BetaLikeness("s", beta * (1 + 1e-9)), BetaLikeness("s", beta * (1 - 1e-9))
    for model in (holds, below):
        model.validate(dataset)
    assert holds.satisfied(stats).all() and not below.satisfied(stats).all()
    assert holds.gains(stats).max() == pytest.approx(beta, rel=1e-12)
    delta_ln = pyc.delta_disclosure(table, qi, ["s"])
    ours = DeltaDisclosure("s", 1.0)
    ours.validate(dataset)
    assert ours.distances(stats).max() == pytest.approx(delta_ln / math.log(2), rel=1e-12)
    above, at = DeltaDisclosure("s", delta_ln / math.log(2) * (1 + 1e-9)), DeltaDisclosure("s", delta_ln / math.log(2))
    for model in (above, at):
        model.validate(dataset)
    assert above.satisfied(stats).all() and not at.satisfied(stats).all()
