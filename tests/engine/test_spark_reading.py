"""Spark reads what the numpy engine reads, and writes what it read: rows, values and column names, byte for byte.

The inputs are built here with what trips a CSV reader: a quoted line break (``\\n`` and ``\\r\\n``) in a
value, values padded with spaces, values that differ only by spaces (a sensitive one among them), empty
fields, doubled quotes and the delimiter inside quotes, and column names with a trailing space, a dot,
backticks, a comma, non-ASCII letters and two names that differ only in case.

- :func:`~anonset.engine.spark.source.read_frame` gives the records of
  :func:`anonset.io.tables.read_table`, for files with and without quotes (Spark reads the latter in
  parallel splits), with ``\\n`` and ``\\r\\n`` line endings.
- A full-domain release and a distributed Mondrian release made on Spark equal the numpy engine's
  release of the same config, row for row and value for value, read back from the part files with
  anonset's own CSV reader (so the written release round-trips).
- Ragged records, a quote inside a quoted value that is not doubled and a header naming a column twice
  are one-line errors, as on the numpy engine.
- The re-check counts the records it reads back: a release holding one record more or less than the
  input is refused and nothing is placed.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from anonset.cli import main
from anonset.errors import DataError
from anonset.io.tables import read_table

#: Insensitive values that a CSV reader or writer can get wrong.
NOTES = ["plain", " padded ", "line\nbreak", "crlf\r\nbreak", 'say "hi"', "a,b", "", "  ", "NaN", "é ü", "\\",
         'end"', "tab\tin"]


def _write_csv(path: Path, header: list[str], rows: list[list[str]], line_end: str = "\n") -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator=line_end)
        writer.writerow(header)
        writer.writerows(rows)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    columns = list(frame.columns)
    return frame.astype(str).sort_values(columns, kind="stable").reset_index(drop=True)


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
@pytest.mark.parametrize("quoted", [True, False])
def test_spark_reads_a_csv_file_as_numpy_reads_it(spark: Any, tmp_path: Path, line_end: str, quoted: bool) -> None:
    """Same names, same records, same values (nothing trimmed, empty fields empty, quoted line breaks kept)."""
    from anonset.engine.spark.source import read_frame

    header = ["sex ", "a.b", "`tick`", "diag,nosis" if quoted else "diag nosis", "Note", "note", "ünï"]
    notes = NOTES if quoted else [n for n in NOTES if not any(c in n for c in '",\n\r')]
    rows = [[f" {i % 3}", str(20 + i), "M" if i % 2 else "F ", ["hiv", "hiv ", " flu"][i % 3],
             notes[i % len(notes)], notes[(i * 7) % len(notes)], "x" if i % 4 else ""] for i in range(60)]
    path = tmp_path / "data.csv"
    _write_csv(path, header, rows, line_end)
    assert ('"' in path.read_text(encoding="utf-8")) is quoted
    expected = read_table(path)
    got = read_frame(spark, path=path, delimiter=",").toPandas()
    assert list(got.columns) == header == list(expected.columns)
    assert len(got) == len(rows)
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected))


@pytest.mark.parametrize(("text", "message"), [
    ("a,b\n1,2\n3\n", "ragged rows"),
    ("a,b\n1,2\n3,4,5\n", "ragged rows"),
    ('a,b\n"x"y,2\n', "a quoted value holds a quote that is not doubled"),
    ("a,b,a\n1,2,3\n", "duplicate column name 'a'"),
])
def test_malformed_csv_is_one_line_on_spark(spark: Any, tmp_path: Path, text: str, message: str) -> None:
    """What the numpy engine refuses (ragged rows, a duplicate name) or DuckDB does (a stray quote), Spark refuses."""
    from anonset.core.stats import StatsRequest
    from anonset.engine.spark.source import count_frame, read_frame

    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    attributes = {"a": {"role": "quasi", "hierarchy": {"builder": "flat"}}}
    with pytest.raises(DataError, match=message) as caught:
        count_frame(read_frame(spark, path=path, delimiter=","), attributes, StatsRequest(), str(path))
    assert str(caught.value).count("\n") == 0 and str(path) in str(caught.value)


ATTRIBUTES = """
attributes:
  patient id: {{role: identifier}}
  a.b:        {{role: quasi, type: numeric, hierarchy: {{builder: intervals, widths: [10, 20]}}}}
  "`tick`":   {{role: quasi, hierarchy: {{builder: flat}}}}
  "sex ":     {{role: quasi, hierarchy: {{builder: flat}}}}
  "diag,nosis": {{role: sensitive}}
  Note:       {{role: insensitive}}
  note:       {{role: insensitive}}
