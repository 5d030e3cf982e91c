"""``anonset risk``'s survey measures (weights, individual and global risk, SUDA2) through the command, on every engine.

The table is sdcMicro's indivRisk test table with missing values (tests/testthat/test_indivRisk.R):
three key variables, eight records, the sampling weights of its tests; the expected individual risks
are the figures that test prints (method "approx", qual 1).  fk of each record, with a missing value
matching any value: 3, 1, 4, 2, 3, 3, 1, 5 (the same test prints 1/fk).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.risk.suda2 import suda2
from anonset.risk.survey import key_codes
from support import PG_URL, PgSchema

WEIGHTS = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51]
TABLE = pd.DataFrame({"a": ["2", "3", "2", "2", "3", "3", "1", ""], "b": ["3", "3", "3", "3", "3", "3", "4", "3"],
                      "c": ["1", "3", "", "2", "1", "1", "", "1"], "w": [f"{w:g}" for w in WEIGHTS]})
#: test_indivRisk.R, keys with missing values, weighted, approx, qual 1
RISK = [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066, 0.009836066, 0.039316254, 0.005973716]
FK = np.array([3, 1, 4, 2, 3, 3, 1, 5])
ATTRIBUTES = "attributes: {a: {role: quasi}, b: {role: quasi}, c: {role: quasi}, w: {role: weight}}\n"


def _measure(tmp_path: Path, input_text: str, *args: str, body: str = "") -> dict[str, Any]:
    config = tmp_path / "c.yaml"
    config.write_text(f"{input_text}{ATTRIBUTES}privacy: {{k: 2}}\n{body}", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config), "--json", "-", *args])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _check_published_figures(report: dict[str, Any]) -> None:
    individual = report["individual_risk"]
    assert individual["weighted"] is True and individual["method"] == "approx"
    assert individual["max"] == pytest.approx(max(RISK), abs=1e-8)
    assert individual["mean"] == pytest.approx(np.mean(RISK), abs=1e-8)
    assert individual["records_above"] == {"0.5": 0.0, "0.2": 0.0, "0.1": 0.0, "0.05": pytest.approx(1 / 8)}
    assert report["global_risk"]["expected_reidentifications"] == pytest.approx(sum(RISK), abs=1e-7)
    assert report["global_risk"]["share"] == pytest.approx(sum(RISK) / 8, abs=1e-8)
    assert report["k_anonymity_violations"] == {"2": 2, "3": 3, "5": 7}  # fk < k, from FK


def _suda2_by_hand() -> dict[str, Any]:
    """SUDA2's file figures from the records' codes (missing values as sdcMicro takes them)."""
    found = suda2(key_codes(TABLE, ["a", "b", "c"], [""]))
    return {"records_with_score": int((found.scores > 0).sum()), "max_score": float(found.scores.max()),
            "mean_score": float(found.scores.mean())}


def _rounded(value: Any) -> Any:
    """A report with every float to 12 significant digits (sums taken in another order differ in the last bits)."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items() if k != "source"}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return float(f"{value:.12g}") if isinstance(value, float) else value


def test_sdcmicros_individual_risks_through_the_command(tmp_path: Path) -> None:
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    report = _measure(tmp_path, "input: {path: t.csv}\n")
    _check_published_figures(report)
    suda = report["suda2"]
    assert suda["attributes"] == ["a", "b", "c"] and suda["max_size"] == 3 and suda["dis_fraction"] == 0.01
    # by hand (M = 3: an MSU of size 1 scores (3 - 1)! = 2, of size 2 scores 1): record 2 (3, 3, 3) is alone
    # on c = 3 and record 4 (2, 3, 2) on c = 2: score 2 each; record 7 (1, 4, NA) is alone on a = 1 and on
    # b = 4: 4; record 1 (2, 3, 1) shares a = 2 and c = 1, but nobody holds both (record 3's c is missing,
    # which matches no value): {a, c}, 1.  Records 5 and 6 are the same; record 8 (NA, 3, 1) shares (b, c)
    # with 1, 5, 6; record 3 (2, 3, NA) shares (a, b) with 1 and 4.  Scores 1 + 2 + 2 + 4 = 9, of which a
    # carries 1 + 2, b 2 and c 1 + 2 + 2
    assert (suda["records_with_score"], suda["max_score"], suda["mean_score"]) == (4, 4.0, pytest.approx(9 / 8))
    assert suda["contributions"] == pytest.approx({"a": 300 / 9, "b": 200 / 9, "c": 500 / 9})
    assert {k: suda[k] for k in ("records_with_score", "max_score", "mean_score")} == _suda2_by_hand()


