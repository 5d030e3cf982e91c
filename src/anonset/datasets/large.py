"""Large synthetic tables written straight to Parquet in chunks, for runs on tables larger than memory.

:func:`write_large_register` writes a patient-register-like table of any
size without ever holding it: each chunk of records is drawn with numpy and
appended to the file.  Besides six quasi-identifiers and a diagnosis it has
a free-text ``notes`` column of random hexadecimal characters that does not
compress, so the file is about ``100 + notes_bytes * 2`` bytes per record on
disk: a file of a given size takes few records and little time to make.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["write_large_register"]

_SEX = np.array(["F", "M"], dtype=object)
_RACE = np.array(["White", "Black", "Hispanic", "Asian", "Native", "Other"], dtype=object)
_MARITAL = np.array(["Never-married", "Married", "Separated", "Divorced", "Widowed"], dtype=object)
_EDUCATION = np.array(["Preschool", "Primary", "Lower secondary", "Upper secondary", "Post-secondary", "Bachelor",
                       "Master", "Doctorate"], dtype=object)
_DIAGNOSIS = np.array(["Circulatory", "Respiratory", "Digestive", "Neoplasms", "Injury", "Mental", "Nervous",
                       "Musculoskeletal", "Skin", "Symptoms", "Infectious", "Endocrine", "Genitourinary", "Blood",
                       "Eye", "Ear"], dtype=object)
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
#: The two hexadecimal characters of each byte value, as one 16-bit word whose bytes lie in reading order.
_HEX_PAIRS = np.stack([_HEX[np.arange(256) >> 4], _HEX[np.arange(256) & 15]], axis=1).view(np.uint16).ravel()


def write_large_register(path: str | Path, rows: int, *, seed: int = 0, notes_bytes: int = 48,
                         chunk: int = 1_000_000, row_group: int = 100_000) -> int:
    """Write ``rows`` synthetic records to a Parquet file at ``path``; the file's size in bytes.

    Columns: ``patient_id`` (unique), ``age`` (0-99), ``sex``, ``zip`` (one
    of 300 five-digit codes), ``race``, ``marital_status``, ``education``,
    ``diagnosis`` and ``notes`` (``2 * notes_bytes`` random hexadecimal
    characters).  Row groups of ``row_group`` records keep the blocks a
    reader must hold small.  A ``chunk`` whose notes would reach 2 GiB (one
    Arrow string column) is refused with ``ValueError``.
    """
    if min(chunk, rows) * 2 * notes_bytes >= 2**31:  # an Arrow string column's offsets are 32-bit
        raise ValueError(f"a chunk of {min(chunk, rows):,} records of {2 * notes_bytes} note characters is 2 GiB or"
                         " more; give a smaller chunk")
    rng = np.random.default_rng(seed)
    zips = np.array([f"{z:05d}" for z in rng.choice(np.arange(1000, 99999), size=300, replace=False)], dtype=object)
    writer: pq.ParquetWriter | None = None
    try:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            raw = rng.integers(0, 256, size=(n, notes_bytes), dtype=np.uint8)
            chars = _HEX_PAIRS[raw].view(np.uint8)  # n rows of 2 * notes_bytes characters, one buffer
            width = 2 * notes_bytes
            columns = {
                "patient_id": pa.array(np.arange(start, start + n)).cast(pa.string()),
                "age": pa.array(np.minimum(rng.gamma(4.0, 12.0, size=n), 99).astype(np.int64)),
                "sex": _coded(_SEX, rng.integers(0, 2, size=n)),
                "zip": _coded(zips, np.minimum(rng.zipf(1.3, size=n) - 1, 299)),
                "race": _coded(_RACE, rng.choice(6, size=n, p=[0.6, 0.15, 0.13, 0.07, 0.02, 0.03])),
                "marital_status": _coded(_MARITAL, rng.integers(0, 5, size=n)),
                "education": _coded(_EDUCATION, rng.integers(0, 8, size=n)),
                "diagnosis": _coded(_DIAGNOSIS, rng.integers(0, 16, size=n)),
                "notes": pa.StringArray.from_buffers(n, pa.py_buffer(np.arange(0, (n + 1) * width, width,
                                                                             dtype=np.int32)), pa.py_buffer(chars)),
            }
            table = pa.table(columns)
            if writer is None:
                writer = pq.ParquetWriter(str(path), table.schema, compression="snappy")
            writer.write_table(table, row_group_size=row_group)
    finally:
        if writer is not None:
            writer.close()
    return Path(path).stat().st_size


def _coded(values: NDArray[np.object_], codes: NDArray[np.integer[Any]]) -> pa.DictionaryArray:
    """A text column as Arrow dictionary codes into ``values`` (Parquet stores it dictionary-encoded)."""
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), pa.array(values, type=pa.string()))