privacy: {{k: 5, l_diversity: {{attribute: "diag,nosis", l: 2}}, max_suppression: {suppression}}}
method: {method}
output: {{path: {output}}}
"""


def _register(path: Path, n: int = 300, seed: int = 3) -> None:
    """Records whose values need quoting, padding kept, and sensitive values that differ only by spaces."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["x", " x", "y "], n)
    tick = rng.choice(["M", "F"], n)
    age = rng.integers(20, 80, n)
    # "hiv" and "hiv " are two values: a class of only those two is 2-diverse, as the numpy engine judges it
    diagnosis = rng.choice(["hiv", "hiv ", "flu", " cold"], n, p=[0.4, 0.3, 0.2, 0.1])
    rows = [[f"p{i}", str(age[i]), str(tick[i]), str(sex[i]), str(diagnosis[i]), NOTES[i % len(NOTES)],
             NOTES[(3 * i + 1) % len(NOTES)]] for i in range(n)]
    _write_csv(path, ["patient id", "a.b", "`tick`", "sex ", "diag,nosis", "Note", "note"], rows)


def _anonymize(folder: Path, name: str, *, method: str, output: str, suppression: float,
               spark: bool) -> tuple[int, str, dict[str, Any] | None]:
    config = folder / f"{name}.yaml"
    text = "input: {path: data.csv}\n" + ATTRIBUTES.format(method=method, output=output, suppression=suppression)
    if spark:
        text += "engine: spark\nspark: {master: 'local[2]'}\n"
    config.write_text(text, encoding="utf-8")
    summary = folder / f"{name}.json"
    result = CliRunner().invoke(main, ["anonymize", str(config), "-q", "--summary", str(summary)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output, (json.loads(summary.read_text()) if summary.exists() else None)


def _parts(folder: Path) -> pd.DataFrame:
    """The part files Spark wrote, each read by anonset's own CSV reader (header-only parts left out)."""
    if any(folder.glob("part-*.parquet")):
        return pd.concat([pd.read_parquet(p) for p in sorted(folder.glob("part-*.parquet"))], ignore_index=True)
    frames = []
    for part in sorted(folder.glob("part-*.csv")):
        try:
            frames.append(read_table(part, ","))
        except DataError as exc:
            assert "no records" in str(exc) or "empty" in str(exc), exc
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize(("method", "suppression", "fmt"), [
    ("{name: optimal}", 0.05, "csv"),
    ("{name: optimal}", 0.05, "parquet"),
    ("{name: mondrian, fragments: 3}", 0, "csv"),
])
def test_spark_releases_what_numpy_releases_of_awkward_text(spark: Any, tmp_path: Path, method: str,
                                                           suppression: float, fmt: str) -> None:
    """Names with a space, a dot, backticks, a comma and a case twin; quoted line breaks; padded values."""
    _register(tmp_path / "data.csv")
    in_memory = method.replace(", fragments: 3", "")  # the driver's option: refused in memory
    code, out, expected = _anonymize(tmp_path, "numpy", method=in_memory, output="numpy.csv", suppression=suppression,
                                     spark=False)
    assert code == 0, out
    code, out, got = _anonymize(tmp_path, "spark", method=method, output=f"spark.{fmt}", suppression=suppression,
                                spark=True)
    assert code == 0, out
    assert expected is not None and got is not None and got["verified"] and got["engine"] == "spark"
    assert got["rows"] == expected["rows"] == 300
    if "fragments" in method:  # records sent down cuts of columns named a.b and `tick`, run by fragment
        assert got["search"]["fragments"] >= 2
    for key in ("suppressed_rows", "classes", "min_class_size"):
        assert got[key] == expected[key], key
    released = _parts(tmp_path / f"spark.{fmt}")
    numpy_release = read_table(tmp_path / "numpy.csv")
    assert list(released.columns) == list(numpy_release.columns) == ["a.b", "`tick`", "sex ", "diag,nosis", "Note",
                                                                       "note"]
    pd.testing.assert_frame_equal(_sorted(released), _sorted(numpy_release))
    assert set(released["Note"]) == set(NOTES)  # every awkward value came back as written


# each way of miscounting once, each on a method of its own: the count is re-checked on the staged frame,
# whichever method made it
@pytest.mark.parametrize(("method", "suppression", "change"), [("{name: optimal}", 0.05, "one more"),
                                                               ("{name: mondrian, fragments: 2}", 0, "one fewer")])
def test_the_recheck_refuses_a_release_of_another_record_count(spark: Any, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, method: str,
                                                              suppression: float, change: str) -> None:
    """A record split in two (or lost) between reading and writing is refused: nothing placed, nothing staged."""
    from anonset.sinks.spark import SparkOutput

    staged = SparkOutput.staged

    def miscounted(self: SparkOutput) -> Any:
        frame = staged(self)
        return frame.union(frame.limit(1)) if change == "one more" else frame.limit(299)

    monkeypatch.setattr(SparkOutput, "staged", miscounted)
    _register(tmp_path / "data.csv", n=300)
    with pytest.raises(RuntimeError, match="should hold 300 ") as caught:
        _anonymize(tmp_path, "spark", method=method, output="spark.csv", suppression=suppression, spark=True)
    message = str(caught.value)
    assert f"holds {301 if change == 'one more' else 299} records" in message
    assert "records were split, joined or lost" in message and "nothing was placed" in message
    assert not (tmp_path / "spark.csv").exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".spark.csv")]
