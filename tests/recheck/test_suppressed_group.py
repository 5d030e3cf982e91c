"""The suppressed records are released as one group: it may not disclose what the models protect.

Found by an adversarial round: with k = 5 and distinct 2-diversity, six
records (age 90-99, F, zip 10001, all ``hiv``) were suppressed for failing
2-diversity, and the release kept their diagnoses: six ``*,*,*,hiv`` rows.
Whoever learns that a person was suppressed (their values appear nowhere
else, or a report lists the suppressed combination) learns the diagnosis.
The rule: the suppressed records, judged as one class, must satisfy every
model; when they do not, their sensitive values are released as ``*`` too.
Each release here is re-checked from the released file alone.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset import AnonsetWarning, Anonymizer, DistinctLDiversity, KAnonymity, Requirements
from anonset.cli import main
from anonset.core.dataset import Dataset
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.postgres import PostgresBackend
from anonset.engine.sql.profile import dataset_from_table
from anonset.recheck.verify import verify_release
from support import PG_URL, PgSchema

ATTRIBUTES = {
    "pid": {"role": "identifier"},
    "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}},
    "sex": {"role": "quasi"},
    "zip": {"role": "quasi", "hierarchy": {"builder": "masking"}},
    "diagnosis": {"role": "sensitive"},
}
CONFIG = """input: {path: data.csv}
attributes:
  pid: {role: identifier}
  age: {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [5, 10, 20]}}
  sex: {role: quasi}
  zip: {role: quasi, hierarchy: {builder: masking}}
  diagnosis: {role: sensitive}
