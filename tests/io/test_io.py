"""Reading and writing tables: CSV sniffing and quoting, Parquet, atomic writes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from anonset.errors import DataError
from anonset.io.delimiters import sniff_delimiter
from anonset.io.outputs import atomic_write
from anonset.io.tables import read_table, write_table


def test_csv_values_are_kept_exactly_as_written(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('zip;name;note\n007;" padded ";"a;b"\n0700;Zürich;""\n', encoding="utf-8")
    assert sniff_delimiter(path) == ";"
    table = read_table(path)
    assert list(table.columns) == ["zip", "name", "note"]
    assert table["zip"].tolist() == ["007", "0700"]
    assert table["name"].tolist() == [" padded ", "Zürich"]
    assert table["note"].tolist() == ["a;b", ""]  # delimiter inside quotes; empty stays empty


@pytest.mark.parametrize("sep", [",", "\t", "|"])
def test_delimiter_is_sniffed(tmp_path: Path, sep: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(sep.join(["a", "b", "c"]) + "\n" + sep.join(["1", "2", "3"]) + "\n")
    assert sniff_delimiter(path) == sep
    assert read_table(path).iloc[0].tolist() == ["1", "2", "3"]


def test_parquet_round_trip(tmp_path: Path) -> None:
    frame = pd.DataFrame({"zip": ["007", "123"], "age": ["39", "40"]})
    path = tmp_path / "t.parquet"
    write_table(frame, path)
    back = read_table(path)
    pd.testing.assert_frame_equal(back, frame)


def test_atomic_write_leaves_nothing_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"

    def broken(tmp: Path) -> None:
        tmp.write_text("partial")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        atomic_write(target, broken)
    assert list(tmp_path.iterdir()) == []


def test_ragged_rows_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3\n")
    with pytest.raises(DataError, match="ragged"):
        read_table(path, ",")
