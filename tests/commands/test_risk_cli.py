"""``anonset risk``: the reference tool's figures through the command, a released file, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from support import require_adult

SAMPLE_CONFIG = "input: {path: sample.csv}\nattributes: {zip: {role: quasi}}\nprivacy: {k: 2}\n"
QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
         "salary-class")


def _config(tmp_path: Path, adult: Path, body: str = "") -> Path:
    attributes = "\n".join(f"  {q}: {{role: quasi}}" for q in QUASI)
    path = tmp_path / "risk.yaml"
    path.write_text(f"input: {{path: {adult / 'adult.csv'}, delimiter: ';'}}\nattributes:\n{attributes}\n"
                    f"privacy: {{k: 2}}\n{body}", encoding="utf-8")
    return path


def test_the_reference_figures_on_adult_through_the_command(tmp_path: Path) -> None:
    """ARX's own risk test on Adult (all nine columns): average risk, and Pitman chosen at a 1% sample."""
    config = _config(tmp_path, require_adult())
    result = CliRunner().invoke(main, ["risk", str(config), "--sampling-fraction", "0.01",
                                       "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["records"] == 30162 and report["records_excluded"] == 0
    assert report["average_risk"] == pytest.approx(0.6465751607983555, abs=1e-9)
    assert report["population_uniques"]["chosen_model"] == "pitman"
    assert report["population_uniques"]["chosen"] == pytest.approx(0.1446083531167384, abs=1e-9)


def test_a_release_is_measured_from_its_values_with_suppressed_records_left_out(tmp_path: Path) -> None:
    table = pd.DataFrame({"zip": ["1", "1", "2", "2", "2", "*", "3"], "sex": ["M", "M", "F", "F", "F", "*", "M"],
                          "d": list("abcdefg")})
    table.to_csv(tmp_path / "release.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: release.csv}\nattributes: {zip: {role: quasi}, sex: {role: quasi}}\n"
                      "privacy: {k: 2}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config), "--release", str(tmp_path / "release.csv"),
                                       "--threshold", "0.4", "--json", "-"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # by hand: classes (1,M) x2, (2,F) x3, (3,M) x1; the all-* record is suppressed
    assert (report["records"], report["records_excluded"], report["classes"]) == (6, 1, 3)
    assert report["highest_risk"] == 1.0 and report["average_risk"] == pytest.approx(3 / 6)
    assert report["records_above"] == {"0.4": pytest.approx(3 / 6)}  # 1/2 and 1/1 are above 0.4, 1/3 is not
    assert report["sample_uniques"] == pytest.approx(1 / 6) and report["population_uniques"] is None


@pytest.mark.parametrize(("args", "message"), [
    (["--sampling-fraction", "1.5"], "--sampling-fraction 1.5"),
    (["--sampling-fraction", "0.5", "--population-size", "10"], "not both"),
    (["--population-size", "3"], "smaller than the table"),
    (["--threshold", "0"], "threshold"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    pd.DataFrame({"zip": ["1", "1", "2", "2"]}).to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: t.csv}\nattributes: {zip: {role: quasi}}\nprivacy: {k: 2}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config), *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_release_without_the_quasi_identifiers_is_refused(tmp_path: Path) -> None:
    pd.DataFrame({"zip": ["1", "1"]}).to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame({"postcode": ["1", "1"]}).to_csv(tmp_path / "r.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: t.csv}\nattributes: {zip: {role: quasi}}\nprivacy: {k: 2}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config), "--release", str(tmp_path / "r.csv")])
    assert result.exit_code == 2 and "column 'zip'" in result.stderr


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_every_anonymize_summary_has_the_risk_of_the_input_and_of_the_release(tmp_path: Path, engine: str) -> None:
    """Before/after, each recomputed here from the values alone (the release's all-* records left out)."""
    adult = require_adult()
    config = tmp_path / "b1.yaml"
    hierarchies = adult / "hierarchies"
    quasi = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass")
    attributes = "\n".join(f"  {q}: {{role: quasi, hierarchy: {hierarchies / (q + '.csv')}}}" for q in quasi)
    attributes += "\n  occupation: {role: insensitive}\n  salary-class: {role: insensitive}"  # released on purpose
    config.write_text(f"input: {{path: {adult / 'adult.csv'}, delimiter: ';'}}\nattributes:\n{attributes}\n"
                      f"privacy: {{k: 5, max_suppression: 0.01}}\nengine: {engine}\n"
                      f"output: {{path: {tmp_path / 'out.csv'}}}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["anonymize", str(config), "-q", "--summary", str(tmp_path / "s.json")])
    assert result.exit_code == 0, result.output
    risk = json.loads((tmp_path / "s.json").read_text())["risk"]
    raw = pd.read_csv(adult / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    raw_sizes = raw.groupby(list(quasi)).size()
    assert risk["input"]["classes"] == len(raw_sizes) and risk["input"]["records"] == len(raw)
    assert risk["input"]["average_risk"] == pytest.approx(len(raw_sizes) / len(raw))
    released = pd.read_csv(tmp_path / "out.csv", sep=";", dtype=str, keep_default_na=False)
    kept = released[~(released[list(quasi)] == "*").all(axis=1)]
    sizes = kept.groupby(list(quasi)).size()
    after = risk["release"]
    assert (after["records"], after["records_excluded"]) == (len(kept), len(released) - len(kept))
    assert after["highest_risk"] == pytest.approx(1 / sizes.min()) and after["highest_risk"] <= 1 / 5
    assert after["average_risk"] == pytest.approx(len(sizes) / len(kept))
    assert after["average_risk"] < risk["input"]["average_risk"]


def test_journalist_risk_against_a_population_table(tmp_path: Path) -> None:
    """By hand: sample classes a x2, b x1; the population has a x4, b x5, c x3: highest 1/4; average the larger of
    2 classes / 9 population records and (2/4 + 1/5)/3 (ARX's rule); above 0.2: the two records of a (1/4)."""
    pd.DataFrame({"zip": ["a", "a", "b"]}).to_csv(tmp_path / "sample.csv", index=False)
    pd.DataFrame({"zip": ["a"] * 4 + ["b"] * 5 + ["c"] * 3}).to_csv(tmp_path / "population.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text(SAMPLE_CONFIG, encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config), "--population", str(tmp_path / "population.csv"),
                                       "--json", "-", "--threshold", "0.2"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    journalist = report["journalist"]
    assert journalist["highest_risk"] == pytest.approx(1 / 4)
    assert journalist["average_risk"] == pytest.approx(max(2 / 9, (2 / 4 + 1 / 5) / 3))
    assert journalist["records_above"] == {"0.2": pytest.approx(2 / 3)}
    assert report["marketer"]["average_risk"] == pytest.approx((2 / 4 + 1 / 5) / 3)
    assert report["prosecutor"]["highest_risk"] == 1.0  # b is alone in the sample


def test_the_attacker_models_and_the_quasi_identifiers_equal_arx_on_adult(tmp_path: Path) -> None:
    """ARX 3.9.2's figures on Adult (all nine columns quasi-identifying), given with the task that asked for them;
    the journalist's with the population = all of adult.csv and the sample = every tenth record (0-based index a
    multiple of 10)."""
    adult = require_adult()
    config = _config(tmp_path, adult)
    result = CliRunner().invoke(main, ["risk", str(config), "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    prosecutor = report["prosecutor"]
    assert prosecutor["highest_risk"] == 1.0
    assert prosecutor["average_risk"] == pytest.approx(0.6465751607983555, abs=1e-9)
    assert prosecutor["records_above"]["0.2"] == pytest.approx(0.7781314236456468, abs=1e-9)
    assert report["journalist"] == prosecutor  # no population: as ARX, the journalist's are the prosecutor's
    combos = {tuple(r["attributes"]): r for r in report["quasi_identifiers"]}
    assert len(combos) == 2**9 - 1 and report["quasi_identifiers_truncated"] is False
    everything = combos[QUASI]
    assert everything["distinction"] == pytest.approx(0.6465751607983555, abs=1e-9)
    assert everything["separation"] == pytest.approx(0.999906322421153, abs=1e-9)
    assert combos[("sex",)]["distinction"] == pytest.approx(6.630860022544923e-05, abs=1e-9)
    assert combos[("sex",)]["separation"] == pytest.approx(0.43828434814896455, abs=1e-9)
    assert combos[("race",)]["distinction"] == pytest.approx(0.0001657715005636231, abs=1e-9)
    assert combos[("race",)]["separation"] == pytest.approx(0.2510168705580825, abs=1e-9)
    table = pd.read_csv(adult / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    table.iloc[::10].to_csv(tmp_path / "sample.csv", sep=";", index=False)
    sample = tmp_path / "sample.yaml"
    sample.write_text(config.read_text().replace(str(adult / "adult.csv"), str(tmp_path / "sample.csv")))
    result = CliRunner().invoke(main, ["risk", str(sample), "--population", str(adult / "adult.csv"),
                                       "--json", str(tmp_path / "j.json")])
    assert result.exit_code == 0, result.output
    journalist = json.loads((tmp_path / "j.json").read_text())["journalist"]
    assert journalist["average_risk"] == pytest.approx(0.6461459125983015, abs=1e-9)
    assert journalist["records_above"]["0.2"] == pytest.approx(0.7832283725555187, abs=1e-9)


@pytest.mark.parametrize(("population", "message"), [
    ({"postcode": ["a"] * 5}, "column 'zip' is not in the population"),
    ({"zip": ["a", "b"]}, "fewer than the 3 of the sample"),
    ({"zip": ["a"] * 6}, "1 class(es) of the sample do not occur"),
])
def test_a_population_table_that_cannot_be_the_population_is_refused(tmp_path: Path, population: dict,
                                                                      message: str) -> None:
    pd.DataFrame({"zip": ["a", "a", "b"]}).to_csv(tmp_path / "sample.csv", index=False)
    pd.DataFrame(population).to_csv(tmp_path / "population.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text(SAMPLE_CONFIG, encoding="utf-8")
    result = CliRunner().invoke(main, ["risk", str(config), "--population-table", str(tmp_path / "population.csv")])
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_duckdb_engine_counts_the_same_classes_as_numpy(tmp_path: Path) -> None:
    pd.DataFrame({"zip": ["1", "1", "2", "2", "2", "3"], "sex": ["M", "M", "F", "F", "F", "M"]}).to_csv(
        tmp_path / "t.csv", index=False)
    reports = []
    for engine in ("numpy", "duckdb"):
        config = tmp_path / f"{engine}.yaml"
        config.write_text(f"input: {{path: t.csv}}\nattributes: {{zip: {{role: quasi}}, sex: {{role: quasi}}}}\n"
                          f"privacy: {{k: 2}}\nengine: {engine}\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["risk", str(config), "--sampling-fraction", "0.1", "--json", "-"])
        assert result.exit_code == 0, result.output
        reports.append({k: v for k, v in json.loads(result.stdout).items() if k != "source"})
    assert reports[0] == reports[1]
    assert (reports[0]["classes"], reports[0]["average_risk"]) == (3, 0.5)  # by hand: classes 2, 3, 1 of 6


def _four_records(tmp_path: Path) -> Path:
    pd.DataFrame({"zip": ["1", "1", "2", "3"]}).to_csv(tmp_path / "t.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: t.csv}\nattributes: {zip: {role: quasi}}\nprivacy: {k: 2}\n", encoding="utf-8")
    return config


@pytest.mark.parametrize(("args", "facts"), [
    # tracebacks before: a population too large for Zayatz's hypergeometric (an int beyond int64, or infinity)
    (["--sampling-fraction", "1e-17"], ("--sampling-fraction 1e-17", "2^53", "at least")),
    (["--sampling-fraction", "5e-324"], ("--sampling-fraction 5e-324", "2^53")),
    (["--sampling-fraction", "2e-16"], ("--sampling-fraction 2e-16", "4 records / 2e-16", "at least 4.44e-16")),
    (["--population-size", "1e20"], ("--population-size 1e+20", "larger than 9,007,199,254,740,992")),
    (["--population-size", "inf"], ("--population-size inf", "finite whole number")),
    # accepted before: nan said "smaller than the table", 406.5 records were estimated
    (["--population-size", "nan"], ("--population-size nan", "finite whole number")),
    (["--population-size", "406.5"], ("--population-size 406.5", "finite whole number")),
    (["--population-size", "3"], ("--population-size 3", "smaller than the table (4 records)")),
    (["--sampling-fraction", "nan"], ("--sampling-fraction nan", "(0, 1]")),
])
def test_a_population_anonset_cannot_compute_with_is_one_line_and_exit_2(tmp_path: Path, args: list[str],
                                                                          facts: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, ["risk", str(_four_records(tmp_path)), *args, "--json",
                                       str(tmp_path / "r.json")])
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert all(fact in lines[0] for fact in facts), lines[0]
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("args", [["--population-size", "4"], ["--population-size", "9007199254740992"],
                                  ["--population-size", "1e6"], ["--sampling-fraction", "1e-14"],
                                  ["--sampling-fraction", "1"]])
def test_the_limits_themselves_are_computed(tmp_path: Path, args: list[str]) -> None:
    result = CliRunner().invoke(main, ["risk", str(_four_records(tmp_path)), *args, "--json", "-"])
    assert result.exit_code == 0, result.output
    population = json.loads(result.stdout)["population_uniques"]
    assert population["chosen"] is None or 0.0 <= population["chosen"] <= 1.0


def test_the_sensitive_attribute_inside_the_classes_by_hand(tmp_path: Path) -> None:
    """Classes: a x5 with x x x x y (share 0.8, entropy 0.7219 bits), b x3 with x y z (1/3, log2 3), c x2 with
    z z (1.0, 0 bits).  At 80%, a and c are homogeneous (7 records); with k = 3, c (2 records) is counted, never
    listed."""
    table = pd.DataFrame({"zip": list("aaaaabbbcc"), "diag": list("xxxxyxyzzz")})
    table.to_csv(tmp_path / "t.csv", index=False)
    reports = []
    for engine in ("numpy", "duckdb"):
        config = tmp_path / f"{engine}.yaml"
        config.write_text("input: {path: t.csv}\nattributes: {zip: {role: quasi}, diag: {role: sensitive}}\n"
                          f"privacy: {{k: 3}}\nengine: {engine}\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["risk", str(config), "--json", "-"])
        assert result.exit_code == 0, result.output
        reports.append(json.loads(result.stdout)["sensitive"]["diag"])
    view = reports[0]
    entropy_a = -(0.8 * np.log2(0.8) + 0.2 * np.log2(0.2))
    assert (view["classes"], view["highest_share"], view["floor"]) == (3, 1.0, 3)
    assert view["mean_entropy"] == pytest.approx((5 * entropy_a + 3 * np.log2(3)) / 10)
    assert view["homogeneous"] == {"threshold": 0.8, "classes": 2, "records": 7}
    assert view["listed"] == [{"attributes": {"zip": "a"}, "records": 5, "value": "x", "share": 0.8}]
    duckdb = reports[1]  # counted inside DuckDB: the same (the entropy summed in another order, perhaps)
    assert duckdb["mean_entropy"] == pytest.approx(view["mean_entropy"], rel=1e-12)
    assert {**duckdb, "mean_entropy": None} == {**view, "mean_entropy": None}
