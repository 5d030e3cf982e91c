"""A Dataset of an Arrow table equals the Dataset of the same records read as a DataFrame of strings.

Every case writes a small file, reads it twice — :func:`read_arrow_table`
(the records stay Arrow) and :func:`read_table` (Python strings) — and
compares what the two datasets encoded, the hierarchies they built, the
errors they raise and the releases they give, down to the bytes of the
written file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from anonset import Anonymizer, Dataset, Hierarchy, HierarchyError
from anonset.errors import ConfigError, DataError
from anonset.io.tables import read_arrow_table, read_table, write_table
from anonset.privacy import DistinctLDiversity, KAnonymity, Requirements

AGES = Hierarchy.from_rows("age", [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 80)])

ROWS = 400


def _table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 80, ROWS).astype(str).astype(object)
    age[rng.random(ROWS) < 0.05] = "39.0"  # matches leaf 39 by value only
    return pd.DataFrame({
        "id": [f"P{i:05d}" for i in range(ROWS)],
        "age": age,
        "zip": rng.choice(["02139", "02138", "00501", "10001", "10002"], ROWS),
        "sex": rng.choice(["F", "M", "?"], ROWS, p=[0.48, 0.48, 0.04]),
        "edu": rng.choice(["low", "mid", "high"], ROWS),
        "day": rng.choice(["2024-01-03", "2024-02-17", "2023-12-31"], ROWS),
        "stay": rng.integers(0, 30, ROWS).astype(str),
        "diag": rng.choice(["flu", "cold", "injury", "other"], ROWS),
        "note": rng.choice(["a;b", "plain", 'say "hi"', ""], ROWS),
    })


SPECS: dict[str, dict[str, dict[str, Any]]] = {
    "hierarchies": {
        "id": {"role": "identifier"},
        "age": {"role": "quasi", "type": "numeric", "hierarchy": AGES},
        "zip": {"role": "quasi", "hierarchy": {"builder": "masking", "levels": 3}},
        "sex": {"role": "quasi", "missing": ["?"]},
        "edu": {"role": "quasi", "type": "ordinal", "order": ["low", "mid", "high"],
                "hierarchy": {"builder": "ordered", "fanouts": [2]}},
        "diag": {"role": "sensitive"},
        # released as they are (declared: an undeclared column that could single people out is refused)
        "day": {"role": "insensitive"}, "stay": {"role": "insensitive"}, "note": {"role": "insensitive"},
    },
    "by_value": {
        "age": {"role": "quasi", "type": "numeric"},
        "day": {"role": "quasi", "type": "date", "hierarchy": {"builder": "dates", "levels": ["month", "year"]}},
        "edu": {"role": "quasi", "type": "ordinal", "order": ["low", "mid", "high"]},
        "stay": {"role": "sensitive", "type": "numeric"},
        "diag": {"role": "sensitive", "order": ["other", "injury", "flu", "cold"]},
        "id": {"role": "identifier"}, "zip": {"role": "insensitive"}, "sex": {"role": "insensitive"},
        "note": {"role": "insensitive"},
    },
}


def _both(path: Path, specs: dict[str, Any]) -> tuple[Dataset, Dataset]:
    return (Dataset(read_arrow_table(path), specs, source=str(path)),
            Dataset(read_table(path), specs, source=str(path)))


def _same_encoding(arrow: Dataset, frame: Dataset) -> None:
    assert arrow.quasi == frame.quasi and arrow.sensitive == frame.sensitive
    for name in arrow.encoded:
        a, f = arrow.encoded[name], frame.encoded[name]
        assert a.row_codes().tolist() == f.row_codes().tolist(), name
        assert a.categories.tolist() == f.categories.tolist(), name
        assert a.counts().tolist() == f.counts().tolist(), name
        if f.numbers is None:
            assert a.numbers is None, name
        else:
            assert a.numbers is not None
            np.testing.assert_array_equal(a.numbers, f.numbers)
        assert arrow.value_codes(name) == frame.value_codes(name), name
        ha, hf = arrow.hierarchy(name), frame.hierarchy(name)
        assert (ha is None) == (hf is None), name
        if ha is not None and hf is not None:
            assert ha.rows() == hf.rows(), name


@pytest.mark.parametrize("case", sorted(SPECS))
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_arrow_and_frame_encode_alike(tmp_path: Path, case: str, suffix: str) -> None:
    path = tmp_path / f"t{suffix}"
    write_table(_table(), path, delimiter=";")
    arrow, frame = _both(path, SPECS[case])
    assert arrow.arrow is not None and arrow._frame is None  # nothing built the frame
    _same_encoding(arrow, frame)
    assert arrow._frame is None
    pd.testing.assert_frame_equal(arrow.table, frame.table)  # the frame, when asked for, is read_table's


def test_nulls_of_a_parquet_file_read_as_the_missing_marker(tmp_path: Path) -> None:
    """A null is the marker, in the place of its first appearance, and one value with a written marker."""
    path = tmp_path / "t.parquet"
    values = ["b", None, "a", "?", None, "c", "b", "?"] * 10
    pq.write_table(pa.table({"v": pa.array(values, type=pa.string()),
                             "s": pa.array(["x", "y"] * 40, type=pa.string())}), path)
    for missing in (["?"], ["", "?"], ["-"]):
        arrow, frame = _both(path, {"v": {"role": "quasi", "missing": missing}, "s": {"role": "sensitive"}})
        _same_encoding(arrow, frame)


def test_a_sensitive_column_with_nulls_is_released_alike(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    rng = np.random.default_rng(2)
    diag = rng.choice(["flu", "cold", "injury"], ROWS).astype(object)
    diag[rng.random(ROWS) < 0.1] = None
    pq.write_table(pa.table({"zip": pa.array(rng.choice(["02139", "02138", "10001"], ROWS)),
                             "diag": pa.array(diag, type=pa.string())}), path)
    specs = {"zip": {"role": "quasi"}, "diag": {"role": "sensitive", "missing": ["n/a"]}}
    requirements = Requirements([KAnonymity(3), DistinctLDiversity("diag", 2)], max_suppression=0.05)
    releases = [Anonymizer(specs, requirements).fit(read(path)).release_ for read in (read_arrow_table, read_table)]
    tables = [r.table for r in releases]
    assert tables[0] is not None and tables[1] is not None
    released = tables[0].astype(object)
    pd.testing.assert_frame_equal(released.where(released.notna(), None), tables[1])  # a null: NaN there, None here
    out = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for table, target in zip(tables, out, strict=True):
        write_table(table, target)
    assert out[0].read_bytes() == out[1].read_bytes()


def test_dictionary_encoded_text_of_an_arrow_table_encodes_like_text() -> None:
    """A table whose text is already dictionary-encoded (several dictionaries) is kept as given."""
    table = _table()
    plain = pa.Table.from_pandas(table, preserve_index=False)
    chunks = [pa.Table.from_pandas(part, preserve_index=False) for part in (table.iloc[:150], table.iloc[150:])]
    encoded = pa.concat_tables([c.set_column(c.schema.get_field_index("zip"), "zip",
                                             pc.dictionary_encode(c.column("zip"))) for c in chunks])
    specs = SPECS["hierarchies"]
    given = Dataset(encoded, specs)
    _same_encoding(given, Dataset(plain, specs))
    pd.testing.assert_frame_equal(given.table, encoded.to_pandas())


@pytest.mark.parametrize("dictionary", [["b", "a", "b", "c"], ["b", None, "a", "c"], ["c", "b", "a", "unused"]])
def test_a_dictionary_column_encodes_as_its_text_would(dictionary: list[str | None]) -> None:
    """From its indices when its dictionary is a set of values (an unused value dropped), from its text when a
    value repeats or is null: the dictionary in order of first appearance, the narrowest indices, nulls kept."""
    from anonset.core.distinct import dictionary_encode

    indices = [[2, 0, None, 1], [3, 1, 0]] if "unused" not in dictionary else [[2, 0, None, 1], [2, 1, 0]]
    column = pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array(i, pa.int32()), pa.array(dictionary))
                               for i in indices])
    got = dictionary_encode(column)
    want = dictionary_encode(column.cast(pa.string()))
    assert got.type == want.type == pa.dictionary(pa.int8(), pa.string())
    assert got.combine_chunks().equals(want.combine_chunks())
    assert got.chunks[0].dictionary.equals(want.chunks[0].dictionary)
    assert got.cast(pa.string()).equals(column.cast(pa.string()))


def test_arrow_backed_dataframe_columns_encode_like_python_strings() -> None:
    """A DataFrame of pandas' Arrow-backed strings (with a missing value) encodes as one of Python strings."""
    table = _table()
    table.loc[3, "zip"] = None
    specs = SPECS["hierarchies"]
    strings = Dataset(table, specs)
    for dtype in (pd.StringDtype("pyarrow"), pd.StringDtype("pyarrow", na_value=np.nan)):
        _same_encoding(Dataset(table.astype(dtype), specs), strings)


