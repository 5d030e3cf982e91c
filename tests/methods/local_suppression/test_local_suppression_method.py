"""The ``local-suppression`` method through the API and the CLI: blanks only, re-checked with blanks matching any value.

sdcMicro's published count (tests/testthat/test_localSuppression.R: 2 values for k = 2 on Var4 and Var5 of
its ten-record table, drawn here with R's generator) through the method; every release re-checked by a
pair-by-pair count of the records each record matches (tests/support.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import Anonymizer, KAnonymity, Requirements
from anonset.cli import main
from anonset.errors import ConfigError
from anonset.privacy import DistinctLDiversity
from r_random import RRandom
from support import matched_by_hand


def _sdcmicro_sample() -> pd.DataFrame:
    r = RRandom(3)
    r.runif(30, 1, 100)
    var4 = np.round(r.runif(10, 1, 3)).astype(int).astype(str)
    var5 = np.round(r.runif(10, 1, 2)).astype(int).astype(str)
    return pd.DataFrame({"Var4": var4, "Var5": var5, "id": [str(i) for i in range(10)]})


def _survey(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"region": rng.choice(list("ABCDEFGH"), n, p=[.3, .2, .15, .1, .1, .08, .05, .02]),
                         "sex": rng.choice(["f", "m"], n), "age": rng.integers(18, 90, n).astype(str),
                         "diagnosis": rng.choice(list("xyz"), n)})


ATTRS = {"region": {"role": "quasi"}, "sex": {"role": "quasi"},
         "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
         "diagnosis": {"role": "sensitive"}}


def _blanked(released: pd.DataFrame, original: pd.DataFrame, quasi: list[str]) -> dict[str, int]:
    return {q: int(((released[q] == "*") & (original[q] != "*")).sum()) for q in quasi}


def test_sdcmicros_published_count_through_the_method() -> None:
    table = _sdcmicro_sample()
    model = Anonymizer({"Var4": {"role": "quasi"}, "Var5": {"role": "quasi"}, "id": {"role": "identifier"}},
                       Requirements([KAnonymity(2)]), method="local-suppression").fit(table)
    release = model.release_
    assert release.table is not None and release.verified
    assert sum(_blanked(release.table, table, ["Var4", "Var5"]).values()) == 2
    assert release.summary()["suppressed_cells"] == _blanked(release.table, table, ["Var4", "Var5"])
    assert matched_by_hand(release.table, ["Var4", "Var5"]).min() >= 2


@pytest.mark.parametrize("k", [2, 3, 5])
def test_only_quasi_identifier_values_are_blanked_and_every_record_matches_k(k: int) -> None:
    table = _survey()
    model = Anonymizer(ATTRS, Requirements([KAnonymity(k)]), method="local-suppression").fit(table)
    released = model.release_.table
    assert released is not None and len(released) == len(table)
    quasi = ["region", "sex", "age"]
    shown = released[quasi] != "*"
    kept = released[quasi].where(shown, "") == table[quasi].where(shown, "")
    assert kept.all().all()  # a value is kept as it is, or blanked
    assert (released["diagnosis"] == table["diagnosis"]).all()
    assert matched_by_hand(released, quasi).min() >= k
    summary = model.release_.summary()
    assert summary["suppressed_cells"] == _blanked(released, table, quasi)
    assert summary["suppressed_rows"] == 0 and summary["min_class_size"] == matched_by_hand(released, quasi).min()


def test_the_importance_order_decides_what_is_blanked() -> None:
    table = _survey()
    keep_age = Anonymizer(ATTRS, Requirements([KAnonymity(3)]), method="local-suppression",
                          method_options={"importance": ["age", "sex", "region"]}).fit(table)
    keep_region = Anonymizer(ATTRS, Requirements([KAnonymity(3)]), method="local-suppression",
                             method_options={"importance": ["region", "sex", "age"]}).fit(table)
    first = keep_age.release_.summary()["suppressed_cells"]
    second = keep_region.release_.summary()["suppressed_cells"]
    assert first["region"] > first["age"] and second["age"] > second["region"]


def test_strata_are_each_k_anonymous() -> None:
    table = _survey()
    model = Anonymizer(ATTRS, Requirements([KAnonymity(3)]), method="local-suppression",
                       method_options={"strata": ["sex"]}).fit(table)
    released = model.release_.table
    assert released is not None
    for sex in ("f", "m"):
        part = released[table["sex"] == sex]
        assert matched_by_hand(part, ["region", "sex", "age"]).min() >= 3


def test_models_other_than_k_anonymity_and_a_bad_importance_are_refused() -> None:
    table = _survey()
    with pytest.raises(ConfigError, match="cannot enforce"):
        Anonymizer(ATTRS, Requirements([KAnonymity(3), DistinctLDiversity("diagnosis", 2)]),
                   method="local-suppression").fit(table)
    with pytest.raises(ConfigError, match="every quasi-identifier once"):
        Anonymizer(ATTRS, Requirements([KAnonymity(3)]), method="local-suppression",
                   method_options={"importance": ["age", "sex"]}).fit(table)


def test_new_records_join_a_class_whose_shown_values_they_have() -> None:
    table = _survey()
    model = Anonymizer(ATTRS, Requirements([KAnonymity(3)]), method="local-suppression").fit(table)
    release = model.transform(table, return_release=True)  # the fitted records, as new ones
    assert release.verified and release.table is not None
    assert matched_by_hand(release.table, ["region", "sex", "age"]).min() >= 3


def test_the_command_writes_checks_and_reports_a_blanked_release(tmp_path: Path) -> None:
    table = _survey()
    table.to_csv(tmp_path / "survey.csv", index=False)
    (tmp_path / "run.yaml").write_text(
        "input: {path: survey.csv}\nattributes:\n  region: {role: quasi}\n  sex: {role: quasi}\n"
        "  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [10, 20]}}\n"
        "  diagnosis: {role: sensitive}\nprivacy: {k: 4}\n"
        "method: {name: local-suppression, importance: [sex, region, age]}\noutput: {path: out.csv}\n",
        encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(main, ["anonymize", str(tmp_path / "run.yaml"), "--summary", str(tmp_path / "s.json")])
    assert done.exit_code == 0, done.output
    assert "blanked values" in done.output  # the terminal summary counts them too
    released = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["suppressed_cells"] == _blanked(released, table, ["region", "sex", "age"])
    assert summary["verified"] and matched_by_hand(released, ["region", "sex", "age"]).min() >= 4
    strict = runner.invoke(main, ["check", str(tmp_path / "out.csv"), "--quasi", "region,sex,age", "-k", "4"])
    assert strict.exit_code == 1  # identical rows alone: some groups are smaller than 4
    matched = runner.invoke(main, ["check", str(tmp_path / "out.csv"), "--quasi", "region,sex,age", "-k", "4",
                                   "--blanks-match-any"])
    assert matched.exit_code == 0 and "satisfied: 4-anonymity" in matched.output
    report = runner.invoke(main, ["report", str(tmp_path / "run.yaml"), str(tmp_path / "out.csv"),
                                  "-o", str(tmp_path / "r.json")])
    assert report.exit_code == 0, report.output
    contents = json.loads((tmp_path / "r.json").read_text())
    assert all(g["holds"] for g in contents["guarantees"])
    fewest = matched_by_hand(released, ["region", "sex", "age"]).min()
    assert contents["risk"]["release"]["highest_risk"] == pytest.approx(1 / fewest)
    risk = runner.invoke(main, ["risk", str(tmp_path / "run.yaml"), "--release", str(tmp_path / "out.csv"),
                                "--json", "-"])
    assert risk.exit_code == 0, risk.output
    measured = json.loads(risk.stdout)
    assert measured["highest_risk"] == pytest.approx(1 / fewest)
    assert measured["k_anonymity_violations"]["3"] == 0  # a blank matches any value in the survey counts too
