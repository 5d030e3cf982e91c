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
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from click.testing import CliRunner, Result

from anonset.cli import main
from anonset.commands.init import init
from anonset.config import FileInput, load_config
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
    kept = ~(release[cfg.quasi_columns()] == "*").all(axis=1).to_numpy()   # suppressed records withhold it too
    assert release.loc[kept, "diagnosis"].tolist() == table.loc[kept, "diagnosis"].tolist()  # released as it is
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
    assert isinstance(cfg.input, FileInput) and cfg.input.delimiter == ";"
    assert cfg.input.path.resolve() == adult.resolve()
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


def test_a_column_with_one_rare_value_is_dropped_and_the_config_says_why(tmp_path: Path) -> None:
    """``remark``, empty but for "John Smith, VIP, HIV+", was proposed insensitive and released with the record."""
    rng = np.random.default_rng(4)
    rows = 200
    remark = [""] * rows
    remark[7] = "John Smith, VIP, HIV+"
    notes = ["" if i % 50 else "call back" for i in range(rows)]   # 4 records hold it: rare too
    pd.DataFrame({"age": rng.integers(0, 100, rows).astype(str), "sex": rng.choice(["F", "M"], rows),
                  "remark": remark, "notes": notes, "ward": ["A"] * rows,
                  "diagnosis": rng.choice(["flu", "cold", "hiv"], rows)}).to_csv(tmp_path / "rare.csv", index=False)
    config = tmp_path / "c.yaml"
    result = run_init(str(tmp_path / "rare.csv"), "-o", str(config))
    assert result.exit_code == 0, result.output
    attributes = yaml.safe_load(config.read_text())["attributes"]
    assert attributes["remark"] == {"role": "identifier"} and attributes["notes"] == {"role": "identifier"}
    assert attributes["ward"] == {"role": "insensitive"}       # one value in all 200 records: not rare
    text = config.read_text()
    assert "John Smith" not in text                              # an identifier's values are not shown
    comment = " ".join(line.strip(" #") for line in text.splitlines() if line.startswith("  #"))
    assert ("WARNING: 1 non-empty value held by fewer than 5 records: a value this rare can single a person out;"
            " dropped. If it must be released, make it quasi (generalized) or insensitive (released as it is,"
            " knowingly).") in comment
    anonymize(config, tmp_path / "s.json")
    released = (tmp_path / "rare-anonymized.csv").read_text()
    assert "John Smith" not in released and "call back" not in released


def test_the_method_weights_line_shows_a_working_config(tmp_path: Path) -> None:
    data = tmp_path / "people.csv"
    people(300).to_csv(data, index=False)
    config = tmp_path / "c.yaml"
    assert run_init(str(data), "-o", str(config)).exit_code == 0
    lines = config.read_text().splitlines()
    at = lines.index("# method: {name: optimal, metric: loss, weights: {admitted: 2}}")
    assert lines[at - 1].startswith("#") and "method.weights" in " ".join(lines[at - 3: at])
    assert lines[[i for i, line in enumerate(lines) if line.startswith("method: ")][0] + 1].startswith("# Every")
    variant = tmp_path / "weighted.yaml"
    variant.write_text("\n".join(line for line in lines if not line.startswith("method: "))
                       .replace("# method: {name: optimal", "method: {name: optimal"))
    assert load_config(variant).weights == {"admitted": 2.0}
    anonymize(variant, tmp_path / "s.json")


def _parquet_table(rows: int = 120) -> pa.Table:
    rng = np.random.default_rng(5)
    stamps = pd.Timestamp("2021-03-01", tz="UTC") + pd.to_timedelta(rng.integers(0, 400, rows), unit="D")
    return pa.table({
        "age": pa.array(rng.integers(20, 80, rows)),
        "sex": pa.array(rng.choice(["F", "M"], rows)),
        "tags": pa.array([["a", str(i % 3)] for i in range(rows)]),
        "info": pa.array([{"ward": int(i % 4), "bed": "b"} for i in range(rows)]),
        "blob": pa.array([bytes([i % 7, 0xC8]) for i in range(rows)], pa.binary()),
        "extra": pa.array([{"k": i} for i in range(rows)], pa.map_(pa.string(), pa.int64())),
        "stay": pa.array(rng.integers(1, 4, rows) * 86_400, pa.duration("s")),
        "admitted": pa.array(stamps.tz_convert("Europe/Paris")),
    })