privacy: {k: 5, l_diversity: {attribute: diagnosis, l: 2}, max_suppression: 0.05}
output: {path: out.csv}
"""


def register(seed: int = 0, n: int = 2000) -> pd.DataFrame:
    """Diverse records aged 20-79 in three ZIP codes, and six women aged 90-99 in 10001 who all have ``hiv``."""
    rng = np.random.default_rng(seed)
    rows = pd.DataFrame({
        "pid": [f"P{i}" for i in range(n)],
        "age": rng.integers(20, 80, n).astype(str),
        "sex": rng.choice(["F", "M"], n),
        "zip": rng.choice(["10001", "10002", "10003"], n),
        "diagnosis": rng.choice(["flu", "cold", "asthma", "diabetes"], n),
    })
    old = pd.DataFrame({"pid": [f"Q{i}" for i in range(6)], "age": [str(a) for a in (90, 91, 92, 93, 94, 94)],
                        "sex": "F", "zip": "10001", "diagnosis": "hiv"})
    return pd.concat([rows, old], ignore_index=True)


def requirements() -> Requirements:
    return Requirements([KAnonymity(5), DistinctLDiversity("diagnosis", 2)], max_suppression=0.05)


def suppressed_rows(released: pd.DataFrame) -> pd.DataFrame:
    return released[(released[["age", "sex", "zip"]] == "*").all(axis=1)]


def test_the_failing_group_is_withheld_and_said_so() -> None:
    table = register()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = Anonymizer(ATTRIBUTES, requirements()).fit(table).release_
    assert release.table is not None
    gone = suppressed_rows(release.table)
    assert len(gone) == release.suppressed_rows == 6
    assert (gone["diagnosis"] == "*").all()  # the six diagnoses are not released
    kept = release.table.drop(gone.index)
    assert "*" not in set(kept["diagnosis"])  # every other diagnosis is
    assert (kept["diagnosis"].to_numpy() == table["diagnosis"].to_numpy()[kept.index]).all()
    shown = [str(w.message) for w in caught if issubclass(w.category, AnonsetWarning)]
    assert any("of the 6 suppressed records are withheld too" in m and "distinct 2-diversity" in m for m in shown)


def test_the_recheck_refuses_a_release_that_keeps_their_diagnoses() -> None:
    table = register()
    model = Anonymizer(ATTRIBUTES, requirements())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        release = model.fit(table).release_
    assert release.table is not None
    assert verify_release(release.table, model.dataset_, requirements()).ok
    leaked = release.table.copy()
    leaked["diagnosis"] = table["diagnosis"].to_numpy()  # what the release used to be
    report = verify_release(leaked, model.dataset_, requirements())
    assert not report.ok
    assert report.suppressed_disclosure == ("distinct 2-diversity on diagnosis",)
    assert any("6 suppressed records are released as one group" in p for p in report.problems)


def test_a_lone_suppressed_record_breaks_k_and_is_withheld() -> None:
    """k alone: one suppressed record is a group of one, so its diagnosis is withheld."""
    rng = np.random.default_rng(4)
    n = 300
    table = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str),
                          "town": rng.choice(["Denver", "Boston", "Chicago"], n),
                          "diagnosis": rng.choice(["flu", "cold"], n)})
    table.loc[17, ["town", "diagnosis"]] = ["Tiny Village", "hiv"]
    attrs = {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
             "town": {"role": "quasi"}, "diagnosis": {"role": "sensitive"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        release = Anonymizer(attrs, Requirements([KAnonymity(5)], 0.01)).fit(table).release_
    assert release.table is not None and release.suppressed_rows == 1
    assert release.table.loc[17].tolist() == ["*", "*", "*"]
    assert "hiv" not in set(release.table["diagnosis"])


def test_a_group_that_satisfies_the_models_keeps_its_values() -> None:
    """Diverse suppressed records (at least k, l-diverse together) are released with their diagnoses, as before."""
    rng = np.random.default_rng(8)
    n = 1000
    table = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          "zip": rng.choice(["10001", "10002", "10003"], n),
                          "diagnosis": rng.choice(["flu", "cold", "asthma", "diabetes"], n)})
    # twelve records, each alone in a ZIP area of its own (no masking joins them below the top): suppressed
    lone = pd.DataFrame({"age": [str(a) for a in range(30, 42)], "sex": ["F", "M"] * 6,
                         "zip": [f"{d}0001" for d in range(2, 10)] + [f"{d}5001" for d in range(2, 6)],
                         "diagnosis": ["flu", "cold", "asthma", "diabetes"] * 3})
    table = pd.concat([table, lone], ignore_index=True)
    attrs = {k: v for k, v in ATTRIBUTES.items() if k != "pid"}
    req = Requirements([KAnonymity(10), DistinctLDiversity("diagnosis", 2)], max_suppression=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        release = Anonymizer(attrs, req).fit(table).release_
    assert release.table is not None
    gone = suppressed_rows(release.table)
    assert len(gone) >= 10 and gone["diagnosis"].nunique() >= 2  # a group of at least k with two diagnoses
    assert (gone["diagnosis"].to_numpy() == table["diagnosis"].to_numpy()[gone.index]).all()
    assert not any("withheld" in w for w in release.warnings)


def test_the_cli_withholds_them_and_check_agrees(tmp_path: Path) -> None:
    register().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "c.yaml").write_text(CONFIG)
    result = CliRunner().invoke(main, ["anonymize", str(tmp_path / "c.yaml"), "-q"])
    assert result.exit_code == 0, result.stderr
    assert "withheld too" in result.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert (suppressed_rows(out)["diagnosis"] == "*").all() and len(suppressed_rows(out)) == 6
    checked = CliRunner().invoke(main, ["check", str(tmp_path / "out.csv"), "--quasi", "age,sex,zip", "-k", "5",
                                        "--sensitive", "diagnosis", "--l", "2", "--max-suppression", "0.05"])
    assert checked.exit_code == 0, checked.stdout
    # the same file with the diagnoses put back is a violation
    out.loc[suppressed_rows(out).index, "diagnosis"] = "hiv"
    out.to_csv(tmp_path / "leaked.csv", index=False)
    checked = CliRunner().invoke(main, ["check", str(tmp_path / "leaked.csv"), "--quasi", "age,sex,zip", "-k", "5",
                                        "--sensitive", "diagnosis", "--l", "2", "--max-suppression", "0.05"])
    assert checked.exit_code == 1 and "released as one group" in checked.stdout


@pytest.mark.parametrize("engine", ["duckdb", "postgresql"])
def test_the_database_engines_withhold_exactly_what_numpy_withholds(tmp_path: Path, engine: str) -> None:
    table = register()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AnonsetWarning)
        expected = Anonymizer(ATTRIBUTES, requirements()).fit(table).release_.table
    assert expected is not None
    if engine == "duckdb":
        table.to_csv(tmp_path / "data.csv", index=False)
        (tmp_path / "c.yaml").write_text(CONFIG + "engine: duckdb\n")
        result = CliRunner().invoke(main, ["anonymize", str(tmp_path / "c.yaml"), "-q"])
        assert result.exit_code == 0, result.stderr
        released = pd.read_csv(tmp_path / "out.csv", dtype=str)
    else:
        schema = PgSchema(PG_URL)
        try:
            where = schema.load(table, "reg")
            with PostgresBackend(PG_URL) as db:
                dataset = dataset_from_table(db, where, ATTRIBUTES)
                with SqlEngine(dataset, requirements().request, db, where) as sql, warnings.catch_warnings():
                    warnings.simplefilter("ignore", AnonsetWarning)
                    Anonymizer({}, requirements(), output_table=(schema.name, "out")).fit(dataset, engine=sql)
            released = schema.fetch("out")
        finally:
            schema.close()
    assert (suppressed_rows(released)["diagnosis"] == "*").all() and len(suppressed_rows(released)) == 6
    # same records as the numpy release, in any order
    key = ["age", "sex", "zip", "diagnosis"]
    assert (released[key].astype(str).sort_values(key).to_numpy()
            == expected[key].astype(str).sort_values(key).to_numpy()).all()
    encoded = Dataset(table, ATTRIBUTES)
    assert verify_release(released, encoded, requirements()).ok


def test_a_report_ties_no_combination_to_a_group_whose_values_break_the_models(tmp_path: Path) -> None:
    """The suppression breakdown of the old release (diagnoses kept) names no combination; the report says why."""
    import json

    register().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "c.yaml").write_text(CONFIG)
    assert CliRunner().invoke(main, ["anonymize", str(tmp_path / "c.yaml"), "-q"]).exit_code == 0
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    ours = CliRunner().invoke(main, ["report", str(tmp_path / "c.yaml"), str(tmp_path / "out.csv"),
                                     "-o", str(tmp_path / "ours.json")])
    assert ours.exit_code == 0, ours.stderr
    breakdown = json.loads((tmp_path / "ours.json").read_text())["suppression"]["breakdown"]
    (listed,) = breakdown["combinations"]  # ours withholds their diagnoses: the combination may be named
    assert listed["records"] == 6 and listed["values"]["zip"] == "10001" and listed["values"]["sex"] == "F"
    band = listed["values"]["age"]
    out.loc[suppressed_rows(out).index, "diagnosis"] = "hiv"  # the release as it used to be
    out.to_csv(tmp_path / "leaked.csv", index=False)
    leaked = CliRunner().invoke(main, ["report", str(tmp_path / "c.yaml"), str(tmp_path / "leaked.csv"),
                                       "-o", str(tmp_path / "leaked.json"), "-o", str(tmp_path / "leaked.html")])
    assert leaked.exit_code == 1  # a guarantee is broken: the report says so and exits 1
    report = json.loads((tmp_path / "leaked.json").read_text())
    breakdown = report["suppression"]["breakdown"]
    assert breakdown["combinations"] == [] and breakdown["records_in_small_combinations"] == 6
    assert "distinct 2-diversity on diagnosis" in breakdown["withheld_because"]
    assert "10001" not in json.dumps(report["suppression"])
    assert band not in (tmp_path / "leaked.html").read_text().split('id="suppression"')[1].split("</section>")[0]
