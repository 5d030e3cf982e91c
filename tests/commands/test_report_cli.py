"""``anonymize --report`` and ``anonset report``: what they write, and how they refuse bad input.

Bad input is refused in one line with exit code 2 before any work, and nothing is written: a
report folder that cannot be written in, a release whose columns are not the config's, an engine
that keeps the records out of memory, a front with no member chosen, a summary that is not one or
that disagrees with the release.  A release that breaks its requirements gets its report and exit
code 1; no report names a value held by fewer than k records.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.datasets.synthetic import patient_register

CONFIG = """
input: {{path: register.csv}}
attributes:
  patient_id: {{role: identifier}}
  age:        {{role: quasi, type: numeric, hierarchy: {{builder: intervals, widths: [5, 10, 20, 40]}}}}
  sex:        {{role: quasi, hierarchy: {{builder: flat}}}}
  zip:        {{role: quasi, hierarchy: {{builder: masking, levels: 3}}}}
  diagnosis:  {{role: sensitive}}
  race:           {{role: insensitive}}
  marital_status: {{role: insensitive}}
  education:      {{role: insensitive}}
  length_of_stay: {{role: insensitive}}
privacy: {{k: 5, max_suppression: 0.02}}
method: {{name: {method}}}
engine: {engine}
output: {{path: release.csv}}
"""


def _project(tmp_path: Path, method: str = "optimal", engine: str = "numpy") -> Path:
    patient_register(1500, seed=2).to_csv(tmp_path / "register.csv", index=False)
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(method=method, engine=engine), encoding="utf-8")
    return config


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_anonymize_writes_the_report_and_report_of_the_file_agrees(tmp_path: Path) -> None:
    config = _project(tmp_path)
    code, out = _run("anonymize", str(config), "-q", "--summary", str(tmp_path / "run.json"),
                     "--report", str(tmp_path / "run-report.json"), "--report", str(tmp_path / "run-report.html"))
    assert code == 0, out
    assert (tmp_path / "run-report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    during = json.loads((tmp_path / "run-report.json").read_text(encoding="utf-8"))
    code, out = _run("report", str(config), str(tmp_path / "release.csv"), "-o", str(tmp_path / "after.json"))
    assert code == 0, out
    after = json.loads((tmp_path / "after.json").read_text(encoding="utf-8"))
    for key in ("guarantees", "classes", "suppression", "risk", "headline"):
        assert after[key] == during[key], key
    assert [a["level"] for a in after["attributes"]] == [a["level"] for a in during["attributes"]]
    summary = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert {m["name"]: m["value"] for m in after["utility"]} == pytest.approx(summary["metrics"])
    assert during["run"]["input"]["sha256"] == after["run"]["input"]["sha256"]
    # the release's own bytes, hashed here, name it in both (the run hashed the file before putting it in place)
    written = hashlib.sha256((tmp_path / "release.csv").read_bytes()).hexdigest()
    assert during["run"]["release_sha256"] == after["run"]["release_sha256"] == written
    assert during["run"]["config_text"] == config.read_text(encoding="utf-8")
    assert "The configuration" in (tmp_path / "run-report.html").read_text(encoding="utf-8")
    released = pd.read_csv(tmp_path / "release.csv", dtype=str)
    assert during["suppression"]["records"] == int((released[["age", "sex", "zip"]] == "*").all(axis=1).sum())


def test_unwritable_report_folder_is_refused_before_any_work(tmp_path: Path) -> None:
    config = _project(tmp_path)
    code, out = _run("anonymize", str(config), "--report", "/sys/anonset-report.html")
    assert code == 2
    assert out.strip().count("\n") == 0 and "cannot write in folder /sys" in out and "report" in out
    assert not (tmp_path / "release.csv").exists()


def test_release_of_another_config_is_refused(tmp_path: Path) -> None:
    config = _project(tmp_path)
    other = tmp_path / "other.csv"
    pd.DataFrame({"age": ["1"], "sex": ["F"]}).to_csv(other, index=False)
    code, out = _run("report", str(config), str(other), "-o", str(tmp_path / "r.html"))
    assert code == 2 and "error:" in out and "not in the release" in out and "other.csv" in out
    assert not (tmp_path / "r.html").exists()


def test_report_needs_the_release_in_memory(tmp_path: Path) -> None:
    config = _project(tmp_path, engine="duckdb")
    code, out = _run("anonymize", str(config), "--report", str(tmp_path / "r.html"))
    assert code == 2 and "engine: numpy" in out and "anonset report" in out
    assert not (tmp_path / "release.csv").exists() and not (tmp_path / "r.html").exists()


def test_front_without_a_member_writes_no_report(tmp_path: Path) -> None:
    config = _project(tmp_path, method="pareto-exhaustive")
    config.write_text(config.read_text(encoding="utf-8").replace("output: {path: release.csv}\n", ""),
                      encoding="utf-8")
    config.write_text(config.read_text(encoding="utf-8").replace("k: 5, ", ""), encoding="utf-8")
    code, out = _run("anonymize", str(config), "--report", str(tmp_path / "r.html"))
    assert code == 2 and "--pick" in out
    assert not (tmp_path / "r.html").exists()


def test_a_summary_that_is_not_one_is_refused(tmp_path: Path) -> None:
    config = _project(tmp_path)
    code, out = _run("anonymize", str(config), "-q")
    assert code == 0, out
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, out = _run("report", str(config), str(tmp_path / "release.csv"), "--summary", str(bad),
                     "-o", str(tmp_path / "r.html"))
    assert code == 2 and "not a JSON summary" in out
    assert not (tmp_path / "r.html").exists()


def test_json_prints_the_summary_and_nothing_else(tmp_path: Path) -> None:
    config = _project(tmp_path)
    result = CliRunner().invoke(main, ["anonymize", str(config), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["verified"] and summary["suppressed_rows"] <= 30
    code, out = _run("anonymize", str(config), "--json", "--summary", str(tmp_path / "s.json"))
    assert code == 2 and "--json" in out


def test_summary_says_which_way_is_better_and_levels_of_their_height(tmp_path: Path) -> None:
    config = _project(tmp_path)
    (tmp_path / "release.csv").unlink(missing_ok=True)
    result = CliRunner().invoke(main, ["anonymize", str(config)], terminal_width=200)
    assert result.exit_code == 0, result.output
    summary_lines = result.stdout.splitlines()
    loss = next(line for line in summary_lines if line.startswith("│ loss"))
    precision = next(line for line in summary_lines if line.startswith("│ precision"))
    assert "lower is better" in loss and "higher is better" in precision
    assert any(line.startswith("│ levels") for line in summary_lines)
    # age has 4 builder widths (5 levels with the top), sex a flat hierarchy, zip 3 masked digits + the top
    for pattern in (r"age \d of 5", r"sex \d of 1", r"zip \d of 4"):
        assert re.search(pattern, result.stdout), pattern


def test_demo_writes_its_report_and_its_generated_table(tmp_path: Path) -> None:
    code, out = _run("demo", "--rows", "2000", "--report", str(tmp_path / "demo.json"),
                     "--save-table", str(tmp_path / "patients.csv"), "-o", str(tmp_path / "released.csv"))
    assert code == 0, out
    report = json.loads((tmp_path / "demo.json").read_text(encoding="utf-8"))
    generated = pd.read_csv(tmp_path / "patients.csv", dtype=str)
    released = pd.read_csv(tmp_path / "released.csv", dtype=str, keep_default_na=False)
    assert len(generated) == len(released) == report["run"]["records"] == 2000
    quasi = report["run"]["quasi_identifiers"]
    stars = (released[quasi] == "*").all(axis=1)
    assert report["suppression"]["records"] == int(stars.sum())
    assert report["classes"]["smallest"] == int(released[~stars].groupby(quasi).size().min()) >= 5
    assert all(g["holds"] for g in report["guarantees"])


def test_workload_checks_of_the_config_are_in_the_report(tmp_path: Path) -> None:
    config = _project(tmp_path)
    config.write_text(config.read_text(encoding="utf-8") + "evaluation: {queries: {count: 300, seed: 1}}\n",
                      encoding="utf-8")
    code, out = _run("anonymize", str(config), "-q", "--report", str(tmp_path / "r.json"))
    assert code == 0, out
    queries = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["workload"]["queries"]
    assert queries["queries"] == 300 and queries["mean_relative_error"] >= 0
    assert 0 <= queries["share_above"] <= 1


def test_every_command_help_has_an_example() -> None:
    for name, command in main.commands.items():
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        assert "Example" in result.output, f"anonset {name} --help shows no example"
        assert command.help
    assert "anonset init" in CliRunner().invoke(main, ["--help"]).output


RARE_CONFIG = """
input: {path: towns.csv}
attributes:
  age:       {role: quasi, type: numeric, hierarchy: {builder: intervals, widths: [10, 20]}}
  town:      {role: quasi, hierarchy: towns-hierarchy.csv}
  diagnosis: {role: sensitive}
