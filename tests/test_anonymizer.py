"""Releases: rendering, independent verification, pycanon's second opinion, fit/transform."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pycanon import anonymity

from anonset import Anonymizer, InfeasibleError, anonymize
from anonset.datasets import patient_register, patient_register_attributes, patient_register_dataset
from anonset.metrics import Loss
from anonset.privacy import EntropyLDiversity, KAnonymity, Requirements, TCloseness
from anonset.recheck.columns import SUPPRESSED
from anonset.recheck.verify import verify_release

QUASI = ["age", "sex", "zip", "race", "marital_status", "education"]


def _released_rows(release) -> pd.DataFrame:
    """Released records minus the suppressed ones (all quasi-identifiers '*')."""
    star = np.all(release.table[QUASI].to_numpy() == SUPPRESSED, axis=1)
    return release.table.loc[~star].reset_index(drop=True)


def _second_opinion(release, k: int, l_entropy: float | None = None) -> None:
    rows = _released_rows(release)
    counts = rows.groupby(QUASI).size()
    assert counts.min() >= k  # recomputed here from the released strings
    assert anonymity.k_anonymity(rows, QUASI) >= k
    if l_entropy is not None:
        assert anonymity.entropy_l_diversity(rows, QUASI, ["diagnosis"]) >= int(l_entropy)


@pytest.mark.parametrize("k,budget", [(2, 0.0), (5, 0.02), (10, 0.05)])
def test_release_is_k_anonymous_by_two_independent_checks(k: int, budget: float) -> None:
    ds = patient_register_dataset(3000, seed=k)
    release = anonymize(ds, requirements=Requirements([KAnonymity(k)], budget))
    assert release.verified
    assert release.suppressed_rows <= int(budget * 3000)
    assert len(release.table) == 3000  # suppressed rows are marked, not lost
    assert "patient_id" not in release.table.columns  # identifiers dropped
    np.testing.assert_array_equal(release.table["diagnosis"], ds.table["diagnosis"])  # others untouched
    np.testing.assert_array_equal(release.table["length_of_stay"], ds.table["length_of_stay"])
    _second_opinion(release, k)
    assert release.min_class_size >= k
    assert release.partition.n_rows == 3000


def test_entropy_l_diversity_release_checked_by_pycanon() -> None:
    ds = patient_register_dataset(4000, seed=1)
    req = Requirements([KAnonymity(4), EntropyLDiversity("diagnosis", 3)], 0.03)
    release = anonymize(ds, requirements=req)
    _second_opinion(release, 4, l_entropy=3)
    rows = _released_rows(release)
    for _, group in rows.groupby(QUASI):
        p = group["diagnosis"].value_counts(normalize=True).to_numpy()
        assert -(p * np.log(p)).sum() >= np.log(3) - 1e-9


def test_drop_suppressed_removes_and_counts_rows() -> None:
    ds = patient_register_dataset(2000, seed=2)
    req = Requirements([KAnonymity(5)], 0.05)
    marked = anonymize(ds, requirements=req)
    dropped = anonymize(ds, requirements=req, drop_suppressed=True)
    assert dropped.suppressed_rows == marked.suppressed_rows
    assert len(dropped.table) == 2000 - marked.suppressed_rows
    assert (dropped.table[QUASI] != SUPPRESSED).any(axis=1).all()
    assert verify_release(dropped.table, ds, req).ok


def test_verification_catches_a_tampered_release() -> None:
    ds = patient_register_dataset(2000, seed=3)
    req = Requirements([KAnonymity(5)], 0.0)
    release = anonymize(ds, requirements=req)
    tampered = release.table.copy()
    tampered.loc[0, "zip"] = "99999"  # a class of one
    report = verify_release(tampered, ds, req)
    assert not report.ok and report.violating_rows >= 1


def test_fit_transform_applies_the_same_recoding_and_rechecks() -> None:
    table = patient_register(4000, seed=4)
    attrs = patient_register_attributes(table)
    req = Requirements([KAnonymity(3)], 0.05)
    model = Anonymizer(attrs, req).fit(table)
    shuffled = table.sample(frac=1.0, random_state=0).reset_index(drop=True)
    released = model.transform(shuffled, return_release=True)
    assert released.levels == model.levels_
    assert released.verified
    assert released.suppressed_rows == model.release_.suppressed_rows
    # every record gets the label of its own value generalized to the learned level
    for q in ["age", "zip", "education"]:
        h = model.dataset_.hierarchy(q)
        level = model.levels_[q]
        kept = released.table[q] != SUPPRESSED
        expected = [h.labels[level][h.maps[level][h.leaf_code(v)]] for v in shuffled.loc[kept, q]]
        assert list(released.table.loc[kept, q]) == expected


def test_transform_raises_when_new_rows_violate() -> None:
    table = patient_register(3000, seed=5)
    attrs = patient_register_attributes(table)
    model = Anonymizer(attrs, Requirements([KAnonymity(10)], 0.0)).fit(table)
    with pytest.raises(InfeasibleError):
        model.transform(table.iloc[:7], return_release=True)  # 7 records cannot form a class of 10
    with pytest.warns(UserWarning):
        out = Anonymizer(attrs, Requirements([KAnonymity(10)], 0.0), on_violation="warn").fit(table).transform(
            table.iloc[:7], return_release=True)
    assert not out.verified


def test_same_input_same_release() -> None:
    ds1 = patient_register_dataset(1500, seed=9)
    ds2 = patient_register_dataset(1500, seed=9)
    req = Requirements([KAnonymity(3), TCloseness("diagnosis", 0.3)], 0.02)
    r1 = anonymize(ds1, requirements=req)
    r2 = anonymize(ds2, requirements=req)
    pd.testing.assert_frame_equal(r1.table, r2.table)
    assert r1.metrics == r2.metrics


def test_attribute_weights_shift_loss_away_from_the_weighted_attribute() -> None:
    ds = patient_register_dataset(3000, seed=6)
    req = Requirements([KAnonymity(5)], 0.02)
    plain = anonymize(ds, requirements=req)
    weighted = anonymize(ds, requirements=req, weights={"age": 10.0})
    assert weighted.verified and "discernibility" in weighted.metrics
    # with age weighing 10, the optimum keeps age at most as generalized as without weights
    assert weighted.levels["age"] <= plain.levels["age"]
    # each release is optimal under its own weighting: better than the other's node
    assert weighted.metrics["loss"] <= Loss(weights={"age": 10.0}).score(plain.partition, ds) + 1e-12
    assert plain.metrics["loss"] <= Loss().score(weighted.partition, ds) + 1e-12


def test_verification_reads_sensitive_values_as_the_input_spelled_them() -> None:
    """A numeric sensitive value written 39.0 whose hierarchy leaf is 39, and a missing value."""
    from anonset.hierarchy import Hierarchy

    h = Hierarchy.from_rows("s", [["39", "young", "*"], ["40", "old", "*"], ["", "", "*"]])
    table = pd.DataFrame({"q": ["a"] * 3 + ["b"] * 3, "s": ["39.0", "40", None, "39.0", "40", None]})
    attrs = {"q": {"role": "quasi"}, "s": {"role": "sensitive", "type": "numeric", "hierarchy": h}}
    release = anonymize(table, attrs, requirements=Requirements([KAnonymity(3), TCloseness("s", 0.5, "hierarchical")]))
    assert release.verified


def test_classification_metric_is_reported_when_a_target_exists() -> None:
    table = patient_register(1500, seed=7)
    attrs = dict(patient_register_attributes(table))
    plain = anonymize(table, attrs, requirements=Requirements([KAnonymity(5)], 0.02))
    assert "cm" not in plain.metrics and "total_il" in plain.metrics
    from anonset.core.dataset import AttributeSpec, Role

    attrs["diagnosis"] = AttributeSpec(role=Role.TARGET)
    with_target = anonymize(table, attrs, requirements=Requirements([KAnonymity(5)], 0.02))
    assert 0.0 <= with_target.metrics["cm"] <= 1.0


def test_an_attribute_lost_to_suppression_is_not_offered_back_by_generalization() -> None:
    """'comment' is 'NA' but for one record, which k = 5 suppresses: no generalization can keep two values."""
    import warnings

    from anonset import AnonsetWarning

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"age": rng.integers(20, 80, 200).astype(str), "sex": rng.choice(["F", "M"], 200),
                          "comment": ["NA"] * 199 + ["VIP"], "diagnosis": rng.choice(["flu", "cold"], 200)})
    attrs = {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 50]}},
             "sex": {"role": "quasi"}, "comment": {"role": "quasi"}, "diagnosis": {"role": "sensitive"}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = Anonymizer(attrs, Requirements([KAnonymity(5)], 0.01)).fit(table).release_
    assert release.table is not None and release.levels is not None and release.levels["comment"] == 0
    assert set(release.table["comment"]) == {"NA", "*"}  # the VIP record is suppressed
    (lost,) = [str(w.message) for w in caught if issubclass(w.category, AnonsetWarning) and "'comment'" in
               str(w.message)]
    assert "as one single value ('NA')" in lost and "still shows one value of it" in lost
    assert "cheapest feasible release that keeps it" not in lost
