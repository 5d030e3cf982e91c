"""SafePub's (ε, δ)-differential privacy: ARX's parameters, the paper's formulas recomputed, the seeded sample.

The formulas are recomputed here with log-gamma binomial tails in numpy (the
model takes scipy's survival function), and the k checked by its definition:
the k ARX returns is one more than the smallest k whose δ(k) is below δ.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonset import Anonymizer
from anonset.config import requirements_from_config
from anonset.core.dataset import Dataset
from anonset.datasets import patient_register, patient_register_attributes
from anonset.errors import ConfigError
from anonset.privacy import DifferentialPrivacy, KAnonymity, Requirements
from anonset.testing.released import recheck


def _tail(n: int, beta: float, gamma: float) -> float:
    """P(Binomial(n, β) > ⌊γ n⌋), summed in logarithms."""
    j = np.arange(math.floor(n * gamma) + 1, n + 1, dtype=np.float64)
    if len(j) == 0:
        return 0.0
    logs = (math.lgamma(n + 1) - np.array([math.lgamma(x + 1) + math.lgamma(n - x + 1) for x in j])
            + j * math.log(beta) + (n - j) * math.log1p(-beta))
    return float(np.exp(logs).sum())


def _delta_of(k: int, epsilon: float) -> float:
    """SafePub's δ of a class-size floor k: the largest tail from n_m on, until the Chernoff bound falls below it."""
    beta = 1 - math.exp(-epsilon)
    gamma = (math.exp(epsilon) - 1 + beta) / math.exp(epsilon)
    rate = gamma * math.log(gamma / beta) - (gamma - beta)
    n, worst = math.ceil(k / gamma - 1), 0.0
    while True:
        worst = max(worst, _tail(n, beta, gamma))
        if math.exp(-n * rate) < worst:
            return worst
        n += 1


def test_arx_parameters_for_epsilon_2_delta_1e_5() -> None:
    model = DifferentialPrivacy(2.0, 1e-5)
    assert model.k == 114  # ARX 3.9.2
    assert model.sampling_probability == pytest.approx(0.8646647167633871, abs=1e-12)
    assert model.min_class_size == 114 and Requirements([model]).k == 114


@pytest.mark.parametrize(("epsilon", "delta"), [(2.0, 1e-5), (1.0, 1e-5), (2.0, 1e-6), (0.5, 1e-3), (1.5, 1e-4)])
def test_k_and_beta_follow_the_papers_formulas(epsilon: float, delta: float) -> None:
    model = DifferentialPrivacy(epsilon, delta)
    assert model.sampling_probability == pytest.approx(1 - math.exp(-epsilon), rel=1e-15)
    smallest = model.k - 1  # ARX returns one more than the smallest k with δ(k) < δ
    assert _delta_of(smallest, epsilon) < delta <= _delta_of(smallest - 1, epsilon)


def test_the_generalization_is_fixed_by_the_hierarchies_alone() -> None:
    table = patient_register(200, seed=1)
    dataset = Dataset(table, patient_register_attributes(table))
    tops = {q: h.max_level for q, h in zip(dataset.quasi, dataset.hierarchies, strict=True)}
    for degree, factor in (("low", 0.2), ("medium", 0.5), ("high", 0.8)):
        levels = DifferentialPrivacy(1.0, 1e-4, degree).fixed_levels(dataset)
        # Java's Math.round: halves round up (a height of 1 at 0.5 is level 1)
        assert levels == tuple(math.floor(factor * tops[q] + 0.5) for q in dataset.quasi)
    given = {q: 0 for q in dataset.quasi}
    assert DifferentialPrivacy(1.0, 1e-4, given).fixed_levels(dataset) == (0,) * len(dataset.quasi)
    with pytest.raises(ConfigError, match="gives no level for"):
        DifferentialPrivacy(1.0, 1e-4, {dataset.quasi[0]: 0}).validate(dataset)
    with pytest.raises(ConfigError, match="above the top of its hierarchy"):
        DifferentialPrivacy(1.0, 1e-4, {q: 99 for q in dataset.quasi}).validate(dataset)


