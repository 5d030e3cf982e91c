"""``anonset init DATA``: the starter configuration loads, runs as written, and its release is k-anonymous.

The command object is invoked directly (it is registered on the ``anonset``
group in cli.py).  The releases are re-checked here with pandas, from the
written file, independently of anonset's own verification.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner, Result

from anonset.cli import main
from anonset.commands.init import init
from anonset.config import load_config
from support import require_adult

LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def people(rows: int = 1500, seed: int = 0) -> pd.DataFrame:
    """A table with an id, free text, a date, a ZIP code, a number, a category, a diagnosis and an income."""
    rng = np.random.default_rng(seed)
    words = ["".join(rng.choice(LETTERS, 6)) for _ in range(rows)]
    days = rng.integers(0, 4000, rows)
    return pd.DataFrame({
        "record": [f"R{i:06d}" for i in range(rows)],                      # unique code: an identifier
        "comment": [f"called back about {w} on day {d}" for w, d in zip(words, days, strict=True)],  # free text
        "admitted": (np.datetime64("2012-01-01") + days).astype(str),        # ISO dates
        "zip": [f"{z:05d}" for z in rng.integers(0, 40, rows) * 250 + rng.integers(0, 3, rows)],  # leading zeros
        "age": rng.integers(18, 91, rows).astype(str),
        "sex": rng.choice(["F", "M"], rows),
        "diagnosis": rng.choice(["flu", "asthma", "diabetes", "migraine"], rows),
        "income": np.round(rng.lognormal(10.5, 0.5, rows)).astype(int).astype(str),
    })


def run_init(*args: str) -> Result:
    return CliRunner().invoke(init, list(args))


def anonymize(config: Path, summary: Path) -> dict[str, object]:
    result = CliRunner().invoke(main, ["anonymize", str(config), "--summary", str(summary), "--quiet"])
    assert result.exit_code == 0, result.output
    loaded: dict[str, object] = json.loads(summary.read_text())
    return loaded


def check_release(release: pd.DataFrame, quasi: list[str], rows: int, k: int = 5, budget: float = 0.01) -> None:
    """k-anonymity of the released quasi-identifiers, recomputed with pandas; suppressed records within budget."""
    assert len(release) == rows
    suppressed = (release[quasi] == "*").all(axis=1)
    sizes = release.loc[~suppressed].groupby(quasi).size()
    assert sizes.empty or sizes.min() >= k
    assert suppressed.sum() <= budget * rows or suppressed.sum() >= k


def test_generated_config_loads_runs_and_releases_a_k_anonymous_table(tmp_path: Path) -> None:
    table = people()
    data = tmp_path / "people.csv"
    table.to_csv(data, index=False, sep=";")
    config = tmp_path / "people.yaml"
    result = run_init(str(data), "-o", str(config))
    assert result.exit_code == 0, result.output
    assert f"wrote {config}" in result.stderr

    cfg = load_config(config)
    raw = yaml.safe_load(config.read_text())
    assert raw["input"] == {"path": "people.csv", "delimiter": ";"}
    assert raw["privacy"] == {"k": 5, "max_suppression": 0.01}
    assert raw["method"] == {"name": "optimal", "metric": "loss"}
    assert raw["output"] == {"path": "people-anonymized.csv"} and raw["seed"] == 0
    roles = {name: entry["role"] for name, entry in cfg.attributes.items()}
    assert roles == {"record": "identifier", "comment": "identifier", "admitted": "quasi", "zip": "quasi",
                     "age": "quasi", "sex": "quasi", "diagnosis": "sensitive", "income": "sensitive"}
    attrs = raw["attributes"]
    assert attrs["admitted"]["hierarchy"] == {"builder": "dates", "levels": ["month", "year", "decade"],
                                              "format": "%Y-%m-%d"}
    assert attrs["zip"]["hierarchy"]["builder"] == "masking"
    assert attrs["age"] == {"role": "quasi", "type": "numeric",
                            "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}}
    assert attrs["sex"]["hierarchy"] == {"builder": "flat"}
    assert attrs["income"] == {"role": "sensitive", "type": "numeric"}
    text = config.read_text()
    assert re.search(r"WARNING: .*nearly unique per row", text)
    assert "# l_diversity: " in text and "# t_closeness: " in text

    summary = anonymize(config, tmp_path / "s.json")
    release = pd.read_csv(tmp_path / "people-anonymized.csv", sep=";", dtype=str, keep_default_na=False)
    assert "record" not in release.columns and "comment" not in release.columns
    check_release(release, cfg.quasi_columns(), len(table))
    assert release["diagnosis"].tolist() == table["diagnosis"].tolist()      # sensitive: released as it is
    assert summary["verified"] is True


def test_commented_alternatives_load_when_uncommented(tmp_path: Path) -> None:
    data = tmp_path / "people.csv"
    people(300).to_csv(data, index=False)
    config = tmp_path / "c.yaml"
    assert run_init(str(data), "-o", str(config)).exit_code == 0
    text = config.read_text()
    for key in ("l_diversity", "t_closeness"):
        variant = tmp_path / f"{key}.yaml"
        variant.write_text(text.replace(f"  # {key}: ", f"  {key}: "))
        cfg = load_config(variant)
        assert len(cfg.requirements.models) == 3   # k, and the model on each of the two sensitive columns


def test_stdout_is_the_config_and_paths_are_relative_to_the_current_folder(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    people(200).to_csv(folder / "p.csv", index=False)
    monkeypatch.chdir(tmp_path)
    result = run_init("data/p.csv")
    assert result.exit_code == 0, result.output
    raw = yaml.safe_load(result.stdout)
    assert raw["input"]["path"] == "data/p.csv" and raw["input"]["delimiter"] == ","
    assert raw["output"] == {"path": "p-anonymized.csv"}
    assert not list(tmp_path.glob("*.yaml"))


def test_parquet_with_typed_columns_runs(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    rows = 800
    table = pd.DataFrame({
        "patient_id": np.arange(rows),
        "age": rng.integers(20, 80, rows),
        "weight": np.where(rng.random(rows) < 0.05, np.nan, np.round(rng.normal(75, 12, rows), 1)),
        "visit": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 700, rows), unit="D"),
        "smoker": rng.random(rows) < 0.3,
        "salary": rng.integers(20_000, 150_000, rows),
    })
    data = tmp_path / "visits.parquet"
    table.to_parquet(data, index=False)
    config = tmp_path / "visits.yaml"
    assert run_init(str(data), "-o", str(config)).exit_code == 0
    raw = yaml.safe_load(config.read_text())
    assert raw["input"] == {"path": "visits.parquet"}
    attrs = raw["attributes"]
    assert attrs["patient_id"]["role"] == "identifier"
    assert attrs["age"]["hierarchy"]["builder"] == "intervals"
    assert attrs["weight"]["hierarchy"]["builder"] == "intervals"
    assert attrs["visit"]["hierarchy"]["builder"] == "dates"
    assert attrs["salary"] == {"role": "sensitive", "type": "numeric"}
    anonymize(config, tmp_path / "s.json")
    release = pd.read_csv(tmp_path / "visits-anonymized.csv", dtype=str, keep_default_na=False)
    check_release(release, load_config(config).quasi_columns(), rows)


def test_messy_values_missing_markers_day_first_dates_and_skewed_numbers(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    rows = 1000
    age = rng.integers(0, 100, rows).astype(str).astype(object)
    age[rng.random(rows) < 0.03] = "?"
    age[rng.random(rows) < 0.03] = ""
    spend = np.round(rng.normal(100, 20, rows), 2)
    spend[:3] = [25_000.5, 40_000.25, 61_000.0]                              # three extreme values
    born = np.datetime64("1940-01-01") + rng.integers(0, 20000, rows)
    frame = pd.DataFrame({
        "Age": age,
        "spend": spend.astype(str),
        "born": pd.to_datetime(born).strftime("%d/%m/%Y"),
        "icd": rng.choice(["E119", "I10X", "J459", "K297"], rows),
        "country": rng.choice(["CH", "DE", "FR", "IT", "AT"], rows),
        "constant": ["x"] * rows,
    })
    data = tmp_path / "m.csv"
    frame.to_csv(data, index=False, sep="\t")
    config = tmp_path / "m.yaml"
    assert run_init(str(data), "-o", str(config)).exit_code == 0
    raw = yaml.safe_load(config.read_text())
    assert raw["input"]["delimiter"] == "\t"
    attrs = raw["attributes"]
    assert attrs["Age"]["type"] == "numeric" and attrs["Age"]["missing"] == ["", "?"]
    spend_h = attrs["spend"]["hierarchy"]
    assert spend_h["builder"] == "intervals" and "top" in spend_h          # the long tail is top-coded
    assert attrs["born"]["hierarchy"]["format"] == "%d/%m/%Y"
    assert attrs["icd"]["hierarchy"] == {"builder": "flat"}                  # E119, I10X, ...: masking groups nothing
    assert attrs["country"]["hierarchy"] == {"builder": "flat"}
    assert attrs["constant"]["role"] == "insensitive"
    anonymize(config, tmp_path / "s.json")
    release = pd.read_csv(tmp_path / "m-anonymized.csv", sep="\t", dtype=str, keep_default_na=False)
    check_release(release, load_config(config).quasi_columns(), rows)


def test_wide_table_keeps_the_lattice_small_or_falls_back_to_mondrian(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    rows = 400
    frame = pd.DataFrame({f"m{i}": rng.integers(0, 1000, rows).astype(str) for i in range(14)})
    data = tmp_path / "w.csv"
    frame.to_csv(data, index=False)
    config = tmp_path / "w.yaml"
    result = run_init(str(data), "-o", str(config))
    assert result.exit_code == 0
    cfg = load_config(config)
    assert cfg.method == "mondrian" and "mondrian" in result.stderr
    assert cfg.requirements.max_suppression == 0
    anonymize(config, tmp_path / "s.json")
    release = pd.read_csv(tmp_path / "w-anonymized.csv", dtype=str, keep_default_na=False)
    check_release(release, cfg.quasi_columns(), rows, budget=0)


def test_adult_reference_table(tmp_path: Path) -> None:
    adult = require_adult() / "adult.csv"
    config = tmp_path / "adult.yaml"
    assert run_init(str(adult), "-o", str(config)).exit_code == 0
    cfg = load_config(config)
    assert cfg.delimiter == ";" and cfg.input_path is not None and cfg.input_path.resolve() == adult.resolve()
    assert cfg.attributes["age"]["hierarchy"] == {"builder": "intervals", "widths": [5, 10, 20]}
    anonymize(config, tmp_path / "s.json")
    release = pd.read_csv(tmp_path / "adult-anonymized.csv", sep=";", dtype=str, keep_default_na=False)
    check_release(release, cfg.quasi_columns(), 30162)


# ---------------------------------------------------------------------------- bad input
def expect_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "; " in lines[0], result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize(("content", "fragment"), [
    (b"", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "binary"),
    (b"1,2,3\n4,5,6\n", "add a header row"),
    (b"a,b,c\n1,2,3\n4,5\n", "ragged"),
    (b"a,b\n", "no records"),
    (b"a,,c\n1,2,3\n4,5,6\n", "no name"),
    (b"Male,39,White\nFemale,40,Black\nMale,39,White\nFemale,52,White\n", "looks like a record"),
    (b"a,b\n1,2\n", "single record"),
    (b'a,b\n"1,2\n3,4\n', "ragged"),                   # an unclosed quote swallows the line break
])
def test_unreadable_data_is_one_line_and_writes_nothing(tmp_path: Path, content: bytes, fragment: str) -> None:
    data = tmp_path / "bad.csv"
    data.write_bytes(content)
    config = tmp_path / "c.yaml"
    expect_error(run_init(str(data), "-o", str(config)), str(data), fragment)
    assert not config.exists()


def test_missing_file_existing_output_and_the_data_file_as_output(tmp_path: Path) -> None:
    expect_error(run_init(str(tmp_path / "nope.csv")), "not found")
    data = tmp_path / "d.csv"
    people(50).to_csv(data, index=False)
    before = data.read_bytes()
    expect_error(run_init(str(data), "-o", str(data)), "is the data file")
    assert data.read_bytes() == before
    existing = tmp_path / "old.yaml"
    existing.write_text("keep me\n")
    expect_error(run_init(str(data), "-o", str(existing)), "already exists")
    assert existing.read_text() == "keep me\n"
    expect_error(run_init(str(data), "-o", str(tmp_path / "no" / "c.yaml")), "does not exist")


def test_help_has_an_example() -> None:
    result = run_init("--help")
    assert result.exit_code == 0 and "anonset init patients.csv -o patients.yaml" in result.output


def test_a_table_without_quasi_identifiers_says_so(tmp_path: Path) -> None:
    data = tmp_path / "names.csv"
    pd.DataFrame({"id": range(30), "email": [f"p{i}@example.org" for i in range(30)]}).to_csv(data, index=False)
    result = run_init(str(data))
    assert result.exit_code == 0
    assert "no column was proposed as a quasi-identifier" in result.stderr
    assert {e["role"] for e in yaml.safe_load(result.stdout)["attributes"].values()} == {"identifier"}
