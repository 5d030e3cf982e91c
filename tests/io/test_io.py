"""Reading and writing tables: sniffing, quoting, Parquet, the Arrow reader, CSV as pandas writes it, atomic writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from anonset.errors import DataError
from anonset.io.delimiters import sniff_delimiter
from anonset.io.outputs import atomic_write
from anonset.io.tables import read_arrow_table, read_table, write_table


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


def _bad_files(tmp_path: Path) -> list[tuple[Path, str | None]]:
    """Files each reader must refuse, with the delimiter to read them with."""
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    (tmp_path / "dupes.csv").write_text("a;a\n1;2\n", encoding="utf-8")
    (tmp_path / "header.csv").write_text("a;b\n", encoding="utf-8")
    (tmp_path / "ragged.csv").write_text("a,b\n1,2\n3\n", encoding="utf-8")
    (tmp_path / "latin1.csv").write_bytes("a;b\nZ\xfcrich;1\n".encode("latin-1"))
    (tmp_path / "broken.parquet").write_bytes(b"not parquet at all")
    (tmp_path / "folder.csv").mkdir()
    return [(tmp_path / name, sep) for name, sep in (
        ("missing.csv", None), ("empty.csv", None), ("dupes.csv", ";"), ("header.csv", ";"), ("ragged.csv", ","),
        ("latin1.csv", ";"), ("broken.parquet", None), ("folder.csv", None))]


def test_the_arrow_reader_refuses_what_read_table_refuses_with_the_same_message(tmp_path: Path) -> None:
    for path, sep in _bad_files(tmp_path):
        messages = []
        for read in (read_arrow_table, read_table):
            with pytest.raises(DataError) as caught:
                read(path, sep)
            messages.append(str(caught.value))
        assert messages[0] == messages[1], path.name
        assert str(path) in messages[0]


def test_the_arrow_reader_keeps_values_as_written(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('zip;name;note\n007;" padded ";"a;b"\n0700;Zürich;""\n', encoding="utf-8")
    table = read_arrow_table(path)
    assert table.column_names == ["zip", "name", "note"]
    assert table.column("zip").to_pylist() == ["007", "0700"]
    assert table.column("name").to_pylist() == [" padded ", "Zürich"]
    assert table.column("note").to_pylist() == ["a;b", ""]
    assert all(pa.types.is_string(t) for t in table.schema.types)


FRAMES = {
    "plain": pd.DataFrame({"a": ["007", "Zürich", " x ", ""], "b": ["1", "2", "3", "4"]}),
    "delimiter inside": pd.DataFrame({"a": ["x;y", "z"], "b": ["1", "2"]}),
    "quote inside": pd.DataFrame({"a": ['say "hi"', "z"], "b": ["1", "2"]}),
    "line break inside": pd.DataFrame({"a": ["x\ny", "z"], "b": ["1", "2"]}),
    "carriage return inside": pd.DataFrame({"a": ["x\ry", "z"], "b": ["1", "2"]}),
    "one column, an empty field": pd.DataFrame({"a": ["x", "", "y"]}),
    "one column": pd.DataFrame({"a": ["x", "y"]}),
    "missing values": pd.DataFrame({"a": ["x", None], "b": [np.nan, "2"]}, dtype=object),
    "numbers": pd.DataFrame({"a": [1, 2], "b": [0.1, 1e-5], "c": ["x", "y"]}),
    "header needs quotes": pd.DataFrame({"a;b": ["1"], 'say "c"': ["2"]}),
    "categorical": pd.DataFrame({"a": pd.Categorical(["x", "y", "x"]), "b": ["1", "2", "3"]}),
    "categorical, missing": pd.DataFrame({"a": pd.Categorical(["x", None, "x"]), "b": ["1", "2", "3"]}),
    "arrow strings": pd.DataFrame({"a": ["x", "yé"], "b": ["1", "2"]}, dtype=pd.StringDtype("pyarrow", np.nan)),
    "arrow strings, missing": pd.DataFrame({"a": ["x", None]}, dtype=pd.StringDtype("pyarrow", np.nan)),
    "no rows": pd.DataFrame({"a": pd.Series([], dtype=object)}),
}


@pytest.mark.parametrize("name", sorted(FRAMES))
@pytest.mark.parametrize("sep", [";", ",", "\t"])
def test_csv_is_written_as_pandas_writes_it(tmp_path: Path, name: str, sep: str) -> None:
    frame = FRAMES[name]
    path = tmp_path / "t.csv"
    write_table(frame, path, delimiter=sep)
    expected = frame.to_csv(sep=sep, index=False, lineterminator="\n").encode("utf-8")
    assert path.read_bytes() == expected


@pytest.mark.parametrize("name", ["plain", "categorical", "arrow strings"])
def test_parquet_of_arrow_held_text_reads_back_as_python_strings(tmp_path: Path, name: str) -> None:
    frame = FRAMES[name]
    path = tmp_path / "t.parquet"
    write_table(frame, path)
    back = read_table(path)
    pd.testing.assert_frame_equal(back, frame.astype(object))
    assert pq.read_schema(path).types == [pa.string()] * len(frame.columns)


@pytest.mark.parametrize("name", ["plain", "one column", "categorical", "arrow strings", "header needs quotes"])
def test_text_that_needs_no_quotes_is_written_by_arrow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       name: str) -> None:
    def pandas_writer(*args: object, **kwargs: object) -> None:
        raise AssertionError("written by pandas")

    monkeypatch.setattr(pd.DataFrame, "to_csv", pandas_writer)
    write_table(FRAMES[name], tmp_path / "t.csv", delimiter=";")


def test_read_dataset_encodes_the_file_as_a_dataset_of_read_table_would(tmp_path: Path) -> None:
    from anonset.core.dataset import Dataset
    from anonset.io.tables import read_dataset

    path = tmp_path / "t.csv"
    path.write_text("zip;age;d\n02139;39;x\n02138;40;y\n02139;39;y\n", encoding="utf-8")
    specs = {"zip": {"role": "quasi"}, "age": {"role": "quasi", "type": "numeric"}, "d": {"role": "sensitive"}}
    dataset = read_dataset(path, specs, ";")
    reference = Dataset(read_table(path, ";"), specs, source=str(path))
    assert dataset.source == str(path) and dataset.arrow is not None
    for name in ("zip", "age", "d"):
        assert dataset.encoded[name].row_codes().tolist() == reference.encoded[name].row_codes().tolist()
        assert dataset.encoded[name].categories.tolist() == reference.encoded[name].categories.tolist()
    pd.testing.assert_frame_equal(dataset.table, reference.table)
    with pytest.raises(DataError, match="configured column 'x' is not in the data"):
        read_dataset(path, {"x": {"role": "quasi"}}, ";")


@pytest.mark.parametrize("sep", ["é", "€", "\u00a0"])
def test_a_delimiter_that_is_not_ascii_is_refused_in_one_line(tmp_path: Path, sep: str) -> None:
    """Arrow splits fields on one byte: ``é`` was a ValueError ("Expecting an ASCII character") traceback."""
    from anonset.io.delimiters import check_delimiter

    with pytest.raises(DataError, match="not an ASCII character"):
        check_delimiter(sep, "--delimiter")
    path = tmp_path / "d.csv"
    path.write_text(f"a{sep}b\n1{sep}2\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"d\.csv: delimiter .* is not an ASCII character"):
        read_arrow_table(path, sep)


def test_zoned_timestamps_are_read_as_the_local_times_they_hold(tmp_path: Path) -> None:
    stamps = pd.to_datetime(["2021-01-31 23:30", "2021-06-30 22:15"]).tz_localize("UTC").tz_convert("Europe/Paris")
    pq.write_table(pa.table({"seen": pa.array(stamps), "n": [1, 2]}), tmp_path / "z.parquet")
    table = read_arrow_table(tmp_path / "z.parquet")
    assert table.schema.field("seen").type == pa.timestamp("ns") and table.column("n").to_pylist() == [1, 2]
    assert [str(v) for v in table.column("seen").to_pylist()] == ["2021-02-01 00:30:00", "2021-07-01 00:15:00"]


def test_a_byte_order_mark_is_not_part_of_the_first_column(tmp_path: Path) -> None:
    """With a UTF-8 BOM the first column kept ``\\ufeff`` in its name and was read as numbers (``1``, not ``'1'``)."""
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfid,age\n007,30\n2,40\n")
    frame = read_table(path)
    assert frame.columns.tolist() == ["id", "age"]
    assert frame["id"].tolist() == ["007", "2"]  # text, as written
    from anonset.engine.sql.duckdb import DuckDBBackend

    with DuckDBBackend.from_file(path) as db:
        assert db.columns(db.table) == ["id", "age"]
        rows = db.fetch_rows(f"SELECT id FROM {db.table_ref(db.table)} ORDER BY 1", (), "reading")
    assert [r[0] for r in rows] == ["007", "2"]


def test_a_quoted_line_break_across_arrows_blocks_is_one_record(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrow splits a file into blocks for its threads; a value with a line break must not be cut at a block's end."""
    from anonset.io import tables

    monkeypatch.setattr(tables, "CSV_BLOCK_BYTES", 4096)  # many blocks in a small file (16 MB in real runs)
    rows = ["id,note", *(f'{i},"line one\nline two"' if i % 50 == 0 else f"{i},plain" for i in range(20000))]
    path = tmp_path / "notes.csv"
    path.write_text("\n".join(rows) + "\n")
    frame = read_table(path)
    assert len(frame) == 20000
    assert (frame["note"][frame["id"].astype(int) % 50 == 0] == "line one\nline two").all()