def _fit(seed: int, method: str = "optimal") -> tuple[Anonymizer, pd.DataFrame]:
    table = patient_register(4000, seed=5)
    attributes = patient_register_attributes(table)
    attributes = {name: spec for name, spec in attributes.items() if name in ("age", "sex", "zip", "diagnosis")}
    attributes["patient_id"] = {"role": "insensitive"}  # to see which records were released
    for name in set(table.columns) - set(attributes):
        attributes[name] = {"role": "identifier"}
    model = Anonymizer(attributes, Requirements([DifferentialPrivacy(2.0, 1e-3, "medium")]), method=method,
                       seed=seed)
    with pytest.warns(match="random sample of"):
        model.fit(table)
    return model, table


def test_the_sample_is_seeded_and_the_release_is_k_anonymous_on_it() -> None:
    model, table = _fit(seed=11)
    again, _ = _fit(seed=11)
    other, _ = _fit(seed=12)
    release = model.release_.table
    assert release is not None
    pd.testing.assert_frame_equal(release, again.release_.table)  # same seed, same release
    (dp,) = model.requirements.models
    # the sample, drawn again by hand: each record kept when its uniform draw is below β
    kept = np.random.default_rng(11).random(len(table)) < dp.sampling_probability
    sampled = set(table.loc[kept, "patient_id"])
    assert model.dataset_.n_rows == kept.sum() and set(model.dataset_.table["patient_id"]) == sampled
    assert set(other.dataset_.table["patient_id"]) != sampled
    # the released records are sampled ones, in classes of at least k = the model's k; the others are dropped
    assert set(release["patient_id"]) <= sampled
    quasi = ["age", "sex", "zip"]
    assert release.groupby(quasi).size().min() >= dp.k
    assert model.release_.suppressed_rows == len(sampled) - len(release)
    assert recheck(release, model.dataset_.table, model.dataset_, model.requirements) == []
    assert model.result_.details["strategy"] == "fixed before seeing the data (no search)"
    assert model.result_.levels == dp.fixed_levels(model.dataset_)


@pytest.mark.parametrize(("method", "says"), [
    ("rv-global", "fixed before the data is seen"), ("mondrian", "cannot enforce"), ("pareto-exhaustive", "cannot"),
    ("k-member", "cannot enforce"),
])
def test_only_an_exact_full_domain_method_releases_it(method: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        Anonymizer({"a": {"role": "quasi"}}, Requirements([DifferentialPrivacy(1.0, 1e-4)]), method=method)


def test_it_is_the_only_model_and_sets_its_own_budget() -> None:
    with pytest.raises(ConfigError, match="the only privacy model"):
        Requirements([DifferentialPrivacy(1.0, 1e-4), KAnonymity(5)])
    with pytest.raises(ConfigError, match="leave max_suppression out"):
        Requirements([DifferentialPrivacy(1.0, 1e-4)], 0.05)
    assert Requirements([DifferentialPrivacy(1.0, 1e-4)]).max_suppression == 1.0
    for bad in ({"epsilon": 0, "delta": 1e-4}, {"epsilon": 1, "delta": 1.0}, {"epsilon": 1, "delta": 1e-4,
                                                                               "generalization": "extreme"}):
        with pytest.raises(ConfigError):
            DifferentialPrivacy(**bad)  # type: ignore[arg-type]


def test_new_records_get_no_guarantee() -> None:
    model, table = _fit(seed=3)
    with pytest.raises(ConfigError, match="new records get no guarantee"):
        model.transform(table.head(50))


def test_the_config_reads_1e_minus_5_as_a_number() -> None:
    import yaml

    from anonset.config import _UniqueKeyLoader  # the loader every config file is read with

    text = "differential_privacy: {epsilon: 2, delta: 1e-5, generalization: medium}\n"
    privacy = yaml.load(text, Loader=_UniqueKeyLoader)
    assert privacy["differential_privacy"]["delta"] == 1e-5
    (model,) = requirements_from_config(privacy).models
    assert isinstance(model, DifferentialPrivacy) and model.k == 114
    assert yaml.load("a: 2.5e3\nb: '1e-5'\nc: 5\n", Loader=_UniqueKeyLoader) == {"a": 2500.0, "b": "1e-5", "c": 5}