def test_parquet_lists_structs_bytes_and_zoned_timestamps_init_and_anonymize(tmp_path: Path) -> None:
    """``init`` raised ArrowNotImplementedError / ArrowInvalid on the first three; anonymize a TypeError on the last."""
    pq.write_table(_parquet_table(), tmp_path / "typed.parquet")
    config = tmp_path / "typed.yaml"
    result = run_init(str(tmp_path / "typed.parquet"), "-o", str(config))
    assert result.exit_code == 0, result.output
    attributes = yaml.safe_load(config.read_text())["attributes"]
    for name in ("tags", "info", "blob", "extra"):
        assert attributes[name] == {"role": "identifier"}, name
    assert "# tags: list<element: string> in 120 records; values not read." in config.read_text()
    assert attributes["admitted"]["type"] == "date" and attributes["stay"]["role"] == "quasi"
    anonymize(config, tmp_path / "s.json")
    release = pd.read_csv(tmp_path / "typed-anonymized.csv", dtype=str, keep_default_na=False)
    assert list(release.columns) == ["age", "sex", "stay", "admitted"]
    check_release(release, ["age", "sex", "stay", "admitted"], 120)


@pytest.mark.parametrize("flag", ["-d", "--delimiter"])
def test_a_delimiter_that_is_not_ascii_is_one_line_and_exit_2(tmp_path: Path, flag: str) -> None:
    """``-d é`` was a ValueError traceback from Arrow ("Expecting an ASCII character")."""
    (tmp_path / "d.csv").write_text("ageésex\n30éF\n40éM\n", encoding="utf-8")
    result = run_init(str(tmp_path / "d.csv"), flag, "é", "-o", str(tmp_path / "c.yaml"))
    assert result.exit_code == 2 and (result.exception is None or isinstance(result.exception, SystemExit))
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--delimiter" in lines[0] and "'é'" in lines[0] and "ASCII" in lines[0]
    assert not (tmp_path / "c.yaml").exists()


def test_zoned_timestamps_are_released_as_the_local_dates_they_hold(tmp_path: Path) -> None:
    """Anonymize on the config init wrote raised "Cannot subtract tz-naive and tz-aware datetime-like objects"."""
    rows = 120
    # 23:30 UTC on the last day of a month is already the next month in Paris
    stamps = pd.Timestamp("2021-01-31 23:30", tz="UTC") + pd.to_timedelta(np.arange(rows) % 3 * 31, unit="D")
    pq.write_table(pa.table({"sex": pa.array(["F", "M"] * (rows // 2)),
                             "seen": pa.array(stamps.tz_convert("Europe/Paris"))}), tmp_path / "z.parquet")
    config = tmp_path / "z.yaml"
    assert run_init(str(tmp_path / "z.parquet"), "-o", str(config)).exit_code == 0
    assert yaml.safe_load(config.read_text())["attributes"]["seen"]["type"] == "date"
    anonymize(config, tmp_path / "s.json")
    release = pd.read_csv(tmp_path / "z-anonymized.csv", dtype=str, keep_default_na=False)
    seen = sorted(set(release["seen"]))    # three values held by 40 records each: released as they are
    assert [v[:10] for v in seen] == ["2021-02-01", "2021-03-04", "2021-04-04"] # dates in Paris, not in UTC
    assert not any("+" in v for v in seen)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd on this system")
def test_the_config_goes_into_standard_output_or_a_device_named_as_a_path(tmp_path: Path) -> None:
    """``-o /dev/stdout`` and ``-o /dev/null`` said "already exists"; a link to the open file is written into."""
    import subprocess
    import sys

    people(100).to_csv(tmp_path / "p.csv", index=False)
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    with open(tmp_path / "redirected.yaml", "wb") as redirect:
        done = subprocess.run([sys.executable, "-m", "anonset.cli", "init", "p.csv", "-o", str(link)],
                              stdout=redirect, stderr=subprocess.PIPE, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    assert link.is_symlink()
    assert yaml.safe_load((tmp_path / "redirected.yaml").read_text())["input"]["path"] == "p.csv"
    if Path("/dev/null").exists():
        result = run_init(str(tmp_path / "p.csv"), "-o", "/dev/null")
        assert result.exit_code == 0, result.output