def test_a_parquet_files_encoded_text_is_read_dictionary_encoded_and_gives_the_same_dataset(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Quasi-identifier and sensitive text columns of a Parquet file are read dictionary-encoded (row groups
    with dictionaries of their own, nulls among the values): the dataset is the one the plain text gives (codes,
    categories, the columns it holds encoded, its table), a column stored as a pandas categorical stays one, and
    a text column the dataset does not encode is read as text."""
    from anonset.core.dataset import Dataset
    from anonset.io.tables import read_dataset

    rng = np.random.default_rng(4)
    n = 3000
    zips = np.array([f"021{v:02d}" for v in rng.integers(0, 40, n)], dtype=object)
    zips[rng.random(n) < 0.02] = None
    frame = pd.DataFrame({"zip": zips, "sex": rng.choice(["F", "M"], n).astype(object),
                          "d": pd.Categorical(rng.choice(["x", "y", "z"], n)),
                          "note": [f"n{v}" for v in rng.integers(0, 9, n)]})
    path = tmp_path / "t.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=700)
    specs = {"zip": {"role": "quasi", "missing": ["?"]}, "sex": {"role": "quasi"}, "d": {"role": "sensitive"},
             "note": {"role": "insensitive"}}
    reference = Dataset(pq.read_table(path), specs, source=str(path))
    asked: list[object] = []
    read = pq.read_table

    def spy(*args: object, **kwargs: object) -> pa.Table:
        asked.append(kwargs.get("read_dictionary"))
        return read(*args, **kwargs)

    monkeypatch.setattr(pq, "read_table", spy)
    dataset = read_dataset(path, specs)
    assert asked == [["zip", "sex"]]  # "d" is a dictionary in the file already
    assert dataset.arrow is not None and reference.arrow is not None
    assert pa.types.is_string(dataset.arrow.schema.field("note").type)
    for name in ("zip", "sex", "d"):
        assert dataset.encoded[name].row_codes().tolist() == reference.encoded[name].row_codes().tolist(), name
        assert dataset.encoded[name].categories.tolist() == reference.encoded[name].categories.tolist(), name
        assert dataset.arrow.column(name).type == reference.arrow.column(name).type, name
        assert dataset.arrow.column(name).equals(reference.arrow.column(name)), name
    assert "?" in dataset.encoded["zip"].categories.tolist()
    pd.testing.assert_frame_equal(dataset.table, reference.table)
    assert isinstance(dataset.table["d"].dtype, pd.CategoricalDtype)
    assert dataset.table["zip"].dtype == object and dataset.table["zip"].isna().sum() == np.sum(pd.isna(zips))