privacy: {k: 5, max_suppression: 0.02}
method: {name: optimal}
output: {path: release.csv}
"""


def _rare_project(tmp_path: Path) -> Path:
    """A town of one record in a county of its own, two towns of three, and one record aged 104."""
    rows = [("104", "Boston")] + [(str(20 + i % 60), "Boston") for i in range(99)]
    rows += [(str(20 + (7 * i) % 60), "Chicago") for i in range(100)]
    rows += [("33", "Springfield")] * 3 + [("47", "Peoria")] * 3 + [("41", "Tiny Village of Xyz")]
    table = pd.DataFrame(rows, columns=["age", "town"])
    table["diagnosis"] = ["flu", "asthma", "diabetes"] * (len(table) // 3) + ["flu"] * (len(table) % 3)
    table.to_csv(tmp_path / "towns.csv", index=False)
    (tmp_path / "towns-hierarchy.csv").write_text(
        "Tiny Village of Xyz;Xyz County;*\nBoston;Massachusetts;*\nSpringfield;Massachusetts;*\n"
        "Chicago;Illinois;*\nPeoria;Illinois;*\n", encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text(RARE_CONFIG, encoding="utf-8")
    return config


def test_no_report_names_a_value_of_fewer_than_k_records(tmp_path: Path) -> None:
    config = _rare_project(tmp_path)
    code, out = _run("anonymize", str(config), "-q", "--summary", str(tmp_path / "run.json"),
                     "--report", str(tmp_path / "r.html"), "--report", str(tmp_path / "r.json"))
    assert code == 0, out
    code, out = _run("report", str(config), str(tmp_path / "release.csv"), "--summary", str(tmp_path / "run.json"),
                     "-o", str(tmp_path / "again.html"), "-o", str(tmp_path / "again.json"))
    assert code == 0, out
    for name in ("r.html", "r.json", "again.html", "again.json"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        for hidden in ("Tiny Village", "Xyz", "Springfield", "Peoria", "100-109"):
            assert hidden not in text, (name, hidden)
        if name.endswith(".json"):
            town = next(a for a in json.loads(text)["attributes"] if a["name"] == "town")
            assert {"label": "other: 3 values, < 5 records each", "records": 7, "folded": 3} in town["before"]


def _tampered(tmp_path: Path) -> tuple[Path, Path]:
    """The project's release with three records moved into a class of their own (fewer than k = 5)."""
    config = _project(tmp_path)
    code, out = _run("anonymize", str(config), "-q", "--summary", str(tmp_path / "run.json"))
    assert code == 0, out
    released = pd.read_csv(tmp_path / "release.csv", dtype=str, keep_default_na=False)
    kept = released.index[released["age"] != "*"][:3]
    released.loc[kept, ["age", "sex", "zip"]] = ["0-4", "F", "99999"]
    tampered = tmp_path / "tampered.csv"
    released.to_csv(tampered, index=False)
    return config, tampered


