"""The large synthetic register written straight to Parquet: its columns, notes, row groups and size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from anonset.datasets.large import write_large_register


def test_the_register_has_its_columns_notes_and_row_groups(tmp_path: Path) -> None:
    path = tmp_path / "register.parquet"
    size = write_large_register(path, 2500, seed=3, notes_bytes=8, chunk=1000, row_group=400)
    assert size == path.stat().st_size
    file = pq.ParquetFile(path)
    assert [file.metadata.row_group(i).num_rows for i in range(file.metadata.num_row_groups)] == \
        [400, 400, 200] * 2 + [400, 100]  # each chunk of 1,000 records in groups of at most 400
    table = file.read().to_pandas()
    assert list(table.columns) == ["patient_id", "age", "sex", "zip", "race", "marital_status", "education",
                                   "diagnosis", "notes"]
    assert len(table) == 2500 and table["patient_id"].is_unique
    assert table["age"].between(0, 99).all() and table["zip"].nunique() <= 300
    notes = table["notes"]
    assert notes.str.fullmatch(r"[0-9a-f]{16}").all()  # two hexadecimal characters per random byte
    counts = np.bincount(np.frombuffer("".join(notes).encode(), dtype=np.uint8))[list(b"0123456789abcdef")]
    assert counts.min() > 0.8 * counts.mean()  # every character about equally often: nothing to compress
    again = tmp_path / "again.parquet"
    write_large_register(again, 2500, seed=3, notes_bytes=8, chunk=1000, row_group=400)
    assert pq.read_table(again).equals(pq.read_table(path))  # the seed decides every value


def test_a_chunk_too_large_for_one_string_column_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="give a smaller chunk"):
        write_large_register(tmp_path / "big.parquet", 3_000_000, notes_bytes=400, chunk=3_000_000)
    assert not (tmp_path / "big.parquet").exists()
