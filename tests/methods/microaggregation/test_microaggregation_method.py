"""The ``microaggregation`` method through the API and the CLI: MDAV's groups released as classes, numbers as means.

Groups and means worked by hand (the six ages of ``test_mdav.py``), the release's numbers equal to
:func:`~anonset.methods.microaggregation.mdav.mdav`'s (itself checked against sdcMicro's ``mdav`` by
``benchmarks/sdcmicro_agreement.py``), and every release re-checked from its released values: classes
grouped by hand, pycanon's k-anonymity, and ``anonset check`` on the written file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from pycanon import anonymity

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.cli import main
from anonset.core.dataset import Dataset
from anonset.core.partition import Intervals
from anonset.errors import ConfigError, InfeasibleError
from anonset.evaluation.features import partition_features
from anonset.evaluation.queries import RangeQuery, estimated_counts
from anonset.methods.microaggregation.mdav import mdav
from anonset.methods.microaggregation.ranking import individual_ranking

ATTRS = {"region": {"role": "quasi"}, "sex": {"role": "quasi"},
         "age": {"role": "quasi", "type": "numeric"}, "income": {"role": "quasi", "type": "numeric"},
         "diagnosis": {"role": "sensitive"}}
QUASI = ["region", "sex", "age", "income"]


def _survey(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"region": rng.choice(list("ABCD"), n, p=[.4, .3, .2, .1]), "sex": rng.choice(["f", "m"], n),
                         "age": rng.integers(18, 90, n), "income": np.round(rng.lognormal(7.5, 0.6, n), 2),
                         "diagnosis": rng.choice(list("xyz"), n)})


def _fit(table: pd.DataFrame, k: int, attrs: dict[str, dict[str, object]] | None = None,
         **options: object) -> Anonymizer:
    return Anonymizer(attrs or ATTRS, Requirements([KAnonymity(k)]), method="microaggregation",
                      method_options=options).fit(table)


def _smallest_class_by_hand(released: pd.DataFrame, quasi: list[str]) -> int:
    return int(released.groupby(quasi, sort=False).size().min())


def test_six_ages_by_hand() -> None:
    """Ages 1, 2, 3, 10, 11, 12 with k = 3: groups {1, 2, 3} and {10, 11, 12} (test_mdav.py), released as 2 and
    11; sex is what each group shares (f in the first, * in the second)."""
    table = pd.DataFrame({"age": [1, 2, 3, 10, 11, 12], "sex": ["f", "f", "f", "f", "m", "m"]})
    model = _fit(table, 3, {"age": {"role": "quasi", "type": "numeric"}, "sex": {"role": "quasi"}})
    released = model.release_.table
    assert released is not None and model.release_.verified
    assert released["age"].tolist() == ["2", "2", "2", "11", "11", "11"]
    assert released["sex"].tolist() == ["f", "f", "f", "*", "*", "*"]


def test_the_median_by_hand() -> None:
    """Ages 1, 2, 6 and 10, 11, 30 with k = 3: means 3 and 17, medians 2 and 11."""
    table = pd.DataFrame({"age": [1, 2, 6, 10, 11, 30]})
    attrs = {"age": {"role": "quasi", "type": "numeric"}}
    assert _fit(table, 3, attrs).release_.table["age"].tolist() == ["3"] * 3 + ["17"] * 3  # type: ignore[index]
    median = _fit(table, 3, attrs, statistic="median").release_
    assert median.table is not None and median.table["age"].tolist() == ["2"] * 3 + ["11"] * 3
    assert median.summary()["microaggregation"]["statistic"] == "median"


@pytest.mark.parametrize("k", [3, 5])
def test_the_numbers_are_mdavs_and_the_release_is_k_anonymous(k: int) -> None:
    table = _survey()
    model = _fit(table, k)
    release = model.release_
    released = release.table
    assert released is not None and release.verified and len(released) == len(table)
    grouped = mdav(table[["age", "income"]].to_numpy(dtype=np.float64), k)
    expected = grouped.values
    np.testing.assert_allclose(released[["age", "income"]].astype(float).to_numpy(), expected, rtol=0, atol=1e-9)
    assert (released["diagnosis"] == table["diagnosis"]).all()
    assert _smallest_class_by_hand(released, QUASI) >= k
    assert anonymity.k_anonymity(released, QUASI) >= k
    facts = release.summary()["microaggregation"]
    assert facts["attributes"] == ["age", "income"] and facts["groups"] == len(grouped.sizes)
    x, xm = table[["age", "income"]].to_numpy(dtype=float), released[["age", "income"]].astype(float).to_numpy()
    il1s = float((np.abs(x - xm) / (x.std(axis=0, ddof=1) * np.sqrt(2))).sum())
    assert facts["il1s"] == pytest.approx(il1s, abs=1e-5)


def test_strata_keep_their_values_and_small_strata_are_grouped_together() -> None:
    table = _survey(400)
    table.loc[:1, "region"] = "Z"  # strata of 1 or 2 records, below k
    model = _fit(table, 3, strata=["region", "sex"])
    released = model.release_.table
    assert released is not None and model.release_.verified
    sizes = table.groupby(["region", "sex"]).size()
    assert (sizes.drop("Z", level="region") >= 3).all()
    smallest = sizes.drop("Z", level="region").idxmin()  # the 2 pooled records join the smallest stratum
    joined = (table["region"] == smallest[0]) & (table["sex"] == smallest[1])
    own = (table["region"] != "Z") & ~joined
    assert (released.loc[own, "region"] == table.loc[own, "region"]).all()
    assert (released.loc[own, "sex"] == table.loc[own, "sex"]).all()
    assert (released.loc[table["region"] == "Z", "region"] != "Z").all()
    assert _smallest_class_by_hand(released, QUASI) >= 3


def test_a_missing_value_is_released_as_its_groups_mean() -> None:
    table = _survey(60)
    table["income"] = table["income"].astype(object)
    table.loc[5, "income"] = "?"
    attrs = {**ATTRS, "income": {"role": "quasi", "type": "numeric", "missing": ["?"],
                                 "hierarchy": {"builder": "intervals", "widths": [500]}}}
    model = _fit(table, 3, attrs)
    released = model.release_.table
    assert released is not None and model.release_.verified
    group = released[(released["age"] == released.loc[5, "age"]) & (released["region"] == released.loc[5, "region"])]
    assert released.loc[5, "income"] != "?" and (group["income"] == released.loc[5, "income"]).all()
    assert _smallest_class_by_hand(released, QUASI) >= 3


def test_what_cannot_be_aggregated_is_refused_by_name() -> None:
    table = _survey(50)
    with pytest.raises(ConfigError, match="cannot aggregate 'region': it is categorical, not numeric"):
        _fit(table, 3, attributes=["region"])
    with pytest.raises(ConfigError, match="'age' is both aggregated and a stratum"):
        _fit(table, 3, strata=["age"])
    with pytest.raises(ConfigError, match="needs a numeric quasi-identifier"):
        _fit(table[["region", "sex"]], 3, {"region": {"role": "quasi"}, "sex": {"role": "quasi"}})


def test_new_records_join_the_nearest_group_and_are_rechecked() -> None:
    table = pd.DataFrame({"age": [1, 2, 3, 10, 11, 12]})
    attrs = {"age": {"role": "quasi", "type": "numeric"}}
    model = _fit(table, 3, attrs)
    release = model.transform(pd.DataFrame({"age": [2, 2, 3, 11, 12, 12]}), return_release=True)
    assert release.verified and release.table is not None
    assert release.table["age"].tolist() == ["2", "2", "2", "11", "11", "11"]  # the fitted means, unchanged
    with pytest.raises(InfeasibleError, match="violating 3-anonymity"):
        model.transform(pd.DataFrame({"age": [2, 11, 11, 12]}))


def test_a_query_takes_a_class_when_its_number_is_in_range() -> None:
    """Two groups released as 2 and 11: a query on ages 0-5 counts the first group's 3 records, not a share."""
    table = pd.DataFrame({"age": [1, 2, 3, 10, 11, 12]})
    model = _fit(table, 3, {"age": {"role": "quasi", "type": "numeric"}})
    partition = model.release_.partition
    assert isinstance(partition.values["age"], Intervals)
    dataset: Dataset = model.dataset_
    estimated = estimated_counts(dataset, partition, [RangeQuery({"age": (0.0, 5.0)}),
                                                      RangeQuery({"age": (2.5, 10.5)})])
    assert estimated.tolist() == [3.0, 0.0]