def test_report_of_a_release_that_breaks_k_says_so_and_exits_1(tmp_path: Path) -> None:
    config, tampered = _tampered(tmp_path)
    result = CliRunner().invoke(main, ["report", str(config), str(tampered), "-o", str(tmp_path / "t.json"),
                                       "-o", str(tmp_path / "t.html")])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"violated: {tampered}: This release does NOT meet the"
                                                   " requirements: 5-anonymity is violated (smallest group 3 records)")
    report = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))  # written all the same
    assert report["headline"][0].startswith("This release does NOT meet the requirements: 5-anonymity")
    assert not any("meets" in line for line in report["headline"])
    assert "This release does NOT meet" in (tmp_path / "t.html").read_text(encoding="utf-8")


def test_a_summary_edited_or_of_another_release_is_refused(tmp_path: Path) -> None:
    config, tampered = _tampered(tmp_path)
    summary = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    edited = tmp_path / "edited.json"
    levels = summary["levels"]
    edited.write_text(json.dumps({**summary, "levels": {**levels, "age": 0 if levels["age"] else 1}}),
                      encoding="utf-8")
    code, out = _run("report", str(config), str(tmp_path / "release.csv"), "--summary", str(edited),
                     "-o", str(tmp_path / "r.html"))
    assert code == 2 and out.count("\n") == 1, out
    assert out.startswith(f"error: {edited}: it says 'age' is at level ") and "the released values of 'age'" in out
    assert not (tmp_path / "r.html").exists()
    # the run's summary does not describe the tampered release: one more class than it says
    code, out = _run("report", str(config), str(tampered), "--summary", str(tmp_path / "run.json"),
                     "-o", str(tmp_path / "r.html"))
    assert code == 2 and f"it says {summary['classes']} classes but {tampered} has" in out, out
    assert not (tmp_path / "r.html").exists()