def test_typed_parquet_columns_encode_as_their_text(tmp_path: Path) -> None:
    """Non-text Parquet columns (integers, floats) are read as pandas gives them, as before."""
    path = tmp_path / "t.parquet"
    rng = np.random.default_rng(1)
    pd.DataFrame({"age": rng.integers(20, 80, 200), "w": rng.random(200).round(2),
                  "d": rng.choice(["x", "y"], 200)}).to_parquet(path)
    specs = {"age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10]}},
             "w": {"role": "sensitive", "type": "numeric"}, "d": {"role": "sensitive"}}
    _same_encoding(*_both(path, specs))


@pytest.mark.parametrize(("specs", "error"), [
    ({"zip": {"role": "quasi", "hierarchy": Hierarchy.from_rows("zip", [["02139", "*"]])}}, HierarchyError),
    ({"sex": {"role": "quasi", "missing_policy": "error"}, "note": {"role": "sensitive"}}, DataError),
    ({"zip": {"role": "quasi", "type": "numeric"}, "note": {"role": "sensitive", "type": "numeric"}}, DataError),
    ({"edu": {"role": "quasi", "order": ["low", "mid"]}}, ConfigError),
    ({"diag": {"role": "sensitive", "order": ["flu"]}, "edu": {"role": "quasi"}}, ConfigError),
    ({"edu": {"role": "quasi", "type": "ordinal", "order": ["low", "high"],
              "hierarchy": {"builder": "flat"}}}, ConfigError),
])
def test_errors_are_the_same(tmp_path: Path, specs: dict[str, Any], error: type[Exception]) -> None:
    table = _table()
    table.loc[5, "note"] = "n/a"
    table.loc[7, "sex"] = ""
    path = tmp_path / "t.csv"
    write_table(table, path, delimiter=";")
    messages = []
    for read in (read_arrow_table, read_table):
        with pytest.raises(error) as caught:
            Dataset(read(path), specs, source=str(path))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("method", ["optimal", "mondrian", "xu-top-down"])
