"""The risk-based privacy models: hand-computed verdicts, the exact searches under them, and the re-check."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonset.anonymizer import Anonymizer
from anonset.config import requirements_from_config
from anonset.core.stats import ClassStats
from anonset.errors import ConfigError
from anonset.privacy import (
    AverageRisk,
    HighestRisk,
    KAnonymity,
    PopulationUniqueness,
    Requirements,
    SampleUniqueness,
)
from anonset.recheck.columns import SUPPRESSED
from anonset.recheck.verify import verify_release
from anonset.risk.population import population_uniqueness
from support import random_table


def _stats(sizes: list[int]) -> ClassStats:
    n = len(sizes)
    return ClassStats(sizes=np.array(sizes, dtype=np.int64), keys=np.zeros((n, 0), dtype=np.int32))


def _table(seed: int, n_rows: int = 150) -> tuple[pd.DataFrame, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    table, hierarchies = random_table(rng, n_rows, 3, n_sensitive_values=4)
    attrs: dict[str, Any] = {q: {"role": "quasi", "hierarchy": h} for q, h in hierarchies.items()}
    attrs["s"] = {"role": "sensitive"}
    attrs["x"] = {"role": "insensitive"}
    return table, attrs


def _released_sizes(released: pd.DataFrame, quasi: list[str]) -> np.ndarray:
    """Class sizes of the released records that are not suppressed, grouped with pandas."""
    kept = released[~(released[quasi].astype(str) == SUPPRESSED).all(axis=1)]
    return kept.groupby(quasi, dropna=False).size().to_numpy()


# --- hand-computed verdicts -------------------------------------------------------------------------------

def test_average_risk_removes_the_smallest_sizes_until_within_the_bound() -> None:
    stats = _stats([1, 4, 2, 1, 4])  # 5 classes / 12 records = 0.417; without 1s: 3/10; without 2: 2/8 = 0.25
    assert AverageRisk(0.25).satisfied(stats).tolist() == [False, True, False, False, True]
    assert AverageRisk(0.3).satisfied(stats).tolist() == [False, True, True, False, True]
    assert AverageRisk(5 / 12).satisfied(stats).all()
    assert not AverageRisk(0.2).satisfied(stats).any()  # 1/4 > 0.2: nothing can be kept


def test_sample_uniqueness_keeps_all_or_drops_the_uniques() -> None:
    stats = _stats([1, 2, 3, 4])  # 1 unique of 10 records
    assert SampleUniqueness(0.1).satisfied(stats).all()
    assert SampleUniqueness(0.09).satisfied(stats).tolist() == [False, True, True, True]
    assert not SampleUniqueness(0.5).satisfied(_stats([1, 1])).any()  # all uniques: nothing can be kept


def test_population_uniqueness_follows_the_estimator() -> None:
    sizes = [1, 1, 1, 2, 2, 3, 5, 8, 1, 2, 4, 1]
    est = population_uniqueness(np.array(sizes), sampling_fraction=0.3)
    assert est.zayatz is not None and est.decision_rule is not None
    zayatz = PopulationUniqueness(est.zayatz, sampling_fraction=0.3, estimator="zayatz")
    assert zayatz.satisfied(_stats(sizes)).all()
    tighter = PopulationUniqueness(est.zayatz * 0.99, sampling_fraction=0.3, estimator="zayatz")
    assert tighter.satisfied(_stats(sizes)).tolist() == [s > 1 for s in sizes]
    rule = PopulationUniqueness(est.decision_rule * (1 + 1e-9), population_size=sum(sizes) / 0.3)
    assert rule.satisfied(_stats(sizes)).all()
    assert PopulationUniqueness(1e-6, sampling_fraction=0.3).satisfied(_stats([2, 3])).all()  # no uniques: 0


@pytest.mark.parametrize(("r", "k"), [(1.0, 1), (0.5, 2), (0.4, 3), (1 / 3, 3), (0.3, 4), (0.25, 4), (0.2, 5),
                                      (0.1, 10), (0.09, 12), (0.01, 100)])
def test_highest_risk_is_k_anonymity_with_k_ceil_one_over_r(r: float, k: int) -> None:
    model = HighestRisk(r)
    assert isinstance(model, KAnonymity) and model.k == k == math.ceil(round(1 / r, 9))
    sizes = np.random.default_rng(0).integers(1, 15, 200)
    assert model.satisfied(_stats(list(sizes))).tolist() == (sizes >= k).tolist()
    assert (1 / sizes[model.satisfied(_stats(list(sizes)))] <= r).all()


def test_judge_applies_the_release_level_models_after_the_per_class_ones() -> None:
    stats = _stats([1, 2, 2, 3, 6])  # k = 2 first: 4 classes / 13 records = 0.31
    verdict = Requirements([AverageRisk(0.31), KAnonymity(2)], max_suppression=0.1).judge(stats)
    assert verdict.violating.tolist() == [True, False, False, False, False] and verdict.feasible
    # average risk 0.25 then removes the 2s too: 2 classes / 9 records; 5 records suppressed, budget 1
    verdict = Requirements([AverageRisk(0.25), KAnonymity(2)], max_suppression=0.1).judge(stats)
    assert verdict.violating.tolist() == [True, True, True, False, False] and not verdict.feasible
    assert verdict.suppressed_rows == 5 and verdict.budget_rows == 1


def test_monotonicity_flags() -> None:
    assert Requirements([AverageRisk(0.2), SampleUniqueness(0.1)]).monotonic
    assert not Requirements([AverageRisk(0.2)], max_suppression=0.05).monotonic
    assert not Requirements([PopulationUniqueness(0.1, sampling_fraction=0.1)]).monotonic
    assert Requirements([HighestRisk(0.2)], max_suppression=0.05).monotonic  # k-anonymity with a budget


@pytest.mark.parametrize(("privacy", "words"), [
    ({"average_risk": 0}, "average risk"), ({"average_risk": 1.5}, "average risk"),
    ({"highest_risk": -0.1}, "highest risk"), ({"highest_risk": "high"}, "highest risk"),
    ({"sample_uniqueness": 2}, "sample uniqueness"), ({"sample_uniqueness": True}, "sample uniqueness"),
    ({"population_uniqueness": {"max": 0, "sampling_fraction": 0.1}}, "population uniqueness"),
    ({"population_uniqueness": {"max": 0.1, "sampling_fraction": 1.5}}, "population uniqueness"),
    ({"population_uniqueness": {"max": 0.1}}, "population uniqueness"),
    ({"population_uniqueness": {"max": 0.1, "sampling_fraction": 0.1, "model": "x"}}, "population uniqueness"),
])
def test_bad_bounds_are_one_line_errors(privacy: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        requirements_from_config(privacy, "run.yaml")
    message = str(caught.value)
    assert "\n" not in message and words in message and message.startswith("run.yaml:")
    value = next(iter(privacy.values()))
    shown = value.get("max") if isinstance(value, dict) else value
    if not (isinstance(value, dict) and ("model" in value or "sampling_fraction" not in value
                                         or value["sampling_fraction"] == 1.5)):
        assert repr(shown) in message


def test_config_keys_build_the_models() -> None:
    req = requirements_from_config({"average_risk": 0.1, "highest_risk": 0.2, "sample_uniqueness": 0.05,
                                    "population_uniqueness": {"max": 0.01, "sampling_fraction": 0.01,
                                                              "model": "pitman"}})
    assert [type(m).__name__ for m in req.models] == ["HighestRisk", "AverageRisk", "SampleUniqueness",
                                                      "PopulationUniqueness"]
    with pytest.raises(ConfigError, match="privacy.population_uniqueness"):
        requirements_from_config({"population_uniqueness": {"max": 0.1, "fraction": 0.1}})


# --- the searches ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seed", "r", "budget"), [(1, 0.2, 0.0), (2, 0.15, 0.0), (3, 0.2, 0.05), (4, 0.1, 0.1)])
def test_optimal_average_risk_is_the_exhaustive_optimum_and_holds_on_the_released_values(
        seed: int, r: float, budget: float) -> None:
    table, attrs = _table(seed)
    requirements = Requirements([AverageRisk(r)], max_suppression=budget)
    opt = Anonymizer(attrs, requirements, method="optimal").fit(table)
    exh = Anonymizer(attrs, requirements, method="exhaustive").fit(table)
    assert opt.levels_ == exh.levels_
    assert opt.result_ is not None and exh.result_ is not None
    assert opt.result_.objective == pytest.approx(exh.result_.objective)
    released = opt.release_.table
    assert opt.release_.verified and released is not None
    sizes = _released_sizes(released, list(opt.dataset_.quasi))
    assert len(sizes) / sizes.sum() <= r
    assert len(table) - sizes.sum() <= math.floor(budget * len(table) + 1e-9)
    assert verify_release(released, opt.dataset_, requirements, len(table)).ok


@pytest.mark.parametrize("model", [SampleUniqueness(0.02), PopulationUniqueness(0.05, sampling_fraction=0.2),
                                   PopulationUniqueness(0.02, sampling_fraction=0.05, estimator="pitman")])
def test_uniqueness_models_under_the_exact_searches(model: Any) -> None:
    table, attrs = _table(5)
    requirements = Requirements([model], max_suppression=0.05)
    opt = Anonymizer(attrs, requirements, method="optimal").fit(table)
    exh = Anonymizer(attrs, requirements, method="exhaustive").fit(table)
    assert opt.levels_ == exh.levels_
    released = opt.release_.table
    assert released is not None
    sizes = _released_sizes(released, list(opt.dataset_.quasi))
    if isinstance(model, SampleUniqueness):
        assert (sizes == 1).sum() / sizes.sum() <= model.u
    else:
        value = model.figure(sizes) if (sizes == 1).any() else 0.0
        assert value is not None and value <= model.u
    assert verify_release(released, opt.dataset_, requirements, len(table)).ok


@pytest.mark.parametrize(("seed", "r", "budget"), [(6, 0.2, 0.0), (7, 0.3, 0.05), (8, 0.1, 0.02)])
def test_highest_risk_gives_the_release_of_k_anonymity(seed: int, r: float, budget: float) -> None:
    table, attrs = _table(seed)
    risk = Anonymizer(attrs, Requirements([HighestRisk(r)], budget), method="optimal").fit(table)
    k = Anonymizer(attrs, Requirements([KAnonymity(math.ceil(round(1 / r, 9)))], budget), method="optimal").fit(table)
    assert risk.levels_ == k.levels_
    assert risk.release_.table is not None and k.release_.table is not None
    pd.testing.assert_frame_equal(risk.release_.table, k.release_.table)


def test_the_verifier_refuses_a_release_over_the_bound() -> None:
    table, attrs = _table(9)
    loose = Anonymizer(attrs, Requirements([KAnonymity(1)]), method="optimal", allow_unprotected=True).fit(table)
    released = loose.release_.table
    assert released is not None
    sizes = _released_sizes(released, list(loose.dataset_.quasi))
    r = 0.9 * len(sizes) / sizes.sum()
    report = verify_release(released, loose.dataset_, Requirements([AverageRisk(r)]), len(table))
    assert not report.ok and "average risk" in " ".join(report.problems)
    if (sizes == 1).any():
        report = verify_release(released, loose.dataset_, Requirements([SampleUniqueness(1e-6)]), len(table))
        assert not report.ok


def test_mondrian_refuses_the_release_level_models_in_one_line() -> None:
    _, attrs = _table(1)
    with pytest.raises(ConfigError) as caught:
        Anonymizer(attrs, Requirements([AverageRisk(0.2)]), method="mondrian")
    assert "\n" not in str(caught.value) and "cannot enforce average risk <= 0.2" in str(caught.value)
    Anonymizer(attrs, Requirements([HighestRisk(0.2)]), method="mondrian")  # k-anonymity: accepted


@pytest.mark.parametrize(("released", "suppressed", "r", "ok"), [
    ([4, 4], 2, 0.25, True),    # 2 classes / 8 records; counting the 2 suppressed as a class would say 3/10
    ([1, 4], 10, 0.3, False),   # 2 / 5 = 0.4; counting the 10 suppressed as a class would hide it (3/15)
])
def test_the_verifier_judges_a_release_level_model_without_the_suppressed_records(
        released: list[int], suppressed: int, r: float, ok: bool) -> None:
    """The all-* group of suppressed records is no class of the release: average risk is over the others."""
    import pandas as pd

    from anonset.core.dataset import Dataset
    from anonset.privacy import Requirements
    from anonset.privacy.risk_models import AverageRisk
    from anonset.recheck.verify import verify_release

    values = [str(i) for i, size in enumerate(released) for _ in range(size)] + ["*"] * suppressed
    table = pd.DataFrame({"zip": values})
    dataset = Dataset(pd.DataFrame({"zip": [v if v != "*" else "9" for v in values]}), {"zip": {"role": "quasi"}})
    n = len(values)
    report = verify_release(table, dataset, Requirements([AverageRisk(r)], max_suppression=suppressed / n), n)
    assert report.ok is ok, report.problems
    assert report.suppressed_rows == suppressed and report.classes == len(released)


def test_a_risk_bound_of_one_protects_nothing_and_is_refused() -> None:
    from anonset.anonymizer import Anonymizer, protects
    from anonset.errors import ConfigError
    from anonset.privacy import Requirements
    from anonset.privacy.risk_models import AverageRisk, PopulationUniqueness, SampleUniqueness

    for model in (AverageRisk(1), SampleUniqueness(1), PopulationUniqueness(1, sampling_fraction=0.1)):
        assert not protects(Requirements([model]))
        with pytest.raises(ConfigError, match="protect nothing"):
            Anonymizer({}, Requirements([model]))
    assert protects(Requirements([AverageRisk(0.5)]))


@pytest.mark.parametrize(("given", "words"), [({"population_size": 1e20}, "larger than 9,007,199,254,740,992"),
                                              ({"sampling_fraction": 1e-17}, "the population it gives")])
def test_a_population_the_models_cannot_compute_with_is_refused_before_the_search(given: dict[str, float],
                                                                                   words: str) -> None:
    table = pd.DataFrame({"a": np.random.default_rng(0).choice(list("abc"), 100)})
    requirements = Requirements([KAnonymity(2), PopulationUniqueness(0.1, **given)])
    with pytest.raises(ConfigError, match=words):
        Anonymizer({"a": {"role": "quasi"}}, requirements).fit(table)