def test_report_of_a_shuffled_release_leaves_out_what_needs_the_input_order(tmp_path: Path) -> None:
    config = _project(tmp_path)
    code, out = _run("anonymize", str(config), "-q", "--summary", str(tmp_path / "run.json"))
    assert code == 0, out
    released = pd.read_csv(tmp_path / "release.csv", dtype=str, keep_default_na=False)
    released.sample(frac=1.0, random_state=3).to_csv(tmp_path / "shuffled.csv", index=False)
    reports = {}
    for name in ("release", "shuffled"):
        code, out = _run("report", str(config), str(tmp_path / f"{name}.csv"), "--summary", str(tmp_path / "run.json"),
                         "-o", str(tmp_path / f"{name}.json"))
        assert code == 0, out
        reports[name] = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
    straight, moved = reports["release"], reports["shuffled"]
    assert straight["suppression"]["breakdown"] is not None and moved["suppression"]["breakdown"] is None
    assert "not known" in moved["suppression"]["breakdown_omitted"]
    assert [a["loss"] for a in moved["attributes"]] == pytest.approx([a["loss"] for a in straight["attributes"]])
    assert [a["level"] for a in moved["attributes"]] == [a["level"] for a in straight["attributes"]]
    summary = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    ours = {m["name"]: m["value"] for m in moved["utility"]}
    row_level = {"non_uniform_entropy", "kl_divergence"}
    assert ours == pytest.approx({k: v for k, v in summary["metrics"].items() if k not in row_level})
    assert set(moved["utility_omitted"]) == row_level


def test_a_database_password_in_the_config_is_masked_in_the_provenance() -> None:
    from anonset.report.staging import _masked

    text = "input: {sql: {url: 'postgresql://bob:s3cret@db:5432/x', table: t}}\noutput: {table: out}\n"
    masked = _masked(text)
    assert "s3cret" not in masked and "postgresql://bob:" in masked and masked.endswith("output: {table: out}\n")


def test_the_report_measures_the_journalist_against_a_population(tmp_path: Path) -> None:
    """By hand: the sample zip a x2, b x2 (released as it is at k = 2), the population a x4, b x5, c x3: the
    journalist's highest risk 1/4, average the larger of 2/9 and (2/4 + 2/5)/4 = 0.225; the marketer 0.225."""
    pd.DataFrame({"zip": ["a", "a", "b", "b"], "d": ["x", "y", "x", "y"]}).to_csv(tmp_path / "sample.csv", index=False)
    pd.DataFrame({"zip": ["a"] * 4 + ["b"] * 5 + ["c"] * 3}).to_csv(tmp_path / "population.csv", index=False)
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: sample.csv}\nattributes: {zip: {role: quasi}, d: {role: insensitive}}\n"
                      "privacy: {k: 2}\noutput: {path: out.csv}\n", encoding="utf-8")
    code, out = _run("anonymize", str(config), "-q")
    assert code == 0, out
    code, out = _run("report", str(config), str(tmp_path / "out.csv"), "--population", str(tmp_path / "population.csv"),
                     "-o", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.html"))
    assert code == 0, out
    attackers = json.loads((tmp_path / "r.json").read_text())["risk"]["attackers"]
    assert attackers["population_records"] == 12
    for side in ("input", "release"):
        assert attackers[side]["journalist"]["highest_risk"] == pytest.approx(1 / 4)
        assert attackers[side]["journalist"]["average_risk"] == pytest.approx(max(2 / 9, (2 / 4 + 2 / 5) / 4))
        assert attackers[side]["marketer"]["average_risk"] == pytest.approx((2 / 4 + 2 / 5) / 4)
    assert "Against the population" in (tmp_path / "r.html").read_text(encoding="utf-8")
    code, out = _run("report", str(config), str(tmp_path / "out.csv"), "-o", str(tmp_path / "plain.json"))
    assert code == 0 and json.loads((tmp_path / "plain.json").read_text())["risk"]["attackers"] is None