@pytest.mark.parametrize(("drop", "note"), [(False, True), (True, False)])
def test_releases_and_written_files_are_identical(tmp_path: Path, method: str, drop: bool, note: bool) -> None:
    """Without the ``note`` column no field needs quotes, and the release is written through Arrow."""
    path = tmp_path / "t.csv"
    write_table(_table() if note else _table().drop(columns="note"), path, delimiter=";")
    specs = SPECS["hierarchies"] if method == "optimal" else {
        **SPECS["hierarchies"], "age": {"role": "quasi", "type": "numeric"}}
    if not note:
        specs = {name: spec for name, spec in specs.items() if name != "note"}
    requirements = Requirements([KAnonymity(4), DistinctLDiversity("diag", 2)],
                                max_suppression=0.05 if method == "optimal" else 0.0)
    releases = [Anonymizer(specs, requirements, method=method, drop_suppressed=drop).fit(read(path)).release_
                for read in (read_arrow_table, read_table)]
    arrow, frame = releases
    assert arrow.table is not None and frame.table is not None
    assert frame.table.dtypes.eq(object).all()  # a DataFrame's release holds Python strings, as before
    pd.testing.assert_frame_equal(arrow.table.astype(object), frame.table)
    assert arrow.levels == frame.levels and arrow.metrics == frame.metrics
    assert (arrow.classes, arrow.suppressed_rows, arrow.warnings) == (frame.classes, frame.suppressed_rows,
                                                                     frame.warnings)
    for suffix in (".csv", ".parquet"):
        out = [tmp_path / f"{name}{suffix}" for name in ("arrow", "frame")]
        for release, target in zip(releases, out, strict=True):
            assert release.table is not None
            write_table(release.table, target, delimiter=";")
        if suffix == ".csv":
            assert out[0].read_bytes() == out[1].read_bytes()
        else:
            pd.testing.assert_frame_equal(read_table(out[0]), read_table(out[1]))


def test_transform_of_an_arrow_dataset(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    write_table(_table(), path, delimiter=";")
    requirements = Requirements([KAnonymity(4)], max_suppression=0.05)
    model = Anonymizer(SPECS["hierarchies"], requirements).fit(read_arrow_table(path))
    new = Dataset(read_arrow_table(path), SPECS["hierarchies"])
    assert model.transform(new, return_release=True).levels == model.release_.levels
    assert new._frame is None


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_run_holds_no_identifier_value_and_releases_the_same(tmp_path: Path, suffix: str) -> None:
    """read_dataset(keep_identifiers=False), as a run reads its input: the identifier keeps its place and name
    with no value, every other column is read as before, and the release is the same."""
    from anonset.io.tables import read_dataset

    path = tmp_path / f"t{suffix}"
    write_table(_table(), path, delimiter=";")
    specs = SPECS["hierarchies"]
    kept, lean = (read_dataset(path, specs, ";" if suffix == ".csv" else None, keep_identifiers=keep)
                  for keep in (True, False))
    assert lean.columns == kept.columns and lean.arrow is not None and kept.arrow is not None
    assert lean.arrow.column("id").null_count == len(_table()) and lean.arrow.column("id").nbytes == 0
    assert kept.arrow.column("id").null_count == 0
    for name in kept.columns:
        if name != "id":
            assert lean.arrow.column(name).equals(kept.arrow.column(name)), name
    requirements = Requirements([KAnonymity(4)], max_suppression=0.05)
    releases = [Anonymizer(specs, requirements).fit(ds).release_ for ds in (kept, lean)]
    assert releases[0].table is not None and releases[1].table is not None
    assert "id" not in releases[1].table.columns
    pd.testing.assert_frame_equal(releases[0].table, releases[1].table)