def test_a_learner_is_shown_each_groups_number() -> None:
    """LeFevre et al.'s features of a record are the bounds of its released value: the group's number, twice."""
    table = pd.DataFrame({"age": [1, 2, 3, 10, 11, 12]})
    model = _fit(table, 3, {"age": {"role": "quasi", "type": "numeric"}})
    features = partition_features(model.dataset_, model.release_.partition, np.arange(6) // 3)
    assert features.tolist() == [[2.0, 2.0]] * 3 + [[11.0, 11.0]] * 3


def test_the_command_writes_and_checks_an_aggregated_release(tmp_path: Path) -> None:
    table = _survey(300)
    table.to_csv(tmp_path / "survey.csv", index=False)
    (tmp_path / "run.yaml").write_text(
        "input: {path: survey.csv}\nattributes:\n  region: {role: quasi}\n  sex: {role: quasi}\n"
        "  age: {role: quasi, type: numeric}\n  income: {role: quasi, type: numeric}\n"
        "  diagnosis: {role: sensitive}\nprivacy: {k: 4}\n"
        "method: {name: microaggregation, algorithm: mdav, attributes: [age, income], strata: [sex]}\n"
        "output: {path: out.csv}\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(main, ["anonymize", str(tmp_path / "run.yaml"), "--summary", str(tmp_path / "s.json")])
    assert done.exit_code == 0, done.output
    assert "aggregated" in done.output and "age, income: each group's" in done.output
    released = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["verified"] and summary["microaggregation"]["attributes"] == ["age", "income"]
    assert (released["sex"] == table["sex"]).all()
    assert _smallest_class_by_hand(released, QUASI) >= 4
    checked = runner.invoke(main, ["check", str(tmp_path / "out.csv"), "--quasi", ",".join(QUASI), "-k", "4"])
    assert checked.exit_code == 0, checked.output


def test_individual_ranking_of_one_attribute_gives_sdcmicros_onedims_groups() -> None:
    """One attribute: the release equals individual_ranking's (itself sdcMicro's onedims to 3.5e-11, see
    benchmarks/sdcmicro_agreement.py), and several attributes are refused: not k-anonymous together."""
    table = _survey(200)
    model = _fit(table, 4, algorithm="individual-ranking", attributes=["income"])
    release = model.release_
    assert release.table is not None and release.verified
    expected = individual_ranking(table[["income"]].to_numpy(dtype=np.float64), 4)[:, 0]
    np.testing.assert_allclose(release.table["income"].astype(float).to_numpy(), expected, rtol=0, atol=1e-9)
    assert release.summary()["microaggregation"]["algorithm"] == "individual-ranking"
    assert _smallest_class_by_hand(release.table, QUASI) >= 4
    with pytest.raises(ConfigError, match="not k-anonymous on age, income together"):
        _fit(table, 4, algorithm="individual-ranking")