def test_without_a_weight_the_risk_is_one_over_fk(tmp_path: Path) -> None:
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: t.csv}\nattributes: {a: {role: quasi}, b: {role: quasi}, c: {role: quasi}}\n"
                      "privacy: {k: 2}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config), "--json", "-"])
    assert result.exit_code == 0, result.output
    individual = json.loads(result.stdout)["individual_risk"]
    assert individual["weighted"] is False
    assert (individual["max"], individual["mean"]) == (1.0, pytest.approx(np.mean(1 / FK)))


def test_the_console_shows_the_survey_lines(tmp_path: Path) -> None:
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text(f"input: {{path: t.csv}}\n{ATTRIBUTES}privacy: {{k: 2}}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the console folds long lines
    assert "individual risk (Benedetti-Franconi, weighted): highest 0.08579" in text
    assert "k=2 2, k=3 3, k=5 7 records" in text and "SUDA2 (MSUs up to size 3): 4 records" in text


def test_suda2_over_the_attributes_the_config_names(tmp_path: Path) -> None:
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    report = _measure(tmp_path, "input: {path: t.csv}\n",
                      body="risk: {suda2: {attributes: [a, b], max_size: 1, dis_fraction: 0.2}}\n")
    suda = report["suda2"]
    found = suda2(key_codes(TABLE, ["a", "b"], [""]), max_size=1, dis_fraction=0.2)
    assert suda["attributes"] == ["a", "b"] and suda["max_size"] == 1 and suda["dis_fraction"] == 0.2
    assert suda["records_with_score"] == int((found.scores > 0).sum()) == 1  # record 7: a = 1 and b = 4
    assert suda["dis_suda"]["max"] == pytest.approx(float(found.dis_scores.max()))


def test_duckdb_groups_the_keys_in_the_database_and_gives_the_same_figures(tmp_path: Path) -> None:
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    memory = _measure(tmp_path, "input: {path: t.csv}\n")
    duckdb = _measure(tmp_path, "input: {path: t.csv}\nengine: duckdb\n")
    _check_published_figures(duckdb)
    assert _rounded(duckdb) == _rounded(memory)


def test_postgresql_groups_the_keys_in_the_database_and_gives_the_same_figures(tmp_path: Path) -> None:
    schema = PgSchema(PG_URL)
    try:
        name, table = schema.load(TABLE.replace({"": None}))
        report = _measure(tmp_path, f"input: {{sql: {{url: '{PG_URL}', table: {name}.{table}}}}}\n"
                                    "output: {table: released}\n")
    finally:
        schema.close()
    _check_published_figures(report)
    assert {k: report["suda2"][k] for k in ("records_with_score", "max_score", "mean_score")} == _suda2_by_hand()


def test_spark_groups_the_keys_and_gives_the_same_figures(spark: Any, tmp_path: Path) -> None:
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    report = _measure(tmp_path, "input: {path: t.csv}\noutput: {path: released}\nengine: spark\n"
                                "spark: {master: 'local[2]'}\n")
    _check_published_figures(report)
    assert {k: report["suda2"][k] for k in ("records_with_score", "max_score", "mean_score")} == _suda2_by_hand()


def test_a_release_is_measured_with_its_weights(tmp_path: Path) -> None:
    """The release generalizes c away (every value *), and is measured from its own values and weights."""
    release = TABLE.assign(c="*")
    release.to_csv(tmp_path / "r.csv", index=False)
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    report = _measure(tmp_path, "input: {path: t.csv}\n", "--release", str(tmp_path / "r.csv"))
    # keys (a, b, *): (2,3) x3, (3,3) x3, (1,4), (NA,3); the NA record matches the six with b = 3 (fk 7), and
    # each of those counts it: fk 4 for the (2,3) and (3,3) records, 1 for (1,4)
    assert report["k_anonymity_violations"] == {"2": 1, "3": 1, "5": 7}
    assert report["individual_risk"]["weighted"] is True


@pytest.mark.parametrize(("weights", "message"), [
    (["1", "2", "x", "1", "1", "1", "1", "1"], "column 'w' (role weight): record 3 has 'x'"),
    (["1", "2", "0", "1", "1", "1", "1", "1"], "record 3 has '0'"),
    (["1", "2", "0.5", "1", "1", "1", "1", "1"], "record 3 has weight 0.5, below 1"),
    (["1", "2", "", "1", "1", "1", "1", "1"], "record 3 has"),
])
def test_a_weight_that_is_not_a_number_of_people_is_refused(tmp_path: Path, weights: list[str],
                                                            message: str) -> None:
    TABLE.assign(w=weights).to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text(f"input: {{path: t.csv}}\n{ATTRIBUTES}privacy: {{k: 2}}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config)])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_duckdb_refuses_a_weight_below_one(tmp_path: Path) -> None:
    TABLE.assign(w=["1", "2", "0.5", "1", "1", "1", "1", "1"]).to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text(f"input: {{path: t.csv}}\n{ATTRIBUTES}privacy: {{k: 2}}\nengine: duckdb\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config)])
    assert result.exit_code == 2 and "column 'w' (role weight): a weight is 0.5, below 1" in result.stderr


@pytest.mark.parametrize(("body", "message"), [
    ("risk: {suda2: {attributes: [w]}}\n", "'w' is not a quasi-identifier"),
    ("risk: {suda2: {max_size: 0}}\n", "max_size must be a whole number"),
    ("risk: {suda2: {dis_fraction: 1.5}}\n", "dis_fraction must be a number in (0, 1)"),
    ("risk: {suda: {}}\n", "risk.suda"),
])
def test_bad_risk_settings_are_one_line(tmp_path: Path, body: str, message: str) -> None:
    TABLE.to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text(f"input: {{path: t.csv}}\n{ATTRIBUTES}privacy: {{k: 2}}\n{body}", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config)])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_two_weight_columns_are_refused(tmp_path: Path) -> None:
    TABLE.assign(v="1").to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: t.csv}\nattributes: {a: {role: quasi}, w: {role: weight}, v: {role: weight}}\n"
                      "privacy: {k: 2}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config)])
    assert result.exit_code == 2 and "both have role weight" in result.stderr


def test_the_grouped_keys_of_a_run_in_memory_give_its_figures(tmp_path: Path) -> None:
    """The contract every run keeps (its key_groups, weights summed as a database sums them) gives the same
    survey figures as the record-by-record codes the in-memory run uses itself."""
    from anonset.config import load_config
    from anonset.risk.survey_report import survey_report
    from anonset.runs.base import Run
    from anonset.runs.memory import MemoryRun

    TABLE.to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text(f"input: {{path: t.csv}}\n{ATTRIBUTES}privacy: {{k: 2}}\n", encoding="utf-8")
    run = MemoryRun(load_config(config))
    grouped = Run.survey_table(run)  # the base's, from key_groups
    assert grouped.counts is not None and int(grouped.counts.sum()) == len(TABLE)
    assert _rounded(survey_report(grouped)) == _rounded(survey_report(run.survey_table()))
